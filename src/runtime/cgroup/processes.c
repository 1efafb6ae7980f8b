/* The processes of a cgroup and its descendants, acted on through the
 * directory's fd that was opened and checked once: joined, frozen, listed,
 * killed (cgroup.kill, or SIGKILL to each process on older kernels), waited
 * for, and the cgroup removed after them, its absence verified. */
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
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/events.h"
#include "runtime/cgroup/files.h"

/* How long a killed slice may take to empty (TCG guests are slow). */
#define CGROUP_EMPTY_TIMEOUT_MS 10000
/* How many pidfds the fallback holds at once, between two listings. */
#define KILL_BATCH 256

bool cgroup_slice_oom_killed(const struct cgroup_slice *slice)
{
  cleanup_free char *events = NULL;
  oci_error_t err = NULL;

  if (slice == NULL || slice->dir_fd < 0)
    return false;
  if (cgroup_file_read(slice->dir_fd, slice->path, "memory.events", &events, &err) < 0) {
    oci_error_free(&err);
    return false;
  }
  return cgroup_flat_key_value(events, "oom_kill") > 0;
}

int cgroup_join(int dir_fd, const char *path, oci_error_t *err)
{
  return cgroup_file_write(dir_fd, path, "cgroup.procs", "0", err);
}

/* --- the subtree, walked by fd --- */

/* Called for each child cgroup of a directory: child_fd is its O_PATH fd,
 * opened from parent_fd by name without following a symlink. */
typedef int (*child_fn)(int parent_fd, const char *name, int child_fd, const char *child_path,
                        void *context, oci_error_t *err);

/* Calls fn for every child cgroup of dir_fd. A cgroup directory holds only
 * kernel files besides its children, and a child removed meanwhile is
 * skipped. */
static int for_each_child(int dir_fd, const char *path, child_fn fn, void *context,
                          oci_error_t *err)
{
  int list_fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;

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
      if (errno == ENOENT)
        continue;
      return oci_error_errno(err, "cgroup: open '%s'", child_path);
    }
    if (fn(dirfd(dir), entry->d_name, child_fd, child_path, context, err) < 0)
      return -1;
  }
  if (errno != 0)
    return oci_error_errno(err, "cgroup: read '%s'", path);
  return 0;
}

static int list_pids_in(int dir_fd, const char *path, struct cgroup_pid_list *list,
                        oci_error_t *err);

static int list_child(int parent_fd, const char *name, int child_fd, const char *child_path,
                      void *list, oci_error_t *err)
{
  (void)parent_fd;
  (void)name;
  return list_pids_in(child_fd, child_path, list, err);
}

static int list_pids_in(int dir_fd, const char *path, struct cgroup_pid_list *list,
                        oci_error_t *err)
{
  cleanup_free char *procs = NULL;
  char what[PATH_MAX + 32];

  if (cgroup_file_read(dir_fd, path, "cgroup.procs", &procs, err) < 0)
    return -1;
  snprintf(what, sizeof(what), "cgroup '%s': cgroup.procs", path);
  if (cgroup_procs_parse(procs, what, list, err) < 0)
    return -1;
  return for_each_child(dir_fd, path, list_child, list, err);
}

int cgroup_list_pids(int dir_fd, const char *path, pid_t **pids, size_t *n, oci_error_t *err)
{
  struct cgroup_pid_list list = {0};

  *pids = NULL;
  *n = 0;
  if (list_pids_in(dir_fd, path, &list, err) < 0) {
    free(list.pids);
    return -1;
  }
  *pids = list.pids;
  *n = list.n;
  return 0;
}

/* --- freezing --- */

/* Waits (bounded) until cgroup.events has "key want" ("populated 0",
 * "frozen 1"). The kernel signals changes of that file with inotify
 * IN_MODIFY; the watch is set through the directory's fd (its /proc/self/fd
 * link), on the same cgroup. */
static int wait_events(int dir_fd, const char *path, const char *key, long long want,
                       const char *what, oci_error_t *err)
{
  cleanup_close int inotify_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  int64_t deadline = oci_monotonic_ms() + CGROUP_EMPTY_TIMEOUT_MS;
  char events_path[64];

  snprintf(events_path, sizeof(events_path), "/proc/self/fd/%d/cgroup.events", dir_fd);
  if (inotify_fd >= 0)
    (void)inotify_add_watch(inotify_fd, events_path, IN_MODIFY);
  for (;;) {
    cleanup_free char *events = NULL;

    if (cgroup_file_read(dir_fd, path, "cgroup.events", &events, err) < 0)
      return -1;
    if (cgroup_flat_key_value(events, key) == want)
      return 0;
    int64_t left = deadline - oci_monotonic_ms();
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

int cgroup_freeze(int dir_fd, const char *path, bool frozen, oci_error_t *err)
{
  if (cgroup_file_write(dir_fd, path, "cgroup.freeze", frozen ? "1" : "0", err) < 0)
    return -1;
  return wait_events(dir_fd, path, "frozen", frozen ? 1 : 0,
                     frozen ? "is not frozen" : "is still frozen", err);
}

int cgroup_is_frozen(int dir_fd, const char *path, oci_error_t *err)
{
  cleanup_free char *freeze = NULL;

  if (cgroup_file_read(dir_fd, path, "cgroup.freeze", &freeze, err) < 0)
    return -1;
  return freeze[0] == '1';
}

/* --- killing --- */

static int compare_pids(const void *a, const void *b)
{
  pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
  return (x > y) - (x < y);
}

/* SIGKILL to pids[0..n) through pidfds, each used only if a listing made
 * after it was opened still has its pid: a pid that exited after the first
 * listing and now names a process outside the subtree is never signalled
 * (the pidfd refers to the process it was opened on, whatever the pid
 * becomes later). */
static int kill_batch(int dir_fd, const char *path, const pid_t *pids, size_t n, oci_error_t *err)
{
  int pidfds[KILL_BATCH];
  cleanup_free pid_t *still = NULL;
  size_t n_still = 0;
  int ret = -1;

  for (size_t i = 0; i < n; i++) {
    pidfds[i] = pidfd_open(pids[i], 0);
    if (pidfds[i] < 0 && errno != ESRCH) {
      oci_error_errno(err, "cgroup: pidfd_open %d of '%s'", (int)pids[i], path);
      n = i;
      goto out;
    }
  }
  if (cgroup_list_pids(dir_fd, path, &still, &n_still, err) < 0)
    goto out;
  qsort(still, n_still, sizeof(*still), compare_pids);
  for (size_t i = 0; i < n; i++) {
    if (pidfds[i] < 0 || bsearch(&pids[i], still, n_still, sizeof(*still), compare_pids) == NULL)
      continue;
    if (pidfd_send_signal(pidfds[i], SIGKILL, NULL, 0) < 0 && errno != ESRCH) {
      oci_error_errno(err, "cgroup: kill pid %d of '%s'", (int)pids[i], path);
      goto out;
    }
  }
  ret = 0;
out:
  for (size_t i = 0; i < n; i++)
    if (pidfds[i] >= 0)
      close(pidfds[i]);
  return ret;
}

int cgroup_kill_each(int dir_fd, const char *path, oci_error_t *err)
{
  int64_t deadline = oci_monotonic_ms() + CGROUP_EMPTY_TIMEOUT_MS;

  for (;;) {
    cleanup_free pid_t *pids = NULL;
    size_t n;

    if (cgroup_list_pids(dir_fd, path, &pids, &n, err) < 0)
      return -1;
    if (n == 0)
      return 0;
    for (size_t done = 0; done < n; done += KILL_BATCH)
      if (kill_batch(dir_fd, path, pids + done, n - done < KILL_BATCH ? n - done : KILL_BATCH,
                     err) < 0)
        return -1;
    if (oci_monotonic_ms() >= deadline)
      return oci_error_set(err, EBUSY, "cgroup: '%s' still has processes after %d ms of SIGKILL",
                           path, CGROUP_EMPTY_TIMEOUT_MS);
    /* A killed process leaves cgroup.procs once it has exited; one forked
     * after the listing is in the next. */
    usleep(10000);
  }
}

int cgroup_kill(int dir_fd, const char *path, oci_error_t *err)
{
  if (cgroup_file_write(dir_fd, path, "cgroup.kill", "1", err) == 0)
    return 0;
  if (*err == NULL || (*err)->errno_value != ENOENT)
    return -1;
  oci_error_free(err);
  return cgroup_kill_each(dir_fd, path, err);
}

/* --- removal --- */

static int remove_tree(int parent_fd, const char *name, int dir_fd, const char *path,
                       oci_error_t *err);

static int remove_child(int parent_fd, const char *name, int child_fd, const char *child_path,
                        void *context, oci_error_t *err)
{
  (void)context;
  return remove_tree(parent_fd, name, child_fd, child_path, err);
}

/* Removes the cgroup dir_fd (`name` in parent_fd) and its child cgroups,
 * deepest first. A cgroup directory holds only kernel files, which are not
 * unlinked: rmdir takes them with it. */
static int remove_tree(int parent_fd, const char *name, int dir_fd, const char *path,
                       oci_error_t *err)
{
  if (for_each_child(dir_fd, path, remove_child, NULL, err) < 0)
    return -1;
  /* rmdir may briefly see EBUSY while the last exiting task is released. */
  for (int attempt = 0;; attempt++) {
    if (unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
      return 0;
    if (errno != EBUSY || attempt >= 200)
      return oci_error_errno(err, "cgroup: rmdir '%s'", path);
    usleep(10000);
  }
}

int cgroup_remove(int dir_fd, const char *path, oci_error_t *err)
{
  const char *slash = path != NULL ? strrchr(path, '/') : NULL;
  const char *name = slash != NULL ? slash + 1 : "";
  cleanup_close int parent_fd = -1;
  struct stat st, entry;
  struct statfs fs;

  if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
    return oci_error_set(err, 0, "cgroup: refusing to remove '%s'", path != NULL ? path : "");
  /* Never rmdir something that is not a cgroup v2 directory. */
  if (fstatfs(dir_fd, &fs) < 0 || fstat(dir_fd, &st) < 0)
    return oci_error_errno(err, "cgroup: stat '%s'", path);
  if (fs.f_type != CGROUP2_SUPER_MAGIC)
    return oci_error_set(err, 0, "cgroup: refusing to remove '%s': it is %s, not cgroup2", path,
                         cgroup_filesystem_name(fs.f_type));
  /* Its parent, from the fd itself; the name there must be this directory
   * (cgroup2 has no rename), so the rmdir removes the cgroup that was
   * checked and killed. */
  parent_fd = openat(dir_fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd < 0)
    return oci_error_errno(err, "cgroup: open the parent of '%s'", path);
  if (fstatat(parent_fd, name, &entry, AT_SYMLINK_NOFOLLOW) < 0)
    return oci_error_errno(err, "cgroup: stat '%s'", path);
  if (entry.st_dev != st.st_dev || entry.st_ino != st.st_ino)
    return oci_error_set(err, 0, "cgroup: refusing to remove '%s': it is not the directory opened",
                         path);
  if (cgroup_kill(dir_fd, path, err) < 0 ||
      wait_events(dir_fd, path, "populated", 0, "still has processes", err) < 0 ||
      remove_tree(parent_fd, name, dir_fd, path, err) < 0)
    return -1;
  if (fstatat(parent_fd, name, &entry, AT_SYMLINK_NOFOLLOW) == 0)
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
    ret = cgroup_remove(slice->dir_fd, slice->path, err);
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
  cleanup_close int dir_fd = cgroup_open_path(path, err);

  if (dir_fd < 0) {
    if (*err == NULL || (*err)->errno_value != ENOENT)
      return -1;
    oci_error_free(err);
    return 0;
  }
  return cgroup_remove(dir_fd, path, err);
}
