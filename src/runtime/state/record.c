/* The on-disk record of each live run ($ROOT/run/<name>.json): written
 * atomically and exclusively by the runner, completed with its pid 1, its
 * configuration kept beside it, and removed at teardown; read by sweep.c
 * and join.c.
 *
 * A record says whose a name is, never where things are: what sweep removes
 * is derived from the validated name and ocirun's own layout ($ROOT/run/
 * <name>/, the container named <name>), and the one path a record carries,
 * the cgroup, is used only in the shape ocirun gives it (see
 * leftovers.c). A name changes hands only under its lock
 * ($ROOT/run/.lock-<name>, flock), so a sweep that judged a record stale
 * acts only if that very record is still there once the lock is held. */
#include "config.h"

#include "runtime/state/run_state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "oci/atomic_file.h"
#include "oci/cleanup.h"
#include "oci/io.h"
#include "oci/oci.h"
#include "runtime/process_stat.h"
#include "runtime/state/internal.h"
#include "runtime/state/root.h"

/* A live owner: the pid exists, started when the record says (a
 * different start time means the pid was reused by another process), and
 * is not a zombie (a runner killed outright, not yet reaped). */
bool state_owner_alive(int pid, unsigned long long start_time)
{
  struct process_stat now;
  oci_error_t err = NULL;

  if (pid <= 0)
    return false;
  if (process_stat_read(pid, &now, &err) < 0) {
    oci_error_free(&err);
    return false;
  }
  return now.start_time == start_time && now.state != 'Z';
}

/* The run folder state holds, for the files of a name checked first. */
static int run_folder_for(const struct state_root *state, const char *name, oci_error_t *err)
{
  if (state_name_check("run name", name, err) < 0)
    return oci_error_wrap(err, "run state");
  return state_root_folder(state, STATE_RUN, err);
}

static int flock_retry(int fd, int operation)
{
  int status;
  do
    status = flock(fd, operation);
  while (status < 0 && errno == EINTR);
  return status;
}

/* Takes the name's lock (exclusive, waiting). The lock file is unlinked by
 * whoever holds it and leaves no record behind, so a lock taken on a file
 * that is no longer the one in the directory is let go and taken again. */
int state_lock_name(int run_fd, const char *root, const char *name, oci_error_t *err)
{
  char file[256];

  snprintf(file, sizeof(file), LOCK_PREFIX "%s", name);
  for (int attempt = 0;; attempt++) {
    struct stat held, current;
    int fd = openat(run_fd, file, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

    if (fd < 0)
      return oci_error_errno(err, "run state: open '%s/run/%s'", root, file);
    if (flock_retry(fd, LOCK_EX) < 0 || fstat(fd, &held) < 0) {
      oci_error_errno(err, "run state: lock '%s/run/%s'", root, file);
      close(fd);
      return -1;
    }
    if (fstatat(run_fd, file, &current, AT_SYMLINK_NOFOLLOW) == 0 &&
        current.st_dev == held.st_dev && current.st_ino == held.st_ino)
      return fd;
    close(fd);
    if (attempt >= 1000)
      return oci_error_set(err, EAGAIN, "run state: '%s/run/%s' keeps being replaced", root, file);
  }
}

/* Lets go of the name; its lock file goes too when no record holds the name. */
void state_unlock_name(int run_fd, const char *name, int lock_fd)
{
  char file[256];

  snprintf(file, sizeof(file), "%s" RECORD_SUFFIX, name);
  if (faccessat(run_fd, file, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT) {
    snprintf(file, sizeof(file), LOCK_PREFIX "%s", name);
    unlinkat(run_fd, file, 0);
  }
  close(lock_fd);
}

static char *record_to_json(const struct run_record *record, oci_error_t *err)
{
  cleanup_cjson cJSON *json = cJSON_CreateObject();
  unsigned long long start_time = record->owner_start_time;
  int pid = record->owner_pid > 0 ? record->owner_pid : (int)getpid();
  char *text;

  if (json == NULL) {
    oci_error_set(err, ENOMEM, "run state: build record");
    return NULL;
  }
  if (start_time == 0 && process_start_time(pid, &start_time, err) < 0)
    return NULL;
  if (cJSON_AddStringToObject(json, "name", record->name) == NULL ||
      cJSON_AddNumberToObject(json, "owner_pid", pid) == NULL ||
      /* A JSON number holds 53 bits exactly; clock ticks since boot fit. */
      cJSON_AddNumberToObject(json, "owner_start_time", (double)start_time) == NULL ||
      (record->cgroup_path != NULL &&
       cJSON_AddStringToObject(json, "cgroup_path", record->cgroup_path) == NULL) ||
      (record->run_dir != NULL &&
       cJSON_AddStringToObject(json, "run_dir", record->run_dir) == NULL) ||
      (record->docker_container != NULL &&
       cJSON_AddStringToObject(json, "docker_container", record->docker_container) == NULL) ||
      (record->docker_host != NULL &&
       cJSON_AddStringToObject(json, "docker_host", record->docker_host) == NULL) ||
      (record->container_pid > 0 &&
       (cJSON_AddNumberToObject(json, "container_pid", record->container_pid) == NULL ||
        cJSON_AddNumberToObject(json, "container_start_time",
                                (double)record->container_start_time) == NULL))) {
    oci_error_set(err, ENOMEM, "run state: build record");
    return NULL;
  }
  text = cJSON_PrintUnformatted(json);
  if (text == NULL)
    oci_error_set(err, ENOMEM, "run state: build record");
  return text;
}

static int record_from_json(const char *text, struct run_record *record)
{
  cleanup_cjson cJSON *json = cJSON_Parse(text);
  const cJSON *name, *pid, *start, *cgroup, *run_dir, *container, *docker_host;
  const cJSON *container_pid, *container_start;

  memset(record, 0, sizeof(*record));
  if (json == NULL)
    return -1;
  name = cJSON_GetObjectItemCaseSensitive(json, "name");
  pid = cJSON_GetObjectItemCaseSensitive(json, "owner_pid");
  start = cJSON_GetObjectItemCaseSensitive(json, "owner_start_time");
  cgroup = cJSON_GetObjectItemCaseSensitive(json, "cgroup_path");
  run_dir = cJSON_GetObjectItemCaseSensitive(json, "run_dir");
  container = cJSON_GetObjectItemCaseSensitive(json, "docker_container");
  docker_host = cJSON_GetObjectItemCaseSensitive(json, "docker_host");
  container_pid = cJSON_GetObjectItemCaseSensitive(json, "container_pid");
  container_start = cJSON_GetObjectItemCaseSensitive(json, "container_start_time");
  if (!cJSON_IsString(name) || !cJSON_IsNumber(pid) || !cJSON_IsNumber(start))
    return -1;
  record->name = strdup(name->valuestring);
  record->owner_pid = pid->valueint;
  record->owner_start_time = (unsigned long long)start->valuedouble;
  if (cJSON_IsString(cgroup))
    record->cgroup_path = strdup(cgroup->valuestring);
  if (cJSON_IsString(run_dir))
    record->run_dir = strdup(run_dir->valuestring);
  /* Optional: records written before probes recorded their containers lack them. */
  if (cJSON_IsString(container))
    record->docker_container = strdup(container->valuestring);
  if (cJSON_IsString(docker_host))
    record->docker_host = strdup(docker_host->valuestring);
  /* Optional: absent until the run's pid 1 has exec'd. */
  if (cJSON_IsNumber(container_pid) && cJSON_IsNumber(container_start)) {
    record->container_pid = container_pid->valueint;
    record->container_start_time = (unsigned long long)container_start->valuedouble;
  }
  if (record->name == NULL || (cJSON_IsString(cgroup) && record->cgroup_path == NULL) ||
      (cJSON_IsString(run_dir) && record->run_dir == NULL) ||
      (cJSON_IsString(container) && record->docker_container == NULL) ||
      (cJSON_IsString(docker_host) && record->docker_host == NULL))
    return -1;
  return 0;
}

void run_record_clear(struct run_record *record)
{
  free(record->name);
  free(record->cgroup_path);
  free(record->run_dir);
  free(record->docker_container);
  free(record->docker_host);
  memset(record, 0, sizeof(*record));
}

/* Reads root/run/<file> (a regular file, never through a symlink); returns
 * -1 with errno (ENOENT, EINVAL for garbage). seen may be NULL. */
int state_read_record(int run_fd, const char *file, struct run_record *record,
                      struct record_seen *seen)
{
  cleanup_close int fd = openat(run_fd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct record_seen local;
  struct stat st;
  ssize_t n;

  if (seen == NULL)
    seen = &local;
  memset(record, 0, sizeof(*record));
  if (fd < 0 || fstat(fd, &st) < 0)
    return -1;
  if (!S_ISREG(st.st_mode)) {
    errno = EINVAL;
    return -1;
  }
  n = read(fd, seen->text, sizeof(seen->text) - 1);
  if (n < 0)
    return -1;
  seen->text[n] = '\0';
  seen->dev = st.st_dev;
  seen->ino = st.st_ino;
  seen->uid = st.st_uid;
  seen->mode = st.st_mode;
  if (record_from_json(seen->text, record) < 0) {
    run_record_clear(record);
    errno = EINVAL;
    return -1;
  }
  return 0;
}

/* True when root/run/<file> is still the file, with the bytes, judged. */
bool state_record_unchanged(int run_fd, const char *file, const struct record_seen *judged)
{
  struct record_seen now;
  struct run_record record;

  if (state_read_record(run_fd, file, &record, &now) < 0)
    return false;
  run_record_clear(&record);
  return now.dev == judged->dev && now.ino == judged->ino && strcmp(now.text, judged->text) == 0;
}

/* Links the record in under its name; the caller holds the name's lock.
 * A dead run's record of the name is swept first, reported into events. */
static int write_locked(int run_fd, const char *root, const struct run_record *record,
                        const char *text, const struct oci_event_sink *events, oci_error_t *err)
{
  char file[256], what[PATH_MAX];

  snprintf(file, sizeof(file), "%s" RECORD_SUFFIX, record->name);
  snprintf(what, sizeof(what), "'%s/run/%s'", root, file);
  for (int attempt = 0;; attempt++) {
    struct atomic_file temp;
    struct run_record existing;
    /* Linked in, never renamed: two runners can never both own a name. */
    if (atomic_file_begin(&temp, run_fd, TEMP_PREFIX, 0600, what, err) == 0 &&
        atomic_file_write(&temp, text, strlen(text), err) == 0 &&
        atomic_file_commit(&temp, run_fd, file, ATOMIC_FILE_NO_REPLACE, err) == 0)
      return 0;
    if (*err == NULL || (*err)->errno_value != EEXIST || attempt > 0)
      return oci_error_wrap(err, "run state");
    oci_error_free(err);
    if (state_read_record(run_fd, file, &existing, NULL) == 0) {
      bool alive = state_owner_alive(existing.owner_pid, existing.owner_start_time);
      int owner = existing.owner_pid;
      /* A crashed runner's record of the same name: clean up after it
       * (the lock is held, so it is the record just read). */
      int swept =
          alive ? 0
                : state_remove_dead_run(run_fd, root, record->name, &existing, NULL, events, err);
      run_record_clear(&existing);
      if (alive)
        return oci_error_set(err, EEXIST, "run name '%s' is in use by a live run (owner pid %d)",
                             record->name, owner);
      if (swept < 0)
        return -1;
    } else if (errno == EINVAL) {
      return oci_error_set(err, EEXIST, "run name '%s': '%s/run/%s' exists and is not a run record",
                           record->name, root, file);
    }
  }
}

int run_state_write(struct state_root *state, const struct run_record *record, oci_error_t *err)
{
  const char *root = state->path;
  cleanup_free char *text = NULL;
  int run_fd, lock_fd, ret;

  if (state_root_open_folder(state, STATE_RUN, true, err) < 0)
    return -1;
  run_fd = run_folder_for(state, record->name, err);
  if (run_fd < 0)
    return -1;
  text = record_to_json(record, err);
  if (text == NULL)
    return -1;
  lock_fd = state_lock_name(run_fd, root, record->name, err);
  if (lock_fd < 0)
    return -1;
  ret = write_locked(run_fd, root, record, text, state->events, err);
  state_unlock_name(run_fd, record->name, lock_fd);
  return ret;
}

/* The name's lock, taken in the run folder state holds for the record of
 * a name checked first: its fd, with *run_fd the folder and file the
 * record's file name; -1 with *err. */
static int lock_record(const struct state_root *state, const char *name, int *run_fd, char *file,
                       size_t size, oci_error_t *err)
{
  *run_fd = run_folder_for(state, name, err);
  if (*run_fd < 0)
    return -1;
  snprintf(file, size, "%s" RECORD_SUFFIX, name);
  return state_lock_name(*run_fd, state->path, name, err);
}

int run_state_remove(const struct state_root *state, const char *name, oci_error_t *err)
{
  const char *root = state->path;
  char file[256];
  int run_fd, lock_fd = lock_record(state, name, &run_fd, file, sizeof(file), err), ret = 0;

  if (lock_fd < 0)
    return -1;
  if (unlinkat(run_fd, file, 0) < 0 && errno != ENOENT)
    ret = oci_error_errno(err, "run state: remove '%s/run/%s'", root, file);
  state_unlock_name(run_fd, name, lock_fd);
  return ret;
}

int run_state_set_container(const struct state_root *state, const char *name, int pid,
                            oci_error_t *err)
{
  const char *root = state->path;
  cleanup_free char *text = NULL;
  struct run_record record = {0};
  struct atomic_file temp;
  char file[256], what[PATH_MAX];
  int run_fd, lock_fd = lock_record(state, name, &run_fd, file, sizeof(file), err), ret = -1;

  if (lock_fd < 0)
    return -1;
  snprintf(what, sizeof(what), "'%s/run/%s'", root, file);
  if (state_read_record(run_fd, file, &record, NULL) < 0) {
    oci_error_errno(err, "run state: read %s", what);
    goto out;
  }
  /* Only the runner completes its record: a name taken over is not ours. */
  if (record.owner_pid != (int)getpid()) {
    oci_error_set(err, 0, "run state: %s belongs to pid %d, not to this runner", what,
                  record.owner_pid);
    goto out;
  }
  record.container_pid = pid;
  if (process_start_time(pid, &record.container_start_time, err) < 0)
    goto out;
  text = record_to_json(&record, err);
  if (text == NULL)
    goto out;
  if (atomic_file_begin(&temp, run_fd, TEMP_PREFIX, 0600, what, err) < 0 ||
      atomic_file_write(&temp, text, strlen(text), err) < 0 ||
      atomic_file_commit(&temp, run_fd, file, ATOMIC_FILE_REPLACE, err) < 0) {
    oci_error_wrap(err, "run state");
    goto out;
  }
  ret = 0;
out:
  run_record_clear(&record);
  state_unlock_name(run_fd, name, lock_fd);
  return ret;
}

int run_state_write_config(const struct state_root *state, const char *name, const char *text,
                           oci_error_t *err)
{
  return run_state_write_file(state, name, RUN_CONFIG, 0600, text, err);
}

int run_state_write_file(const struct state_root *state, const char *name, const char *file,
                         mode_t mode, const char *text, oci_error_t *err)
{
  const char *root = state->path;
  cleanup_close int dir_fd = -1;
  cleanup_close int fd = -1;
  int run_fd = run_folder_for(state, name, err);

  if (run_fd < 0)
    return -1;
  dir_fd = openat(run_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd < 0)
    return oci_error_errno(err, "run state: open '%s/run/%s'", root, name);
  /* Written before the process starts and read only once the record names
   * it, so no rename is needed; nor fsync: a crash ends the run, and sweep
   * removes its run dir. */
  if (strchr(file, '/') != NULL || file[0] == '.')
    return oci_error_set(err, EINVAL, "run state: '%s' is not a plain file name", file);
  fd = openat(dir_fd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0)
    return oci_error_errno(err, "run state: create '%s/run/%s/%s'", root, name, file);
  if (fchmod(fd, mode) < 0 || oci_write_all(fd, text, strlen(text)) < 0) {
    oci_error_errno(err, "run state: write '%s/run/%s/%s'", root, name, file);
    unlinkat(dir_fd, file, 0);
    return -1;
  }
  return 0;
}
