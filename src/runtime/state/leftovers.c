/* What a run leaves on the host besides its record, and how it is removed
 * once its runner is dead (sweep, or a new run taking over the name): its
 * pid 1 (killed through a pidfd, its start time checked), its slice (only
 * in the shape ocirun gives a slice), its run dir (what is mounted there
 * detached first, then removed by fd), and what its front end made outside
 * (a probe's Docker container, through a callback). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "runtime/cgroup/slice.h"
#include "runtime/process_stat.h"
#include "runtime/state/internal.h"
#include "runtime/state/run_dir.h"

/* Decodes mountinfo's octal escapes (\040 for space) in place. */
static void unescape_mountinfo(char *s)
{
  char *out = s;
  for (char *in = s; *in != '\0'; in++) {
    if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
        in[3] >= '0' && in[3] <= '7') {
      *out++ = (char)((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
      in += 3;
    } else {
      *out++ = *in;
    }
  }
  *out = '\0';
}

/* Detaches every mount at or below `dir`, deepest first, so the removal
 * below never descends into (and deletes through) a mount. */
static int unmount_below(const char *dir, oci_error_t *err)
{
  size_t len = strlen(dir);
  for (int pass = 0; pass < 64; pass++) {
    cleanup_fclose FILE *f = fopen("/proc/self/mountinfo", "re");
    cleanup_free char *line = NULL;
    cleanup_free char *deepest = NULL;
    size_t cap = 0;

    if (f == NULL)
      return oci_error_errno(err, "run state: open /proc/self/mountinfo");
    while (getline(&line, &cap, f) > 0) {
      char mount_point[PATH_MAX];
      /* Fields: id parent major:minor root mount_point ... */
      if (sscanf(line, "%*s %*s %*s %*s %4095s", mount_point) != 1)
        continue;
      unescape_mountinfo(mount_point);
      if (strncmp(mount_point, dir, len) != 0 ||
          (mount_point[len] != '\0' && mount_point[len] != '/'))
        continue;
      if (deepest == NULL || strlen(mount_point) > strlen(deepest)) {
        free(deepest);
        deepest = strdup(mount_point);
        if (deepest == NULL)
          return oci_error_errno(err, "run state: allocate");
      }
    }
    if (deepest == NULL)
      return 0;
    if (umount2(deepest, MNT_DETACH | UMOUNT_NOFOLLOW) < 0)
      return oci_error_errno(err, "run state: unmount '%s'", deepest);
  }
  return oci_error_set(err, EBUSY, "run state: mounts keep reappearing below '%s'", dir);
}

/* The run dir ocirun's layout gives the name, $ROOT/run/<name>: what an
 * older runner left mounted there is detached first, then the tree is
 * removed from the run folder's fd (run_dir_remove). */
static int remove_run_dir(int run_fd, const char *root, const char *name, oci_error_t *err)
{
  cleanup_free char *path = NULL;
  char link[64], run_path[PATH_MAX];
  ssize_t n;

  /* mountinfo names mount points by their real path: the run folder's. */
  snprintf(link, sizeof(link), "/proc/self/fd/%d", run_fd);
  n = readlink(link, run_path, sizeof(run_path) - 1);
  if (n <= 0 || run_path[0] != '/')
    return oci_error_errno(err, "run state: the path of '%s/run'", root);
  run_path[n] = '\0';
  if (asprintf(&path, "%s/%s", run_path, name) < 0) {
    path = NULL;
    return oci_error_errno(err, "run state: allocate");
  }
  if (unmount_below(path, err) < 0)
    return -1;
  return run_dir_remove_at(run_fd, root, name, err);
}

/* The cgroup a record names is used only in the shape ocirun gives a slice:
 * an absolute path under CGROUP_MOUNT of plain components, the last one
 * exactly the run's name (a --cgroup-parent may be anywhere in the
 * hierarchy, so the parent itself is the record's word: the record is
 * trusted that far because the store passed the ownership check, and the
 * kernel's own permissions bound what a rootless caller can kill). It is
 * then opened from CGROUP_MOUNT without following a symlink and must be a
 * cgroup2 directory (cgroup_open_path). Returns its fd, or -1 with ENOENT
 * in the error when it is gone. */
int state_recorded_cgroup(const char *path, const char *name, oci_error_t *err)
{
  static const char prefix[] = CGROUP_MOUNT "/";
  const char *last = strrchr(path, '/');

  if (strncmp(path, prefix, strlen(prefix)) != 0 || strcmp(last + 1, name) != 0)
    return oci_error_set(err, 0,
                         "recorded cgroup '%s' is not cgroup2 slice " CGROUP_MOUNT "/.../%s of "
                         "this run; not touching it",
                         path, name);
  return cgroup_open_path(path, err);
}

/* How long sweep waits for a killed pid 1 to be gone. */
#define SWEEP_KILL_WAIT_MS 10000

/* The run's recorded pid 1, if it still lives (the same pid with the same
 * start time): killed through a pidfd taken before its start time was
 * checked (so a reused pid is never signalled), then waited for until it
 * is gone. Without a slice this is what ends the run's processes: pid 1
 * is its pid namespace's init, and the kernel kills the rest with it.
 * Returns 1 when it killed it, 0 when there was nothing to kill. */
static int kill_recorded_pid1(const struct run_record *record, oci_error_t *err)
{
  cleanup_close int pidfd = -1;
  struct process_stat stat;
  struct pollfd gone;
  oci_error_t ignored = NULL;
  int ready;

  if (record->container_pid <= 0)
    return 0;
  pidfd = (int)syscall(SYS_pidfd_open, record->container_pid, 0);
  if (pidfd < 0)
    return errno == ESRCH ? 0
                          : oci_error_errno(err, "sweep '%s': its pid 1 (%d)", record->name,
                                            record->container_pid);
  if (process_stat_read(record->container_pid, &stat, &ignored) < 0) {
    oci_error_free(&ignored);
    return 0; /* gone meanwhile */
  }
  if (stat.start_time != record->container_start_time || stat.state == 'Z')
    return 0; /* another process's pid now, or already dead */
  if (syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
    return oci_error_errno(err, "sweep '%s': kill its pid 1 (%d)", record->name,
                           record->container_pid);
  gone = (struct pollfd){.fd = pidfd, .events = POLLIN};
  do
    ready = poll(&gone, 1, SWEEP_KILL_WAIT_MS);
  while (ready < 0 && errno == EINTR);
  if (ready <= 0)
    return oci_error_set(err, ready < 0 ? errno : ETIMEDOUT,
                         "sweep '%s': its pid 1 (%d) still lives after SIGKILL", record->name,
                         record->container_pid);
  return 1;
}

/* Appends *separator and WHAT to the report of what a sweep removed; the
 * separators after the first are ", ". */
static void report_add(char *report, size_t size, const char **separator, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void report_add(char *report, size_t size, const char **separator, const char *fmt, ...)
{
  size_t used = strlen(report);
  va_list args;

  used += (size_t)snprintf(report + used, size - used, "%s", *separator);
  *separator = ", ";
  if (used >= size)
    return;
  va_start(args, fmt);
  vsnprintf(report + used, size - used, fmt, args);
  va_end(args);
}

/* Cleans up one dead run, the caller holding its name's lock: what its
 * front end created outside (a probe's Docker container), its cgroup, its
 * run dir, then its record (kept when any of them could not be removed). */
int state_remove_dead_run(int run_fd, const char *root, const char *name,
                          const struct run_record *record, run_external_remove_fn remove_external,
                          const struct oci_event_sink *sink, oci_error_t *err)
{
  const char *separator = ": ";
  char file[256], external[512] = "", report[3 * PATH_MAX];
  struct stat st;
  bool had_dir = fstatat(run_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
  cleanup_close int cgroup_fd = -1;
  int killed;

  /* The record stays when that cannot be removed: a later sweep finishes
   * the job. */
  if (record->docker_container != NULL) {
    if (remove_external == NULL)
      return oci_error_set(err, 0, "run '%s' left docker container '%s'; 'ocirun sweep' removes it",
                           name, record->docker_container);
    if (remove_external(name, record, external, sizeof(external), err) < 0)
      return oci_error_wrap(err, "sweep '%s': record kept for a later sweep", name);
  }
  /* Never "swept" while a process of the run lives: its pid 1 first (the
   * only handle on a run without a slice), then its slice. */
  killed = kill_recorded_pid1(record, err);
  if (killed < 0)
    return oci_error_wrap(err, "sweep '%s': record kept for a later sweep", name);
  if (record->cgroup_path != NULL) {
    cgroup_fd = state_recorded_cgroup(record->cgroup_path, name, err);
    if (cgroup_fd < 0 && *err != NULL && (*err)->errno_value == ENOENT)
      oci_error_free(err); /* gone already */
    else if (cgroup_fd < 0 || cgroup_remove(cgroup_fd, record->cgroup_path, err) < 0)
      return oci_error_wrap(err, "sweep '%s'", name);
  }
  if (remove_run_dir(run_fd, root, name, err) < 0)
    return oci_error_wrap(err, "sweep '%s'", name);
  snprintf(file, sizeof(file), "%s" RECORD_SUFFIX, name);
  if (unlinkat(run_fd, file, 0) < 0 && errno != ENOENT)
    return oci_error_errno(err, "sweep: remove '%s/run/%s'", root, file);
  snprintf(report, sizeof(report), "(owner pid %d gone)", record->owner_pid);
  if (killed > 0)
    report_add(report, sizeof(report), &separator, "killed pid 1 %d", record->container_pid);
  if (external[0] != '\0')
    report_add(report, sizeof(report), &separator, "%s", external);
  if (cgroup_fd >= 0)
    report_add(report, sizeof(report), &separator, "cgroup %s", record->cgroup_path);
  if (had_dir)
    report_add(report, sizeof(report), &separator, "run dir %s/run/%s", root, name);
  oci_emit(sink, OCI_EVENT_RESULT, "swept", name, "%s", report);
  return 0;
}
