/* The on-disk record of each live run ($ROOT/run/<name>.json): written
 * atomically and exclusively by the runner, read by `ocirun sweep` to clean
 * up after a runner that crashed (owner gone, or its pid reused): its cgroup,
 * its run dir, or the Docker container a probe left in an engine.
 *
 * A record says whose a name is, never where things are: what sweep removes
 * is derived from the validated name and ocirun's own layout ($ROOT/run/
 * <name>/, the container named <name>), and the one path a record carries,
 * the cgroup, is used only in the shape ocirun gives it (see
 * recorded_cgroup). A name changes hands only under its lock
 * ($ROOT/run/.lock-<name>, flock), so a sweep that judged a record stale
 * acts only if that very record is still there once the lock is held. */
#include "config.h"

#include "runtime/state/record.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "runtime/cgroup.h"
#include "runtime/process_stat.h"
#include "oci/atomic_file.h"
#include "oci/cleanup.h"
#include "oci/file_read.h"
#include "oci/io.h"
#include "oci/oci.h"
#include "oci/remove_tree.h"
#include "runtime/state/run_dir.h"

#define RECORD_SUFFIX ".json"
/* Temporary records are TEMP_PREFIX-<pid>-<random> (oci/atomic_file.h). */
#define TEMP_PREFIX ".tmp"
/* The lock of a name: $ROOT/run/.lock-<name> (a name never starts with '.'). */
#define LOCK_PREFIX ".lock-"
#define CGROUP_ROOT "/sys/fs/cgroup"
/* The configuration a run was built from: $ROOT/run/<name>/config.json. */
#define RUN_CONFIG "config.json"
/* A configuration with docker's seccomp profile is some 100 KiB. */
#define RUN_CONFIG_MAX (16 << 20)

/* A live owner: the pid exists, started when the record says (a
 * different start time means the pid was reused by another process), and
 * is not a zombie (a runner killed outright, not yet reaped). */
static bool owner_alive(int pid, unsigned long long start_time)
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

static bool valid_name(const char *name)
{
  if (name == NULL || name[0] == '\0' || name[0] == '.' || strlen(name) > 200)
    return false;
  for (const char *c = name; *c != '\0'; c++)
    if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' && *c != '-')
      return false;
  return true;
}

/* Opens root/run, creating root and root/run (0700) when asked; both must
 * pass the store's ownership check (oci_store_root_open). */
static int open_run_dir(const char *root, bool create, oci_error_t *err)
{
  cleanup_close int root_fd = oci_store_root_open(root, create, err);

  if (root_fd < 0)
    return -1;
  return oci_store_dir_open(root_fd, root, "run", create, err);
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
static int lock_name(int run_fd, const char *root, const char *name, oci_error_t *err)
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
static void unlock_name(int run_fd, const char *name, int lock_fd)
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

/* What a record was when it was judged: the file and its bytes. */
struct record_seen {
  dev_t dev;
  ino_t ino;
  uid_t uid;
  mode_t mode;
  char text[8192];
};

/* Reads root/run/<file> (a regular file, never through a symlink); returns
 * -1 with errno (ENOENT, EINVAL for garbage). seen may be NULL. */
static int read_record(int run_fd, const char *file, struct run_record *record,
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
static bool record_unchanged(int run_fd, const char *file, const struct record_seen *judged)
{
  struct record_seen now;
  struct run_record record;

  if (read_record(run_fd, file, &record, &now) < 0)
    return false;
  run_record_clear(&record);
  return now.dev == judged->dev && now.ino == judged->ino && strcmp(now.text, judged->text) == 0;
}

static int sweep_record(int run_fd, const char *root, const char *name,
                        const struct run_record *record, run_external_remove_fn remove_external,
                        oci_error_t *err);

/* Links the record in under its name; the caller holds the name's lock. */
static int write_locked(int run_fd, const char *root, const struct run_record *record,
                        const char *text, oci_error_t *err)
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
    if (read_record(run_fd, file, &existing, NULL) == 0) {
      bool alive = owner_alive(existing.owner_pid, existing.owner_start_time);
      int owner = existing.owner_pid;
      /* A crashed runner's record of the same name: clean up after it
       * (the lock is held, so it is the record just read). */
      int swept = alive ? 0 : sweep_record(run_fd, root, record->name, &existing, NULL, err);
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

int run_state_write(const char *root, const struct run_record *record, oci_error_t *err)
{
  cleanup_close int run_fd = -1;
  cleanup_free char *text = NULL;
  int lock_fd, ret;

  if (!valid_name(record->name))
    return oci_error_set(err, 0, "run state: invalid run name '%s'",
                         record->name ? record->name : "");
  run_fd = open_run_dir(root, true, err);
  if (run_fd < 0)
    return -1;
  text = record_to_json(record, err);
  if (text == NULL)
    return -1;
  lock_fd = lock_name(run_fd, root, record->name, err);
  if (lock_fd < 0)
    return -1;
  ret = write_locked(run_fd, root, record, text, err);
  unlock_name(run_fd, record->name, lock_fd);
  return ret;
}

int run_state_remove(const char *root, const char *name, oci_error_t *err)
{
  cleanup_close int run_fd = -1;
  char file[256];
  int lock_fd, ret = 0;

  if (!valid_name(name))
    return oci_error_set(err, 0, "run state: invalid run name '%s'", name ? name : "");
  run_fd = open_run_dir(root, false, err);
  if (run_fd < 0)
    return -1;
  lock_fd = lock_name(run_fd, root, name, err);
  if (lock_fd < 0)
    return -1;
  snprintf(file, sizeof(file), "%s" RECORD_SUFFIX, name);
  if (unlinkat(run_fd, file, 0) < 0 && errno != ENOENT)
    ret = oci_error_errno(err, "run state: remove '%s/run/%s'", root, file);
  unlock_name(run_fd, name, lock_fd);
  return ret;
}

/* ---- sweeping ---- */

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
 * an absolute path under /sys/fs/cgroup of plain components, the last one
 * exactly the run's name (a --cgroup-parent may be anywhere in the
 * hierarchy, so the parent itself is the record's word: the record is
 * trusted that far because the store passed the ownership check, and the
 * kernel's own permissions bound what a rootless caller can kill). It is
 * then looked up from /sys/fs/cgroup without following a symlink and must
 * be a cgroup2 directory. Returns 1 when it exists, 0 when it is gone. */
static int recorded_cgroup(const char *path, const char *name, oci_error_t *err)
{
  static const char prefix[] = CGROUP_ROOT "/";
  struct open_how how = {
      .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
      .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };
  cleanup_close int base_fd = -1;
  cleanup_close int fd = -1;
  const char *relative = path + strlen(prefix), *last = strrchr(path, '/');
  struct statfs fs;

  if (strncmp(path, prefix, strlen(prefix)) != 0 || strcmp(last + 1, name) != 0)
    return oci_error_set(err, 0,
                         "recorded cgroup '%s' is not cgroup2 slice " CGROUP_ROOT "/.../%s of "
                         "this run; not touching it",
                         path, name);
  for (const char *c = relative; *c != '\0'; c = strchr(c, '/') ? strchr(c, '/') + 1 : "") {
    size_t len = strcspn(c, "/");
    if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
      return oci_error_set(err, 0, "recorded cgroup '%s' is not a plain path; not touching it",
                           path);
  }
  base_fd = open(CGROUP_ROOT, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (base_fd < 0)
    return errno == ENOENT ? 0 : oci_error_errno(err, "open " CGROUP_ROOT);
  fd = (int)syscall(SYS_openat2, base_fd, relative, &how, sizeof(how));
  if (fd < 0)
    return errno == ENOENT ? 0 : oci_error_errno(err, "recorded cgroup '%s'", path);
  if (fstatfs(fd, &fs) < 0)
    return oci_error_errno(err, "recorded cgroup '%s': statfs", path);
  if (fs.f_type != CGROUP2_SUPER_MAGIC)
    return oci_error_set(err, 0, "recorded cgroup '%s' is not cgroup2; not touching it", path);
  return 1;
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

/* Cleans up one dead run, the caller holding its name's lock: what its
 * front end created outside (a probe's Docker container), its cgroup, its
 * run dir, then its record (kept when any of them could not be removed). */
static int sweep_record(int run_fd, const char *root, const char *name,
                        const struct run_record *record, run_external_remove_fn remove_external,
                        oci_error_t *err)
{
  const char *separator = ": ";
  char file[256], external[512] = "";
  struct stat st;
  bool had_dir = fstatat(run_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
  int cgroup = 0, killed;

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
    cgroup = recorded_cgroup(record->cgroup_path, name, err);
    if (cgroup < 0 || (cgroup > 0 && cgroup_remove_path(record->cgroup_path, err) < 0))
      return oci_error_wrap(err, "sweep '%s'", name);
  }
  if (remove_run_dir(run_fd, root, name, err) < 0)
    return oci_error_wrap(err, "sweep '%s'", name);
  snprintf(file, sizeof(file), "%s" RECORD_SUFFIX, name);
  if (unlinkat(run_fd, file, 0) < 0 && errno != ENOENT)
    return oci_error_errno(err, "sweep: remove '%s/run/%s'", root, file);
  printf("swept %s (owner pid %d gone)", name, record->owner_pid);
  if (killed > 0) {
    printf("%skilled pid 1 %d", separator, record->container_pid);
    separator = ", ";
  }
  if (external[0] != '\0') {
    printf("%s%s", separator, external);
    separator = ", ";
  }
  if (cgroup > 0) {
    printf("%scgroup %s", separator, record->cgroup_path);
    separator = ", ";
  }
  if (had_dir)
    printf("%srun dir %s/run/%s", separator, root, name);
  printf("\n");
  fflush(stdout);
  return 0;
}

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

  if (!valid_name(name))
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
  unlock_name(run_fd, name, fd);
}

/* The run name a record's file stands for, or NULL (not a record). */
static bool record_file_name(const char *file, char *name, size_t size)
{
  size_t len = strlen(file), suffix = strlen(RECORD_SUFFIX);

  if (len <= suffix || len - suffix >= size || strcmp(file + len - suffix, RECORD_SUFFIX) != 0)
    return false;
  memcpy(name, file, len - suffix);
  name[len - suffix] = '\0';
  return valid_name(name);
}

/* Judged stale without the lock; acted on only if, under the name's lock,
 * the record is the very file with the very bytes judged, and its owner is
 * still gone: a run that took the name meanwhile keeps everything.
 * Returns 1 when swept, 0 when left alone. */
static int sweep_one(int run_fd, const char *root, const char *file,
                     run_external_remove_fn remove_external, oci_error_t *err)
{
  struct run_record record;
  struct record_seen judged;
  char name[256];
  int lock_fd, ret = 0;

  if (!record_file_name(file, name, sizeof(name)))
    return 0;
  if (read_record(run_fd, file, &record, &judged) < 0) {
    if (errno != ENOENT)
      fprintf(stderr, "ocirun: sweep: skipping unreadable record '%s/run/%s': %s\n", root, file,
              strerror(errno));
    return 0;
  }
  if (strcmp(record.name, name) != 0) {
    fprintf(stderr, "ocirun: sweep: skipping '%s/run/%s': it names run '%s'\n", root, file,
            record.name);
    run_record_clear(&record);
    return 0;
  }
  if (owner_alive(record.owner_pid, record.owner_start_time)) {
    run_record_clear(&record);
    return 0;
  }
  lock_fd = lock_name(run_fd, root, name, err);
  if (lock_fd < 0) {
    run_record_clear(&record);
    return -1;
  }
  if (record_unchanged(run_fd, file, &judged) &&
      !owner_alive(record.owner_pid, record.owner_start_time))
    ret = sweep_record(run_fd, root, name, &record, remove_external, err) < 0 ? -1 : 1;
  unlock_name(run_fd, name, lock_fd);
  run_record_clear(&record);
  return ret;
}

int run_state_sweep(const char *root, run_external_remove_fn remove_external, int *n_swept,
                    oci_error_t *err)
{
  cleanup_close int run_fd = -1;
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;
  int ret = 0;

  *n_swept = 0;
  run_fd = open_run_dir(root, false, err);
  if (run_fd < 0) {
    if ((*err)->errno_value != ENOENT)
      return -1;
    oci_error_free(err); /* no run has ever been recorded */
    return 0;
  }
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
    swept = sweep_one(run_fd, root, entry->d_name, remove_external, &one);
    /* Keep going after a failure: one stuck run must not shield others. */
    if (swept < 0) {
      if (*err == NULL)
        *err = one;
      else
        oci_error_print(&one);
      ret = -1;
    } else if (swept > 0) {
      (*n_swept)++;
    }
  }
  if (errno != 0 && ret == 0)
    return oci_error_errno(err, "sweep: read '%s/run'", root);
  return ret;
}

int run_state_set_container(const char *root, const char *name, int pid, oci_error_t *err)
{
  cleanup_close int run_fd = -1;
  cleanup_free char *text = NULL;
  struct run_record record = {0};
  struct atomic_file temp;
  char file[256], what[PATH_MAX];
  int lock_fd, ret = -1;

  if (!valid_name(name))
    return oci_error_set(err, 0, "run state: invalid run name '%s'", name ? name : "");
  run_fd = open_run_dir(root, false, err);
  if (run_fd < 0)
    return -1;
  lock_fd = lock_name(run_fd, root, name, err);
  if (lock_fd < 0)
    return -1;
  snprintf(file, sizeof(file), "%s" RECORD_SUFFIX, name);
  snprintf(what, sizeof(what), "'%s/run/%s'", root, file);
  if (read_record(run_fd, file, &record, NULL) < 0) {
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
  unlock_name(run_fd, name, lock_fd);
  return ret;
}

int run_state_write_config(const char *root, const char *name, const char *text, oci_error_t *err)
{
  cleanup_close int run_fd = -1;
  cleanup_close int dir_fd = -1;
  cleanup_close int fd = -1;

  if (!valid_name(name))
    return oci_error_set(err, 0, "run state: invalid run name '%s'", name ? name : "");
  run_fd = open_run_dir(root, false, err);
  if (run_fd < 0)
    return -1;
  dir_fd = openat(run_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd < 0)
    return oci_error_errno(err, "run state: open '%s/run/%s'", root, name);
  /* Written before the process starts and read only once the record names
   * it, so no rename is needed; nor fsync: a crash ends the run, and sweep
   * removes its run dir. */
  fd = openat(dir_fd, RUN_CONFIG, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return oci_error_errno(err, "run state: create '%s/run/%s/" RUN_CONFIG "'", root, name);
  if (oci_write_all(fd, text, strlen(text)) < 0) {
    oci_error_errno(err, "run state: write '%s/run/%s/" RUN_CONFIG "'", root, name);
    unlinkat(dir_fd, RUN_CONFIG, 0);
    return -1;
  }
  return 0;
}

/* ---- finding a live run (ocirun exec NAME) ---- */

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
  size_t length, slice_length = strlen(slice), root_length = strlen(CGROUP_ROOT);
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
    return strncmp(slice, CGROUP_ROOT, root_length) == 0 && n >= slice_length - root_length &&
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
  slice = recorded_cgroup(record->cgroup_path, name, err);
  if (slice < 0)
    return oci_error_wrap(err, "run '%s'", name);
  if (slice == 0)
    return oci_error_set(err, 0, "run '%s' is not running: its slice '%s' is gone", name,
                         record->cgroup_path);
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
  snprintf(what, sizeof(what), "run '%s': '%s/run/%s'", name, root, file);
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

int run_state_find_live(const char *root, const char *name, struct run_record *record,
                        char **config, oci_error_t *err)
{
  cleanup_close int run_fd = -1;
  struct record_seen seen;
  char file[256];

  memset(record, 0, sizeof(*record));
  *config = NULL;
  if (!valid_name(name))
    return oci_error_set(err, 0,
                         "invalid run name '%s': letters, digits, '_', '.' and '-', not starting "
                         "with '.', at most 200",
                         name ? name : "");
  run_fd = open_run_dir(root, false, err);
  if (run_fd < 0) {
    if ((*err)->errno_value != ENOENT)
      return -1;
    oci_error_free(err); /* no run has ever been recorded */
    return 0;
  }
  snprintf(file, sizeof(file), "%s" RECORD_SUFFIX, name);
  if (read_record(run_fd, file, record, &seen) < 0) {
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
  if (!owner_alive(record->owner_pid, record->owner_start_time)) {
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
