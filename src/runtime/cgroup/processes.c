/* The processes of a slice: listed and frozen, and killed (cgroup.kill, or
 * SIGKILL per pid on older kernels), waited for, and the slice removed after
 * them, absence verified. Also removes a slice by path for `ocirun sweep`. */
#include "config.h"

#include "runtime/cgroup/slice.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

#include "oci/cleanup.h"
#include "oci/file_read.h"
#include "runtime/cgroup/files.h"

/* How long a killed slice may take to empty (TCG guests are slow). */
#define CGROUP_EMPTY_TIMEOUT_MS 10000

bool cgroup_slice_oom_killed(const struct cgroup_slice *slice)
{
  char events[1024];
  oci_error_t err = NULL;

  if (slice == NULL || slice->dir_fd < 0)
    return false;
  if (cgroup_file_read_small(slice->dir_fd, slice->path, "memory.events", events, sizeof(events),
                             &err) < 0) {
    oci_error_free(&err);
    return false;
  }
  return cgroup_flat_key_value(events, "oom_kill") > 0;
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

  if (cgroup_file_write(dir_fd, path, "cgroup.kill", "1", err) == 0)
    return 0;
  if ((*err)->errno_value != ENOENT)
    return -1;
  oci_error_free(err);
  if (cgroup_file_read_small(dir_fd, path, "cgroup.procs", procs, sizeof(procs), err) < 0)
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
    if (cgroup_file_read_small(dir_fd, path, "cgroup.events", events, sizeof(events), err) < 0)
      return -1;
    if (cgroup_flat_key_value(events, key) == want)
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
  cgroup_path_parent(parent);
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
                         cgroup_filesystem_name(fs.f_type));
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
  if (cgroup_file_write(dir_fd, path, "cgroup.freeze", frozen ? "1" : "0", err) < 0)
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
