/* The plan as one JSON object: the content --dry-run prints as text
 * (plan_print.c), as typed values a program reads without parsing the
 * text (--dry-run with --log-format json). */
#include "config.h"

#include "runtime/plan.h"
#include "runtime/launch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cjson/cJSON.h>

#include "oci/cleanup.h"
#include "runtime/cgroup/devices.h"
#include "runtime/network.h"

/* A string member, or null for NULL. */
static cJSON *string_or_null(const char *text)
{
  return text != NULL ? cJSON_CreateString(text) : cJSON_CreateNull();
}

static cJSON *namespaces_json(const struct spec *spec)
{
  cJSON *list = cJSON_CreateArray();

  for (int ns = 0; list != NULL && ns < SPEC_NS_COUNT; ns++) {
    cJSON *entry;

    if (!spec->namespaces[ns].present)
      continue;
    entry = cJSON_CreateObject();
    cJSON_AddItemToArray(list, entry);
    cJSON_AddStringToObject(entry, "type", spec_namespace_name(ns));
    if (spec->namespaces[ns].path != NULL)
      cJSON_AddStringToObject(entry, "path", spec->namespaces[ns].path);
  }
  return list;
}

static cJSON *ranges_json(const struct id_range *ranges, size_t n)
{
  cJSON *list = cJSON_CreateArray();

  for (size_t i = 0; list != NULL && i < n; i++) {
    cJSON *range = cJSON_CreateObject();

    cJSON_AddItemToArray(list, range);
    cJSON_AddNumberToObject(range, "inside", ranges[i].inside);
    cJSON_AddNumberToObject(range, "outside", ranges[i].outside);
    cJSON_AddNumberToObject(range, "count", ranges[i].count);
  }
  return list;
}

/* null without a new user namespace. */
static cJSON *user_namespace_json(const struct launch *launch)
{
  cJSON *object;

  if (!launch->new_user_ns)
    return cJSON_CreateNull();
  object = cJSON_CreateObject();
  cJSON_AddItemToObject(object, "uid", ranges_json(launch->map.uid, launch->map.n_ranges));
  cJSON_AddItemToObject(object, "gid", ranges_json(launch->map.gid, launch->map.n_gid_ranges));
  cJSON_AddBoolToObject(object, "setgroups", !launch->map.self_only);
  return object;
}

/* The ATTRS column as a list of names ("-": none). */
static cJSON *attrs_json(const struct mount_op *op)
{
  char attrs[128];
  cJSON *list = cJSON_CreateArray();

  mount_op_format_attrs(op, attrs, sizeof(attrs));
  if (strcmp(attrs, "-") == 0)
    return list;
  for (char *next = attrs, *name; list != NULL && (name = strsep(&next, ",")) != NULL;)
    cJSON_AddItemToArray(list, cJSON_CreateString(name));
  return list;
}

static cJSON *mounts_json(const struct mount_plan *plan)
{
  cJSON *list = cJSON_CreateArray();

  for (size_t i = 0; list != NULL && i < plan->n_ops; i++) {
    const struct mount_op *op = &plan->ops[i];
    cJSON *entry = cJSON_CreateObject();

    cJSON_AddItemToArray(list, entry);
    cJSON_AddStringToObject(entry, "kind", mount_op_kind_name(op->kind));
    cJSON_AddStringToObject(entry, "target", op->target);
    cJSON_AddItemToObject(entry, "source", string_or_null(op->source));
    cJSON_AddItemToObject(entry, "attrs", attrs_json(op));
    cJSON_AddItemToObject(entry, "fstype",
                          string_or_null(op->kind == MOUNT_OP_FILESYSTEM ? op->fstype : NULL));
    cJSON_AddItemToObject(entry, "data", string_or_null(op->data));
  }
  return list;
}

/* null with --unsafe-no-cgroup (no slice). */
static cJSON *cgroup_json(const struct slice_plan *slice)
{
  cJSON *object, *limits;

  if (slice->path == NULL)
    return cJSON_CreateNull();
  object = cJSON_CreateObject();
  cJSON_AddStringToObject(object, "slice", slice->path);
  limits = cJSON_AddArrayToObject(object, "files");
  for (size_t i = 0; limits != NULL && i < slice->limits.n; i++) {
    cJSON *pair = cJSON_CreateObject();

    cJSON_AddItemToArray(limits, pair);
    cJSON_AddStringToObject(pair, "file", slice->limits.items[i].file);
    cJSON_AddStringToObject(pair, "value", slice->limits.items[i].value);
  }
  return object;
}

/* A device number, null for any. */
static cJSON *device_number(int64_t number)
{
  return number < 0 ? cJSON_CreateNull() : cJSON_CreateNumber((double)number);
}

/* {"program": false, "without": why} when no device program is attached
 * (no slice, or rootless), else the rules in order; everything else is
 * denied. */
static cJSON *devices_json(const struct runtime_plan *plan)
{
  const struct slice_plan *slice = &plan->slice;
  cJSON *object = cJSON_CreateObject(), *rules;

  if (slice->path == NULL || plan->options.rootless) {
    cJSON_AddBoolToObject(object, "program", false);
    cJSON_AddStringToObject(object, "without",
                            slice->path == NULL ? "--unsafe-no-cgroup" : "rootless");
    return object;
  }
  cJSON_AddBoolToObject(object, "program", true);
  rules = cJSON_AddArrayToObject(object, "rules");
  for (size_t i = 0; rules != NULL && i < slice->n_rules; i++) {
    const struct spec_device_rule *rule = &slice->rules[i];
    cJSON *entry = cJSON_CreateObject();

    cJSON_AddItemToArray(rules, entry);
    cJSON_AddBoolToObject(entry, "allow", rule->allow);
    cJSON_AddStringToObject(entry, "type", (char[]){rule->type, '\0'});
    cJSON_AddItemToObject(entry, "major", device_number(rule->major));
    cJSON_AddItemToObject(entry, "minor", device_number(rule->minor));
    cJSON_AddStringToObject(entry, "access", rule->access);
    cJSON_AddStringToObject(entry, "name", cgroup_device_name(rule));
  }
  return object;
}

static cJSON *capability_names(uint64_t mask)
{
  cJSON *list = cJSON_CreateArray();

  for (int cap = 0; list != NULL && cap < 64; cap++) {
    if ((mask & (UINT64_C(1) << cap)) != 0 && capability_name(cap) != NULL)
      cJSON_AddItemToArray(list, cJSON_CreateString(capability_name(cap)));
  }
  return list;
}

static cJSON *capabilities_json(const struct capability_sets *caps)
{
  cJSON *object = cJSON_CreateObject();

  cJSON_AddItemToObject(object, "bounding", capability_names(caps->bounding));
  cJSON_AddItemToObject(object, "effective", capability_names(caps->effective));
  cJSON_AddItemToObject(object, "permitted", capability_names(caps->permitted));
  cJSON_AddItemToObject(object, "inheritable", capability_names(caps->inheritable));
  cJSON_AddItemToObject(object, "ambient", capability_names(caps->ambient));
  return object;
}

static cJSON *user_json(const struct launch *launch)
{
  const struct spec_process *process = &launch->spec->process;
  cJSON *object = cJSON_CreateObject(), *groups;

  cJSON_AddNumberToObject(object, "uid", process->uid);
  cJSON_AddNumberToObject(object, "gid", process->gid);
  groups = cJSON_AddArrayToObject(object, "groups");
  for (size_t i = 0; groups != NULL && i < launch->n_groups; i++)
    cJSON_AddItemToArray(groups, cJSON_CreateNumber(launch->groups[i]));
  return object;
}

/* A limit, null for RLIM_INFINITY (unlimited). */
static cJSON *rlimit_value(uint64_t value)
{
  return value == (uint64_t)RLIM_INFINITY ? cJSON_CreateNull() : cJSON_CreateNumber((double)value);
}

static cJSON *rlimits_json(const struct spec_process *process)
{
  cJSON *list = cJSON_CreateArray();

  for (size_t i = 0; list != NULL && i < process->n_rlimits; i++) {
    cJSON *entry = cJSON_CreateObject();

    cJSON_AddItemToArray(list, entry);
    cJSON_AddNumberToObject(entry, "resource", process->rlimits[i].resource);
    cJSON_AddItemToObject(entry, "soft", rlimit_value(process->rlimits[i].soft));
    cJSON_AddItemToObject(entry, "hard", rlimit_value(process->rlimits[i].hard));
  }
  return list;
}

/* process.scheduler, process.ioPriority, linux.personality and
 * linux.memoryPolicy: each null when the configuration leaves it to the
 * caller (what the text's "(the caller's...)" lines say). */
static void process_attrs_json(const struct spec *spec, cJSON *object)
{
  const struct spec_scheduler *scheduler = &spec->process.scheduler;
  const struct spec_io_priority *io = &spec->process.io_priority;
  const struct spec_memory_policy *policy = &spec->memory_policy;
  cJSON *item = cJSON_CreateNull(), *nodes;

  if (scheduler->set) {
    cJSON_Delete(item);
    item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "policy",
                            spec_attr_name(SPEC_NAMES_SCHEDULER_POLICY, scheduler->policy));
    cJSON_AddNumberToObject(item, "nice", scheduler->nice);
    cJSON_AddNumberToObject(item, "flags", (double)scheduler->flags);
  }
  cJSON_AddItemToObject(object, "scheduler", item);
  item = cJSON_CreateNull();
  if (io->set) {
    cJSON_Delete(item);
    item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "class", spec_attr_name(SPEC_NAMES_IO_CLASS, io->io_class));
    cJSON_AddNumberToObject(item, "level", io->level);
  }
  cJSON_AddItemToObject(object, "io_priority", item);
  cJSON_AddItemToObject(
      object, "personality",
      string_or_null(spec->personality_set
                         ? spec_attr_name(SPEC_NAMES_PERSONALITY, spec->personality)
                         : NULL));
  item = cJSON_CreateNull();
  if (policy->set) {
    cJSON_Delete(item);
    item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "mode",
                            spec_attr_name(SPEC_NAMES_MEMORY_POLICY_MODE, policy->mode));
    nodes = cJSON_AddArrayToObject(item, "nodes");
    for (unsigned node = 0; nodes != NULL && node < policy->max_node; node++) {
      if (policy->nodes[node / (8 * sizeof(unsigned long))] &
          (1UL << (node % (8 * sizeof(unsigned long)))))
        cJSON_AddItemToArray(nodes, cJSON_CreateNumber(node));
    }
    cJSON_AddNumberToObject(item, "flags", (double)policy->flags);
  }
  cJSON_AddItemToObject(object, "memory_policy", item);
}

static cJSON *sysctl_json(const struct spec *spec)
{
  cJSON *object = cJSON_CreateObject();

  for (size_t i = 0; object != NULL && i < spec->n_sysctl; i++)
    cJSON_AddStringToObject(object, spec->sysctl[i].key, spec->sysctl[i].value);
  return object;
}

static cJSON *seccomp_json(const struct runtime_plan *plan)
{
  cJSON *object = cJSON_CreateObject();
  size_t groups;

  cJSON_AddStringToObject(object, "origin", runtime_plan_seccomp_origin(plan));
  cJSON_AddItemToObject(object, "rule_groups",
                        runtime_plan_seccomp_groups(plan, &groups)
                            ? cJSON_CreateNumber((double)groups)
                            : cJSON_CreateNull());
  return object;
}

static cJSON *string_list(char *const *strings)
{
  cJSON *list = cJSON_CreateArray();

  for (char *const *s = strings; list != NULL && s != NULL && *s != NULL; s++)
    cJSON_AddItemToArray(list, cJSON_CreateString(*s));
  return list;
}

/* process.env as {name, value} pairs, in order (value null for an entry
 * without '='). */
static cJSON *env_json(char *const *envp)
{
  cJSON *list = cJSON_CreateArray();

  for (char *const *e = envp; list != NULL && *e != NULL; e++) {
    const char *equals = strchr(*e, '=');
    cleanup_free char *name = strndup(*e, equals != NULL ? (size_t)(equals - *e) : strlen(*e));
    cJSON *entry = cJSON_CreateObject();

    cJSON_AddItemToArray(list, entry);
    cJSON_AddItemToObject(entry, "name", string_or_null(name));
    cJSON_AddItemToObject(entry, "value", string_or_null(equals != NULL ? equals + 1 : NULL));
  }
  return list;
}

/* The run's network: {"mode", "text", "pasta_options"} (runtime/network.h;
 * pasta_options null without pasta). */
static cJSON *network_json(const struct runtime_plan *plan)
{
  const char *const *options = plan->options.pasta_options;
  cJSON *object = cJSON_CreateObject();

  cJSON_AddStringToObject(object, "mode", network_plan_mode(plan->launch.spec, options != NULL));
  cJSON_AddStringToObject(object, "text", network_plan_text(plan->launch.spec, options != NULL));
  cJSON_AddItemToObject(object, "pasta_options",
                        options != NULL ? string_list((char *const *)options) : cJSON_CreateNull());
  return object;
}

/* Without memory a cJSON_Add* call fails quietly: the top level is
 * counted, so a member that could not be made fails the whole (an entry
 * lost deeper down is not seen). */
static bool complete(const cJSON *object, size_t members)
{
  return object != NULL && (size_t)cJSON_GetArraySize(object) == members;
}

cJSON *runtime_plan_json(const struct runtime_plan *plan)
{
  const struct launch *launch = &plan->launch;
  const struct spec *spec = launch->spec;
  const struct spec_process *process = &spec->process;
  cJSON *object = cJSON_CreateObject();

  if (object == NULL)
    return NULL;
  cJSON_AddStringToObject(object, "id", plan->options.id);
  cJSON_AddStringToObject(object, "mode", plan->mode == RUNTIME_PLAN_RUN ? "run" : "create");
  cJSON_AddItemToObject(object, "namespaces", namespaces_json(spec));
  cJSON_AddNumberToObject(object, "clone_flags", (double)launch->clone_flags);
  cJSON_AddItemToObject(object, "network", network_json(plan));
  cJSON_AddItemToObject(object, "hostname", string_or_null(spec->hostname));
  cJSON_AddItemToObject(object, "user_namespace", user_namespace_json(launch));
  cJSON_AddStringToObject(object, "root", launch->root.root_path);
  cJSON_AddItemToObject(object, "mounts", mounts_json(&launch->plan));
  cJSON_AddItemToObject(object, "layer", string_or_null(launch->plan.layer_note));
  cJSON_AddItemToObject(object, "cgroup", cgroup_json(&plan->slice));
  cJSON_AddItemToObject(object, "devices", devices_json(plan));
  cJSON_AddItemToObject(object, "capabilities", capabilities_json(&launch->caps));
  cJSON_AddBoolToObject(object, "no_new_privileges", process->no_new_privileges);
  cJSON_AddItemToObject(object, "user", user_json(launch));
  cJSON_AddItemToObject(object, "rlimits", rlimits_json(process));
  process_attrs_json(spec, object);
  cJSON_AddItemToObject(object, "sysctl", sysctl_json(spec));
  cJSON_AddItemToObject(object, "seccomp", seccomp_json(plan));
  cJSON_AddStringToObject(object, "workdir", process->cwd);
  cJSON_AddItemToObject(object, "argv", string_list(process->args));
  cJSON_AddItemToObject(object, "env", env_json(launch->envp));
  cJSON_AddItemToObject(object, "timeout_seconds",
                        launch->supervised && plan->options.timeout_seconds > 0
                            ? cJSON_CreateNumber(plan->options.timeout_seconds)
                            : cJSON_CreateNull());
  /* docker's --stop-signal/--stop-timeout: only when given */
  bool stop = launch->supervised && plan->options.timeout_seconds > 0 && plan->options.stop_signal;
  if (stop) {
    cJSON *at_deadline = cJSON_AddObjectToObject(object, "at_deadline");

    if (cJSON_AddNumberToObject(at_deadline, "stop_signal", plan->options.stop_signal) == NULL ||
        cJSON_AddNumberToObject(at_deadline, "kill_after_seconds",
                                plan->options.stop_timeout_seconds) == NULL) {
      cJSON_Delete(object);
      return NULL;
    }
  }
  if (!complete(object, stop ? 27 : 26)) {
    cJSON_Delete(object);
    return NULL;
  }
  return object;
}
