/* How a container moves along its lifecycle after create (runtime-spec
 * runtime.md "Lifecycle", steps 6-13): start, which lets the waiting
 * process exec the user program and runs the poststart hooks; and the one
 * destroyer, which delete, a failed create and a failed start all end in.
 * Also what every verb shares: a container loaded by ID (a run's name
 * refused by name), the post hooks, the pid file. */
#include "config.h"

#include "container/lifecycle.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/container.h"
#include "oci/atomic_file.h"
#include "oci/cleanup.h"
#include "runtime/cgroup/slice.h"
#include "runtime/state/root.h"
#include "runtime/state/run_state.h"

/* How long the destroyer waits for a killed container's process to exit. */
#define DESTROY_KILL_TIMEOUT_MS 10000

/* ---- a container by ID ---- */

int container_load_by_id(const char *root, const struct state_name *checked, bool lock,
                         struct container_handle *handle, struct container *container,
                         oci_error_t *err)
{
  const char *id = checked->text;

  memset(container, 0, sizeof(*container));
  if (container_open_checked(root, checked, lock, handle, err) < 0)
    return -1;
  if (container_load(handle, container, err) < 0) {
    if (*err != NULL && (*err)->errno_value == ENOENT) {
      oci_error_free(err);
      oci_error_set(err, 0,
                    "container '%s' has no state yet: its create is still running, or died "
                    "(then 'ocirun delete %s' removes what is left)",
                    id, id);
    }
    container_close(handle);
    return -1;
  }
  return 0;
}

int container_refuse_run(const char *verb, const char *root, const char *id, oci_error_t *err)
{
  cleanup_state_root struct state_root state = STATE_ROOT_NONE;
  struct run_record run = {0};
  cleanup_free char *config = NULL;
  oci_error_t run_err = NULL;
  struct state_name name;
  int found;

  /* an id that is no name under $ROOT is no run's */
  if (*err == NULL || (*err)->errno_value != ENOENT ||
      state_name_take("run name", id, &name, NULL) < 0)
    return -1;
  found = state_root_open(&state, root, STATE_RUN, false, &run_err) < 0
              ? -1
              : run_state_find_live(&state, &name, &run, &config, &run_err);
  if (found == 0)
    return -1;
  oci_error_free(err);
  if (found > 0)
    oci_error_set(err, 0,
                  "%s: '%s' is not an OCI container but a live run ('ocirun run --name %s', "
                  "runner pid %d): the OCI verbs act on containers of 'ocirun create' only. "
                  "A run ends with its runner: signal it (kill -TERM %d) or let its --timeout "
                  "expire; 'ocirun exec %s CMD' runs CMD in it",
                  verb, id, id, run.owner_pid, run.owner_pid, id);
  else
    oci_error_set(err, 0,
                  "%s: '%s' is not an OCI container but the name of a run that is not running "
                  "(%s): the OCI verbs act on containers of 'ocirun create' only",
                  verb, id, run_err != NULL && run_err->message ? run_err->message : "?");
  oci_error_free(&run_err);
  run_record_clear(&run);
  return -1;
}

int container_load_for_verb(const char *verb, const char *root, const char *id, bool lock,
                            struct container_handle *handle, struct container *container,
                            oci_error_t *err)
{
  struct state_name checked;

  /* a verb's id enters here */
  if (state_name_take("container id", id, &checked, err) < 0 ||
      container_load_by_id(root, &checked, lock, handle, container, err) < 0)
    return container_refuse_run(verb, root, id, err);
  return 0;
}

/* ---- hooks ---- */

void container_run_post_hooks(const struct container *container, enum spec_hook_kind kind,
                              enum container_status status, const struct oci_event_sink *events)
{
  const struct spec_hook *hooks =
      kind == SPEC_HOOK_POSTSTART ? container->poststart : container->poststop;
  size_t n = kind == SPEC_HOOK_POSTSTART ? container->n_poststart : container->n_poststop;
  const char *name = kind == SPEC_HOOK_POSTSTART ? "poststart" : "poststop";
  cleanup_free char *state = NULL;
  oci_error_t err = NULL;

  if (n == 0)
    return;
  state = container_state_json(container, status, false, &err);
  if (state == NULL || hooks_run(hooks, n, kind, name, state, events, &err) < 0) {
    oci_emit(events, OCI_EVENT_WARNING, "hook", name, "%s hooks: %s", name,
             err && err->message ? err->message : "failed");
    oci_error_free(&err);
  }
}

/* ---- the one destroyer ---- */

/* SIGKILL to every process of the container (its cgroup's, when it has
 * one, then its pid 1), and its pid 1 waited for. */
static int kill_all(const struct container *container, oci_error_t *err)
{
  if (container->cgroup_path != NULL && container_signal_all(container, SIGKILL, err) < 0) {
    if (*err == NULL || (*err)->errno_value != ENOENT)
      return -1;
    oci_error_free(err);
  }
  if (container_signal(container, SIGKILL, err) < 0) {
    if (*err == NULL || (*err)->errno_value != ESRCH)
      return -1;
    oci_error_free(err);
  }
  return container_wait_gone(container, DESTROY_KILL_TIMEOUT_MS, err);
}

/* The container's cgroup, killed and removed: only a cgroup2 directory
 * under /sys/fs/cgroup reached without a symlink (container_cgroup_open). */
static int remove_cgroup(const struct container *container, oci_error_t *err)
{
  cleanup_close int fd = -1;

  if (container->cgroup_path == NULL)
    return 0;
  fd = container_cgroup_open(container, err);
  if (fd < 0) {
    if (*err != NULL && (*err)->errno_value == ENOENT) {
      oci_error_free(err);
      return 0;
    }
    return -1;
  }
  return cgroup_remove(fd, container->cgroup_path, err);
}

int container_destroy(struct container_handle *handle, const struct container *container,
                      const struct oci_event_sink *events, oci_error_t *err)
{
  if (kill_all(container, err) < 0 || remove_cgroup(container, err) < 0 ||
      container_remove(handle, err) < 0)
    return -1;
  oci_emit(events, OCI_EVENT_REMOVED, "container", handle->id, "container '%s' destroyed",
           handle->id);
  /* After the container is gone and before the verb returns. */
  container_run_post_hooks(container, SPEC_HOOK_POSTSTOP, CONTAINER_STOPPED, events);
  return 0;
}

void container_destroy_failed(struct container_handle *handle, const struct container *container,
                              const char *verb, const struct oci_event_sink *events)
{
  oci_error_t err = NULL;

  if (container_destroy(handle, container, events, &err) < 0)
    oci_emit(events, OCI_EVENT_WARNING, "clean up", handle->id, "%s: clean up: %s", verb,
             err != NULL ? err->message : "failed");
  oci_error_free(&err);
}

/* ---- start ---- */

/* The process create left waits, blocked opening the exec FIFO for
 * writing; opening it for reading lets it through. It then runs the
 * startContainer hooks and writes '0' when it is about to exec the user
 * program, or 'E' and why it failed instead (*failed is then set: the
 * container is to be destroyed). A process that dies instead is seen
 * through its pidfd, so start never hangs on a FIFO nobody opens. */
static int release(const struct container_handle *handle, const struct container *container,
                   bool *failed, oci_error_t *err)
{
  cleanup_close int fifo_fd = -1;
  cleanup_close int pidfd = container_pidfd(container, err);
  char word[1100];
  ssize_t n;

  if (pidfd < 0)
    return -1;
  fifo_fd = openat(handle->dir_fd, "exec.fifo", O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fifo_fd < 0)
    return oci_error_errno(err, "start: open the exec FIFO of container '%s'", container->id);
  for (;;) {
    struct pollfd fds[2] = {{.fd = fifo_fd, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      return oci_error_errno(err, "start: poll");
    }
    if (fds[0].revents & POLLIN)
      break;
    /* From here on the process was let through: a failure is its end. */
    if (fds[0].revents & (POLLHUP | POLLERR)) {
      *failed = true;
      return oci_error_set(err, 0, "start: container '%s' closed its exec FIFO without a word",
                           container->id);
    }
    if (fds[1].revents != 0) {
      *failed = true;
      return oci_error_set(err, 0,
                           "start: the process of container '%s' (pid %d) exited before "
                           "it was started",
                           container->id, container->pid);
    }
  }
  /* From here the status reads "running": the marker goes first. */
  if (unlinkat(handle->dir_fd, "exec.fifo", 0) < 0)
    return oci_error_errno(err, "start: remove the exec FIFO of container '%s'", container->id);
  /* The word is written at once (under PIPE_BUF): one read has it. */
  do
    n = read(fifo_fd, word, sizeof(word) - 1);
  while (n < 0 && errno == EINTR);
  if (n < 1) {
    *failed = true;
    return oci_error_set(err, n < 0 ? errno : 0, "start: read the exec FIFO of container '%s'",
                         container->id);
  }
  if (word[0] == '0')
    return 0;
  *failed = true;
  word[n] = '\0';
  return oci_error_set(err, 0, "start: container '%s': %s", container->id,
                       word[0] == 'E' ? word + 1 : "an unknown word on its exec FIFO");
}

int container_start(const char *root, const char *id, const struct oci_event_sink *events,
                    pid_t *pid, oci_error_t *err)
{
  struct container_handle handle;
  struct container container;
  enum container_status status;
  bool failed = false;
  int ret;

  if (container_load_for_verb("start", root, id, true, &handle, &container, err) < 0)
    return -1;
  status = container_status(&handle, &container);
  if (status != CONTAINER_CREATED)
    ret = oci_error_set(err, 0, "start: container '%s' is %s, not created", id,
                        container_status_name(status));
  else
    ret = release(&handle, &container, &failed, err);
  if (ret == 0) {
    *pid = container.pid;
    oci_emit(events, OCI_EVENT_STARTED, "container", id, "start: container '%s' released (pid %d)",
             id, container.pid);
    container_run_post_hooks(&container, SPEC_HOOK_POSTSTART, CONTAINER_RUNNING, events);
  }
  /* The spec (runtime.md "Lifecycle", step 7): a failing startContainer
   * hook stops the container and the lifecycle goes on at its destruction
   * and the poststop hooks, as delete --force would. */
  if (failed)
    container_destroy_failed(&handle, &container, "start", events);
  container_clear(&container);
  container_close(&handle);
  return ret;
}

/* ---- delete ---- */

static int delete_container(struct container_handle *handle, bool force,
                            const struct oci_event_sink *events, oci_error_t *err)
{
  struct container container;
  enum container_status status;
  int ret;

  if (container_load(handle, &container, err) < 0) {
    /* A create that died before its first record: only the directory. */
    if (*err == NULL || (*err)->errno_value != ENOENT)
      return -1;
    oci_error_free(err);
    return container_remove(handle, err);
  }
  status = container_status(handle, &container);
  /* The spec: deleting a container that is not stopped (created
   * included, unlike runc) is an error with no effect on it; the
   * conformance suite checks exactly that. --force is the caller's way to
   * end it (podman always passes it). */
  if (status != CONTAINER_STOPPED && !force)
    ret = oci_error_set(err, 0,
                        "delete: container '%s' is %s, not stopped; kill it first, or 'ocirun "
                        "delete --force' kills it",
                        handle->id, container_status_name(status));
  else
    ret = container_destroy(handle, &container, events, err);
  container_clear(&container);
  return ret;
}

int container_delete(const char *root, const char *id, bool force,
                     const struct oci_event_sink *events, oci_error_t *err)
{
  struct container_handle handle;
  int ret;

  if (container_open(root, id, &handle, err) < 0) {
    /* A run's name is refused even with --force: "gone" would be a lie
     * while the run goes on. */
    container_refuse_run("delete", root, id, err);
    /* runc's --force also means "make sure it is gone": containerd's shim
     * calls `delete --force` after a delete that already succeeded. */
    if (force && *err != NULL && (*err)->errno_value == ENOENT) {
      oci_error_free(err);
      return 0;
    }
    return -1;
  }
  ret = delete_container(&handle, force, events, err);
  container_close(&handle);
  return ret;
}

/* ---- the caller's pid file ---- */

/* Whole or not at all (conmon and the shim read it as soon as the verb
 * returns); a relative path is the caller's working directory's. */
int container_write_pid_file(const char *path, pid_t pid, oci_error_t *err)
{
  cleanup_free char *dir = strdup(path);
  cleanup_close int dir_fd = -1;
  char *slash, text[32], what[PATH_MAX + 16];
  const char *name = path;
  struct atomic_file file;

  if (dir == NULL)
    return oci_error_set(err, ENOMEM, "--pid-file");
  slash = strrchr(dir, '/');
  if (slash != NULL) {
    *slash = '\0';
    name = slash + 1;
  }
  dir_fd = open(slash == NULL ? "." : slash == dir ? "/" : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0)
    return oci_error_errno(err, "--pid-file: the directory of '%s'", path);
  snprintf(what, sizeof(what), "'%s'", path);
  snprintf(text, sizeof(text), "%d", (int)pid);
  if (atomic_file_begin(&file, dir_fd, ".ocirun-pid", 0644, what, err) < 0 ||
      atomic_file_write(&file, text, strlen(text), err) < 0 ||
      atomic_file_commit(&file, dir_fd, name, ATOMIC_FILE_REPLACE, err) < 0)
    return oci_error_wrap(err, "--pid-file");
  return 0;
}
