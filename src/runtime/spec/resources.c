/* linux.resources: the cgroup limits (memory, cpu, pids), the device
 * cgroup's rules and the unified cgroup v2 files, each checked; each
 * object a table of its members. */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/cleanup.h"
#include "runtime/spec/parse.h"

/* A memory value: bytes, or -1 for unlimited (kept as INT64_MAX, so that
 * "unlimited" and "not given" stay apart for an update). */
static int parse_memory_value(const cJSON *value, const char *path, void *bytes, oci_error_t *err)
{
  int64_t v;

  if (value == NULL)
    return 0;
  if (spec_number_i64(value, path, -1, INT64_MAX, &v, err) < 0)
    return -1;
  *(int64_t *)bytes = v == -1 ? INT64_MAX : v;
  return 0;
}

/* swap is memory+swap: below the memory limit it cannot be applied */
static int check_swap(const cJSON *memory, const char *path, void *resources, oci_error_t *err)
{
  const struct spec_resources *out = resources;
  char swap_path[SPEC_PATH_MAX];

  (void)memory;
  if (out->memory_swap >= 0 && out->memory_limit >= 0 && out->memory_swap < out->memory_limit)
    return spec_fail(err, spec_join_key(swap_path, path, "swap"),
                     "%" PRId64 " (memory+swap) is below the memory limit %" PRId64,
                     out->memory_swap, out->memory_limit);
  return 0;
}

static const struct spec_field memory_fields[] = {
    SPEC_REFUSED("kernel", REFUSE_PRESENT, "kernel memory limits are cgroup v1 only"),
    SPEC_REFUSED("kernelTCP", REFUSE_PRESENT, "kernel TCP memory limits are cgroup v1 only"),
    SPEC_REFUSED("swappiness", REFUSE_PRESENT, "swappiness is cgroup v1 only"),
    SPEC_REFUSED("disableOOMKiller", REFUSE_TRUE, "the OOM killer cannot be disabled on cgroup v2"),
    SPEC_REFUSED("useHierarchy", REFUSE_PRESENT, "a cgroup v1 setting"),
    SPEC_REFUSED("checkBeforeUpdate", REFUSE_TRUE,
                 "checking usage before an update is not implemented"),
    SPEC_FIELD("limit", parse_memory_value, struct spec_resources, memory_limit),
    SPEC_FIELD("reservation", parse_memory_value, struct spec_resources, memory_reservation),
    SPEC_FIELD("swap", parse_memory_value, struct spec_resources, memory_swap),
    SPEC_CHECK(check_swap),
};

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

/* 0 is "not given": dockerd writes {"shares": 0} for every container that
 * asks for no weight, and runc and crun leave the weight alone then. */
static int parse_cpu_shares(const cJSON *value, const char *path, void *resources, oci_error_t *err)
{
  struct spec_resources *out = resources;

  if (value == NULL)
    return 0;
  if (spec_number_u64(value, path, UINT64_MAX, &out->cpu_shares, err) < 0)
    return -1;
  out->cpu_shares_set = out->cpu_shares != 0;
  return 0;
}

/* microseconds; -1: unlimited, as when absent */
static int parse_cpu_quota(const cJSON *value, const char *path, void *quota, oci_error_t *err)
{
  return value == NULL ? 0 : spec_number_i64(value, path, -1, INT64_MAX, quota, err);
}

/* microseconds; 0 as when absent */
static int parse_cpu_period(const cJSON *value, const char *path, void *period, oci_error_t *err)
{
  return value == NULL ? 0 : spec_number_u64(value, path, UINT64_MAX, period, err);
}

/* 0 or 1, the values of cpu.idle (1: the cgroup is SCHED_IDLE) */
static int parse_cpu_idle(const cJSON *value, const char *path, void *resources, oci_error_t *err)
{
  struct spec_resources *out = resources;

  if (value == NULL)
    return 0;
  out->cpu_idle_set = true;
  return spec_number_i64(value, path, 0, 1, &out->cpu_idle, err);
}

/* microseconds of quota a period may carry over (cpu.max.burst) */
static int parse_cpu_burst(const cJSON *value, const char *path, void *resources, oci_error_t *err)
{
  struct spec_resources *out = resources;

  if (value == NULL)
    return 0;
  out->cpu_burst_set = true;
  return spec_number_u64(value, path, UINT64_MAX, &out->cpu_burst, err);
}

/* cpus and mems once both are read; "" is how a Go caller writes "not
 * given". */
static int check_cpu_lists(const cJSON *cpu, const char *path, void *resources, oci_error_t *err)
{
  struct spec_resources *out = resources;
  char list_path[SPEC_PATH_MAX];

  (void)cpu;
  if (out->cpuset_cpus != NULL &&
      check_cpu_list(out->cpuset_cpus, spec_join_key(list_path, path, "cpus"), err) < 0)
    return -1;
  if (out->cpuset_mems != NULL &&
      check_cpu_list(out->cpuset_mems, spec_join_key(list_path, path, "mems"), err) < 0)
    return -1;
  if (out->cpuset_cpus != NULL && out->cpuset_cpus[0] == '\0')
    free(steal_pointer(&out->cpuset_cpus));
  if (out->cpuset_mems != NULL && out->cpuset_mems[0] == '\0')
    free(steal_pointer(&out->cpuset_mems));
  return 0;
}

static const struct spec_field cpu_fields[] = {
    SPEC_REFUSED("realtimeRuntime", REFUSE_PRESENT, "real-time CPU limits are cgroup v1 only"),
    SPEC_REFUSED("realtimePeriod", REFUSE_PRESENT, "real-time CPU limits are cgroup v1 only"),
    SPEC_MEMBER("idle", parse_cpu_idle),
    SPEC_MEMBER("burst", parse_cpu_burst),
    SPEC_MEMBER("shares", parse_cpu_shares),
    SPEC_FIELD("quota", parse_cpu_quota, struct spec_resources, cpu_quota),
    SPEC_FIELD("period", parse_cpu_period, struct spec_resources, cpu_period),
    SPEC_FIELD("cpus", spec_field_string, struct spec_resources, cpuset_cpus),
    SPEC_FIELD("mems", spec_field_string, struct spec_resources, cpuset_mems),
    SPEC_CHECK(check_cpu_lists),
};

/* 0 or negative: unlimited, kept as 0 */
static int parse_pids_limit(const cJSON *value, const char *path, void *limit, oci_error_t *err)
{
  int64_t v;

  if (value == NULL)
    return spec_fail(err, path, "required");
  if (spec_number_i64(value, path, INT64_MIN, INT64_MAX, &v, err) < 0)
    return -1;
  *(int64_t *)limit = v > 0 ? v : 0;
  return 0;
}

static const struct spec_field pids_fields[] = {
    SPEC_FIELD("limit", parse_pids_limit, struct spec_resources, pids_limit),
};

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

static int parse_device_rules(const cJSON *array, const char *array_path, void *resources,
                              oci_error_t *err)
{
  struct spec_resources *out = resources;
  char path[SPEC_PATH_MAX];
  const cJSON *item;
  void *entries;
  int ret;

  if ((ret = spec_array_start(array, array_path, sizeof(*out->devices), &entries, err)) <= 0)
    return ret;
  out->devices = entries;
  cJSON_ArrayForEach(item, array)
  {
    if (parse_device_rule(item, spec_join_index(path, array_path, out->n_devices),
                          &out->devices[out->n_devices], err) < 0)
      return -1;
    out->n_devices++;
  }
  return 0;
}

/* A unified key names a file in the container's cgroup: one name, never a
 * path that could leave it. */
static int parse_unified(const cJSON *value, const char *map_path, void *resources,
                         oci_error_t *err)
{
  struct spec_resources *out = resources;
  char path[SPEC_PATH_MAX];

  if (spec_string_map(value, map_path, &out->unified, &out->n_unified, err) < 0)
    return -1;
  for (size_t i = 0; i < out->n_unified; i++) {
    const char *key = out->unified[i].key;
    if (strchr(key, '/') != NULL || strcmp(key, ".") == 0 || strcmp(key, "..") == 0)
      return spec_fail(err, spec_join_key(path, map_path, key), "not a cgroup file name");
  }
  return 0;
}

/* --- blockIO --- */

/* A block device's numbers as the kernel's dev_t holds them (12 and 20
 * bits); cgroup v2 names a device by them ("8:0"). */
#define BLOCK_MAJOR_MAX 4095u
#define BLOCK_MINOR_MAX 1048575u

static int parse_block_device(const cJSON *item, const char *path, struct spec_block_device *device,
                              oci_error_t *err)
{
  char field_path[SPEC_PATH_MAX];

  if (spec_expect_object(item, path, err) < 0 ||
      spec_get_u32(item, path, "major", true, &device->major, NULL, err) < 0 ||
      spec_get_u32(item, path, "minor", true, &device->minor, NULL, err) < 0)
    return -1;
  if (device->major > BLOCK_MAJOR_MAX)
    return spec_fail(err, spec_join_key(field_path, path, "major"),
                     "%u is not a device major number (0..%u)", device->major, BLOCK_MAJOR_MAX);
  if (device->minor > BLOCK_MINOR_MAX)
    return spec_fail(err, spec_join_key(field_path, path, "minor"),
                     "%u is not a device minor number (0..%u)", device->minor, BLOCK_MINOR_MAX);
  return 0;
}

/* Each list names a device at most once (a second line for it would
 * silently replace the first): entry n of items (each `size` bytes, a
 * struct spec_block_device first) against those before it. */
static int check_device_once(const void *items, size_t size, size_t n, const char *path,
                             oci_error_t *err)
{
  const struct spec_block_device *entry = (const void *)((const char *)items + n * size);

  for (size_t i = 0; i < n; i++) {
    const struct spec_block_device *earlier = (const void *)((const char *)items + i * size);
    if (earlier->major == entry->major && earlier->minor == entry->minor)
      return spec_fail(err, path, "device %u:%u is given twice (first at [%zu])", entry->major,
                       entry->minor, i);
  }
  return 0;
}

/* A blkio weight, 10..1000 (cgroup v1's range, BFQ's too); 0 is "not
 * given" where zero_is_unset. */
static int parse_blkio_weight(const cJSON *value, const char *path, bool zero_is_unset,
                              uint16_t *weight, oci_error_t *err)
{
  uint64_t v;

  if (spec_number_u64(value, path, UINT16_MAX, &v, err) < 0)
    return -1;
  if ((v < 10 && !(v == 0 && zero_is_unset)) || v > 1000)
    return spec_fail(err, path, "%" PRIu64 " is outside 10..1000%s", v,
                     zero_is_unset ? " (0: not given)" : "");
  *weight = (uint16_t)v;
  return 0;
}

static int parse_weight(const cJSON *value, const char *path, void *weight, oci_error_t *err)
{
  return value == NULL ? 0 : parse_blkio_weight(value, path, true, weight, err);
}

#define LEAF_WEIGHT_WHY "cgroup v2 has no leaf weight: it was CFQ's, on cgroup v1"

static int parse_weight_device(const cJSON *item, const char *path,
                               struct spec_blkio_weight_device *device, oci_error_t *err)
{
  char field_path[SPEC_PATH_MAX];
  const cJSON *weight, *leaf;

  if (parse_block_device(item, path, &device->device, err) < 0)
    return -1;
  leaf = spec_member(item, "leafWeight");
  if (leaf != NULL && !(cJSON_IsNumber(leaf) && leaf->valuedouble == 0))
    return spec_fail(err, spec_join_key(field_path, path, "leafWeight"),
                     "is not supported by ocirun (" LEAF_WEIGHT_WHY ")");
  weight = spec_member(item, "weight");
  if (weight != NULL && parse_blkio_weight(weight, spec_join_key(field_path, path, "weight"), false,
                                           &device->weight, err) < 0)
    return -1;
  return 0;
}

static int parse_weight_devices(const cJSON *array, const char *array_path, void *resources,
                                oci_error_t *err)
{
  struct spec_resources *out = resources;
  char path[SPEC_PATH_MAX];
  const cJSON *item;
  void *entries;
  int ret;

  if ((ret = spec_array_start(array, array_path, sizeof(*out->blkio_weight_devices), &entries,
                              err)) <= 0)
    return ret;
  out->blkio_weight_devices = entries;
  cJSON_ArrayForEach(item, array)
  {
    spec_join_index(path, array_path, out->n_blkio_weight_devices);
    if (parse_weight_device(item, path, &out->blkio_weight_devices[out->n_blkio_weight_devices],
                            err) < 0 ||
        check_device_once(out->blkio_weight_devices, sizeof(*out->blkio_weight_devices),
                          out->n_blkio_weight_devices, path, err) < 0)
      return -1;
    out->n_blkio_weight_devices++;
  }
  return 0;
}

/* throttle{Read,Write}{Bps,IOPS}Device: [{major, minor, rate}] */
static int parse_throttles(const cJSON *array, const char *array_path, void *throttles,
                           oci_error_t *err)
{
  struct spec_blkio_throttles *out = throttles;
  char path[SPEC_PATH_MAX], rate_path[SPEC_PATH_MAX];
  const cJSON *item, *rate;
  void *entries;
  int ret;

  if ((ret = spec_array_start(array, array_path, sizeof(*out->items), &entries, err)) <= 0)
    return ret;
  out->items = entries;
  cJSON_ArrayForEach(item, array)
  {
    struct spec_blkio_throttle *throttle = &out->items[out->n];

    spec_join_index(path, array_path, out->n);
    if (parse_block_device(item, path, &throttle->device, err) < 0 ||
        spec_required(item, path, "rate", &rate, err) < 0 ||
        spec_number_u64(rate, spec_join_key(rate_path, path, "rate"), UINT64_MAX, &throttle->rate,
                        err) < 0 ||
        check_device_once(out->items, sizeof(*out->items), out->n, path, err) < 0)
      return -1;
    out->n++;
  }
  return 0;
}

static const struct spec_field blkio_fields[] = {
    SPEC_REFUSED("leafWeight", REFUSE_NONZERO, LEAF_WEIGHT_WHY),
    SPEC_FIELD("weight", parse_weight, struct spec_resources, blkio_weight),
    SPEC_MEMBER("weightDevice", parse_weight_devices),
    SPEC_FIELD("throttleReadBpsDevice", parse_throttles, struct spec_resources,
               blkio_throttles[SPEC_THROTTLE_READ_BPS]),
    SPEC_FIELD("throttleWriteBpsDevice", parse_throttles, struct spec_resources,
               blkio_throttles[SPEC_THROTTLE_WRITE_BPS]),
    SPEC_FIELD("throttleReadIOPSDevice", parse_throttles, struct spec_resources,
               blkio_throttles[SPEC_THROTTLE_READ_IOPS]),
    SPEC_FIELD("throttleWriteIOPSDevice", parse_throttles, struct spec_resources,
               blkio_throttles[SPEC_THROTTLE_WRITE_IOPS]),
};

/* --- hugepageLimits --- */

/* The kernel names a huge page size in the largest unit that divides it
 * ("2MB", never "2048KB"), and every size is a power of two; the file
 * hugetlb.<name>.max is only found under that name. */
static int parse_page_size(const char *name, const char *path, uint64_t *bytes, oci_error_t *err)
{
  static const char *const units[] = {"KB", "MB", "GB"};
  size_t digits = strspn(name, "0123456789");
  unsigned long long n = digits > 0 && digits < 7 ? strtoull(name, NULL, 10) : 0;

  for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
    if (strcmp(name + digits, units[i]) != 0)
      continue;
    if (n == 0 || name[0] == '0' || (n & (n - 1)) != 0 ||
        (n % 1024 == 0 && i + 1 < sizeof(units) / sizeof(units[0])))
      break;
    *bytes = (uint64_t)n << (10 * (i + 1));
    return 0;
  }
  return spec_fail(err, path,
                   "'%s' is not a huge page size as the kernel names it (\"2MB\", \"1GB\", "
                   "\"64KB\": a power of two in the largest unit that divides it)",
                   name);
}

static int parse_hugepage_limit(const cJSON *item, const char *path,
                                struct spec_hugepage_limit *limit, oci_error_t *err)
{
  char field_path[SPEC_PATH_MAX];
  const cJSON *bytes;

  if (spec_expect_object(item, path, err) < 0 ||
      spec_get_string(item, path, "pageSize", true, &limit->page_size, err) < 0 ||
      parse_page_size(limit->page_size, spec_join_key(field_path, path, "pageSize"),
                      &limit->page_bytes, err) < 0 ||
      spec_required(item, path, "limit", &bytes, err) < 0 ||
      spec_number_u64(bytes, spec_join_key(field_path, path, "limit"), UINT64_MAX, &limit->limit,
                      err) < 0)
    return -1;
  if (limit->limit % limit->page_bytes != 0)
    return spec_fail(err, field_path,
                     "%" PRIu64 " bytes is not a whole number of %s pages (the kernel would "
                     "round it down)",
                     limit->limit, limit->page_size);
  return 0;
}

static int parse_hugepage_limits(const cJSON *array, const char *array_path, void *resources,
                                 oci_error_t *err)
{
  struct spec_resources *out = resources;
  char path[SPEC_PATH_MAX];
  const cJSON *item;
  void *entries;
  int ret;

  if ((ret = spec_array_start(array, array_path, sizeof(*out->hugepage_limits), &entries, err)) <=
      0)
    return ret;
  out->hugepage_limits = entries;
  cJSON_ArrayForEach(item, array)
  {
    struct spec_hugepage_limit *limit = &out->hugepage_limits[out->n_hugepage_limits];

    spec_join_index(path, array_path, out->n_hugepage_limits);
    /* counted first: spec_resources_free frees a page size parsed before
     * a failure */
    out->n_hugepage_limits++;
    if (parse_hugepage_limit(item, path, limit, err) < 0)
      return -1;
    for (size_t i = 0; i + 1 < out->n_hugepage_limits; i++)
      if (out->hugepage_limits[i].page_bytes == limit->page_bytes)
        return spec_fail(err, path, "page size %s is given twice (first at [%zu])",
                         limit->page_size, i);
  }
  return 0;
}

static const struct spec_field resources_fields[] = {
    SPEC_OBJECT("blockIO", blkio_fields),
    SPEC_MEMBER("hugepageLimits", parse_hugepage_limits),
    SPEC_REFUSED("network", REFUSE_NONEMPTY, "net_cls and net_prio are cgroup v1 only"),
    SPEC_REFUSED("rdma", REFUSE_NONEMPTY, "RDMA limits are not implemented"),
    SPEC_OBJECT("memory", memory_fields),
    SPEC_OBJECT("cpu", cpu_fields),
    SPEC_OBJECT("pids", pids_fields),
    SPEC_MEMBER("devices", parse_device_rules),
    SPEC_MEMBER("unified", parse_unified),
};

void spec_resources_init(struct spec_resources *resources)
{
  resources->memory_limit = resources->memory_reservation = resources->memory_swap = -1;
  resources->cpu_quota = -1;
  resources->pids_limit = -1;
}

void spec_resources_free(struct spec_resources *r)
{
  free(r->cpuset_cpus);
  free(r->cpuset_mems);
  free(r->devices);
  spec_key_values_free(r->unified, r->n_unified);
  free(r->blkio_weight_devices);
  for (int kind = 0; kind < SPEC_THROTTLE_KIND_COUNT; kind++)
    free(r->blkio_throttles[kind].items);
  for (size_t i = 0; i < r->n_hugepage_limits; i++)
    free(r->hugepage_limits[i].page_size);
  free(r->hugepage_limits);
}

int spec_parse_resources(const cJSON *value, const char *path, void *spec, oci_error_t *err)
{
  struct spec *out = spec;

  if (value == NULL)
    return 0;
  out->has_resources = true;
  if (spec_expect_object(value, path, err) < 0)
    return -1;
  return SPEC_DISPATCH(value, path, resources_fields, &out->resources, err);
}
