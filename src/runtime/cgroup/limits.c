/* linux.resources as cgroup v2 files: the spec's values become (file, value)
 * pairs, each refused with its field when the kernel would refuse it or it
 * would mean something else; printed by --dry-run and written by one loop
 * (the slice's creation and `ocirun update`). */
#include "config.h"

#include "runtime/cgroup/limits.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cgroup/files.h"

/* Appends (file, value); value is formatted. */
static int __attribute__((format(printf, 4, 5)))
add_limit(struct cgroup_limits *limits, oci_error_t *err, const char *file, const char *fmt, ...)
{
  struct cgroup_limit *grown;
  char *value = NULL, *name = NULL;
  va_list ap;
  int len;

  va_start(ap, fmt);
  len = vasprintf(&value, fmt, ap);
  va_end(ap);
  if (len < 0 || (name = strdup(file)) == NULL) {
    if (len >= 0)
      free(value);
    return oci_error_errno(err, "cgroup limits: allocate");
  }
  grown = realloc(limits->items, (limits->n + 1) * sizeof(*limits->items));
  if (grown == NULL) {
    free(value);
    free(name);
    return oci_error_errno(err, "cgroup limits: allocate");
  }
  limits->items = grown;
  limits->items[limits->n++] = (struct cgroup_limit){.file = name, .value = value};
  return 0;
}

void cgroup_limits_clear(struct cgroup_limits *limits)
{
  for (size_t i = 0; i < limits->n; i++) {
    free(limits->items[i].file);
    free(limits->items[i].value);
  }
  free(limits->items);
  limits->items = NULL;
  limits->n = 0;
}

/* A byte count of linux.resources.memory: -1 unset (nothing added),
 * INT64_MAX unlimited ("max"), else at least `minimum`. */
static int add_memory_bytes(struct cgroup_limits *limits, const char *field, int64_t bytes,
                            int64_t minimum, const char *file, oci_error_t *err)
{
  if (bytes == -1)
    return 0;
  if (bytes == INT64_MAX)
    return add_limit(limits, err, file, "max");
  if (bytes < minimum)
    return oci_error_set(err, 0,
                         "linux.resources.memory.%s: %" PRId64 " bytes is not a limit ocirun "
                         "sets (-1 is unlimited%s)",
                         field, bytes,
                         minimum > 0 ? "; 0 would leave the container no memory" : "");
  return add_limit(limits, err, file, "%" PRId64, bytes);
}

/* memory.swap is memory+swap (v1's memsw); v2's memory.swap.max is the swap
 * alone, so it is the difference, which needs the memory limit. */
static int add_swap(struct cgroup_limits *limits, const struct spec_resources *r, oci_error_t *err)
{
  int64_t limit = r->memory_limit, swap = r->memory_swap;

  if (swap == -1)
    return 0;
  if (swap == INT64_MAX)
    return add_limit(limits, err, "memory.swap.max", "max");
  if (swap < 0)
    return oci_error_set(
        err, 0, "linux.resources.memory.swap: %" PRId64 " is not a limit (-1 is unlimited)", swap);
  if (limit == -1 || limit == INT64_MAX)
    return oci_error_set(err, 0,
                         "linux.resources.memory.swap (%" PRId64
                         ") needs linux.resources.memory.limit: cgroup v2 limits the swap "
                         "alone, memory.swap is memory plus swap",
                         swap);
  if (swap < limit)
    return oci_error_set(err, 0,
                         "linux.resources.memory.swap (%" PRId64
                         ", memory plus swap) is less than linux.resources.memory.limit (%" PRId64
                         ")",
                         swap, limit);
  return add_limit(limits, err, "memory.swap.max", "%" PRId64, swap - limit);
}

/* The last pair added is written only where the kernel has its file. */
static void last_if_present(struct cgroup_limits *limits)
{
  limits->items[limits->n - 1].if_present = true;
}

/* A cgroup v1 weight (min..max) mapped linearly onto the v2 weight
 * io.weight (1..10000): the conversion runc, crun and systemd have used, so
 * a configuration gets the same weight from any of them. */
#define V2_WEIGHT_MAX 10000

static uint64_t v2_weight(uint64_t v1, uint64_t min, uint64_t max)
{
  return 1 + ((v1 - min) * (V2_WEIGHT_MAX - 1)) / (max - min);
}

/* cpu.shares: v1's 2..262144, default 1024 */
#define CPU_SHARES_MIN 2
#define CPU_SHARES_MAX 262144

/* cpu.shares as cpu.weight (1..10000, default 100) as crun maps it (and
 * runc since 1.3): 10 to the power of a quadratic in log2(shares) through
 * (2, 1), (1024, 100) and (262144, 10000), rounded up. The linear mapping
 * made docker's default 1024 a weight of 39, below every default-weight
 * group beside it; this keeps the default the default. */
static uint64_t cpu_weight_from_shares(uint64_t shares)
{
  double x;

  if (shares <= CPU_SHARES_MIN)
    return 1;
  if (shares >= CPU_SHARES_MAX)
    return V2_WEIGHT_MAX;
  x = log2((double)shares);
  return (uint64_t)ceil(pow(10, (x * x + 125 * x) / 612.0 - 7.0 / 34.0));
}

/* cpu.quota and cpu.period as cpu.max. */
static int add_cpu_max(struct cgroup_limits *limits, const struct spec_resources *r,
                       oci_error_t *err)
{
  /* The kernel's bounds (kernel/sched/core.c): a period of 1 ms to 1 s, a
   * quota of at least 1 ms. */
  uint64_t period = r->cpu_period != 0 ? r->cpu_period : 100000;
  if (period < 1000 || period > 1000000)
    return oci_error_set(
        err, 0, "linux.resources.cpu.period: %" PRIu64 " microseconds is outside 1000..1000000",
        period);
  if (r->cpu_quota == -1)
    return add_limit(limits, err, "cpu.max", "max %" PRIu64, period);
  if (r->cpu_quota < 1000)
    return oci_error_set(err, 0,
                         "linux.resources.cpu.quota: %" PRId64
                         " microseconds is less than the kernel's 1000 (-1 is unlimited)",
                         r->cpu_quota);
  return add_limit(limits, err, "cpu.max", "%" PRId64 " %" PRIu64, r->cpu_quota, period);
}

/* cpu.burst as cpu.max.burst (Linux 5.14), after cpu.max: the kernel
 * checks a burst against the quota it holds then (at most the quota, any
 * under "max"). When both change (an update lowering the quota under the
 * burst it had), the burst is 0 before cpu.max, which every quota takes.
 * A burst of 0 asks for what a kernel without the file has. */
static int add_cpu_max_and_burst(struct cgroup_limits *limits, const struct spec_resources *r,
                                 oci_error_t *err)
{
  bool with_max = r->cpu_quota != -1 || r->cpu_period != 0;

  if (!r->cpu_burst_set)
    return with_max ? add_cpu_max(limits, r, err) : 0;
  if (r->cpu_quota != -1 && r->cpu_burst > (uint64_t)r->cpu_quota)
    return oci_error_set(err, 0,
                         "linux.resources.cpu.burst: %" PRIu64
                         " microseconds is more than cpu.quota, %" PRId64
                         " (the kernel takes a burst of at most the quota)",
                         r->cpu_burst, r->cpu_quota);
  if (with_max && r->cpu_burst > 0) {
    if (add_limit(limits, err, "cpu.max.burst", "0") < 0)
      return -1;
    last_if_present(limits); /* the burst's own write names a missing file */
  }
  if (with_max && add_cpu_max(limits, r, err) < 0)
    return -1;
  if (add_limit(limits, err, "cpu.max.burst", "%" PRIu64, r->cpu_burst) < 0)
    return -1;
  if (r->cpu_burst == 0)
    last_if_present(limits);
  return 0;
}

static int add_cpu(struct cgroup_limits *limits, const struct spec_resources *r, oci_error_t *err)
{
  if (r->cpu_idle_set) {
    /* The kernel refuses a weight for an idle group (it has the least). */
    if (r->cpu_idle == 1 && r->cpu_shares_set)
      return oci_error_set(err, 0,
                           "linux.resources.cpu.shares: cannot be set with cpu.idle 1 (an idle "
                           "cgroup has the least weight, which the kernel keeps)");
    if (add_limit(limits, err, "cpu.idle", "%" PRId64, r->cpu_idle) < 0)
      return -1;
    /* Before Linux 5.15 no group is idle: 0 asks for what it has. */
    if (r->cpu_idle == 0)
      last_if_present(limits);
  }
  if (r->cpu_shares_set) {
    if (r->cpu_shares < CPU_SHARES_MIN || r->cpu_shares > CPU_SHARES_MAX)
      return oci_error_set(err, 0, "linux.resources.cpu.shares: %" PRIu64 " is outside %d..%d",
                           r->cpu_shares, CPU_SHARES_MIN, CPU_SHARES_MAX);
    if (add_limit(limits, err, "cpu.weight", "%" PRIu64, cpu_weight_from_shares(r->cpu_shares)) < 0)
      return -1;
  }
  return add_cpu_max_and_burst(limits, r, err);
}

/* cpuset lists ("0-3,8"): digits, commas and dashes only; "" leaves the
 * parent's set, as if unset. */
static int add_cpuset(struct cgroup_limits *limits, const char *field, const char *list,
                      const char *file, oci_error_t *err)
{
  if (list == NULL || list[0] == '\0')
    return 0;
  if (list[strspn(list, "0123456789,-")] != '\0')
    return oci_error_set(err, 0, "linux.resources.cpu.%s: '%s' is not a list such as \"0-3,8\"",
                         field, list);
  return add_limit(limits, err, file, "%s", list);
}

/* blockIO.weight (v1's 10..1000, the parser checked it) as io.weight
 * (iocost's, required) and as io.bfq.weight (BFQ's, v1's range, where the
 * kernel has BFQ). A device's own weight is BFQ's alone: iocost takes one
 * only on a device whose cost model the host's root cgroup enabled. */
#define BLKIO_WEIGHT_MIN 10
#define BLKIO_WEIGHT_MAX 1000

static int check_blkio_weight(const char *field, unsigned weight, oci_error_t *err)
{
  if (weight < BLKIO_WEIGHT_MIN || weight > BLKIO_WEIGHT_MAX)
    return oci_error_set(err, 0, "linux.resources.blockIO.%s: %u is outside %d..%d", field, weight,
                         BLKIO_WEIGHT_MIN, BLKIO_WEIGHT_MAX);
  return 0;
}

static int add_blkio_weights(struct cgroup_limits *limits, const struct spec_resources *r,
                             oci_error_t *err)
{
  if (r->blkio_weight != 0) {
    if (check_blkio_weight("weight", r->blkio_weight, err) < 0)
      return -1;
    if (add_limit(limits, err, "io.weight", "%" PRIu64,
                  v2_weight(r->blkio_weight, BLKIO_WEIGHT_MIN, BLKIO_WEIGHT_MAX)) < 0 ||
        add_limit(limits, err, "io.bfq.weight", "%u", r->blkio_weight) < 0)
      return -1;
    last_if_present(limits);
  }
  for (size_t i = 0; i < r->n_blkio_weight_devices; i++) {
    const struct spec_blkio_weight_device *d = &r->blkio_weight_devices[i];
    if (d->weight != 0 && (check_blkio_weight("weightDevice[].weight", d->weight, err) < 0 ||
                           add_limit(limits, err, "io.bfq.weight", "%u:%u %u", d->device.major,
                                     d->device.minor, d->weight) < 0))
      return -1;
  }
  return 0;
}

/* The throttles as io.max, one line (one write) a device with each rate
 * given for it: "8:0 rbps=1048576 wiops=100". A rate of 0 is "no limit", as
 * on cgroup v1 (io.max's "max"). */
static int add_throttles(struct cgroup_limits *limits, const struct spec_resources *r,
                         oci_error_t *err)
{
  static const char *const keys[SPEC_THROTTLE_KIND_COUNT] = {"rbps", "wbps", "riops", "wiops"};

  for (int kind = 0; kind < SPEC_THROTTLE_KIND_COUNT; kind++) {
    for (size_t i = 0; i < r->blkio_throttles[kind].n; i++) {
      struct spec_block_device device = r->blkio_throttles[kind].items[i].device;
      char line[256];
      size_t used = (size_t)snprintf(line, sizeof(line), "%u:%u", device.major, device.minor);
      bool earlier = false;

      /* every rate of the device, each list holding it at most once */
      for (int k = 0; k < SPEC_THROTTLE_KIND_COUNT && !earlier; k++) {
        const struct spec_blkio_throttles *list = &r->blkio_throttles[k];
        for (size_t j = 0; j < list->n; j++) {
          if (list->items[j].device.major != device.major ||
              list->items[j].device.minor != device.minor)
            continue;
          if (k < kind) {
            earlier = true; /* its line is made already */
            break;
          }
          if (list->items[j].rate == 0)
            used += (size_t)snprintf(line + used, sizeof(line) - used, " %s=max", keys[k]);
          else
            used += (size_t)snprintf(line + used, sizeof(line) - used, " %s=%" PRIu64, keys[k],
                                     list->items[j].rate);
        }
      }
      if (!earlier && add_limit(limits, err, "io.max", "%s", line) < 0)
        return -1;
    }
  }
  return 0;
}

/* hugepageLimits as hugetlb.<size>.max, and as hugetlb.<size>.rsvd.max
 * (Linux 5.7, reservations counted too) where the kernel has it. The
 * parser checked the size's name and that the limit is whole pages. */
static int add_hugepages(struct cgroup_limits *limits, const struct spec_resources *r,
                         oci_error_t *err)
{
  for (size_t i = 0; i < r->n_hugepage_limits; i++) {
    const struct spec_hugepage_limit *h = &r->hugepage_limits[i];
    size_t len = h->page_size != NULL ? strlen(h->page_size) : 0;
    char file[64];

    /* the size names a file: "2MB", never a path (the parser checked the
     * form; this keeps any other caller inside the slice) */
    if (len == 0 || len > 16 || h->page_size[strspn(h->page_size, "0123456789KMGB")] != '\0')
      return oci_error_set(err, 0,
                           "linux.resources.hugepageLimits[%zu].pageSize: '%s' is not a "
                           "huge page size",
                           i, h->page_size != NULL ? h->page_size : "");

    snprintf(file, sizeof(file), "hugetlb.%s.max", h->page_size);
    if (add_limit(limits, err, file, "%" PRIu64, h->limit) < 0)
      return -1;
    snprintf(file, sizeof(file), "hugetlb.%s.rsvd.max", h->page_size);
    if (add_limit(limits, err, file, "%" PRIu64, h->limit) < 0)
      return -1;
    last_if_present(limits);
  }
  return 0;
}

/* The core files a unified key may set: the others would let a configuration
 * move, kill or freeze processes (cgroup.procs, cgroup.threads, cgroup.kill,
 * cgroup.freeze), change the tree's shape or the controllers of the
 * children (cgroup.type, cgroup.subtree_control), which ocirun owns. */
static const char *const unified_core_allowed[] = {"cgroup.max.descendants", "cgroup.max.depth"};

static bool is_unified_core_allowed(const char *key)
{
  for (size_t i = 0; i < sizeof(unified_core_allowed) / sizeof(unified_core_allowed[0]); i++)
    if (strcmp(key, unified_core_allowed[i]) == 0)
      return true;
  return false;
}

static int check_unified_key(const char *key, oci_error_t *err)
{
  size_t len = strlen(key);
  const char *dot = strchr(key, '.');

  if (len == 0 || len > NAME_MAX ||
      key[strspn(key, "abcdefghijklmnopqrstuvwxyz"
                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")] != '\0')
    return oci_error_set(err, 0,
                         "linux.resources.unified: key '%s' is not a plain cgroup file name "
                         "(\"controller.file\", no '/')",
                         key);
  if (dot == NULL || dot == key || dot[1] == '\0' || strstr(key, "..") != NULL ||
      key[len - 1] == '.')
    return oci_error_set(err, 0,
                         "linux.resources.unified: key '%s' is not of the form "
                         "\"controller.file\"",
                         key);
  if (strncmp(key, "cgroup.", 7) == 0 && !is_unified_core_allowed(key))
    return oci_error_set(err, 0,
                         "linux.resources.unified: '%s' is refused: it controls the container's "
                         "processes or its cgroup tree, which ocirun owns (only "
                         "cgroup.max.descendants and cgroup.max.depth may be set)",
                         key);
  if (strncmp(key, "devices.", 8) == 0)
    return oci_error_set(err, 0,
                         "linux.resources.unified: '%s' is refused: cgroup v2 has no devices "
                         "files; device access is linux.resources.devices",
                         key);
  return 0;
}

/* The field a converted file came from, for the conflict message. */
static const char *converted_field(const char *file)
{
  static const char *const fields[][2] = {
      {"memory.max", "memory.limit"},
      {"memory.low", "memory.reservation"},
      {"memory.swap.max", "memory.swap"},
      {"cpu.weight", "cpu.shares"},
      {"cpu.max", "cpu.quota/cpu.period"},
      {"cpu.max.burst", "cpu.burst"},
      {"cpuset.cpus", "cpu.cpus"},
      {"cpuset.mems", "cpu.mems"},
      {"pids.max", "pids.limit"},
      {"cpu.idle", "cpu.idle"},
      {"io.weight", "blockIO.weight"},
      {"io.bfq.weight", "blockIO.weight or blockIO.weightDevice"},
      {"io.max", "blockIO.throttle*Device"},
  };
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
    if (strcmp(fields[i][0], file) == 0)
      return fields[i][1];
  if (strncmp(file, "hugetlb.", 8) == 0)
    return "hugepageLimits";
  return "another field";
}

static int add_unified(struct cgroup_limits *limits, const struct spec_resources *r,
                       oci_error_t *err)
{
  size_t converted = limits->n;

  for (size_t i = 0; i < r->n_unified; i++) {
    const char *key = r->unified[i].key, *value = r->unified[i].value;

    if (key == NULL || value == NULL)
      return oci_error_set(err, 0, "linux.resources.unified: entry %zu has no key or value", i);
    if (check_unified_key(key, err) < 0)
      return -1;
    for (size_t j = 0; j < limits->n; j++) {
      if (strcmp(limits->items[j].file, key) != 0)
        continue;
      if (j < converted)
        return oci_error_set(err, 0,
                             "linux.resources.unified: '%s' conflicts with "
                             "linux.resources.%s, which sets the same file",
                             key, converted_field(key));
      return oci_error_set(err, 0, "linux.resources.unified: '%s' is given twice", key);
    }
    if (add_limit(limits, err, key, "%s", value) < 0)
      return -1;
  }
  return 0;
}

int cgroup_limits_build(const struct spec_resources *r, struct cgroup_limits *out, oci_error_t *err)
{
  *out = (struct cgroup_limits){0};
  if (r == NULL)
    return 0;
  /* cpuset first: the kernel wants a cpuset before work is placed in it. */
  if (add_cpuset(out, "cpus", r->cpuset_cpus, "cpuset.cpus", err) < 0 ||
      add_cpuset(out, "mems", r->cpuset_mems, "cpuset.mems", err) < 0 ||
      add_memory_bytes(out, "reservation", r->memory_reservation, 0, "memory.low", err) < 0 ||
      add_memory_bytes(out, "limit", r->memory_limit, 1, "memory.max", err) < 0 ||
      add_swap(out, r, err) < 0 || add_cpu(out, r, err) < 0 || add_blkio_weights(out, r, err) < 0 ||
      add_throttles(out, r, err) < 0 || add_hugepages(out, r, err) < 0)
    goto fail;
  if (r->pids_limit != -1 &&
      (r->pids_limit > 0 ? add_limit(out, err, "pids.max", "%" PRId64, r->pids_limit)
                         : add_limit(out, err, "pids.max", "max")) < 0)
    goto fail;
  if (add_unified(out, r, err) < 0)
    goto fail;
  return 0;
fail:
  cgroup_limits_clear(out);
  return -1;
}

void cgroup_limits_print(const struct cgroup_limits *limits, FILE *out, const char *indent)
{
  if (limits->n == 0)
    fprintf(out, "%s(none: every limit is the kernel's default)\n", indent);
  for (size_t i = 0; i < limits->n; i++) {
    const char *value = limits->items[i].value;
    /* One line per pair, even for a multi-line value (io.max). */
    fprintf(out, "%s%s: ", indent, limits->items[i].file);
    for (const char *c = value; *c != '\0'; c++)
      fputs(*c == '\n' ? "\\n" : (char[]){*c, '\0'}, out);
    fputs(limits->items[i].if_present ? " (where the kernel has the file)\n" : "\n", out);
  }
}

int cgroup_limits_write(int dir_fd, const struct cgroup_limits *limits, oci_error_t *err)
{
  for (size_t i = 0; i < limits->n; i++) {
    const char *file = limits->items[i].file, *value = limits->items[i].value;

    if (cgroup_file_write(dir_fd, NULL, file, value, err) == 0)
      continue;
    /* Without swap accounting the file is absent: fine only when unlimited,
     * which is what absent means. */
    if (*err != NULL && (*err)->errno_value == ENOENT &&
        (limits->items[i].if_present ||
         (strcmp(file, "memory.swap.max") == 0 && strcmp(value, "max") == 0))) {
      oci_error_free(err);
      continue;
    }
    return -1;
  }
  return 0;
}
