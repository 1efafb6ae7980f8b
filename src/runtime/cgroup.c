/* The run's cgroup v2 slice: its limits built as data from linux.resources,
 * checked for, created with them before the process exists, frozen and
 * listed, and killed, waited for and removed (absence verified) after. Also
 * removes a slice by path for `ocirun sweep`. */
#include "config.h"

#include "runtime/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "runtime/cgroup_devices.h"
#include "oci/cleanup.h"
#include "oci/file_read.h"

/* The controllers a run's limits need. */
static const char *const required_controllers[] = {"memory", "cpu", "pids"};
#define N_REQUIRED_CONTROLLERS (sizeof(required_controllers) / sizeof(required_controllers[0]))

/* How long a killed slice may take to empty (TCG guests are slow). */
#define CGROUP_EMPTY_TIMEOUT_MS 10000

/* Reads a small cgroup file (whole content, NUL-terminated). */
static int read_cgroup_file(int dir_fd, const char *dir_path, const char *file, char *buf,
                            size_t size, oci_error_t *err)
{
  cleanup_close int fd = openat(dir_fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  ssize_t n;
  size_t total = 0;

  if (fd < 0)
    return oci_error_errno(err, "cgroup: open '%s/%s'", dir_path, file);
  while (total + 1 < size) {
    n = read(fd, buf + total, size - 1 - total);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return oci_error_errno(err, "cgroup: read '%s/%s'", dir_path, file);
    if (n == 0)
      break;
    total += (size_t)n;
  }
  buf[total] = '\0';
  return 0;
}

static int write_cgroup_file(int dir_fd, const char *dir_path, const char *file, const char *value,
                             oci_error_t *err)
{
  cleanup_close int fd = openat(dir_fd, file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  size_t len = strlen(value);
  ssize_t n;

  if (fd < 0)
    return oci_error_errno(err, "cgroup: open '%s/%s'", dir_path, file);
  do
    n = write(fd, value, len);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return oci_error_errno(err, "cgroup: write '%s' to '%s/%s'", value, dir_path, file);
  if ((size_t)n != len)
    return oci_error_set(err, EIO, "cgroup: short write of '%s' to '%s/%s'", value, dir_path, file);
  return 0;
}

/* Whether a space-separated controller list names `controller`. */
static bool list_has_word(const char *list, const char *word)
{
  size_t len = strlen(word);
  const char *p = list;

  while ((p = strstr(p, word)) != NULL) {
    bool starts = p == list || p[-1] == ' ' || p[-1] == '\n';
    bool ends = p[len] == '\0' || p[len] == ' ' || p[len] == '\n';
    if (starts && ends)
      return true;
    p += len;
  }
  return false;
}

static bool list_has_required(const char *list)
{
  for (size_t i = 0; i < N_REQUIRED_CONTROLLERS; i++)
    if (!list_has_word(list, required_controllers[i]))
      return false;
  return true;
}

/* Copies path and strips its last component ("/a/b" -> "/a", "/a" -> "/"). */
static void path_parent(char *path)
{
  char *slash = strrchr(path, '/');
  if (slash == NULL)
    return;
  if (slash == path)
    slash[1] = '\0';
  else
    *slash = '\0';
}

static const char *filesystem_name(long type)
{
  switch (type) {
  case CGROUP2_SUPER_MAGIC:
    return "cgroup2";
  case CGROUP_SUPER_MAGIC:
    return "a cgroup v1 hierarchy";
  case TMPFS_MAGIC:
    return "a tmpfs";
  case SYSFS_MAGIC:
    return "sysfs";
  default:
    return "not a cgroup filesystem";
  }
}

static int host_unsupported(oci_error_t *err, const char *path, const char *what)
{
  return oci_error_set(err, 0,
                       "cgroup v2 with memory, cpu and pids controllers is required; %s is %s "
                       "(hybrid/v1 host): run inside a cgroup v2 guest (scripts/vm-run) or pass "
                       "--unsafe-no-cgroup for development",
                       path, what);
}

/* Finds the root of the cgroup2 mount holding `existing` (a directory on
 * cgroup2): the highest ancestor on the same device. */
static int cgroup_mount_root(const char *existing, char *root, size_t size, oci_error_t *err)
{
  struct stat st, parent_st;
  char candidate[PATH_MAX];

  if (stat(existing, &st) < 0)
    return oci_error_errno(err, "cgroup: stat '%s'", existing);
  snprintf(root, size, "%s", existing);
  while (strcmp(root, "/") != 0) {
    struct statfs fs;
    snprintf(candidate, sizeof(candidate), "%s", root);
    path_parent(candidate);
    if (stat(candidate, &parent_st) < 0 || parent_st.st_dev != st.st_dev ||
        statfs(candidate, &fs) < 0 || fs.f_type != CGROUP2_SUPER_MAGIC)
      break;
    snprintf(root, size, "%s", candidate);
  }
  return 0;
}

int cgroup_check_host(const char *parent, oci_error_t *err)
{
  char existing[PATH_MAX], root[PATH_MAX], controllers[512];
  struct statfs fs;
  cleanup_close int root_fd = -1;

  if (parent == NULL || parent[0] != '/')
    return oci_error_set(err, 0, "cgroup parent '%s' must be an absolute path",
                         parent ? parent : "");
  if (strlen(parent) >= sizeof(existing))
    return oci_error_set(err, ENAMETOOLONG, "cgroup parent '%s'", parent);
  /* The parent may not exist yet: judge the nearest ancestor that does. */
  snprintf(existing, sizeof(existing), "%s", parent);
  while (statfs(existing, &fs) < 0) {
    if (errno != ENOENT || strcmp(existing, "/") == 0)
      return oci_error_errno(err, "cgroup: statfs '%s'", existing);
    path_parent(existing);
  }
  if (fs.f_type != CGROUP2_SUPER_MAGIC)
    return host_unsupported(err, existing, filesystem_name(fs.f_type));
  if (cgroup_mount_root(existing, root, sizeof(root), err) < 0)
    return -1;
  root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0)
    return oci_error_errno(err, "cgroup: open '%s'", root);
  if (read_cgroup_file(root_fd, root, "cgroup.controllers", controllers, sizeof(controllers), err) <
      0)
    return -1;
  if (!list_has_required(controllers)) {
    cleanup_free char *what = NULL;
    controllers[strcspn(controllers, "\n")] = '\0';
    if (asprintf(&what, "cgroup2 whose root %s offers only '%s'", root, controllers) < 0)
      return oci_error_errno(err, "cgroup: allocate");
    return host_unsupported(err, existing, what);
  }
  return 0;
}

/* The caller's own cgroup: the "0::" line of /proc/self/cgroup, under the
 * cgroup2 mount at /sys/fs/cgroup. */
static int own_cgroup(char *out, size_t size, oci_error_t *err)
{
  cleanup_fclose FILE *f = fopen("/proc/self/cgroup", "re");
  char line[PATH_MAX];

  if (f == NULL)
    return oci_error_errno(err, "cgroup: open /proc/self/cgroup");
  while (fgets(line, sizeof(line), f) != NULL) {
    if (strncmp(line, "0::/", 4) != 0)
      continue;
    line[strcspn(line, "\n")] = '\0';
    if ((size_t)snprintf(out, size, "/sys/fs/cgroup%s",
                         strcmp(line + 3, "/") == 0 ? "" : line + 3) >= size)
      return oci_error_set(err, ENAMETOOLONG, "cgroup: own cgroup '%s'", line + 3);
    return 0;
  }
  return oci_error_set(err, 0, "cgroup: /proc/self/cgroup has no cgroup v2 (\"0::\") line");
}

int cgroup_resolve_parent(const char *requested, bool rootless, char **parent, oci_error_t *err)
{
  char own[PATH_MAX];

  if (requested == NULL && rootless) {
    if (own_cgroup(own, sizeof(own), err) < 0)
      return -1;
    /* The root cgroup has no parent; it is never delegated either. */
    if (strcmp(own, "/sys/fs/cgroup") != 0)
      path_parent(own);
    requested = own;
  }
  *parent = strdup(requested != NULL ? requested : CGROUP_DEFAULT_PARENT);
  return *parent == NULL ? oci_error_errno(err, "cgroup: allocate") : 0;
}

/* An unprivileged process may create cgroups, write their limits and move
 * a process into one only inside a subtree delegated to it (the directory
 * and its cgroup.procs and cgroup.subtree_control writable), and only
 * between cgroups whose common ancestor is in that subtree: so the parent
 * must be delegated and must hold the caller's own cgroup. */
static int check_delegated(const char *parent, oci_error_t *err)
{
  static const char *const needed[] = {"", "/cgroup.procs", "/cgroup.subtree_control"};
  cleanup_close int dir_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
  char own[PATH_MAX];
  size_t length = strlen(parent);

  if (dir_fd < 0)
    return oci_error_errno(err, "rootless: cgroup parent '%s'", parent);
  for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
    if (faccessat(dir_fd, needed[i][0] != '\0' ? needed[i] + 1 : ".", W_OK, AT_EACCESS) < 0)
      return oci_error_set(
          err, errno,
          "rootless: no delegated cgroup v2 subtree: '%s%s' is not writable by uid %u. Run "
          "ocirun in a cgroup whose parent is delegated to you (as in a systemd user "
          "session), pass --cgroup-parent for a subtree delegated to you, or "
          "--unsafe-no-cgroup (no limits). Nothing was started",
          parent, needed[i], (unsigned)geteuid());
  }
  if (own_cgroup(own, sizeof(own), err) < 0)
    return -1;
  if (strncmp(own, parent, length) != 0 || own[length] != '/')
    return oci_error_set(err, 0,
                         "rootless: this process's cgroup '%s' is not below the cgroup parent "
                         "'%s': an unprivileged process can start a run only in a cgroup that "
                         "shares a delegated ancestor with its own",
                         own, parent);
  return 0;
}

/* --- limits as data --- */

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

/* cpu.shares (v1, 2..262144, default 1024) mapped linearly onto cpu.weight
 * (v2, 1..10000): the conversion runc, crun and systemd have used, so a
 * configuration gets the same weight from any of them. */
#define CPU_SHARES_MIN 2
#define CPU_SHARES_MAX 262144
#define CPU_WEIGHT_MAX 10000

static int add_cpu(struct cgroup_limits *limits, const struct spec_resources *r, oci_error_t *err)
{
  if (r->cpu_shares_set) {
    if (r->cpu_shares < CPU_SHARES_MIN || r->cpu_shares > CPU_SHARES_MAX)
      return oci_error_set(err, 0, "linux.resources.cpu.shares: %" PRIu64 " is outside %d..%d",
                           r->cpu_shares, CPU_SHARES_MIN, CPU_SHARES_MAX);
    uint64_t weight = 1 + ((r->cpu_shares - CPU_SHARES_MIN) * (CPU_WEIGHT_MAX - 1)) /
                              (CPU_SHARES_MAX - CPU_SHARES_MIN);
    if (add_limit(limits, err, "cpu.weight", "%" PRIu64, weight) < 0)
      return -1;
  }
  if (r->cpu_quota == -1 && r->cpu_period == 0)
    return 0;
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
      {"memory.max", "memory.limit"},      {"memory.low", "memory.reservation"},
      {"memory.swap.max", "memory.swap"},  {"cpu.weight", "cpu.shares"},
      {"cpu.max", "cpu.quota/cpu.period"}, {"cpuset.cpus", "cpu.cpus"},
      {"cpuset.mems", "cpu.mems"},         {"pids.max", "pids.limit"},
  };
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
    if (strcmp(fields[i][0], file) == 0)
      return fields[i][1];
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
      add_swap(out, r, err) < 0 || add_cpu(out, r, err) < 0)
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
    fputc('\n', out);
  }
}

int cgroup_limits_write(int dir_fd, const struct cgroup_limits *limits, oci_error_t *err)
{
  for (size_t i = 0; i < limits->n; i++) {
    const char *file = limits->items[i].file, *value = limits->items[i].value;
    cleanup_close int fd = openat(dir_fd, file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    size_t len = strlen(value);
    ssize_t n;

    if (fd < 0) {
      /* Without swap accounting the file is absent: fine only when
       * unlimited, which is what absent means. */
      if (errno == ENOENT && strcmp(file, "memory.swap.max") == 0 && strcmp(value, "max") == 0)
        continue;
      return oci_error_errno(err, "cgroup: set %s to '%s': open%s", file, value,
                             errno == ENOENT ? " (its controller is not enabled here, or "
                                               "this kernel does not have it)"
                                             : "");
    }
    do
      n = write(fd, value, len);
    while (n < 0 && errno == EINTR);
    if (n < 0)
      return oci_error_errno(err, "cgroup: set %s to '%s'", file, value);
    if ((size_t)n != len)
      return oci_error_set(err, EIO, "cgroup: set %s to '%s': short write", file, value);
  }
  return 0;
}

/* --- the slice's path --- */

/* Appends a relative cgroup path to base, refusing what is not a plain
 * name per component. */
static int join_cgroup_path(const char *base, const char *relative, const char *field, char **path,
                            oci_error_t *err)
{
  const char *p = relative;

  if (*p == '\0')
    return oci_error_set(err, 0, "%s: empty path", field);
  while (*p != '\0') {
    size_t len = strcspn(p, "/");
    if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
      return oci_error_set(err, 0,
                           "%s: '%s' has an empty, '.' or '..' component; cgroup paths are "
                           "plain names",
                           field, relative);
    if (len > NAME_MAX)
      return oci_error_set(err, ENAMETOOLONG, "%s: '%s'", field, relative);
    p += len;
    if (*p == '/' && *++p == '\0')
      return oci_error_set(err, 0, "%s: '%s' ends with '/'", field, relative);
  }
  if (asprintf(path, "%s/%s", base, relative) < 0) {
    *path = NULL;
    return oci_error_errno(err, "cgroup: allocate path");
  }
  if (strlen(*path) >= PATH_MAX) {
    free(*path);
    *path = NULL;
    return oci_error_set(err, ENAMETOOLONG, "%s: '%s'", field, relative);
  }
  return 0;
}

/* systemd's form is "slice:prefix:name": two colons, no slash. */
static bool is_systemd_form(const char *path)
{
  const char *first = strchr(path, ':');
  return first != NULL && strchr(path, '/') == NULL && strchr(first + 1, ':') != NULL;
}

int cgroup_slice_path(const char *cgroups_path, const char *id, bool rootless, char **path,
                      oci_error_t *err)
{
  cleanup_free char *parent = NULL;

  *path = NULL;
  if (cgroups_path != NULL && is_systemd_form(cgroups_path))
    return oci_error_set(err, 0,
                         "linux.cgroupsPath: '%s' is systemd's slice:prefix:name form; "
                         "--systemd-cgroup is not supported: give a cgroupfs path "
                         "(\"/parent/name\")",
                         cgroups_path);
  if (cgroups_path != NULL && cgroups_path[0] == '/') {
    /* Relative to the cgroups mount, as the spec says. */
    const char *relative = cgroups_path + strspn(cgroups_path, "/");
    if (*relative == '\0')
      return oci_error_set(err, 0,
                           "linux.cgroupsPath: '%s' names the cgroup root; a container needs "
                           "a cgroup of its own",
                           cgroups_path);
    return join_cgroup_path(CGROUP_MOUNT, relative, "linux.cgroupsPath", path, err);
  }
  if (cgroup_resolve_parent(NULL, rootless, &parent, err) < 0)
    return -1;
  if (cgroups_path != NULL)
    return join_cgroup_path(parent, cgroups_path, "linux.cgroupsPath", path, err);
  if (id == NULL || strchr(id, '/') != NULL)
    return oci_error_set(err, 0, "cgroup: invalid container id '%s'", id ? id : "");
  return join_cgroup_path(parent, id, "container id", path, err);
}

/* --- controllers --- */

/* The controllers a slice needs: memory, cpu and pids always (ocirun
 * accounts every run), plus the controller of every limit file. */
struct controllers {
  const char *names[32];
  const char *needed_by[32]; /* a limit file, or NULL for the always-needed ones */
  size_t n;
};

static void add_controller(struct controllers *c, const char *name, size_t len,
                           const char *needed_by)
{
  for (size_t i = 0; i < c->n; i++)
    if (strlen(c->names[i]) == len && strncmp(c->names[i], name, len) == 0)
      return;
  if (c->n < sizeof(c->names) / sizeof(c->names[0])) {
    c->names[c->n] = strndup(name, len);
    c->needed_by[c->n] = needed_by;
    if (c->names[c->n] != NULL)
      c->n++;
  }
}

static void controllers_clear(struct controllers *c)
{
  for (size_t i = 0; i < c->n; i++)
    free((char *)c->names[i]);
  c->n = 0;
}

static void controllers_for(const struct cgroup_limits *limits, struct controllers *c)
{
  c->n = 0;
  for (size_t i = 0; i < N_REQUIRED_CONTROLLERS; i++)
    add_controller(c, required_controllers[i], strlen(required_controllers[i]), NULL);
  for (size_t i = 0; limits != NULL && i < limits->n; i++) {
    const char *file = limits->items[i].file;
    size_t len = strcspn(file, ".");
    if (len == 6 && strncmp(file, "cgroup", 6) == 0)
      continue; /* core files: every cgroup has them */
    add_controller(c, file, len, file);
  }
}

/* Enables the controllers for the children of `dir_fd` unless they already
 * are (writing subtree_control needlessly can fail with EBUSY); one the
 * directory does not offer is an error naming the limit that needs it. */
static int enable_controllers(int dir_fd, const char *path, const struct controllers *c,
                              oci_error_t *err)
{
  char enabled[512], available[512], request[512] = "";
  size_t used = 0;

  if (read_cgroup_file(dir_fd, path, "cgroup.subtree_control", enabled, sizeof(enabled), err) < 0)
    return -1;
  for (size_t i = 0; i < c->n; i++) {
    if (list_has_word(enabled, c->names[i]))
      continue;
    if (used == 0 &&
        read_cgroup_file(dir_fd, path, "cgroup.controllers", available, sizeof(available), err) < 0)
      return -1;
    if (!list_has_word(available, c->names[i])) {
      available[strcspn(available, "\n")] = '\0';
      return oci_error_set(err, 0,
                           "cgroup: the %s controller%s%s%s is not available in '%s' (it offers "
                           "'%s')",
                           c->names[i], c->needed_by[i] ? " (needed by " : "",
                           c->needed_by[i] ? c->needed_by[i] : "", c->needed_by[i] ? ")" : "", path,
                           available);
    }
    used += (size_t)snprintf(request + used, sizeof(request) - used, "%s+%s", used ? " " : "",
                             c->names[i]);
    if (used >= sizeof(request))
      return oci_error_set(err, E2BIG, "cgroup: too many controllers for '%s'", path);
  }
  if (used == 0)
    return 0;
  return write_cgroup_file(dir_fd, path, "cgroup.subtree_control", request, err);
}

/* --- the slice --- */

/* Removes the directories prepare_parent created, deepest first: from
 * `path` up to and including `first_created`. */
static void remove_created_parents(const char *path, const char *first_created)
{
  char dir[PATH_MAX];

  if (first_created[0] == '\0')
    return;
  snprintf(dir, sizeof(dir), "%s", path);
  for (;;) {
    if (rmdir(dir) < 0)
      return; /* in use by now (another run): it stays, as a shared parent */
    if (strcmp(dir, first_created) == 0)
      return;
    path_parent(dir);
  }
}

/* Creates `parent` (and missing ancestors) below its cgroup2 mount root and
 * enables the controllers down to it. first_created gets the topmost
 * directory made here ("" when none), for undoing it. */
static int prepare_parent(const char *parent, const struct controllers *c, char *first_created,
                          oci_error_t *err)
{
  char existing[PATH_MAX], root[PATH_MAX], partial[PATH_MAX];
  struct stat st;
  size_t root_len;

  first_created[0] = '\0';
  snprintf(existing, sizeof(existing), "%s", parent);
  while (stat(existing, &st) < 0) {
    if (errno != ENOENT || strcmp(existing, "/") == 0)
      return oci_error_errno(err, "cgroup: stat '%s'", existing);
    path_parent(existing);
  }
  if (cgroup_mount_root(existing, root, sizeof(root), err) < 0)
    return -1;
  root_len = strlen(root);
  if (strncmp(parent, root, root_len) != 0 || (parent[root_len] != '/' && parent[root_len] != '\0'))
    return oci_error_set(err, 0, "cgroup parent '%s' is not below the cgroup2 mount '%s'", parent,
                         root);
  /* Walk from the mount root down: enable in each level, then descend. */
  snprintf(partial, sizeof(partial), "%s", root);
  const char *rest = parent + root_len;
  for (;;) {
    cleanup_close int fd = open(partial, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
      return oci_error_errno(err, "cgroup: open '%s'", partial);
    if (enable_controllers(fd, partial, c, err) < 0)
      return -1;
    while (*rest == '/')
      rest++;
    if (*rest == '\0')
      return 0;
    size_t len = strcspn(rest, "/");
    size_t used = strlen(partial);
    if (used + 1 + len >= sizeof(partial))
      return oci_error_set(err, ENAMETOOLONG, "cgroup parent '%s'", parent);
    if (strcmp(partial, "/") != 0)
      partial[used++] = '/';
    memcpy(partial + used, rest, len);
    partial[used + len] = '\0';
    rest += len;
    if (mkdir(partial, 0755) == 0) {
      if (first_created[0] == '\0')
        snprintf(first_created, PATH_MAX, "%s", partial);
    } else if (errno != EEXIST) {
      return oci_error_errno(err, "cgroup: mkdir '%s'", partial);
    }
  }
}

int cgroup_slice_create(const char *path, bool rootless, const struct cgroup_limits *limits,
                        const struct spec_device_rule *device_rules, size_t n_device_rules,
                        struct cgroup_slice *slice, oci_error_t *err)
{
  cleanup_free char *own_path = NULL;
  cleanup_close int dir_fd = -1;
  char parent[PATH_MAX], first_created[PATH_MAX] = "";
  struct controllers controllers = {0};
  const char *name;
  int ret = -1;

  slice->path = NULL;
  slice->dir_fd = -1;
  if (path == NULL || path[0] != '/' || strlen(path) >= sizeof(parent) ||
      strstr(path, "/../") != NULL || strstr(path, "/./") != NULL || strstr(path, "//") != NULL)
    return oci_error_set(err, 0, "cgroup: invalid slice path '%s'", path ? path : "");
  snprintf(parent, sizeof(parent), "%s", path);
  path_parent(parent);
  name = strrchr(path, '/') + 1;
  if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
      strcmp(parent, "/") == 0)
    return oci_error_set(err, 0, "cgroup: invalid slice path '%s'", path);
  if (rootless && device_rules != NULL)
    return oci_error_set(err, EPERM, "cgroup: a device program cannot be attached rootless ('%s')",
                         path);
  if ((own_path = strdup(path)) == NULL)
    return oci_error_errno(err, "cgroup: allocate path");
  if (cgroup_check_host(parent, err) < 0)
    return -1;
  controllers_for(limits, &controllers);
  if (rootless) {
    cleanup_close int parent_fd = -1;

    if (check_delegated(parent, err) < 0)
      goto out;
    parent_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (parent_fd < 0) {
      oci_error_errno(err, "cgroup: open '%s'", parent);
      goto out;
    }
    if (enable_controllers(parent_fd, parent, &controllers, err) < 0) {
      oci_error_wrap(err,
                     "rootless: the delegated '%s' cannot give its children the controllers "
                     "the run needs: ",
                     parent);
      goto out;
    }
  } else if (prepare_parent(parent, &controllers, first_created, err) < 0) {
    remove_created_parents(parent, first_created);
    goto out;
  }
  /* The slice is the run's own: an existing one means a name clash or a
   * crashed runner's leftover (ocirun sweep), never something to share. */
  if (mkdir(path, 0755) < 0) {
    oci_error_errno(err, "cgroup: mkdir '%s'", path);
    remove_created_parents(parent, first_created);
    goto out;
  }
  dir_fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  /* The device program goes on before any process can be in the slice.
   * Rootless: no program (an unprivileged user cannot attach one); the user
   * namespace stands in for it (see cgroup_devices.c). */
  if (dir_fd < 0 || (limits != NULL && cgroup_limits_write(dir_fd, limits, err) < 0) ||
      (device_rules != NULL &&
       cgroup_devices_attach(dir_fd, path, device_rules, n_device_rules, err) < 0)) {
    if (dir_fd < 0)
      oci_error_errno(err, "cgroup: open '%s'", path);
    if (rmdir(path) < 0)
      oci_error_wrap(err, "cgroup: (also could not remove '%s': %s) ", path, strerror(errno));
    else
      remove_created_parents(parent, first_created);
    goto out;
  }
  slice->path = steal_pointer(&own_path);
  slice->dir_fd = steal_fd(&dir_fd);
  ret = 0;
out:
  controllers_clear(&controllers);
  return ret;
}

/* The value of `key` in a flat-keyed file ("key value" lines), or -1. */
static long long flat_key_value(const char *content, const char *key)
{
  size_t len = strlen(key);
  const char *line = content;

  while (line != NULL && *line != '\0') {
    if (strncmp(line, key, len) == 0 && line[len] == ' ')
      return strtoll(line + len + 1, NULL, 10);
    line = strchr(line, '\n');
    if (line != NULL)
      line++;
  }
  return -1;
}

bool cgroup_slice_oom_killed(const struct cgroup_slice *slice)
{
  char events[1024];
  oci_error_t err = NULL;

  if (slice == NULL || slice->dir_fd < 0)
    return false;
  if (read_cgroup_file(slice->dir_fd, slice->path, "memory.events", events, sizeof(events), &err) <
      0) {
    oci_error_free(&err);
    return false;
  }
  return flat_key_value(events, "oom_kill") > 0;
}

static long long monotonic_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Kills every process in the cgroup (and its descendants). cgroup.kill
 * (Linux 5.14) does it atomically; older kernels get SIGKILL per pid. */
static int kill_cgroup(int dir_fd, const char *path, oci_error_t *err)
{
  char procs[4096];

  if (write_cgroup_file(dir_fd, path, "cgroup.kill", "1", err) == 0)
    return 0;
  if ((*err)->errno_value != ENOENT)
    return -1;
  oci_error_free(err);
  if (read_cgroup_file(dir_fd, path, "cgroup.procs", procs, sizeof(procs), err) < 0)
    return -1;
  for (char *p = procs; *p != '\0';) {
    char *end;
    long pid = strtol(p, &end, 10);
    if (end == p)
      break;
    if (pid > 0 && kill((pid_t)pid, SIGKILL) < 0 && errno != ESRCH)
      return oci_error_errno(err, "cgroup: kill pid %ld of '%s'", pid, path);
    p = end + (*end != '\0');
  }
  return 0;
}

/* Waits (bounded) until cgroup.events has "key want" ("populated 0",
 * "frozen 1"). The kernel signals changes of that file with inotify
 * IN_MODIFY. */
static int wait_events(int dir_fd, const char *path, const char *key, long long want,
                       const char *what, oci_error_t *err)
{
  cleanup_close int inotify_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  cleanup_free char *events_path = NULL;
  long long deadline = monotonic_ms() + CGROUP_EMPTY_TIMEOUT_MS;
  char events[1024];

  if (inotify_fd >= 0 && asprintf(&events_path, "%s/cgroup.events", path) >= 0)
    (void)inotify_add_watch(inotify_fd, events_path, IN_MODIFY);
  for (;;) {
    if (read_cgroup_file(dir_fd, path, "cgroup.events", events, sizeof(events), err) < 0)
      return -1;
    if (flat_key_value(events, key) == want)
      return 0;
    long long left = deadline - monotonic_ms();
    if (left <= 0)
      return oci_error_set(err, EBUSY, "cgroup: '%s' %s after %d ms", path, what,
                           CGROUP_EMPTY_TIMEOUT_MS);
    /* Poll in short steps too, in case an event is missed. */
    struct pollfd pfd = {.fd = inotify_fd, .events = POLLIN};
    if (inotify_fd >= 0) {
      if (poll(&pfd, 1, left < 50 ? (int)left : 50) > 0) {
        char drain[4096];
        while (read(inotify_fd, drain, sizeof(drain)) > 0)
          ;
      }
    } else {
      usleep(10000);
    }
  }
}

static int wait_unpopulated(int dir_fd, const char *path, oci_error_t *err)
{
  return wait_events(dir_fd, path, "populated", 0, "still has processes", err);
}

/* Removes a cgroup directory and its child cgroups, deepest first. A cgroup
 * directory holds only kernel files, which are not unlinked: rmdir takes
 * them with it. */
static int remove_cgroup_tree(int parent_fd, const char *name, const char *path, oci_error_t *err)
{
  cleanup_close int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;

  if (fd < 0)
    return errno == ENOENT ? 0 : oci_error_errno(err, "cgroup: open '%s'", path);
  dir = fdopendir(fd);
  if (dir == NULL)
    return oci_error_errno(err, "cgroup: read '%s'", path);
  fd = -1; /* owned by dir now */
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    cleanup_free char *child_path = NULL;
    if (entry->d_type != DT_DIR || strcmp(entry->d_name, ".") == 0 ||
        strcmp(entry->d_name, "..") == 0)
      continue;
    if (asprintf(&child_path, "%s/%s", path, entry->d_name) < 0)
      return oci_error_errno(err, "cgroup: allocate path");
    if (remove_cgroup_tree(dirfd(dir), entry->d_name, child_path, err) < 0)
      return -1;
  }
  if (errno != 0)
    return oci_error_errno(err, "cgroup: read '%s'", path);
  /* rmdir may briefly see EBUSY while the last exiting task is released. */
  for (int attempt = 0;; attempt++) {
    if (unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
      return 0;
    if (errno != EBUSY || attempt >= 200)
      return oci_error_errno(err, "cgroup: rmdir '%s'", path);
    usleep(10000);
  }
}

/* Kill, wait, remove, verify: shared by destroy and sweep. */
static int kill_and_remove(int dir_fd, const char *path, oci_error_t *err)
{
  cleanup_free char *parent = strdup(path);
  cleanup_close int parent_fd = -1;
  const char *name;
  struct stat st;

  if (parent == NULL)
    return oci_error_errno(err, "cgroup: allocate path");
  if (kill_cgroup(dir_fd, path, err) < 0 || wait_unpopulated(dir_fd, path, err) < 0)
    return -1;
  name = strrchr(path, '/') + 1;
  path_parent(parent);
  parent_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd < 0)
    return oci_error_errno(err, "cgroup: open '%s'", parent);
  if (remove_cgroup_tree(parent_fd, name, path, err) < 0)
    return -1;
  if (fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
    return oci_error_set(err, EEXIST, "cgroup: '%s' still exists after removal", path);
  if (errno != ENOENT)
    return oci_error_errno(err, "cgroup: verify removal of '%s'", path);
  return 0;
}

int cgroup_slice_destroy(struct cgroup_slice *slice, oci_error_t *err)
{
  int ret = 0;

  if (slice == NULL || slice->path == NULL)
    return 0;
  if (slice->dir_fd >= 0)
    ret = kill_and_remove(slice->dir_fd, slice->path, err);
  else
    ret = cgroup_remove_path(slice->path, err);
  if (ret < 0)
    return ret; /* keep path and fd: the caller may retry or report */
  if (slice->dir_fd >= 0)
    close(slice->dir_fd);
  slice->dir_fd = -1;
  free(slice->path);
  slice->path = NULL;
  return 0;
}

int cgroup_remove_path(const char *path, oci_error_t *err)
{
  cleanup_close int dir_fd = -1;
  struct statfs fs;

  if (path == NULL || path[0] != '/' || strcmp(path, "/") == 0 || strstr(path, "/..") != NULL)
    return oci_error_set(err, 0, "cgroup: refusing to remove '%s'", path ? path : "");
  dir_fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd < 0)
    return errno == ENOENT ? 0 : oci_error_errno(err, "cgroup: open '%s'", path);
  /* Never rmdir something that is not a cgroup v2 directory. */
  if (fstatfs(dir_fd, &fs) < 0)
    return oci_error_errno(err, "cgroup: statfs '%s'", path);
  if (fs.f_type != CGROUP2_SUPER_MAGIC)
    return oci_error_set(err, 0, "cgroup: refusing to remove '%s': it is %s, not cgroup2", path,
                         filesystem_name(fs.f_type));
  return kill_and_remove(dir_fd, path, err);
}

int cgroup_freeze(const char *path, bool frozen, oci_error_t *err)
{
  cleanup_close int dir_fd = -1;

  if (path == NULL || path[0] != '/')
    return oci_error_set(err, 0, "cgroup: invalid path '%s'", path ? path : "");
  dir_fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd < 0)
    return oci_error_errno(err, "cgroup: open '%s'", path);
  if (write_cgroup_file(dir_fd, path, "cgroup.freeze", frozen ? "1" : "0", err) < 0)
    return -1;
  return wait_events(dir_fd, path, "frozen", frozen ? 1 : 0,
                     frozen ? "is not frozen" : "is still frozen", err);
}

/* Reads a whole cgroup file (cgroup.procs) through the one bounded reader;
 * the bound is above what any pid_max can fill (4194304 pids of 8 bytes). */
#define CGROUP_FILE_MAX (64u << 20)

static int read_cgroup_file_all(int dir_fd, const char *path, const char *file, char **out,
                                oci_error_t *err)
{
  cleanup_close int fd = openat(dir_fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  char what[PATH_MAX + 32];
  size_t length;

  if (fd < 0)
    return oci_error_errno(err, "cgroup: open '%s/%s'", path, file);
  snprintf(what, sizeof(what), "cgroup file '%s/%s'", path, file);
  return oci_file_read_fd(fd, what, CGROUP_FILE_MAX, out, &length, err);
}

static int append_pid(pid_t **pids, size_t *n, size_t *capacity, pid_t pid, oci_error_t *err)
{
  if (*n == *capacity) {
    size_t grown_capacity = *capacity ? *capacity * 2 : 16;
    pid_t *grown = realloc(*pids, grown_capacity * sizeof(**pids));
    if (grown == NULL)
      return oci_error_errno(err, "cgroup: allocate");
    *pids = grown;
    *capacity = grown_capacity;
  }
  (*pids)[(*n)++] = pid;
  return 0;
}

static int list_pids_in(int dir_fd, const char *path, pid_t **pids, size_t *n, size_t *capacity,
                        oci_error_t *err)
{
  cleanup_free char *procs = NULL;
  cleanup_dir DIR *dir = NULL;
  int list_fd;
  struct dirent *entry;

  if (read_cgroup_file_all(dir_fd, path, "cgroup.procs", &procs, err) < 0)
    return -1;
  for (char *p = procs; *p != '\0';) {
    char *end;
    long pid = strtol(p, &end, 10);
    if (end == p)
      break;
    if (pid > 0 && append_pid(pids, n, capacity, (pid_t)pid, err) < 0)
      return -1;
    p = end + (*end != '\0');
  }
  list_fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (list_fd < 0 || (dir = fdopendir(list_fd)) == NULL) {
    if (list_fd >= 0)
      close(list_fd);
    return oci_error_errno(err, "cgroup: read '%s'", path);
  }
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    cleanup_free char *child_path = NULL;
    cleanup_close int child_fd = -1;
    if (entry->d_type != DT_DIR || strcmp(entry->d_name, ".") == 0 ||
        strcmp(entry->d_name, "..") == 0)
      continue;
    if (asprintf(&child_path, "%s/%s", path, entry->d_name) < 0) {
      child_path = NULL;
      return oci_error_errno(err, "cgroup: allocate path");
    }
    child_fd = openat(dirfd(dir), entry->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child_fd < 0) {
      if (errno == ENOENT) /* removed meanwhile: nothing in it */
        continue;
      return oci_error_errno(err, "cgroup: open '%s'", child_path);
    }
    if (list_pids_in(child_fd, child_path, pids, n, capacity, err) < 0)
      return -1;
  }
  if (errno != 0)
    return oci_error_errno(err, "cgroup: read '%s'", path);
  return 0;
}

int cgroup_list_pids(const char *path, pid_t **pids, size_t *n, oci_error_t *err)
{
  cleanup_close int dir_fd = -1;
  size_t capacity = 0;

  *pids = NULL;
  *n = 0;
  if (path == NULL || path[0] != '/')
    return oci_error_set(err, 0, "cgroup: invalid path '%s'", path ? path : "");
  dir_fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd < 0)
    return oci_error_errno(err, "cgroup: open '%s'", path);
  if (list_pids_in(dir_fd, path, pids, n, &capacity, err) < 0) {
    free(*pids);
    *pids = NULL;
    *n = 0;
    return -1;
  }
  return 0;
}
