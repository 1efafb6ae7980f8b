/* Unit tests of linux.resources as cgroup v2 files (src/runtime/cgroup/limits.c, slice.c):
 * every conversion, every refusal naming its field, the unified keys that
 * are refused, the slice's path from linux.cgroupsPath, and the one write
 * loop against a directory of plain files. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>

#include "oci/cleanup.h"
#include "runtime/cgroup/slice.h"
#include "runtime/cgroup/devices.h"
#include "unit.h"

static struct spec_resources none(void)
{
  return (struct spec_resources){.memory_limit = -1,
                                 .memory_reservation = -1,
                                 .memory_swap = -1,
                                 .cpu_quota = -1,
                                 .pids_limit = -1};
}

/* "file=value;file=value" for the built pairs, or "ERROR: message";
 * only_if_present: "file;file" for the pairs written only where the
 * kernel has their file. */
static const char *build_pairs(const struct spec_resources *r, bool only_if_present)
{
  static char text[4096];
  struct cgroup_limits limits;
  oci_error_t err = NULL;
  size_t used = 0;

  text[0] = '\0';
  if (cgroup_limits_build(r, &limits, &err) < 0) {
    snprintf(text, sizeof(text), "ERROR: %s", err->message);
    oci_error_free(&err);
    return text;
  }
  for (size_t i = 0; i < limits.n; i++) {
    if (only_if_present && !limits.items[i].if_present)
      continue;
    used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s%s%s", used ? ";" : "",
                             limits.items[i].file, only_if_present ? "" : "=",
                             only_if_present ? "" : limits.items[i].value);
  }
  cgroup_limits_clear(&limits);
  return text;
}

static const char *build(const struct spec_resources *r)
{
  return build_pairs(r, false);
}
static const char *if_present_files(const struct spec_resources *r)
{
  return build_pairs(r, true);
}

/* Whether the build fails with a message holding every given part. */
static bool refused(const struct spec_resources *r, const char *part, const char *part2)
{
  const char *text = build(r);
  bool pass = strncmp(text, "ERROR: ", 7) == 0 && strstr(text, part) != NULL &&
              (part2 == NULL || strstr(text, part2) != NULL);
  if (!pass)
    printf("#   got: %s\n", text);
  return pass;
}

static const char *unified_one(const char *key, const char *value)
{
  struct spec_resources r = none();
  struct spec_key_value kv = {(char *)key, (char *)value};
  r.unified = &kv;
  r.n_unified = 1;
  return build(&r);
}

static void test_memory(void)
{
  struct spec_resources r = none();

  is_str(build(NULL), "", "no resources: no files");
  is_str(build(&r), "", "nothing set: no files (the kernel's max everywhere)");
  r.memory_limit = 536870912;
  is_str(build(&r), "memory.max=536870912", "memory.limit -> memory.max");
  r.memory_limit = INT64_MAX;
  is_str(build(&r), "memory.max=max", "memory.limit -1 (unlimited) -> memory.max max");
  r.memory_limit = 0;
  ok(refused(&r, "linux.resources.memory.limit", NULL), "memory.limit 0 is refused, named");
  r.memory_limit = -5;
  ok(refused(&r, "linux.resources.memory.limit", "-5"), "memory.limit -5 is refused, named");

  r = none();
  r.memory_reservation = 268435456;
  is_str(build(&r), "memory.low=268435456", "memory.reservation -> memory.low");
  r.memory_reservation = INT64_MAX;
  is_str(build(&r), "memory.low=max", "memory.reservation unlimited -> memory.low max");
  r.memory_reservation = -7;
  ok(refused(&r, "linux.resources.memory.reservation", NULL), "memory.reservation -7 refused");

  r = none();
  r.memory_limit = 134217728;
  r.memory_swap = 268435456;
  is_str(build(&r), "memory.max=134217728;memory.swap.max=134217728",
         "memory.swap (memory+swap) -> memory.swap.max = swap - limit");
  r.memory_swap = 134217728;
  is_str(build(&r), "memory.max=134217728;memory.swap.max=0", "memory.swap == limit: no swap");
  r.memory_swap = INT64_MAX;
  is_str(build(&r), "memory.max=134217728;memory.swap.max=max", "memory.swap -1 -> max");
  r.memory_swap = 67108864;
  ok(refused(&r, "linux.resources.memory.swap (67108864",
             "linux.resources.memory.limit (134217728"),
     "memory.swap < memory.limit is refused, naming both");
  r.memory_limit = -1;
  r.memory_swap = 268435456;
  ok(refused(&r, "linux.resources.memory.swap", "needs linux.resources.memory.limit"),
     "memory.swap without memory.limit is refused, naming both");
  r.memory_limit = INT64_MAX;
  ok(refused(&r, "linux.resources.memory.swap", "needs linux.resources.memory.limit"),
     "memory.swap with an unlimited memory.limit is refused");
  r.memory_limit = -1;
  r.memory_swap = INT64_MAX;
  is_str(build(&r), "memory.swap.max=max", "memory.swap -1 alone -> memory.swap.max max");
  r.memory_swap = -3;
  ok(refused(&r, "linux.resources.memory.swap", NULL), "memory.swap -3 is refused");
}

static void test_cpu(void)
{
  struct spec_resources r = none();

  r.cpu_shares_set = true;
  r.cpu_shares = 1024;
  is_str(build(&r), "cpu.weight=100",
         "cpu.shares 1024 (the default) -> cpu.weight 100 (the default)");
  r.cpu_shares = 2;
  is_str(build(&r), "cpu.weight=1", "cpu.shares 2 -> cpu.weight 1");
  r.cpu_shares = 262144;
  is_str(build(&r), "cpu.weight=10000", "cpu.shares 262144 -> cpu.weight 10000");
  r.cpu_shares = 512;
  is_str(build(&r), "cpu.weight=59", "cpu.shares 512 -> cpu.weight 59 (crun's mapping)");
  r.cpu_shares = 3;
  is_str(build(&r), "cpu.weight=2", "cpu.shares 3 -> cpu.weight 2");
  r.cpu_shares = 262143;
  is_str(build(&r), "cpu.weight=10000", "cpu.shares 262143 -> cpu.weight 10000");
  r.cpu_shares = 10000;
  is_str(build(&r), "cpu.weight=627", "cpu.shares 10000 -> cpu.weight 627");
  r.cpu_shares = 1;
  ok(refused(&r, "linux.resources.cpu.shares", "2..262144"), "cpu.shares 1 is refused");
  r.cpu_shares = 262145;
  ok(refused(&r, "linux.resources.cpu.shares", NULL), "cpu.shares 262145 is refused");

  r = none();
  r.cpu_quota = 50000;
  r.cpu_period = 100000;
  is_str(build(&r), "cpu.max=50000 100000", "cpu.quota/period -> cpu.max");
  r.cpu_period = 0;
  is_str(build(&r), "cpu.max=50000 100000", "cpu.quota alone: period 100000");
  r.cpu_quota = -1;
  r.cpu_period = 200000;
  is_str(build(&r), "cpu.max=max 200000", "cpu.period alone: max PERIOD");
  r.cpu_quota = 500;
  ok(refused(&r, "linux.resources.cpu.quota", "500"), "cpu.quota below 1000 is refused");
  r.cpu_quota = -2;
  ok(refused(&r, "linux.resources.cpu.quota", NULL), "cpu.quota -2 is refused");
  r.cpu_quota = 50000;
  r.cpu_period = 100;
  ok(refused(&r, "linux.resources.cpu.period", "100"), "cpu.period 100 is refused");
  r.cpu_period = 2000000;
  ok(refused(&r, "linux.resources.cpu.period", NULL), "cpu.period past 1 s is refused");

  r = none();
  r.cpuset_cpus = "0-3,8";
  r.cpuset_mems = "0";
  is_str(build(&r), "cpuset.cpus=0-3,8;cpuset.mems=0", "cpu.cpus/mems -> cpuset.cpus/mems");
  r.cpuset_cpus = "";
  is_str(build(&r), "cpuset.mems=0", "cpu.cpus \"\" is the parent's set: not written");
  r.cpuset_cpus = "0\n+1";
  ok(refused(&r, "linux.resources.cpu.cpus", NULL), "cpu.cpus with a newline is refused");
  r.cpuset_cpus = NULL;
  r.cpuset_mems = "all";
  ok(refused(&r, "linux.resources.cpu.mems", "all"), "cpu.mems 'all' is refused");
}

static void test_pids(void)
{
  struct spec_resources r = none();

  r.pids_limit = 32;
  is_str(build(&r), "pids.max=32", "pids.limit -> pids.max");
  r.pids_limit = 0;
  is_str(build(&r), "pids.max=max", "pids.limit 0 (or negative in the file) -> max");
}

static void test_cpu_idle(void)
{
  struct spec_resources r = none();

  r.cpu_idle_set = true;
  r.cpu_idle = 1;
  is_str(build(&r), "cpu.idle=1", "cpu.idle 1 -> cpu.idle 1");
  is_str(if_present_files(&r), "", "cpu.idle 1 needs the file (Linux 5.15)");
  r.cpu_quota = 50000;
  is_str(build(&r), "cpu.idle=1;cpu.max=50000 100000", "cpu.idle with cpu.max");
  r.cpu_shares_set = true;
  r.cpu_shares = 1024;
  ok(refused(&r, "linux.resources.cpu.shares", "cpu.idle 1"),
     "cpu.idle 1 with cpu.shares is refused (the kernel refuses an idle group's weight)");
  r.cpu_idle = 0;
  r.cpu_quota = -1;
  is_str(build(&r), "cpu.idle=0;cpu.weight=100", "cpu.idle 0 before cpu.weight");
  is_str(if_present_files(&r), "cpu.idle", "cpu.idle 0 is skipped where the kernel has no file");
}

static void test_cpu_burst(void)
{
  struct spec_resources r = none();

  r.cpu_burst_set = true;
  r.cpu_burst = 20000;
  is_str(build(&r), "cpu.max.burst=20000",
         "cpu.burst alone -> cpu.max.burst (checked by the kernel "
         "against the quota it holds)");
  is_str(if_present_files(&r), "", "cpu.burst 20000 needs the file (Linux 5.14)");
  r.cpu_quota = 50000;
  is_str(build(&r), "cpu.max.burst=0;cpu.max=50000 100000;cpu.max.burst=20000",
         "cpu.burst with cpu.max: 0 first (any quota takes it), then cpu.max, then the burst");
  r.cpu_burst = 50000;
  is_str(build(&r), "cpu.max.burst=0;cpu.max=50000 100000;cpu.max.burst=50000",
         "a burst equal to the quota is taken");
  r.cpu_burst = 50001;
  ok(refused(&r, "linux.resources.cpu.burst", "more than cpu.quota"),
     "a burst above the quota is refused, naming it");
  r.cpu_burst = 0;
  is_str(build(&r), "cpu.max=50000 100000;cpu.max.burst=0", "cpu.burst 0: after cpu.max, alone");
  is_str(if_present_files(&r), "cpu.max.burst",
         "cpu.burst 0 is skipped where the kernel has no file");
  r.cpu_quota = -1;
  r.cpu_burst = 1000000;
  r.cpu_period = 200000;
  is_str(build(&r), "cpu.max.burst=0;cpu.max=max 200000;cpu.max.burst=1000000",
         "under an unlimited quota any burst is planned");
}

static void test_block_io(void)
{
  struct spec_resources r = none();
  struct spec_blkio_weight_device devices[] = {{{8, 0}, 300}, {{8, 16}, 0}};
  struct spec_blkio_throttle read_bps[] = {{{8, 0}, 1048576}, {{254, 0}, 0}};
  struct spec_blkio_throttle write_bps[] = {{{254, 0}, 2097152}};
  struct spec_blkio_throttle read_iops[] = {{{8, 16}, 100}};
  struct spec_blkio_throttle write_iops[] = {{{8, 0}, 50}};
  struct spec_key_value kv = {"io.max", "8:0 rbps=1"};

  r.blkio_weight = 10;
  is_str(build(&r), "io.weight=1;io.bfq.weight=10", "blockIO.weight 10 -> io.weight 1, BFQ's 10");
  r.blkio_weight = 1000;
  is_str(build(&r), "io.weight=10000;io.bfq.weight=1000", "blockIO.weight 1000 -> io.weight 10000");
  r.blkio_weight = 500;
  is_str(build(&r), "io.weight=4950;io.bfq.weight=500",
         "blockIO.weight 500 -> io.weight 4950 (1 + (w-10)*9999/990)");
  is_str(if_present_files(&r), "io.bfq.weight", "io.bfq.weight only where the kernel has BFQ");
  r.blkio_weight = 5;
  ok(refused(&r, "linux.resources.blockIO.weight: 5 is outside 10..1000", NULL),
     "blockIO.weight 5 is refused by the plan too, named");
  r.blkio_weight = 0;
  is_str(build(&r), "", "blockIO.weight 0 (dockerd's default) sets nothing");

  r.blkio_weight_devices = devices;
  r.n_blkio_weight_devices = 2;
  is_str(build(&r), "io.bfq.weight=8:0 300",
         "weightDevice -> one io.bfq.weight line a device; an entry without a weight asks nothing");
  is_str(if_present_files(&r), "", "a device's weight needs BFQ: never skipped");

  r = none();
  r.blkio_throttles[SPEC_THROTTLE_READ_BPS] = (struct spec_blkio_throttles){read_bps, 2};
  r.blkio_throttles[SPEC_THROTTLE_WRITE_BPS] = (struct spec_blkio_throttles){write_bps, 1};
  r.blkio_throttles[SPEC_THROTTLE_READ_IOPS] = (struct spec_blkio_throttles){read_iops, 1};
  r.blkio_throttles[SPEC_THROTTLE_WRITE_IOPS] = (struct spec_blkio_throttles){write_iops, 1};
  is_str(build(&r),
         "io.max=8:0 rbps=1048576 wiops=50;io.max=254:0 rbps=max wbps=2097152;"
         "io.max=8:16 riops=100",
         "throttles -> one io.max line (one write) a device with its rates; rate 0 is max");
  r.unified = &kv;
  r.n_unified = 1;
  ok(refused(&r, "'io.max' conflicts with linux.resources.blockIO.throttle*Device", NULL),
     "unified io.max with throttles is refused");
  r = none();
  r.blkio_weight = 100;
  r.unified = &kv;
  r.n_unified = 1;
  kv = (struct spec_key_value){"io.weight", "100"};
  ok(refused(&r, "'io.weight' conflicts with linux.resources.blockIO.weight", NULL),
     "unified io.weight with blockIO.weight is refused");
}

static void test_hugepages(void)
{
  struct spec_resources r = none();
  struct spec_hugepage_limit limits[] = {{"2MB", 2097152, 4194304}, {"1GB", 1073741824, 0}};
  struct spec_key_value kv = {"hugetlb.2MB.max", "0"};

  r.hugepage_limits = limits;
  r.n_hugepage_limits = 2;
  is_str(build(&r),
         "hugetlb.2MB.max=4194304;hugetlb.2MB.rsvd.max=4194304;hugetlb.1GB.max=0;"
         "hugetlb.1GB.rsvd.max=0",
         "hugepageLimits -> hugetlb.<size>.max and .rsvd.max");
  is_str(if_present_files(&r), "hugetlb.2MB.rsvd.max;hugetlb.1GB.rsvd.max",
         "the .rsvd.max files only where the kernel has them (Linux 5.7)");
  r.unified = &kv;
  r.n_unified = 1;
  ok(refused(&r, "'hugetlb.2MB.max' conflicts with linux.resources.hugepageLimits", NULL),
     "unified hugetlb.2MB.max with hugepageLimits is refused");
  r.n_unified = 0;
  limits[1].page_size = "../../x";
  ok(refused(&r, "hugepageLimits[1].pageSize: '../../x' is not a huge page size", NULL),
     "a page size that is not a plain size name is refused by the plan too");
}

static void test_unified(void)
{
  static const char *const refused_keys[] = {
      "cgroup.procs",  "cgroup.threads", "cgroup.subtree_control",
      "cgroup.kill",   "cgroup.freeze",  "cgroup.type",
      "devices.allow", "devices.deny",   "../memory.max",
      "memory/max",    "memory",         ".memory",
      "memory.",       "memory..max",    "",
      "memory.max\n",  "/memory.max",    "io.max ",
  };
  struct spec_resources r = none();
  struct spec_key_value kv[2] = {{"io.max", "8:0 rbps=1048576\n8:16 wiops=120"},
                                 {"hugetlb.1GB.max", "1073741824"}};

  r.unified = kv;
  r.n_unified = 2;
  is_str(build(&r), "io.max=8:0 rbps=1048576\n8:16 wiops=120;hugetlb.1GB.max=1073741824",
         "unified keys are written as given, in order");
  is_str(unified_one("cgroup.max.depth", "2"), "cgroup.max.depth=2", "cgroup.max.depth allowed");
  is_str(unified_one("memory.oom.group", "1"), "memory.oom.group=1", "memory.oom.group allowed");
  is_str(unified_one("memory.max", "1048576"), "memory.max=1048576",
         "unified memory.max without memory.limit is written");
  for (size_t i = 0; i < sizeof(refused_keys) / sizeof(refused_keys[0]); i++) {
    const char *text = unified_one(refused_keys[i], "1");
    ok(strncmp(text, "ERROR: linux.resources.unified", 30) == 0, "unified key '%s' is refused",
       refused_keys[i]);
  }
  ok(strstr(unified_one("cgroup.procs", "1"), "ocirun owns") != NULL,
     "cgroup.procs: the message says why");

  r = none();
  r.memory_limit = 1048576;
  kv[0] = (struct spec_key_value){"memory.max", "2097152"};
  r.unified = kv;
  r.n_unified = 1;
  ok(refused(&r, "'memory.max' conflicts with linux.resources.memory.limit", NULL),
     "unified memory.max with memory.limit is refused, naming both");
  r = none();
  r.pids_limit = 5;
  kv[0] = (struct spec_key_value){"pids.max", "6"};
  r.unified = kv;
  r.n_unified = 1;
  ok(refused(&r, "conflicts with linux.resources.pids.limit", NULL),
     "unified pids.max with pids.limit is refused");
  r = none();
  kv[0] = (struct spec_key_value){"io.weight", "10"};
  kv[1] = (struct spec_key_value){"io.weight", "20"};
  r.unified = kv;
  r.n_unified = 2;
  ok(refused(&r, "'io.weight' is given twice", NULL), "a unified key given twice is refused");
}

static void test_all_and_print(void)
{
  struct spec_resources r = none();
  struct spec_key_value kv = {"io.max", "8:0 rbps=1\n8:1 rbps=2"};
  struct cgroup_limits limits;
  oci_error_t err = NULL;
  cleanup_free char *printed = NULL;
  size_t size = 0;
  FILE *out;

  r.memory_limit = 1048576;
  r.memory_swap = 2097152;
  r.memory_reservation = 524288;
  r.cpu_shares_set = true;
  r.cpu_shares = 1024;
  r.cpu_quota = 20000;
  r.cpuset_cpus = "0";
  r.pids_limit = 10;
  r.unified = &kv;
  r.n_unified = 1;
  is_str(build(&r),
         "cpuset.cpus=0;memory.low=524288;memory.max=1048576;memory.swap.max=1048576;"
         "cpu.weight=100;cpu.max=20000 100000;pids.max=10;io.max=8:0 rbps=1\n8:1 rbps=2",
         "everything at once, in a fixed order, unified last");
  if (cgroup_limits_build(&r, &limits, &err) < 0)
    return;
  out = open_memstream(&printed, &size);
  cgroup_limits_print(&limits, out, "  ");
  fclose(out);
  ok(strstr(printed, "  memory.max: 1048576\n") != NULL, "print: one 'file: value' line");
  ok(strstr(printed, "  io.max: 8:0 rbps=1\\n8:1 rbps=2\n") != NULL,
     "print: a multi-line value stays on its line");
  cgroup_limits_clear(&limits);
  r = none();
  r.blkio_weight = 500;
  if (cgroup_limits_build(&r, &limits, &err) < 0)
    return;
  free(printed);
  out = open_memstream(&printed, &size);
  cgroup_limits_print(&limits, out, "  ");
  fclose(out);
  ok(strstr(printed, "  io.weight: 4950\n  io.bfq.weight: 500 (where the kernel has the file)\n") !=
         NULL,
     "print: a pair written only where the kernel has its file says so");
  cgroup_limits_clear(&limits);
  is_int(limits.n, 0, "clear empties the list");
}

static const char *read_file(int dir_fd, const char *name)
{
  static char buf[256];
  int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
  if (fd >= 0)
    close(fd);
  buf[n > 0 ? n : 0] = '\0';
  return buf;
}

static void test_write(void)
{
  char dir[] = "/tmp/cgroup_limits.XXXXXX";
  struct cgroup_limit items[] = {{"memory.max", "1048576", false}, {"pids.max", "max", false}};
  struct cgroup_limit swap[] = {{"memory.swap.max", "max", false}};
  struct cgroup_limit missing[] = {{"io.max", "8:0 rbps=1", false}};
  struct cgroup_limit missing_swap[] = {{"memory.swap.max", "1024", false}};
  struct cgroup_limit link[] = {{"cpu.max", "max 100000", false}};
  struct cgroup_limit optional[] = {{"io.bfq.weight", "500", true}, {"io.weight", "4950", false}};
  oci_error_t err = NULL;
  int dir_fd;

  if (mkdtemp(dir) == NULL || (dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
    ok(false, "make a scratch directory");
    return;
  }
  unit_write_file(dir_fd, "memory.max", "max");
  unit_write_file(dir_fd, "pids.max", "");
  is_int(cgroup_limits_write(dir_fd, &(struct cgroup_limits){items, 2}, &err), 0,
         "write: every pair written");
  is_str(read_file(dir_fd, "memory.max"), "1048576", "write: memory.max has its value");
  is_str(read_file(dir_fd, "pids.max"), "max", "write: pids.max has its value");
  is_int(cgroup_limits_write(dir_fd, &(struct cgroup_limits){swap, 1}, &err), 0,
         "write: an absent memory.swap.max (no swap accounting) is fine for max");
  ok(cgroup_limits_write(dir_fd, &(struct cgroup_limits){missing_swap, 1}, &err) < 0,
     "write: an absent memory.swap.max with a limit is an error");
  oci_error_free(&err);
  unit_write_file(dir_fd, "io.weight", "");
  is_int(cgroup_limits_write(dir_fd, &(struct cgroup_limits){optional, 2}, &err), 0,
         "write: an absent file whose pair is marked if_present is skipped");
  is_str(read_file(dir_fd, "io.weight"), "4950", "write: the pairs after it are written");
  unlinkat(dir_fd, "io.weight", 0);
  ok(cgroup_limits_write(dir_fd, &(struct cgroup_limits){optional + 1, 1}, &err) < 0 &&
         strstr(err->message, "io.weight") != NULL,
     "write: an absent file of a pair not so marked is an error");
  oci_error_free(&err);
  ok(cgroup_limits_write(dir_fd, &(struct cgroup_limits){missing, 1}, &err) < 0 &&
         strstr(err->message, "io.max") != NULL && strstr(err->message, "8:0 rbps=1") != NULL,
     "write: an absent file is an error naming the file and the value");
  oci_error_free(&err);
  if (symlinkat("memory.max", dir_fd, "cpu.max") < 0)
    ok(false, "make a symlink");
  ok(cgroup_limits_write(dir_fd, &(struct cgroup_limits){link, 1}, &err) < 0 &&
         err->errno_value == ELOOP && strcmp(read_file(dir_fd, "memory.max"), "1048576") == 0,
     "write: a symlink is not followed");
  oci_error_free(&err);
  unlinkat(dir_fd, "cpu.max", 0);
  unlinkat(dir_fd, "memory.max", 0);
  unlinkat(dir_fd, "pids.max", 0);
  close(dir_fd);
  rmdir(dir);
}

static const char *slice_path(const char *cgroups_path, const char *id)
{
  static char text[1024];
  char *path = NULL;
  oci_error_t err = NULL;

  if (cgroup_slice_path(cgroups_path, id, false, &path, &err) < 0) {
    snprintf(text, sizeof(text), "ERROR: %s", err->message);
    oci_error_free(&err);
  } else {
    snprintf(text, sizeof(text), "%s", path);
  }
  free(path);
  return text;
}

static void test_slice_path(void)
{
  static const char *const bad[] = {"/a/../b", "/a//b", "/a/./b", "a/..", "../a",
                                    "/a/",     "",      "a//b",   "/..",  "."};

  is_str(slice_path(NULL, "box"), CGROUP_DEFAULT_PARENT "/box", "no cgroupsPath: the default");
  is_str(slice_path("/machine/box", "id"), "/sys/fs/cgroup/machine/box",
         "absolute cgroupsPath: below the cgroup2 mount");
  is_str(slice_path("machine/box", "id"), CGROUP_DEFAULT_PARENT "/machine/box",
         "relative cgroupsPath: below ocirun's parent");
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    ok(strncmp(slice_path(bad[i], "id"), "ERROR: linux.cgroupsPath", 24) == 0,
       "cgroupsPath '%s' is refused", bad[i]);
  ok(strncmp(slice_path("/", "id"), "ERROR: linux.cgroupsPath: '/' names the cgroup root", 50) == 0,
     "cgroupsPath '/' is refused");
  ok(strstr(slice_path("system.slice:docker:abc", "id"), "--systemd-cgroup is not supported") !=
         NULL,
     "systemd's slice:prefix:name is refused, naming --systemd-cgroup");
  ok(strncmp(slice_path(NULL, "a/b"), "ERROR: ", 7) == 0, "an id with '/' is refused");
  ok(strncmp(slice_path(NULL, ".."), "ERROR: ", 7) == 0, "the id '..' is refused");
}

/* --kernel (in the cgroup v2 guest, tests/guest/cgroup-slice.sh): a slice
 * made from limits in a real hierarchy, its parents and controllers, what
 * a failure leaves (nothing it made), freeze, the pid list, destroy. */
static const char *read_at(const char *dir, const char *file)
{
  static char buf[512];
  char path[1024];
  int fd;
  ssize_t n;

  snprintf(path, sizeof(path), "%s/%s", dir, file);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
  if (fd >= 0)
    close(fd);
  buf[n > 0 ? n : 0] = '\0';
  buf[strcspn(buf, "\n")] = '\0';
  return buf;
}

/* cgroup.events whole ("populated 1\nfrozen 0\n"). */
static const char *events_of(const char *dir)
{
  static char buf[512];
  char path[1024];
  int fd;
  ssize_t n;

  snprintf(path, sizeof(path), "%s/cgroup.events", dir);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
  if (fd >= 0)
    close(fd);
  buf[n > 0 ? n : 0] = '\0';
  return buf;
}

static bool exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0;
}

/* A child that moves itself into `cgroup` and waits to be killed. */
static pid_t start_in(const char *cgroup)
{
  char procs[1024];
  pid_t pid;

  snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgroup);
  pid = fork();
  if (pid == 0) {
    int fd = open(procs, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1)
      _exit(2);
    for (;;)
      pause();
  }
  /* Until the child is in: cgroup.procs lists it. */
  for (int i = 0; i < 500 && pid > 0; i++) {
    char want[32];
    snprintf(want, sizeof(want), "%d", (int)pid);
    if (strstr(read_at(cgroup, "cgroup.procs"), want) != NULL)
      break;
    usleep(10000);
  }
  return pid;
}

static const char *create_error(const char *path, struct cgroup_limits *limits)
{
  static char text[1024];
  struct cgroup_slice slice;
  oci_error_t err = NULL;

  text[0] = '\0';
  if (cgroup_slice_create(path, false, limits, NULL, 0, &slice, &err) == 0) {
    cgroup_slice_destroy(&slice, &err);
    return "(created)";
  }
  snprintf(text, sizeof(text), "%s", err->message);
  oci_error_free(&err);
  return text;
}

static int kernel_main(void)
{
  char base[128], parent[256], path[512], inner[600], failing[512], failing_parent[256];
  struct spec_resources r = none();
  struct spec_key_value kv[] = {{"memory.oom.group", "1"}};
  struct cgroup_limits limits, bad;
  struct cgroup_slice slice;
  oci_error_t err = NULL;
  struct statfs fs;
  pid_t *pids = NULL, outer_pid, inner_pid;
  size_t n = 0;
  bool found_outer = false, found_inner = false;

  if (geteuid() != 0 || statfs("/sys/fs/cgroup", &fs) < 0 || fs.f_type != CGROUP2_SUPER_MAGIC) {
    printf("1..0 # SKIP needs root on cgroup v2 (the guest)\n");
    return 0;
  }
  snprintf(base, sizeof(base), "/sys/fs/cgroup/ocirun-unit-limits.%d", (int)getpid());
  snprintf(parent, sizeof(parent), "%s/a", base);
  snprintf(path, sizeof(path), "%s/box", parent);
  if (!ok(mkdir(base, 0755) == 0, "kernel: make %s", base))
    return unit_done();
  r.memory_limit = 67108864;
  r.memory_swap = 67108864;
  r.pids_limit = 10;
  r.cpuset_cpus = "0";
  r.cpu_shares_set = true;
  r.cpu_shares = 1024;
  r.unified = kv;
  r.n_unified = 1;
  if (cgroup_limits_build(&r, &limits, &err) < 0)
    return unit_done();

  /* A slice two levels below an existing cgroup: the parent is made. */
  if (!ok(cgroup_slice_create(path, false, &limits, cgroup_devices_docker_default,
                              cgroup_devices_docker_default_n, &slice, &err) == 0,
          "kernel: the slice is created below a parent it makes")) {
    printf("# %s\n", err->message);
    oci_error_free(&err);
    return unit_done();
  }
  is_str(read_at(path, "memory.max"), "67108864", "kernel: memory.max");
  is_str(read_at(path, "memory.swap.max"), "0", "kernel: memory.swap.max (swap == limit)");
  is_str(read_at(path, "pids.max"), "10", "kernel: pids.max");
  is_str(read_at(path, "cpuset.cpus"), "0", "kernel: cpuset.cpus");
  is_str(read_at(path, "cpu.weight"), "100", "kernel: cpu.weight");
  is_str(read_at(path, "memory.oom.group"), "1", "kernel: unified memory.oom.group");
  ok(strstr(read_at(parent, "cgroup.subtree_control"), "cpuset") != NULL &&
         strstr(read_at(base, "cgroup.subtree_control"), "cpuset") != NULL,
     "kernel: cpuset enabled down to the slice (needed by cpuset.cpus)");
  ok(strstr(read_at(parent, "cgroup.subtree_control"), "memory") != NULL &&
         strstr(read_at(parent, "cgroup.subtree_control"), "pids") != NULL,
     "kernel: memory and pids enabled in the made parent");

  /* Two processes: one in the slice, one in a cgroup below it. */
  snprintf(inner, sizeof(inner), "%s/inner", path);
  ok(mkdir(inner, 0755) == 0, "kernel: a cgroup inside the slice");
  outer_pid = start_in(path);
  inner_pid = start_in(inner);
  if (ok(cgroup_list_pids(slice.dir_fd, path, &pids, &n, &err) == 0,
         "kernel: list the slice's pids")) {
    for (size_t i = 0; i < n; i++) {
      found_outer |= pids[i] == outer_pid;
      found_inner |= pids[i] == inner_pid;
    }
    ok(n == 2 && found_outer && found_inner,
       "kernel: cgroup_list_pids has the slice's process and its sub-cgroup's (%zu pids)", n);
  }
  free(pids);
  oci_error_free(&err);
  ok(cgroup_freeze(slice.dir_fd, path, true, &err) == 0, "kernel: freeze");
  oci_error_free(&err);
  is_str(read_at(path, "cgroup.freeze"), "1", "kernel: cgroup.freeze is 1");
  ok(strstr(events_of(path), "frozen 1\n") != NULL, "kernel: cgroup.events says frozen 1");
  ok(cgroup_freeze(slice.dir_fd, path, false, &err) == 0, "kernel: thaw");
  oci_error_free(&err);
  is_str(read_at(path, "cgroup.freeze"), "0", "kernel: cgroup.freeze is 0");
  ok(strstr(events_of(path), "frozen 0\n") != NULL, "kernel: cgroup.events says frozen 0");
  ok(cgroup_slice_destroy(&slice, &err) == 0, "kernel: destroy kills both and removes the slice");
  oci_error_free(&err);
  waitpid(outer_pid, NULL, 0);
  waitpid(inner_pid, NULL, 0);
  ok(!exists(path) && exists(parent), "kernel: the slice is gone, its parent stays");
  rmdir(parent);

  /* A failure after the parents were made leaves none of them. */
  snprintf(failing_parent, sizeof(failing_parent), "%s/x", base);
  snprintf(failing, sizeof(failing), "%s/y/box", failing_parent);
  kv[0] = (struct spec_key_value){"memory.no_such_file", "1"};
  r = none();
  r.unified = kv;
  r.n_unified = 1;
  if (cgroup_limits_build(&r, &bad, &err) == 0) {
    const char *message = create_error(failing, &bad);
    ok(strstr(message, "memory.no_such_file") != NULL && strstr(message, "'1'") != NULL,
       "kernel: a limit the kernel refuses fails the slice, naming the file and the value");
    ok(!exists(failing_parent) && exists(base),
       "kernel: the parents it made are removed, the one that existed stays");
    cgroup_limits_clear(&bad);
  }
  kv[0] = (struct spec_key_value){"nosuch.max", "1"};
  if (cgroup_limits_build(&r, &bad, &err) == 0) {
    const char *message = create_error(failing, &bad);
    ok(strstr(message, "the nosuch controller (needed by nosuch.max) is not available") != NULL,
       "kernel: a controller that is not there is an error naming it");
    ok(!exists(failing_parent), "kernel: and nothing is left");
    cgroup_limits_clear(&bad);
  }
  /* An existing slice is never shared. */
  snprintf(path, sizeof(path), "%s/taken", base);
  mkdir(path, 0755);
  ok(strstr(create_error(path, &limits), "File exists") != NULL,
     "kernel: an existing slice is refused");
  ok(exists(path), "kernel: and left as it was");
  rmdir(path);
  cgroup_limits_clear(&limits);
  ok(rmdir(base) == 0, "kernel: the test cgroups are removed");
  return unit_done();
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--kernel") == 0)
    return kernel_main();
  test_memory();
  test_cpu();
  test_pids();
  test_cpu_idle();
  test_cpu_burst();
  test_block_io();
  test_hugepages();
  test_unified();
  test_all_and_print();
  test_write();
  test_slice_path();
  return unit_done();
}
