/* The run's cgroup v2 slice: checked for, created with its limits before the
 * process exists, and killed, waited for and removed (absence verified) after.
 * Also removes a slice by path for `ocirun sweep`. */
#include "config.h"

#include "runtime/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
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

/* The controllers a run's limits need. */
static const char *const required_controllers[] = {"memory", "cpu", "pids"};
#define N_REQUIRED_CONTROLLERS (sizeof(required_controllers) / sizeof(required_controllers[0]))

/* How long a killed slice may take to empty (TCG guests are slow). */
#define CGROUP_EMPTY_TIMEOUT_MS 10000

/* Reads a small cgroup file (whole content, NUL-terminated). */
static int read_cgroup_file(int dir_fd, const char *dir_path, const char *file, char *buf,
                            size_t size, oci_error_t *err)
{
  cleanup_close int fd = openat(dir_fd, file, O_RDONLY | O_CLOEXEC);
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
  cleanup_close int fd = openat(dir_fd, file, O_WRONLY | O_CLOEXEC);
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

/* Enables memory, cpu and pids for the children of `dir_fd` unless they
 * already are (writing subtree_control needlessly can fail with EBUSY). */
static int enable_controllers(int dir_fd, const char *path, oci_error_t *err)
{
  char enabled[512];

  if (read_cgroup_file(dir_fd, path, "cgroup.subtree_control", enabled, sizeof(enabled), err) < 0)
    return -1;
  if (list_has_required(enabled))
    return 0;
  return write_cgroup_file(dir_fd, path, "cgroup.subtree_control", "+memory +cpu +pids", err);
}

/* Creates `parent` (and missing ancestors) below its cgroup2 mount root and
 * enables the controllers down to it. */
static int prepare_parent(const char *parent, oci_error_t *err)
{
  char existing[PATH_MAX], root[PATH_MAX], partial[PATH_MAX];
  struct stat st;
  size_t root_len;

  snprintf(existing, sizeof(existing), "%s", parent);
  while (stat(existing, &st) < 0) {
    if (errno != ENOENT || strcmp(existing, "/") == 0)
      return oci_error_errno(err, "cgroup: stat '%s'", existing);
    path_parent(existing);
  }
  if (cgroup_mount_root(existing, root, sizeof(root), err) < 0)
    return -1;
  root_len = strlen(root);
  if (strncmp(parent, root, root_len) != 0)
    return oci_error_set(err, 0, "cgroup parent '%s' is not below the cgroup2 mount '%s'", parent,
                         root);
  /* Walk from the mount root down: enable in each level, then descend. */
  snprintf(partial, sizeof(partial), "%s", root);
  const char *rest = parent + root_len;
  for (;;) {
    cleanup_close int fd = open(partial, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      return oci_error_errno(err, "cgroup: open '%s'", partial);
    if (enable_controllers(fd, partial, err) < 0)
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
    if (mkdir(partial, 0755) < 0 && errno != EEXIST)
      return oci_error_errno(err, "cgroup: mkdir '%s'", partial);
  }
}

/* The limit values, as the kernel files want them. Docker's --memory-swap is
 * memory plus swap; cgroup v2's memory.swap.max is the swap alone. */
static int format_limits(const struct run_config *config, char memory[32], char swap[32],
                         char cpu[48], char pids[32], oci_error_t *err)
{
  strcpy(memory, "max");
  strcpy(swap, "max");
  strcpy(pids, "max");
  snprintf(cpu, 48, "max %" PRId64, config->cpu_period_us > 0 ? config->cpu_period_us : 100000);
  if (config->memory_bytes >= 0) {
    snprintf(memory, 32, "%" PRId64, config->memory_bytes);
    if (config->memory_swap_bytes == -1) /* docker: as much swap as memory */
      snprintf(swap, 32, "%" PRId64, config->memory_bytes);
    else if (config->memory_swap_bytes >= 0) {
      if (config->memory_swap_bytes < config->memory_bytes)
        return oci_error_set(err, 0,
                             "--memory-swap (%" PRId64 ") must be at least --memory (%" PRId64 ")",
                             config->memory_swap_bytes, config->memory_bytes);
      snprintf(swap, 32, "%" PRId64, config->memory_swap_bytes - config->memory_bytes);
    }
  } else if (config->memory_swap_bytes >= 0) {
    return oci_error_set(err, 0, "--memory-swap needs --memory");
  }
  if (config->cpu_quota_us > 0)
    snprintf(cpu, 48, "%" PRId64 " %" PRId64, config->cpu_quota_us,
             config->cpu_period_us > 0 ? config->cpu_period_us : 100000);
  if (config->pids_limit > 0)
    snprintf(pids, 32, "%" PRId64, config->pids_limit);
  return 0;
}

static int write_limits(int dir_fd, const char *path, const struct run_config *config,
                        oci_error_t *err)
{
  char memory[32], swap[32], cpu[48], pids[32];

  if (format_limits(config, memory, swap, cpu, pids, err) < 0)
    return -1;
  if (write_cgroup_file(dir_fd, path, "memory.max", memory, err) < 0)
    return -1;
  /* Without swap accounting the file is absent: fine only when unlimited. */
  if (write_cgroup_file(dir_fd, path, "memory.swap.max", swap, err) < 0) {
    if (strcmp(swap, "max") != 0 || (*err)->errno_value != ENOENT)
      return -1;
    oci_error_free(err);
  }
  if (write_cgroup_file(dir_fd, path, "cpu.max", cpu, err) < 0)
    return -1;
  return write_cgroup_file(dir_fd, path, "pids.max", pids, err);
}

int cgroup_slice_create(const char *parent, const char *name, bool rootless,
                        const struct run_config *config, struct cgroup_slice *slice,
                        oci_error_t *err)
{
  cleanup_free char *path = NULL;
  cleanup_close int dir_fd = -1;

  slice->path = NULL;
  slice->dir_fd = -1;
  if (name == NULL || name[0] == '\0' || name[0] == '.' || strchr(name, '/') != NULL)
    return oci_error_set(err, 0, "cgroup: invalid slice name '%s'", name ? name : "");
  if (cgroup_check_host(parent, err) < 0)
    return -1;
  if (rootless) {
    cleanup_close int parent_fd = -1;

    if (check_delegated(parent, err) < 0)
      return -1;
    parent_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (parent_fd < 0)
      return oci_error_errno(err, "cgroup: open '%s'", parent);
    if (enable_controllers(parent_fd, parent, err) < 0)
      return oci_error_wrap(err,
                            "rootless: the delegated '%s' does not offer memory, cpu and "
                            "pids: ",
                            parent);
  } else if (prepare_parent(parent, err) < 0) {
    return -1;
  }
  if (asprintf(&path, "%s/%s", parent, name) < 0)
    return oci_error_errno(err, "cgroup: allocate path");
  /* The slice is the run's own: an existing one means a name clash or a
   * crashed runner's leftover (ocirun sweep), never something to share. */
  if (mkdir(path, 0755) < 0)
    return oci_error_errno(err, "cgroup: mkdir '%s'", path);
  dir_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  /* The device program goes on before any process can be in the slice.
   * Rootless: no program (an unprivileged user cannot attach one); the user
   * namespace stands in for it (see cgroup_devices.c). */
  if (dir_fd < 0 || write_limits(dir_fd, path, config, err) < 0 ||
      (!rootless && cgroup_devices_attach(dir_fd, path, err) < 0)) {
    if (dir_fd < 0)
      oci_error_errno(err, "cgroup: open '%s'", path);
    if (rmdir(path) < 0)
      oci_error_wrap(err, "cgroup: (also could not remove '%s': %s)", path, strerror(errno));
    return -1;
  }
  slice->path = steal_pointer(&path);
  slice->dir_fd = steal_fd(&dir_fd);
  return 0;
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

/* Waits (bounded) until cgroup.events says "populated 0". The kernel
 * signals changes of that file with inotify IN_MODIFY. */
static int wait_unpopulated(int dir_fd, const char *path, oci_error_t *err)
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
    if (flat_key_value(events, "populated") == 0)
      return 0;
    long long left = deadline - monotonic_ms();
    if (left <= 0)
      return oci_error_set(err, EBUSY, "cgroup: '%s' still has processes %d ms after kill", path,
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
