/* Unit tests of the plan as a value (src/runtime/plan.c, plan_json.c,
 * plan_print.c): a configuration built into one plan, whose JSON form holds
 * the same content as the --dry-run text, as typed values; a change in the
 * configuration shows in both forms. */
#include "config.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <stdlib.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "oci/cleanup.h"
#include "runtime/plan.h"
#include "unit.h"

/* A configuration, ' for ", with its memory.limit left to fill in. */
#define CONFIG_TEXT                                                                                \
  "{'ociVersion': '1.2.0', 'root': {'path': 'rootfs'}, 'hostname': 'planned',"                     \
  " 'process': {'args': ['echo', 'hi'], 'cwd': '/work', 'env': ['PATH=/bin', 'A=b=c'],"            \
  "  'user': {'uid': 1000, 'gid': 100, 'additionalGids': [5]}, 'noNewPrivileges': true,"           \
  "  'capabilities': {'bounding': ['CAP_CHOWN', 'CAP_NET_RAW'], 'effective': ['CAP_CHOWN']},"      \
  "  'rlimits': [{'type': 'RLIMIT_NOFILE', 'soft': 1024, 'hard': 4096}],"                          \
  "  'scheduler': {'policy': 'SCHED_BATCH', 'nice': 5}},"                                          \
  " 'mounts': [{'destination': '/proc', 'type': 'proc', 'source': 'proc'},"                        \
  "  {'destination': '/tmp', 'type': 'tmpfs', 'source': 'tmpfs',"                                  \
  "   'options': ['nosuid', 'nodev', 'size=1m']}],"                                                \
  " 'linux': {'namespaces': [{'type': 'mount'}, {'type': 'pid'}],"                                 \
  "  'cgroupsPath': '/planned/slice',"                                                             \
  "  'resources': {'memory': {'limit': %s}, 'devices': [{'allow': false, 'access': 'rwm'}]}}}"

/* The plan of config_text with memory.limit memory, or NULL. */
static struct runtime_plan *plan_of(const char *memory, struct spec *spec,
                                    const struct runtime_options *options)
{
  char json[4096];
  cJSON *config;
  struct runtime_plan *plan = NULL;
  oci_error_t err = NULL;
  int ret;

  snprintf(json, sizeof(json), CONFIG_TEXT, memory);
  for (char *p = json; *p != '\0'; p++)
    if (*p == '\'')
      *p = '"';
  config = cJSON_Parse(json);
  ret = spec_parse(config, spec, &err);
  cJSON_Delete(config);
  if (ret == 0)
    ret = runtime_plan_build(spec, options, RUNTIME_PLAN_CREATE, &plan, &err);
  if (ret < 0)
    printf("# %s\n", err != NULL ? err->message : "(no message)");
  oci_error_free(&err);
  return plan;
}

/* The text form, as --dry-run prints it. */
static char *text_of(const struct runtime_plan *plan)
{
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&text, &size);

  if (out == NULL)
    return NULL;
  runtime_plan_print(plan, out);
  fclose(out);
  return text;
}

static const cJSON *member(const cJSON *object, const char *name)
{
  return cJSON_GetObjectItemCaseSensitive(object, name);
}

static const char *string_at(const cJSON *object, const char *name)
{
  const cJSON *item = member(object, name);

  return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* The list's strings joined by ' ' ("" when empty; "(not a list)"). */
static const char *joined(const cJSON *list)
{
  static char text[1024];
  size_t used = 0;
  const cJSON *item;

  if (!cJSON_IsArray(list))
    return "(not a list)";
  text[0] = '\0';
  cJSON_ArrayForEach(item, list)
  {
    used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s", used > 0 ? " " : "",
                             cJSON_IsString(item) ? item->valuestring : "?");
  }
  return text;
}

/* The first entry of list whose key is value. */
static const cJSON *find(const cJSON *list, const char *key, const char *value)
{
  const cJSON *item;

  cJSON_ArrayForEach(item, list)
  {
    const char *got = string_at(item, key);

    if (got != NULL && strcmp(got, value) == 0)
      return item;
  }
  return NULL;
}

static void check_plan(const cJSON *json, const char *text)
{
  const cJSON *mounts = member(json, "mounts"), *proc = find(mounts, "target", "/proc");
  const cJSON *tmp = find(mounts, "target", "/tmp"), *cgroup = member(json, "cgroup");
  const cJSON *memory = find(member(cgroup, "files"), "file", "memory.max");
  const cJSON *devices = member(json, "devices"), *rules = member(devices, "rules");
  const cJSON *caps = member(json, "capabilities"), *env = member(json, "env");
  const cJSON *rlimit = cJSON_GetArrayItem(member(json, "rlimits"), 0);
  const cJSON *user = member(json, "user"), *seccomp = member(json, "seccomp");
  const cJSON *a_pair = find(env, "name", "A");
  const cJSON *first_rule = cJSON_GetArrayItem(rules, 0);

  is_str(string_at(json, "id"), "planned", "the plan names the container");
  is_str(string_at(json, "mode"), "create", "and what it is for");
  ok(find(member(json, "namespaces"), "type", "pid") != NULL &&
         find(member(json, "namespaces"), "type", "mount") != NULL &&
         find(member(json, "namespaces"), "type", "network") == NULL,
     "namespaces: the configuration's, as objects");
  ok(cJSON_IsNumber(member(json, "clone_flags")) &&
         (unsigned long)member(json, "clone_flags")->valuedouble == (CLONE_NEWNS | CLONE_NEWPID),
     "clone_flags are the new namespaces' flags");
  is_str(string_at(json, "hostname"), "planned", "hostname");
  ok(cJSON_IsNull(member(json, "user_namespace")), "no user namespace: null");
  is_str(string_at(json, "root"), "/planned-root", "the root tree");
  is_str(string_at(proc, "kind"), "mount", "/proc is a mount op");
  is_str(string_at(proc, "fstype"), "proc", "of type proc");
  ok(strstr(text, "type=proc") != NULL, "the text shows the same type");
  is_str(joined(member(tmp, "attrs")), "nosuid nodev", "/tmp's attributes as a list of names");
  is_str(string_at(tmp, "data"), "size=1m", "and its data");
  is_str(string_at(cgroup, "slice"), "/sys/fs/cgroup/planned/slice", "the slice's path");
  ok(strstr(text, "slice: /sys/fs/cgroup/planned/slice\n") != NULL, "the text's slice");
  is_str(string_at(memory, "value"), "1048576", "memory.max as a {file, value} pair");
  ok(strstr(text, "  memory.max: 1048576\n") != NULL, "the text's memory.max line");
  ok(cJSON_IsTrue(member(devices, "program")), "a device program");
  ok(cJSON_IsFalse(member(first_rule, "allow")) && cJSON_IsNull(member(first_rule, "major")) &&
         cJSON_IsNull(member(first_rule, "minor")),
     "the configuration's rule first, any number as null");
  is_str(string_at(first_rule, "access"), "rwm", "with its access");
  ok(find(rules, "name", "/dev/null") != NULL, "the default devices follow, named");
  ok(strstr(text, "/dev/null") != NULL, "as in the text");
  is_str(joined(member(caps, "bounding")), "CHOWN NET_RAW", "bounding as a list of names");
  ok(strstr(text, "bounding     CHOWN NET_RAW\n") != NULL, "the text's bounding line");
  is_str(joined(member(caps, "effective")), "CHOWN", "effective");
  is_str(joined(member(caps, "ambient")), "", "an empty set is an empty list");
  ok(cJSON_IsTrue(member(json, "no_new_privileges")), "no_new_privileges");
  ok(cJSON_IsNumber(member(user, "uid")) && member(user, "uid")->valuedouble == 1000 &&
         member(user, "gid")->valuedouble == 100 && cJSON_GetArraySize(member(user, "groups")) == 1,
     "user: uid, gid, groups");
  ok(rlimit != NULL && member(rlimit, "resource")->valuedouble == 7 &&
         member(rlimit, "soft")->valuedouble == 1024 && member(rlimit, "hard")->valuedouble == 4096,
     "rlimits: resource, soft, hard");
  ok(strstr(text, "rlimits: 7=1024/4096\n") != NULL, "the text's rlimits");
  is_str(string_at(member(json, "scheduler"), "policy"), "SCHED_BATCH",
         "process.scheduler's policy");
  ok(cJSON_IsNumber(member(member(json, "scheduler"), "nice")) &&
         member(member(json, "scheduler"), "nice")->valuedouble == 5,
     "and its nice value");
  ok(strstr(text, "scheduler: SCHED_BATCH nice 5 flags 0\n") != NULL, "the text's scheduler line");
  ok(cJSON_IsNull(member(json, "io_priority")) && cJSON_IsNull(member(json, "personality")) &&
         cJSON_IsNull(member(json, "memory_policy")),
     "the attributes left to the caller are null");
  is_str(string_at(seccomp, "origin"), "unconfined", "seccomp: no profile, unconfined");
  ok(cJSON_IsNull(member(seccomp, "rule_groups")), "no rule groups: null");
  is_str(string_at(json, "workdir"), "/work", "workdir");
  is_str(joined(member(json, "argv")), "echo hi", "argv");
  is_str(string_at(find(env, "name", "PATH"), "value"), "/bin", "env: PATH's value");
  is_str(string_at(a_pair, "value"), "b=c", "a value is what follows the first '='");
  ok(strstr(text, "  A=b=c\n") != NULL, "the text's env line");
}

int main(void)
{
  struct spec spec = {0}, other_spec = {0};
  cleanup_close int root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct runtime_options options = {.id = "planned",
                                    .root = {.root_fd = root_fd, .root_path = "/planned-root"}};
  cleanup_runtime_plan struct runtime_plan *plan = plan_of("1048576", &spec, &options);
  cleanup_runtime_plan struct runtime_plan *other = NULL;
  cJSON *json = plan != NULL ? runtime_plan_json(plan) : NULL;
  cJSON *other_json = NULL;
  cleanup_free char *text = plan != NULL ? text_of(plan) : NULL;
  cleanup_free char *other_text = NULL;
  cleanup_free char *printed = json != NULL ? cJSON_PrintUnformatted(json) : NULL;
  cJSON *parsed = printed != NULL ? cJSON_Parse(printed) : NULL;

  ok(plan != NULL, "the configuration is built into a plan");
  ok(json != NULL && text != NULL, "with a JSON form and a text form");
  if (json == NULL || text == NULL)
    return 1;
  ok(cJSON_IsObject(parsed) && cJSON_Compare(parsed, json, true),
     "the JSON form prints as one object that reads back the same");
  check_plan(json, text);

  /* A plan is carried out only by the verb it was made for. */
  {
    struct run_io io = {.stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1};
    struct run_result result;
    oci_error_t err = NULL;

    is_int(runtime_run(plan, &io, &result, &err), -1, "runtime_run refuses a plan made for create");
    ok(err != NULL && strstr(err->message, "not made for ocirun run") != NULL, "and says why (%s)",
       err != NULL ? err->message : "no message");
    oci_error_free(&err);
  }

  /* The checks above can fail: another memory limit shows in both forms. */
  other = plan_of("2097152", &other_spec, &options);
  other_json = other != NULL ? runtime_plan_json(other) : NULL;
  other_text = other != NULL ? text_of(other) : NULL;
  ok(other_json != NULL && !cJSON_Compare(other_json, json, true),
     "another memory limit changes the JSON form");
  is_str(
      string_at(find(member(member(other_json, "cgroup"), "files"), "file", "memory.max"), "value"),
      "2097152", "to the new memory.max");
  ok(other_text != NULL && strstr(other_text, "  memory.max: 2097152\n") != NULL &&
         strstr(other_text, "memory.max: 1048576") == NULL,
     "and the text form");

  cJSON_Delete(other_json);
  runtime_plan_clear(&other);
  spec_clear(&other_spec);
  /* Without a slice: no cgroup, no device program, and why. */
  options.unsafe_no_cgroup = true;
  other = plan_of("1048576", &other_spec, &options);
  other_json = other != NULL ? runtime_plan_json(other) : NULL;
  ok(other_json != NULL && cJSON_IsNull(member(other_json, "cgroup")),
     "--unsafe-no-cgroup: cgroup is null");
  ok(cJSON_IsFalse(member(member(other_json, "devices"), "program")), "no device program");
  is_str(string_at(member(other_json, "devices"), "without"), "--unsafe-no-cgroup", "and why");

  runtime_plan_clear(&plan);
  ok(plan == NULL, "runtime_plan_clear frees the plan and clears the pointer");
  runtime_plan_clear(&other);
  cJSON_Delete(other_json);
  cJSON_Delete(parsed);
  cJSON_Delete(json);
  spec_clear(&spec);
  spec_clear(&other_spec);
  return unit_done();
}
