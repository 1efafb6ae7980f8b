/* `ocirun exec NAME`'s lookup: a live run by its name, trusted only as the
 * caller's own files in a checked store, and only while its runner and its
 * pid 1 live, pid 1 the runner's child, started when recorded, in the
 * recorded slice. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/file_read.h"
#include "runtime/cgroup/slice.h"
#include "runtime/process_stat.h"
#include "runtime/state/internal.h"
#include "runtime/state/root.h"

/* A configuration with docker's seccomp profile is some 100 KiB. */
#define RUN_CONFIG_MAX (16 << 20)

/* A record, its run dir and config.json are the caller's own files, which
 * ocirun writes 0600 (0700 for the dir): anything else was not written by
 * ocirun for this user, and is refused. */
static int check_own_file(uid_t uid, mode_t mode, const char *root, const char *name,
                          const char *file, oci_error_t *err)
{
  if (uid == geteuid() && (mode & 077) == 0)
    return 0;
  return oci_error_set(err, 0,
                       "run '%s': '%s/run/%s' is owned by uid %u with mode %04o; ocirun writes "
                       "it for uid %u with no access for group or others: refused",
                       name, root, file, (unsigned)uid, (unsigned)(mode & 07777),
                       (unsigned)geteuid());
}

/* True when pid's cgroup (v2, as the host sees it) is the slice or below. */
static bool process_in_slice(int pid, const char *slice)
{
  char path[64];
  cleanup_free char *text = NULL;
  oci_error_t err = NULL;
  size_t length, slice_length = strlen(slice), root_length = strlen(CGROUP_MOUNT);
  const char *line;

  snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
  if (oci_file_read(AT_FDCWD, path, OCI_FILE_NAMED, path, 1 << 16, &text, &length, &err) < 0) {
    oci_error_free(&err);
    return false;
  }
  for (line = text; line != NULL && *line != '\0';
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    const char *relative = line + 3;
    size_t n = strcspn(relative, "\n");

    if (strncmp(line, "0::", 3) != 0)
      continue;
    return strncmp(slice, CGROUP_MOUNT, root_length) == 0 && n >= slice_length - root_length &&
           strncmp(relative, slice + root_length, slice_length - root_length) == 0 &&
           (n == slice_length - root_length || relative[slice_length - root_length] == '/');
  }
  return false;
}

/* The run's pid 1: alive, started when recorded, the runner's own child,
 * and in the run's slice; otherwise the record is not followed. */
int run_state_check_container(const struct run_record *record, oci_error_t *err)
{
  const char *name = record->name;
  struct process_stat stat;
  oci_error_t ignored = NULL;
  int slice;

  if (record->container_pid <= 0)
    return oci_error_set(err, 0, "run '%s' is not running yet: its command has not started", name);
  if (process_stat_read(record->container_pid, &stat, &ignored) < 0 ||
      stat.start_time != record->container_start_time || stat.state == 'Z') {
    oci_error_free(&ignored);
    return oci_error_set(err, 0, "run '%s' is not running: its process %d has ended", name,
                         record->container_pid);
  }
  if (stat.parent != record->owner_pid)
    return oci_error_set(err, 0,
                         "run '%s': process %d is not a child of its runner (pid %d): refused",
                         name, record->container_pid, record->owner_pid);
  if (record->cgroup_path == NULL)
    return 0;
  slice = state_recorded_cgroup(record->cgroup_path, name, err);
  if (slice < 0 && *err != NULL && (*err)->errno_value == ENOENT) {
    oci_error_free(err);
    return oci_error_set(err, 0, "run '%s' is not running: its slice '%s' is gone", name,
                         record->cgroup_path);
  }
  if (slice < 0)
    return oci_error_wrap(err, "run '%s'", name);
  close(slice);
  if (!process_in_slice(record->container_pid, record->cgroup_path))
    return oci_error_set(err, 0, "run '%s': process %d is not in the run's slice '%s': refused",
                         name, record->container_pid, record->cgroup_path);
  return 0;
}

/* root/run/<name>/config.json, checked to be ocirun's own, read whole. */
static int read_config(int run_fd, const char *root, const char *name, char **config,
                       oci_error_t *err)
{
  cleanup_close int dir_fd = openat(run_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_close int fd = -1;
  char file[PATH_MAX], what[PATH_MAX + 64];
  struct stat st;
  size_t length;

  snprintf(file, sizeof(file), "%s/" RUN_CONFIG, name);
  /* a message: a root too long for it is cut short */
  if (snprintf(what, sizeof(what), "run '%s': '%s/run/%s'", name, root, file) < 0)
    what[0] = '\0';
  if (dir_fd < 0 || fstat(dir_fd, &st) < 0)
    return errno == ENOENT
               ? oci_error_set(err, 0, "run '%s' has no run dir: it cannot be joined", name)
               : oci_error_errno(err, "run '%s': open '%s/run/%s'", name, root, name);
  if (check_own_file(st.st_uid, st.st_mode, root, name, name, err) < 0)
    return -1;
  fd = oci_file_open_regular(dir_fd, RUN_CONFIG, OCI_FILE_BENEATH, what, &st, err);
  if (fd < 0)
    return -1;
  if (check_own_file(st.st_uid, st.st_mode, root, name, file, err) < 0)
    return -1;
  return oci_file_read_fd(fd, what, RUN_CONFIG_MAX, config, &length, err);
}

int run_state_find_live(const struct state_root *state, const struct state_name *checked,
                        struct run_record *record, char **config, oci_error_t *err)
{
  const char *root = state->path;
  const char *name = checked->text;
  int run_fd = state->folder_fd[STATE_RUN];
  struct record_seen seen;
  char file[256];

  memset(record, 0, sizeof(*record));
  *config = NULL;
  /* checked by the caller where it entered (exec's ID|NAME, a verb's id) */
  if (state_name_guard(checked, err) < 0)
    return -1;
  if (run_fd < 0)
    return 0; /* no run has ever been recorded */
  snprintf(file, sizeof(file), "%s" RECORD_SUFFIX, name);
  if (state_read_record(run_fd, file, record, &seen) < 0) {
    if (errno == ENOENT)
      return 0;
    return oci_error_errno(err, "run '%s': read '%s/run/%s'", name, root, file);
  }
  if (check_own_file(seen.uid, seen.mode, root, name, file, err) < 0)
    goto fail;
  if (strcmp(record->name, name) != 0) {
    oci_error_set(err, 0, "run '%s': '%s/run/%s' names run '%s': refused", name, root, file,
                  record->name);
    goto fail;
  }
  if (!state_owner_alive(record->owner_pid, record->owner_start_time)) {
    oci_error_set(err, 0,
                  "run '%s' is not running: its runner (pid %d) is gone ('ocirun sweep' removes "
                  "what it left)",
                  name, record->owner_pid);
    goto fail;
  }
  if (run_state_check_container(record, err) < 0 ||
      read_config(run_fd, root, name, config, err) < 0)
    goto fail;
  return 1;
fail:
  run_record_clear(record);
  free(*config);
  *config = NULL;
  return -1;
}
