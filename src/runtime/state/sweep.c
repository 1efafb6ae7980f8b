/* `ocirun sweep`: every record in $ROOT/run whose owner is gone is judged
 * stale without the lock, then acted on under the name's lock only if it is
 * still the record judged (leftovers.c removes what the run left); the
 * temporary records and lock files of dead writers go too. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "runtime/state/internal.h"
#include "runtime/state/root.h"

/* A temporary file left by a runner that died between create and link. */
static void sweep_temp_file(int run_fd, const char *file)
{
  int pid = atoi(file + strlen(TEMP_PREFIX "-"));
  if (pid > 0 && (kill(pid, 0) == 0 || errno == EPERM))
    return;
  unlinkat(run_fd, file, 0);
}

/* A name's lock file with no record (its holder died between the two):
 * removed when nobody holds it. */
static void sweep_lock_file(int run_fd, const char *file)
{
  const char *name = file + strlen(LOCK_PREFIX);
  struct stat held, current;
  int fd;

  if (!state_name_valid(name))
    return;
  fd = openat(run_fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return;
  if (flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &held) < 0 ||
      fstatat(run_fd, file, &current, AT_SYMLINK_NOFOLLOW) < 0 || current.st_dev != held.st_dev ||
      current.st_ino != held.st_ino) {
    close(fd);
    return;
  }
  state_unlock_name(run_fd, name, fd);
}

/* The run name a record's file stands for, or NULL (not a record). */
static bool record_file_name(const char *file, char *name, size_t size)
{
  size_t len = strlen(file), suffix = strlen(RECORD_SUFFIX);

  if (len <= suffix || len - suffix >= size || strcmp(file + len - suffix, RECORD_SUFFIX) != 0)
    return false;
  memcpy(name, file, len - suffix);
  name[len - suffix] = '\0';
  return state_name_valid(name);
}

/* Judged stale without the lock; acted on only if, under the name's lock,
 * the record is the very file with the very bytes judged, and its owner is
 * still gone: a run that took the name meanwhile keeps everything.
 * Returns 1 when swept, 0 when left alone. */
static int sweep_one(int run_fd, const char *root, const char *file,
                     run_external_remove_fn remove_external, const struct oci_event_sink *sink,
                     oci_error_t *err)
{
  char path[PATH_MAX];
  struct run_record record;
  struct record_seen judged;
  char name[256];
  int lock_fd, ret = 0;

  if (!record_file_name(file, name, sizeof(name)))
    return 0;
  snprintf(path, sizeof(path), "%s/run/%s", root, file);
  if (state_read_record(run_fd, file, &record, &judged) < 0) {
    if (errno != ENOENT)
      oci_emit(sink, OCI_EVENT_REFUSED, "sweep: skipping unreadable record", path, "%s",
               strerror(errno));
    return 0;
  }
  if (strcmp(record.name, name) != 0) {
    oci_emit(sink, OCI_EVENT_REFUSED, "sweep: skipping", path, "it names run '%s'", record.name);
    run_record_clear(&record);
    return 0;
  }
  if (state_owner_alive(record.owner_pid, record.owner_start_time)) {
    run_record_clear(&record);
    return 0;
  }
  lock_fd = state_lock_name(run_fd, root, name, err);
  if (lock_fd < 0) {
    run_record_clear(&record);
    return -1;
  }
  if (state_record_unchanged(run_fd, file, &judged) &&
      !state_owner_alive(record.owner_pid, record.owner_start_time))
    ret =
        state_remove_dead_run(run_fd, root, name, &record, remove_external, sink, err) < 0 ? -1 : 1;
  state_unlock_name(run_fd, name, lock_fd);
  run_record_clear(&record);
  return ret;
}

int run_state_sweep(const struct state_root *state, run_external_remove_fn remove_external,
                    int *n_swept, oci_error_t *err)
{
  const struct oci_event_sink *sink = state->events;
  const char *root = state->path;
  int run_fd = state->folder_fd[STATE_RUN];
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;
  int ret = 0;

  *n_swept = 0;
  if (run_fd < 0)
    return 0; /* no run has ever been recorded */
  {
    int list_fd = fcntl(run_fd, F_DUPFD_CLOEXEC, 0);
    if (list_fd < 0)
      return oci_error_errno(err, "sweep: dup '%s/run'", root);
    dir = fdopendir(list_fd);
    if (dir == NULL) {
      close(list_fd);
      return oci_error_errno(err, "sweep: read '%s/run'", root);
    }
  }
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    oci_error_t one = NULL;
    int swept;

    if (strncmp(entry->d_name, TEMP_PREFIX "-", strlen(TEMP_PREFIX "-")) == 0) {
      sweep_temp_file(run_fd, entry->d_name);
      continue;
    }
    if (strncmp(entry->d_name, LOCK_PREFIX, strlen(LOCK_PREFIX)) == 0) {
      sweep_lock_file(run_fd, entry->d_name);
      continue;
    }
    /* Run dirs ($ROOT/run/<name>/) live beside the records. */
    if (entry->d_name[0] == '.' || entry->d_type == DT_DIR)
      continue;
    swept = sweep_one(run_fd, root, entry->d_name, remove_external, sink, &one);
    /* Keep going after a failure: one stuck run must not shield others. */
    if (swept < 0) {
      if (*err == NULL) {
        *err = one;
      } else {
        oci_emit(sink, OCI_EVENT_WARNING, "sweep", NULL, "%s",
                 one != NULL && one->message != NULL ? one->message : "out of memory");
        oci_error_free(&one);
      }
      ret = -1;
    } else if (swept > 0) {
      (*n_swept)++;
    }
  }
  if (errno != 0 && ret == 0)
    return oci_error_errno(err, "sweep: read '%s/run'", root);
  return ret;
}
