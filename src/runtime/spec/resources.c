/* linux.resources: the cgroup limits (memory, cpu, pids), the device
 * cgroup's rules and the unified cgroup v2 files, each checked. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/cleanup.h"
#include "runtime/spec/parse.h"

static const struct spec_unsupported resources_unsupported[] = {
    {"blockIO", REFUSE_NONEMPTY, "I/O limits are not implemented"},
    {"hugepageLimits", REFUSE_NONEMPTY, "huge page limits are not implemented"},
    {"network", REFUSE_NONEMPTY, "net_cls and net_prio are cgroup v1 only"},
    {"rdma", REFUSE_NONEMPTY, "RDMA limits are not implemented"},
};

static const struct spec_unsupported memory_unsupported[] = {
    {"kernel", REFUSE_PRESENT, "kernel memory limits are cgroup v1 only"},
    {"kernelTCP", REFUSE_PRESENT, "kernel TCP memory limits are cgroup v1 only"},
    {"swappiness", REFUSE_PRESENT, "swappiness is cgroup v1 only"},
    {"disableOOMKiller", REFUSE_TRUE, "the OOM killer cannot be disabled on cgroup v2"},
    {"useHierarchy", REFUSE_PRESENT, "a cgroup v1 setting"},
    {"checkBeforeUpdate", REFUSE_TRUE, "checking usage before an update is not implemented"},
};

static const struct spec_unsupported cpu_unsupported[] = {
    {"realtimeRuntime", REFUSE_PRESENT, "real-time CPU limits are cgroup v1 only"},
    {"realtimePeriod", REFUSE_PRESENT, "real-time CPU limits are cgroup v1 only"},
    {"idle", REFUSE_NONZERO, "cpu.idle is not implemented"},
    {"burst", REFUSE_PRESENT, "cpu.max.burst is not implemented"},
};

/* --- linux.resources -------------------------------------------------------- */

/* A memory value: bytes, or -1 for unlimited (kept as INT64_MAX, so that
 * "unlimited" and "not given" stay apart for an update). */
static int get_memory_value(const cJSON *memory, const char *key, int64_t *out, oci_error_t *err)
{
  bool set;
  int64_t v;
  if (spec_get_i64(memory, "linux.resources.memory", key, -1, INT64_MAX, &v, &set, err) < 0)
    return -1;
  if (set)
    *out = v == -1 ? INT64_MAX : v;
  return 0;
}

static int parse_memory(const cJSON *resources, struct spec_resources *out, oci_error_t *err)
{
  const char *path = "linux.resources.memory";
  const cJSON *memory = spec_member(resources, "memory");

  if (memory == NULL)
    return 0;
  if (spec_expect_object(memory, path, err) < 0 ||
      SPEC_REFUSE_TABLE(memory, path, memory_unsupported, err) < 0 ||
      get_memory_value(memory, "limit", &out->memory_limit, err) < 0 ||
      get_memory_value(memory, "reservation", &out->memory_reservation, err) < 0 ||
      get_memory_value(memory, "swap", &out->memory_swap, err) < 0)
    return -1;
  /* swap is memory+swap: below the memory limit it cannot be applied */
  if (out->memory_swap >= 0 && out->memory_limit >= 0 && out->memory_swap < out->memory_limit)
    return spec_fail(err, "linux.resources.memory.swap",
                     "%" PRId64 " (memory+swap) is below the memory limit %" PRId64,
                     out->memory_swap, out->memory_limit);
  return 0;
}

/* "0-3,7": numbers and ranges, comma-separated. */
static int check_cpu_list(const char *list, const char *path, oci_error_t *err)
{
  const char *p = list;
  while (*p != '\0') {
    unsigned long first, last;
    char *end;
    if (*p < '0' || *p > '9')
      return spec_fail(err, path, "'%s' is not a list like 0-3,7", list);
    first = strtoul(p, &end, 10);
    last = first;
    if (*end == '-') {
      if (end[1] < '0' || end[1] > '9')
        return spec_fail(err, path, "'%s' is not a list like 0-3,7", list);
      last = strtoul(end + 1, &end, 10);
    }
    if (last < first || (*end != ',' && *end != '\0') || (*end == ',' && end[1] == '\0'))
      return spec_fail(err, path, "'%s' is not a list like 0-3,7", list);
    p = *end == ',' ? end + 1 : end;
  }
  return 0;
}

static int parse_cpu(const cJSON *resources, struct spec_resources *out, oci_error_t *err)
{
  const char *path = "linux.resources.cpu";
  const cJSON *cpu = spec_member(resources, "cpu");
  bool quota_set;
  int64_t quota;

  if (cpu == NULL)
    return 0;
  if (spec_expect_object(cpu, path, err) < 0 ||
      SPEC_REFUSE_TABLE(cpu, path, cpu_unsupported, err) < 0 ||
      spec_get_u64(cpu, path, "shares", UINT64_MAX, &out->cpu_shares, &out->cpu_shares_set, err) <
          0 ||
      spec_get_i64(cpu, path, "quota", -1, INT64_MAX, &quota, &quota_set, err) < 0 ||
      spec_get_u64(cpu, path, "period", UINT64_MAX, &out->cpu_period, NULL, err) < 0 ||
      spec_get_string(cpu, path, "cpus", false, &out->cpuset_cpus, err) < 0 ||
      spec_get_string(cpu, path, "mems", false, &out->cpuset_mems, err) < 0)
    return -1;
  if (quota_set)
    out->cpu_quota = quota;
  if (out->cpuset_cpus != NULL &&
      check_cpu_list(out->cpuset_cpus, "linux.resources.cpu.cpus", err) < 0)
    return -1;
  if (out->cpuset_mems != NULL &&
      check_cpu_list(out->cpuset_mems, "linux.resources.cpu.mems", err) < 0)
    return -1;
  /* "" is how a Go caller writes "not given" */
  if (out->cpuset_cpus != NULL && out->cpuset_cpus[0] == '\0')
    free(steal_pointer(&out->cpuset_cpus));
  if (out->cpuset_mems != NULL && out->cpuset_mems[0] == '\0')
    free(steal_pointer(&out->cpuset_mems));
  return 0;
}

static int parse_pids(const cJSON *resources, struct spec_resources *out, oci_error_t *err)
{
  const cJSON *pids = spec_member(resources, "pids"), *limit;
  int64_t v;

  if (pids == NULL)
    return 0;
  if (spec_expect_object(pids, "linux.resources.pids", err) < 0 ||
      spec_required(pids, "linux.resources.pids", "limit", &limit, err) < 0 ||
      spec_number_i64(limit, "linux.resources.pids.limit", INT64_MIN, INT64_MAX, &v, err) < 0)
    return -1;
  out->pids_limit = v > 0 ? v : 0; /* 0 or negative: unlimited */
  return 0;
}

static int parse_device_rule(const cJSON *item, const char *path, struct spec_device_rule *rule,
                             oci_error_t *err)
{
  char field_path[SPEC_PATH_MAX];
  cleanup_free char *type = NULL;
  cleanup_free char *access = NULL;
  const cJSON *allow;
  bool set;

  if (spec_expect_object(item, path, err) < 0 ||
      spec_required(item, path, "allow", &allow, err) < 0)
    return -1;
  if (!cJSON_IsBool(allow))
    return spec_fail(err, spec_join_key(field_path, path, "allow"), "expected a boolean, got %s",
                     spec_type_name(allow));
  rule->allow = cJSON_IsTrue(allow);
  if (spec_get_string(item, path, "type", false, &type, err) < 0)
    return -1;
  rule->type = type == NULL || type[0] == '\0' ? 'a' : type[0];
  if (type != NULL && type[0] != '\0' && (strlen(type) != 1 || strchr("acb", type[0]) == NULL))
    return spec_fail(err, spec_join_key(field_path, path, "type"), "'%s' is not one of a, c, b",
                     type);
  /* absent: any; -1 is taken as "any" too */
  if (spec_get_i64(item, path, "major", -1, UINT32_MAX, &rule->major, &set, err) < 0)
    return -1;
  if (!set)
    rule->major = -1;
  if (spec_get_i64(item, path, "minor", -1, UINT32_MAX, &rule->minor, &set, err) < 0)
    return -1;
  if (!set)
    rule->minor = -1;
  if (spec_get_string(item, path, "access", false, &access, err) < 0)
    return -1;
  /* absent or empty: every access, as the kernel's "a" alone means */
  if (access == NULL || access[0] == '\0') {
    strcpy(rule->access, "rwm");
    return 0;
  }
  {
    bool r = false, w = false, m = false;
    for (const char *c = access; *c != '\0'; c++) {
      bool *seen = *c == 'r' ? &r : *c == 'w' ? &w : *c == 'm' ? &m : NULL;
      if (seen == NULL || *seen)
        return spec_fail(err, spec_join_key(field_path, path, "access"),
                         "'%s' is not a combination of r, w and m", access);
      *seen = true;
    }
    snprintf(rule->access, sizeof(rule->access), "%s%s%s", r ? "r" : "", w ? "w" : "",
             m ? "m" : "");
  }
  return 0;
}

static int parse_device_rules(const cJSON *resources, struct spec_resources *out, oci_error_t *err)
{
  const cJSON *array = spec_member(resources, "devices"), *item;
  char path[SPEC_PATH_MAX];

  if (array == NULL)
    return 0;
  if (spec_expect_array(array, "linux.resources.devices", err) < 0)
    return -1;
  out->devices = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(*out->devices));
  if (out->devices == NULL)
    return spec_out_of_memory(err, "linux.resources.devices");
  cJSON_ArrayForEach(item, array)
  {
    if (parse_device_rule(item, spec_join_index(path, "linux.resources.devices", out->n_devices),
                          &out->devices[out->n_devices], err) < 0)
      return -1;
    out->n_devices++;
  }
  return 0;
}

/* A unified key names a file in the container's cgroup: one name, never a
 * path that could leave it. */
static int check_unified(const struct spec_resources *out, oci_error_t *err)
{
  char path[SPEC_PATH_MAX];
  for (size_t i = 0; i < out->n_unified; i++) {
    const char *key = out->unified[i].key;
    if (strchr(key, '/') != NULL || strcmp(key, ".") == 0 || strcmp(key, "..") == 0)
      return spec_fail(err, spec_join_key(path, "linux.resources.unified", key),
                       "not a cgroup file name");
  }
  return 0;
}

void spec_resources_init(struct spec_resources *resources)
{
  resources->memory_limit = resources->memory_reservation = resources->memory_swap = -1;
  resources->cpu_quota = -1;
  resources->pids_limit = -1;
}

int spec_parse_resources(const cJSON *linux_section, struct spec *spec, oci_error_t *err)
{
  const cJSON *resources = spec_member(linux_section, "resources");
  struct spec_resources *out = &spec->resources;

  if (resources == NULL)
    return 0;
  spec->has_resources = true;
  if (spec_expect_object(resources, "linux.resources", err) < 0 ||
      SPEC_REFUSE_TABLE(resources, "linux.resources", resources_unsupported, err) < 0 ||
      parse_memory(resources, out, err) < 0 || parse_cpu(resources, out, err) < 0 ||
      parse_pids(resources, out, err) < 0 || parse_device_rules(resources, out, err) < 0 ||
      spec_get_string_map(resources, "linux.resources", "unified", &out->unified, &out->n_unified,
                          err) < 0 ||
      check_unified(out, err) < 0)
    return -1;
  return 0;
}
