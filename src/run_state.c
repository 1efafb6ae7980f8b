/* The on-disk record of each live run ($ROOT/run/<name>.json): written
 * atomically and exclusively by the runner, read by `ocirun sweep` to clean
 * up after a runner that crashed (owner gone, or its pid reused): its cgroup,
 * its run dir, or the Docker container a probe left in an engine. */
#include "config.h"

#include "run_state.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cgroup.h"
#include "docker_remove.h"
#include "oci/atomic_file.h"
#include "oci/cleanup.h"

#define RECORD_SUFFIX ".json"
/* Temporary records are TEMP_PREFIX-<pid>-<random> (oci/atomic_file.h). */
#define TEMP_PREFIX ".tmp"

int process_start_time(int pid, unsigned long long *start_time, oci_error_t *err)
{
  char path[64], buf[1024];
  cleanup_close int fd = -1;
  ssize_t n;
  char *p;

  snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return oci_error_errno(err, "run state: open '%s'", path);
  n = read(fd, buf, sizeof(buf) - 1);
  if (n < 0)
    return oci_error_errno(err, "run state: read '%s'", path);
  buf[n] = '\0';
  /* comm (field 2) may hold spaces and parentheses: count from the last ')'. */
  p = strrchr(buf, ')');
  if (p == NULL)
    return oci_error_set(err, 0, "run state: malformed '%s'", path);
  p++;
  /* After ')' come fields 3.. ; field 22 is the 20th of them. */
  for (int field = 3; field < 22; field++) {
    p = strchr(p + 1, ' ');
    if (p == NULL)
      return oci_error_set(err, 0, "run state: malformed '%s'", path);
  }
  *start_time = strtoull(p + 1, NULL, 10);
  return 0;
}

/* A live owner: the pid exists and started when the record says (a
 * different start time means the pid was reused by another process). */
static bool owner_alive(int pid, unsigned long long start_time)
{
  unsigned long long now_start = 0;
  oci_error_t err = NULL;

  if (pid <= 0)
    return false;
  if (process_start_time(pid, &now_start, &err) < 0) {
    oci_error_free(&err);
    return false;
  }
  return now_start == start_time;
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

/* Opens root/run, creating root and root/run (0700) when asked. */
static int open_run_dir(const char *root, bool create, oci_error_t *err)
{
  cleanup_close int root_fd = -1;
  int fd;

  if (create && mkdir(root, 0700) < 0 && errno != EEXIST)
    return oci_error_errno(err, "run state: mkdir '%s'", root);
  root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0)
    return oci_error_errno(err, "run state: open '%s'", root);
  if (create && mkdirat(root_fd, "run", 0700) < 0 && errno != EEXIST)
    return oci_error_errno(err, "run state: mkdir '%s/run'", root);
  fd = openat(root_fd, "run", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return oci_error_errno(err, "run state: open '%s/run'", root);
  return fd;
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
       cJSON_AddStringToObject(json, "docker_host", record->docker_host) == NULL)) {
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
  if (record->name == NULL || (cJSON_IsString(cgroup) && record->cgroup_path == NULL) ||
      (cJSON_IsString(run_dir) && record->run_dir == NULL) ||
      (cJSON_IsString(container) && record->docker_container == NULL) ||
      (cJSON_IsString(docker_host) && record->docker_host == NULL))
    return -1;
  return 0;
}

static void record_clear(struct run_record *record)
{
  free(record->name);
  free(record->cgroup_path);
  free(record->run_dir);
  free(record->docker_container);
  free(record->docker_host);
  memset(record, 0, sizeof(*record));
}

/* Reads root/run/<file>; returns -1 with errno (ENOENT, EINVAL for garbage). */
static int read_record(int run_fd, const char *file, struct run_record *record)
{
  cleanup_close int fd = openat(run_fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  char text[8192];
  ssize_t n;

  if (fd < 0)
    return -1;
  n = read(fd, text, sizeof(text) - 1);
  if (n < 0)
    return -1;
  text[n] = '\0';
  if (record_from_json(text, record) < 0) {
    record_clear(record);
    errno = EINVAL;
    return -1;
  }
  return 0;
}

static int sweep_record(int run_fd, const char *root, const char *file,
                        const struct run_record *record, oci_error_t *err);

int run_state_write(const char *root, const struct run_record *record, oci_error_t *err)
{
  cleanup_close int run_fd = -1;
  cleanup_free char *text = NULL;
  char file[256], what[PATH_MAX];

  if (!valid_name(record->name))
    return oci_error_set(err, 0, "run state: invalid run name '%s'",
                         record->name ? record->name : "");
  run_fd = open_run_dir(root, true, err);
  if (run_fd < 0)
    return -1;
  text = record_to_json(record, err);
  if (text == NULL)
    return -1;
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
    if (read_record(run_fd, file, &existing) == 0) {
      bool alive = owner_alive(existing.owner_pid, existing.owner_start_time);
      int owner = existing.owner_pid;
      /* A crashed runner's record of the same name: clean up after it. */
      int swept = alive ? 0 : sweep_record(run_fd, root, file, &existing, err);
      record_clear(&existing);
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

int run_state_remove(const char *root, const char *name, oci_error_t *err)
{
  cleanup_close int run_fd = -1;
  char file[256];

  if (!valid_name(name))
    return oci_error_set(err, 0, "run state: invalid run name '%s'", name ? name : "");
  run_fd = open_run_dir(root, false, err);
  if (run_fd < 0)
    return -1;
  snprintf(file, sizeof(file), "%s" RECORD_SUFFIX, name);
  if (unlinkat(run_fd, file, 0) < 0 && errno != ENOENT)
    return oci_error_errno(err, "run state: remove '%s/run/%s'", root, file);
  return 0;
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

/* Removes `name` under parent_fd recursively, through dirfds only: never
 * follows a symlink, never crosses onto another filesystem. */
static int remove_tree_at(int parent_fd, const char *name, dev_t device, const char *path,
                          oci_error_t *err)
{
  cleanup_close int fd = -1;
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;
  struct stat st;

  if (fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return errno == ENOENT ? 0 : oci_error_errno(err, "run state: stat '%s'", path);
  if (!S_ISDIR(st.st_mode)) {
    if (unlinkat(parent_fd, name, 0) < 0 && errno != ENOENT)
      return oci_error_errno(err, "run state: unlink '%s'", path);
    return 0;
  }
  if (st.st_dev != device)
    return oci_error_set(err, EXDEV, "run state: '%s' is another filesystem; not removing", path);
  fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return oci_error_errno(err, "run state: open '%s'", path);
  dir = fdopendir(fd);
  if (dir == NULL)
    return oci_error_errno(err, "run state: read '%s'", path);
  fd = -1;
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    cleanup_free char *child = NULL;
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
      continue;
    if (asprintf(&child, "%s/%s", path, entry->d_name) < 0)
      return oci_error_errno(err, "run state: allocate");
    if (remove_tree_at(dirfd(dir), entry->d_name, device, child, err) < 0)
      return -1;
  }
  if (errno != 0)
    return oci_error_errno(err, "run state: read '%s'", path);
  if (unlinkat(parent_fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
    return oci_error_errno(err, "run state: rmdir '%s'", path);
  return 0;
}

static int remove_run_dir(const char *run_dir, oci_error_t *err)
{
  cleanup_free char *parent = NULL;
  cleanup_close int parent_fd = -1;
  const char *name;
  struct stat st;

  if (run_dir[0] != '/' || strcmp(run_dir, "/") == 0 || strstr(run_dir, "/..") != NULL ||
      strstr(run_dir, "/./") != NULL)
    return oci_error_set(err, 0, "run state: refusing to remove run dir '%s'", run_dir);
  if (unmount_below(run_dir, err) < 0)
    return -1;
  parent = strdup(run_dir);
  if (parent == NULL)
    return oci_error_errno(err, "run state: allocate");
  *strrchr(parent, '/') = '\0';
  name = strrchr(run_dir, '/') + 1;
  parent_fd = open(parent[0] ? parent : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd < 0)
    return errno == ENOENT ? 0 : oci_error_errno(err, "run state: open '%s'", parent);
  if (fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return errno == ENOENT ? 0 : oci_error_errno(err, "run state: stat '%s'", run_dir);
  return remove_tree_at(parent_fd, name, st.st_dev, run_dir, err);
}

/* Cleans up one dead run: its Docker container, its cgroup, its run dir,
 * then its record (kept when any of them could not be removed). */
static int sweep_record(int run_fd, const char *root, const char *file,
                        const struct run_record *record, oci_error_t *err)
{
  const char *separator = ": ";

  /* The record stays when the engine cannot be reached: a later sweep
   * finishes the job. */
  if (record->docker_container != NULL &&
      docker_remove_container(record->docker_container, record->docker_host, err) < 0)
    return oci_error_wrap(err, "sweep '%s': record kept for a later sweep", record->name);
  if (record->cgroup_path != NULL && cgroup_remove_path(record->cgroup_path, err) < 0)
    return oci_error_wrap(err, "sweep '%s'", record->name);
  if (record->run_dir != NULL && remove_run_dir(record->run_dir, err) < 0)
    return oci_error_wrap(err, "sweep '%s'", record->name);
  if (unlinkat(run_fd, file, 0) < 0 && errno != ENOENT)
    return oci_error_errno(err, "sweep: remove '%s/run/%s'", root, file);
  printf("swept %s (owner pid %d gone)", record->name, record->owner_pid);
  if (record->docker_container != NULL) {
    printf("%sdocker container %s at %s", separator, record->docker_container,
           docker_remove_endpoint(record->docker_host));
    separator = ", ";
  }
  if (record->cgroup_path != NULL) {
    printf("%scgroup %s", separator, record->cgroup_path);
    separator = ", ";
  }
  if (record->run_dir != NULL)
    printf("%srun dir %s", separator, record->run_dir);
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

int run_state_sweep(const char *root, int *n_swept, oci_error_t *err)
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
    struct run_record record;
    size_t len = strlen(entry->d_name);

    if (strncmp(entry->d_name, TEMP_PREFIX "-", strlen(TEMP_PREFIX "-")) == 0) {
      sweep_temp_file(run_fd, entry->d_name);
      continue;
    }
    /* Run dirs ($ROOT/run/<name>/) live beside the records. */
    if (entry->d_name[0] == '.' || entry->d_type == DT_DIR || len <= strlen(RECORD_SUFFIX) ||
        strcmp(entry->d_name + len - strlen(RECORD_SUFFIX), RECORD_SUFFIX) != 0)
      continue;
    if (read_record(run_fd, entry->d_name, &record) < 0) {
      if (errno != ENOENT)
        fprintf(stderr, "ocirun: sweep: skipping unreadable record '%s/run/%s': %s\n", root,
                entry->d_name, strerror(errno));
      continue;
    }
    if (!owner_alive(record.owner_pid, record.owner_start_time)) {
      /* Keep going after a failure: one stuck run must not shield others. */
      oci_error_t one = NULL;
      if (sweep_record(run_fd, root, entry->d_name, &record, &one) < 0) {
        if (*err == NULL)
          *err = one;
        else
          oci_error_print(&one);
        ret = -1;
      } else {
        (*n_swept)++;
      }
    }
    record_clear(&record);
  }
  if (errno != 0 && ret == 0)
    return oci_error_errno(err, "sweep: read '%s/run'", root);
  return ret;
}
