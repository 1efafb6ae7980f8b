/* The state of OCI containers: $ROOT/containers/<id>/ holds state.json
 * (what create recorded, replaced whole) and, until `start`, exec.fifo.
 * The directory is the lock (flock on its fd): whoever changes a container
 * holds it, and a holder that finds the directory unlinked (a delete won
 * the race) treats the container as gone. The status is never recorded:
 * it is read from /proc and the cgroup each time it is asked for. */
#include "config.h"

#include "container/record.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "oci/atomic_file.h"
#include "oci/cleanup.h"
#include "oci/file_read.h"
#include "oci/oci.h"
#include "oci/remove_tree.h"
#include "runtime/cgroup/slice.h"
#include "runtime/process_stat.h"
#include "runtime/state/root.h"
#include "runtime/state/run_state.h"

#define STATE_FILE "state.json"
#define EXEC_FIFO "exec.fifo"
#define STATE_MAX_SIZE (4 << 20)

/* A container's id names its folder under $ROOT/containers: the one rule
 * of every name under $ROOT (state/root.h). */
bool container_id_valid(const char *id)
{
  return state_name_valid(id);
}

static int flock_wait(int fd)
{
  int status;
  do
    status = flock(fd, LOCK_EX);
  while (status < 0 && errno == EINTR);
  return status;
}

/* $ROOT/containers through the one state-root opener, the fd kept. */
static int containers_dir_open(const char *root, bool create, oci_error_t *err)
{
  cleanup_state_root struct state_root state = STATE_ROOT_NONE;
  int fd;

  if (state_root_open(&state, root, STATE_CONTAINERS, create, err) < 0)
    return -1;
  fd = state_root_folder(&state, STATE_CONTAINERS, err);
  if (fd < 0)
    return -1;
  state.folder_fd[STATE_CONTAINERS] = -1; /* the caller's now */
  return fd;
}

/* ENOENT in the error, without strerror's words in the message. */
static int not_found(const char *id, oci_error_t *err)
{
  oci_error_set(err, 0, "container '%s' does not exist", id);
  if (*err != NULL)
    (*err)->errno_value = ENOENT;
  return -1;
}

static int handle_init(struct container_handle *handle, const char *root,
                       const struct state_name *id, oci_error_t *err)
{
  handle->root = strdup(root);
  handle->id = strdup(id->text);
  if (handle->root == NULL || handle->id == NULL)
    return oci_error_set(err, ENOMEM, "container '%s'", id->text);
  return 0;
}

void container_close(struct container_handle *handle)
{
  if (handle->dir_fd >= 0)
    close(handle->dir_fd); /* lets go of the lock */
  if (handle->containers_fd >= 0)
    close(handle->containers_fd);
  free(handle->root);
  free(handle->id);
  *handle = (struct container_handle){.containers_fd = -1, .dir_fd = -1};
}

/* Opens (and locks when asked) containers/<id>, which must pass the
 * store's ownership check; an unlinked directory is a deleted container. */
static int open_dir(struct container_handle *handle, bool lock, oci_error_t *err)
{
  struct stat st;

  handle->dir_fd = oci_store_dir_open(handle->containers_fd, NULL, handle->id, false, err);
  if (handle->dir_fd < 0) {
    if (*err != NULL && (*err)->errno_value == ENOENT) {
      oci_error_free(err);
      return not_found(handle->id, err);
    }
    return -1;
  }
  if (lock && flock_wait(handle->dir_fd) < 0)
    return oci_error_errno(err, "container '%s': lock", handle->id);
  handle->locked = lock;
  if (fstat(handle->dir_fd, &st) < 0)
    return oci_error_errno(err, "container '%s': stat", handle->id);
  if (st.st_nlink == 0)
    return not_found(handle->id, err);
  return 0;
}

/* containers/<id> of the store at root: made first when create (mkdir is the
 * one step that gives an id to exactly one create), then opened. */
static int handle_open(const char *root, const struct state_name *checked, bool create, bool lock,
                       struct container_handle *handle, oci_error_t *err)
{
  const char *id = checked->text;

  if (handle_init(handle, root, checked, err) < 0)
    goto fail;
  handle->containers_fd = containers_dir_open(root, create, err);
  if (handle->containers_fd < 0) {
    if (!create && *err != NULL && (*err)->errno_value == ENOENT) {
      oci_error_free(err);
      not_found(id, err);
    }
    goto fail;
  }
  if (create && mkdirat(handle->containers_fd, id, 0700) < 0) {
    if (errno == EEXIST)
      oci_error_set(err, EEXIST, "container '%s' already exists", id);
    else
      oci_error_errno(err, "container '%s': mkdir '%s/containers/%s'", id, root, id);
    goto fail;
  }
  if (open_dir(handle, lock, err) < 0)
    goto fail;
  return 0;
fail:
  container_close(handle);
  return -1;
}

/* An id as a caller gave it: checked here, where it enters. */
static int handle_open_id(const char *root, const char *id, bool create, bool lock,
                          struct container_handle *handle, oci_error_t *err)
{
  struct state_name checked;

  *handle = (struct container_handle){.containers_fd = -1, .dir_fd = -1};
  if (state_name_take("container id", id, &checked, err) < 0)
    return -1;
  return handle_open(root, &checked, create, lock, handle, err);
}

int container_new(const char *root, const char *id, struct container_handle *handle,
                  oci_error_t *err)
{
  return handle_open_id(root, id, true, true, handle, err);
}

int container_open(const char *root, const char *id, struct container_handle *handle,
                   oci_error_t *err)
{
  return handle_open_id(root, id, false, true, handle, err);
}

int container_open_unlocked(const char *root, const char *id, struct container_handle *handle,
                            oci_error_t *err)
{
  return handle_open_id(root, id, false, false, handle, err);
}

int container_open_checked(const char *root, const struct state_name *id, bool lock,
                           struct container_handle *handle, oci_error_t *err)
{
  *handle = (struct container_handle){.containers_fd = -1, .dir_fd = -1};
  if (state_name_guard(id, err) < 0)
    return -1;
  return handle_open(root, id, false, lock, handle, err);
}

/* ---- the record ---- */

static cJSON *strv_to_json(char **v)
{
  cJSON *array = cJSON_CreateArray();

  for (size_t i = 0; array != NULL && v != NULL && v[i] != NULL; i++)
    if (!cJSON_AddItemToArray(array, cJSON_CreateString(v[i]))) {
      cJSON_Delete(array);
      return NULL;
    }
  return array;
}

static cJSON *hooks_to_json(const struct spec_hook *hooks, size_t n)
{
  cJSON *array = cJSON_CreateArray();

  for (size_t i = 0; array != NULL && i < n; i++) {
    cJSON *hook = cJSON_CreateObject();
    if (!cJSON_AddItemToArray(array, hook) ||
        cJSON_AddStringToObject(hook, "path", hooks[i].path) == NULL ||
        (hooks[i].args != NULL &&
         !cJSON_AddItemToObject(hook, "args", strv_to_json(hooks[i].args))) ||
        (hooks[i].env != NULL && !cJSON_AddItemToObject(hook, "env", strv_to_json(hooks[i].env))) ||
        (hooks[i].timeout > 0 &&
         cJSON_AddNumberToObject(hook, "timeout", hooks[i].timeout) == NULL)) {
      cJSON_Delete(array);
      return NULL;
    }
  }
  return array;
}

static char *record_to_json(const struct container *container, oci_error_t *err)
{
  cleanup_cjson cJSON *json = cJSON_CreateObject();
  cJSON *hooks = NULL;
  char *text = NULL;

  if (json != NULL && cJSON_AddStringToObject(json, "ociVersion", container->oci_version) &&
      cJSON_AddStringToObject(json, "id", container->id) &&
      cJSON_AddStringToObject(json, "bundle", container->bundle) &&
      cJSON_AddNumberToObject(json, "pid", container->pid) &&
      /* A JSON number holds 53 bits exactly; clock ticks since boot fit. */
      cJSON_AddNumberToObject(json, "pidStartTime", (double)container->pid_start_time) &&
      (container->cgroup_path == NULL ||
       cJSON_AddStringToObject(json, "cgroupPath", container->cgroup_path)) &&
      cJSON_AddStringToObject(json, "created", container->created) &&
      cJSON_AddNumberToObject(json, "owner", container->owner) &&
      cJSON_AddItemToObject(
          json, "annotations",
          container_annotations_json(container->annotations, container->n_annotations)) &&
      (hooks = cJSON_AddObjectToObject(json, "hooks")) != NULL &&
      cJSON_AddItemToObject(hooks, "poststart",
                            hooks_to_json(container->poststart, container->n_poststart)) &&
      cJSON_AddItemToObject(hooks, "poststop",
                            hooks_to_json(container->poststop, container->n_poststop)))
    text = cJSON_Print(json);
  if (text == NULL)
    oci_error_set(err, ENOMEM, "container '%s': build the state record", container->id);
  return text;
}

static const char *string_of(const cJSON *object, const char *key)
{
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
  return cJSON_IsString(item) ? item->valuestring : NULL;
}

static int strv_from_json(const cJSON *array, char ***out)
{
  const cJSON *item;
  size_t n = 0;

  *out = NULL;
  if (array == NULL)
    return 0;
  if (!cJSON_IsArray(array))
    return -1;
  *out = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(char *));
  if (*out == NULL)
    return -1;
  cJSON_ArrayForEach(item, array)
  {
    if (!cJSON_IsString(item) || ((*out)[n++] = strdup(item->valuestring)) == NULL)
      return -1;
  }
  return 0;
}

static void hooks_free(struct spec_hook *hooks, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    free(hooks[i].path);
    strv_free(hooks[i].args);
    strv_free(hooks[i].env);
  }
  free(hooks);
}

static int hooks_from_json(const cJSON *array, struct spec_hook **out, size_t *n)
{
  const cJSON *item;

  *out = NULL;
  *n = 0;
  if (array == NULL)
    return 0;
  if (!cJSON_IsArray(array))
    return -1;
  *out = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(**out));
  if (*out == NULL)
    return -1;
  cJSON_ArrayForEach(item, array)
  {
    struct spec_hook *hook = &(*out)[(*n)++];
    const char *path = string_of(item, "path");
    const cJSON *timeout = cJSON_GetObjectItemCaseSensitive(item, "timeout");

    if (path == NULL || (hook->path = strdup(path)) == NULL ||
        strv_from_json(cJSON_GetObjectItemCaseSensitive(item, "args"), &hook->args) < 0 ||
        strv_from_json(cJSON_GetObjectItemCaseSensitive(item, "env"), &hook->env) < 0)
      return -1;
    hook->timeout = cJSON_IsNumber(timeout) ? timeout->valueint : 0;
  }
  return 0;
}

static int annotations_from_json(const cJSON *object, struct container *container)
{
  const cJSON *item;

  if (object == NULL)
    return 0;
  if (!cJSON_IsObject(object))
    return -1;
  container->annotations =
      calloc((size_t)cJSON_GetArraySize(object) + 1, sizeof(*container->annotations));
  if (container->annotations == NULL)
    return -1;
  cJSON_ArrayForEach(item, object)
  {
    struct spec_key_value *kv = &container->annotations[container->n_annotations++];
    if (!cJSON_IsString(item) || (kv->key = strdup(item->string)) == NULL ||
        (kv->value = strdup(item->valuestring)) == NULL)
      return -1;
  }
  return 0;
}

static int record_from_json(const cJSON *json, struct container *container)
{
  const char *id = string_of(json, "id"), *version = string_of(json, "ociVersion"),
             *bundle = string_of(json, "bundle"), *cgroup = string_of(json, "cgroupPath"),
             *created = string_of(json, "created");
  const cJSON *pid = cJSON_GetObjectItemCaseSensitive(json, "pid"),
              *start = cJSON_GetObjectItemCaseSensitive(json, "pidStartTime"),
              *owner = cJSON_GetObjectItemCaseSensitive(json, "owner"),
              *hooks = cJSON_GetObjectItemCaseSensitive(json, "hooks");

  if (id == NULL || version == NULL || bundle == NULL || created == NULL || !cJSON_IsNumber(pid) ||
      !cJSON_IsNumber(start) || !cJSON_IsNumber(owner) || pid->valuedouble < 0)
    return -1;
  container->id = strdup(id);
  container->oci_version = strdup(version);
  container->bundle = strdup(bundle);
  container->created = strdup(created);
  container->cgroup_path = cgroup != NULL ? strdup(cgroup) : NULL;
  container->pid = (pid_t)pid->valuedouble;
  container->pid_start_time = (unsigned long long)start->valuedouble;
  container->owner = (uid_t)owner->valuedouble;
  if (container->id == NULL || container->oci_version == NULL || container->bundle == NULL ||
      container->created == NULL || (cgroup != NULL && container->cgroup_path == NULL))
    return -1;
  if (annotations_from_json(cJSON_GetObjectItemCaseSensitive(json, "annotations"), container) < 0)
    return -1;
  return hooks_from_json(cJSON_GetObjectItemCaseSensitive(hooks, "poststart"),
                         &container->poststart, &container->n_poststart) < 0 ||
                 hooks_from_json(cJSON_GetObjectItemCaseSensitive(hooks, "poststop"),
                                 &container->poststop, &container->n_poststop) < 0
             ? -1
             : 0;
}

void container_clear(struct container *container)
{
  free(container->id);
  free(container->oci_version);
  free(container->bundle);
  free(container->cgroup_path);
  free(container->created);
  for (size_t i = 0; i < container->n_annotations; i++) {
    free(container->annotations[i].key);
    free(container->annotations[i].value);
  }
  free(container->annotations);
  hooks_free(container->poststart, container->n_poststart);
  hooks_free(container->poststop, container->n_poststop);
  memset(container, 0, sizeof(*container));
}

int container_save_config(const struct container_handle *handle, const char *text, size_t length,
                          oci_error_t *err)
{
  cleanup_free char *what = NULL;
  struct atomic_file file;

  if (asprintf(&what, "'%s/containers/%s/config.json'", handle->root, handle->id) < 0) {
    what = NULL;
    return oci_error_set(err, ENOMEM, "container '%s'", handle->id);
  }
  if (atomic_file_begin(&file, handle->dir_fd, ".config", 0600, what, err) < 0 ||
      atomic_file_write(&file, text, length, err) < 0 ||
      atomic_file_commit(&file, handle->dir_fd, "config.json", ATOMIC_FILE_REPLACE, err) < 0)
    return oci_error_wrap(err, "container '%s'", handle->id);
  return 0;
}

int container_save(const struct container_handle *handle, const struct container *container,
                   oci_error_t *err)
{
  cleanup_free char *text = record_to_json(container, err);
  cleanup_free char *what = NULL;
  struct atomic_file file;

  if (text == NULL)
    return -1;
  if (asprintf(&what, "'%s/containers/%s/" STATE_FILE "'", handle->root, handle->id) < 0) {
    what = NULL;
    return oci_error_set(err, ENOMEM, "container '%s'", handle->id);
  }
  if (atomic_file_begin(&file, handle->dir_fd, ".state", 0600, what, err) < 0 ||
      atomic_file_write(&file, text, strlen(text), err) < 0 ||
      atomic_file_commit(&file, handle->dir_fd, STATE_FILE, ATOMIC_FILE_REPLACE, err) < 0)
    return oci_error_wrap(err, "container '%s'", handle->id);
  return 0;
}

int container_load(const struct container_handle *handle, struct container *container,
                   oci_error_t *err)
{
  cleanup_free char *text = NULL;
  cleanup_cjson cJSON *json = NULL;
  char what[512];
  size_t length;

  memset(container, 0, sizeof(*container));
  snprintf(what, sizeof(what), "the state of container '%s'", handle->id);
  if (oci_file_read(handle->dir_fd, STATE_FILE, OCI_FILE_BENEATH, what, STATE_MAX_SIZE, &text,
                    &length, err) < 0)
    return -1;
  json = cJSON_ParseWithLength(text, length);
  if (json == NULL || record_from_json(json, container) < 0 ||
      strcmp(container->id, handle->id) != 0) {
    container_clear(container);
    return oci_error_set(err, EINVAL, "'%s/containers/%s/" STATE_FILE "' is not a state record",
                         handle->root, handle->id);
  }
  return 0;
}

/* ---- the exec FIFO: "created" until start removes it ---- */

char *container_exec_fifo_path(const struct container_handle *handle)
{
  char *path;
  if (asprintf(&path, "%s/containers/%s/" EXEC_FIFO, handle->root, handle->id) < 0)
    return NULL;
  return path;
}

int container_exec_fifo_create(const struct container_handle *handle, oci_error_t *err)
{
  /* Only the owner (root, or the rootless caller) may start the container. */
  if (mkfifoat(handle->dir_fd, EXEC_FIFO, 0600) < 0)
    return oci_error_errno(err, "container '%s': mkfifo '%s/containers/%s/" EXEC_FIFO "'",
                           handle->id, handle->root, handle->id);
  return 0;
}

bool container_exec_fifo_exists(const struct container_handle *handle)
{
  struct stat st;
  return fstatat(handle->dir_fd, EXEC_FIFO, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISFIFO(st.st_mode);
}

/* ---- status ---- */

/* One read of /proc/PID/stat (process_stat.h): the same start time, and
 * not a process that already exited ('Z', 'X'). */
static bool process_alive(const struct container *container)
{
  struct process_stat stat;
  oci_error_t err = NULL;

  if (container->pid <= 0)
    return false;
  if (process_stat_read(container->pid, &stat, &err) < 0) {
    oci_error_free(&err);
    return false;
  }
  return stat.start_time == container->pid_start_time && stat.state != 'Z' && stat.state != 'X';
}

int container_cgroup_open(const struct container *container, oci_error_t *err)
{
  int fd;

  if (container->cgroup_path == NULL)
    return oci_error_set(err, ENOENT, "container '%s' has no cgroup", container->id);
  fd = cgroup_open_path(container->cgroup_path, err);
  if (fd < 0)
    return oci_error_wrap(err, "container '%s'", container->id);
  return fd;
}

static bool cgroup_frozen(const struct container *container)
{
  oci_error_t err = NULL;
  cleanup_close int fd = container_cgroup_open(container, &err);
  bool frozen = fd >= 0 && cgroup_is_frozen(fd, container->cgroup_path, &err) == 1;

  oci_error_free(&err);
  return frozen;
}

enum container_status container_status(const struct container_handle *handle,
                                       const struct container *container)
{
  if (container == NULL || container->pid <= 0) {
    /* No record yet: a create in progress holds the lock; else it died. */
    cleanup_close int fd = -1;
    if (handle->locked)
      return CONTAINER_STOPPED;
    fd = openat(handle->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK)
      return CONTAINER_CREATING;
    return CONTAINER_STOPPED;
  }
  if (!process_alive(container))
    return CONTAINER_STOPPED;
  if (container_exec_fifo_exists(handle))
    return CONTAINER_CREATED;
  return cgroup_frozen(container) ? CONTAINER_PAUSED : CONTAINER_RUNNING;
}

char *container_state_json(const struct container *container, enum container_status status,
                           bool pretty, oci_error_t *err)
{
  struct container_state state = {
      .oci_version = container->oci_version,
      .id = container->id,
      .status = status,
      .pid = container->pid,
      .bundle = container->bundle,
      .annotations = container->annotations,
      .n_annotations = container->n_annotations,
  };
  return container_state_document(&state, pretty, err);
}

/* ---- signals ---- */

/* A pidfd of the recorded process, after checking it is that process: the
 * start time is read once the pidfd pins the pid, so a process that took
 * a reused pid is refused rather than signalled. */
int container_pidfd(const struct container *container, oci_error_t *err)
{
  struct process_stat stat;
  int fd;

  if (container->pid <= 0)
    return oci_error_set(err, ESRCH, "container '%s' has no process", container->id);
  fd = pidfd_open(container->pid, 0);
  if (fd < 0)
    return oci_error_errno(err, "container '%s': pidfd_open %d", container->id, container->pid);
  if (process_stat_read(container->pid, &stat, err) < 0 ||
      stat.start_time != container->pid_start_time || stat.state == 'Z') {
    close(fd);
    oci_error_free(err);
    return oci_error_set(err, ESRCH, "container '%s': its process %d is gone", container->id,
                         container->pid);
  }
  return fd;
}

int container_signal(const struct container *container, int sig, oci_error_t *err)
{
  cleanup_close int fd = container_pidfd(container, err);

  if (fd < 0)
    return -1;
  if (pidfd_send_signal(fd, sig, NULL, 0) < 0)
    return oci_error_errno(err, "container '%s': signal %d to pid %d", container->id, sig,
                           container->pid);
  return 0;
}

int container_wait_gone(const struct container *container, int timeout_ms, oci_error_t *err)
{
  cleanup_close int fd = container_pidfd(container, err);
  struct pollfd poll_fd = {.fd = fd, .events = POLLIN};
  int ready;

  if (fd < 0) {
    if (*err != NULL && (*err)->errno_value == ESRCH) {
      oci_error_free(err);
      return 0;
    }
    return -1;
  }
  /* A pidfd polls readable once its process has exited. */
  do
    ready = poll(&poll_fd, 1, timeout_ms);
  while (ready < 0 && errno == EINTR);
  if (ready < 0)
    return oci_error_errno(err, "container '%s': wait for pid %d", container->id, container->pid);
  if (ready == 0)
    return oci_error_set(err, ETIMEDOUT, "container '%s': pid %d still alive after %d ms",
                         container->id, container->pid, timeout_ms);
  return 0;
}

/* ---- the cgroup ---- */

int container_cgroup_pids(const struct container *container, pid_t **pids, size_t *n,
                          oci_error_t *err)
{
  /* The recorded path is checked (a cgroup2 directory under CGROUP_MOUNT,
   * no symlink on the way) and then used only through that fd. */
  cleanup_close int fd = container_cgroup_open(container, err);

  *pids = NULL;
  *n = 0;
  if (fd < 0)
    return -1;
  if (cgroup_list_pids(fd, container->cgroup_path, pids, n, err) < 0)
    return oci_error_wrap(err, "container '%s'", container->id);
  return 0;
}

int container_signal_all(const struct container *container, int sig, oci_error_t *err)
{
  cleanup_free pid_t *pids = NULL;
  size_t n;

  if (container_cgroup_pids(container, &pids, &n, err) < 0)
    return -1;
  for (size_t i = 0; i < n; i++) {
    /* The pidfd pins each process between the listing and the signal. */
    cleanup_close int fd = pidfd_open(pids[i], 0);
    if (fd < 0) {
      if (errno == ESRCH)
        continue;
      return oci_error_errno(err, "container '%s': pidfd_open %d", container->id, (int)pids[i]);
    }
    if (pidfd_send_signal(fd, sig, NULL, 0) < 0 && errno != ESRCH)
      return oci_error_errno(err, "container '%s': signal %d to pid %d", container->id, sig,
                             (int)pids[i]);
  }
  return 0;
}

int container_cgroup_freeze(const struct container *container, bool frozen, oci_error_t *err)
{
  cleanup_close int fd = container_cgroup_open(container, err);

  if (fd < 0)
    return -1;
  if (cgroup_freeze(fd, container->cgroup_path, frozen, err) < 0)
    return oci_error_wrap(err, "container '%s'", container->id);
  return 0;
}

int container_remove(struct container_handle *handle, oci_error_t *err)
{
  if (remove_tree_at(handle->containers_fd, handle->id, err) < 0)
    return oci_error_wrap(err, "container '%s'", handle->id);
  return 0;
}

/* ---- signal names ---- */

int container_signal_from_name(const char *name)
{
  char *end;
  long number;

  if (name == NULL || name[0] == '\0')
    return -1;
  if (isdigit((unsigned char)name[0])) {
    errno = 0;
    number = strtol(name, &end, 10);
    return errno == 0 && *end == '\0' && number > 0 && number < NSIG ? (int)number : -1;
  }
  if (strncasecmp(name, "SIG", 3) == 0)
    name += 3;
  for (int sig = 1; sig < SIGRTMIN; sig++) {
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev != NULL && strcasecmp(abbrev, name) == 0)
      return sig;
  }
  if (strncasecmp(name, "RTMIN", 5) == 0 || strncasecmp(name, "RTMAX", 5) == 0) {
    bool min = toupper((unsigned char)name[4]) == 'N';
    const char *rest = name + 5;
    int offset = 0;
    if (*rest != '\0') {
      if ((min && *rest != '+') || (!min && *rest != '-'))
        return -1;
      number = strtol(rest + 1, &end, 10);
      if (*end != '\0' || rest[1] == '\0' || number < 0 || number > SIGRTMAX - SIGRTMIN)
        return -1;
      offset = (int)number;
    }
    return min ? SIGRTMIN + offset : SIGRTMAX - offset;
  }
  return -1;
}
