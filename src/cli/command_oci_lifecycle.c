/* The OCI verbs that move a container along its lifecycle after create
 * (runtime-spec runtime.md "Lifecycle", steps 6-13): start, which lets the
 * waiting process exec the user program and runs the poststart hooks, and
 * delete, which destroys what create made and runs the poststop hooks. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/command_oci.h"
#include "cli/log.h"
#include "oci/cleanup.h"
#include "runtime/cgroup.h"
#include "runtime/hooks.h"

/* How long delete waits for a killed container's process to exit. */
#define DELETE_KILL_TIMEOUT_MS 10000

/* Runs a post* hook list with the container's state; failures only warn. */
static void run_post_hooks(const struct container *container, enum spec_hook_kind kind,
                           enum container_status status)
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
  if (state == NULL || hooks_run(hooks, n, kind, name, state, log_event_sink(), &err) < 0) {
    log_message("warning", "%s hooks: %s", name, err && err->message ? err->message : "failed");
    oci_error_free(&err);
  }
}

/* SIGKILL to the container (every process of its cgroup when it has
 * one), then wait for its process to be gone. */
static int kill_container(const struct container *container, oci_error_t *err)
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
  return container_wait_gone(container, DELETE_KILL_TIMEOUT_MS, err);
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
  return cgroup_remove_path(container->cgroup_path, err);
}

/* The spec's step 12 and 13 for a container whose processes are gone:
 * what create made undone (the cgroup, the state), then the poststop
 * hooks, after the container is gone and before the verb returns. */
static int destroy_container(struct container_handle *handle, const struct container *container,
                             oci_error_t *err)
{
  if (remove_cgroup(container, err) < 0 || container_remove(handle, err) < 0)
    return -1;
  log_message("debug", "container '%s' destroyed", handle->id);
  run_post_hooks(container, SPEC_HOOK_POSTSTOP, CONTAINER_STOPPED);
  return 0;
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

int command_oci_start(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] =
      "Usage: ocirun start ID\n"
      "\n"
      "Runs the startContainer hooks in container ID, which must be \"created\" (a\n"
      "second start is an error), then its user program (process.args), then its\n"
      "poststart hooks (a failing poststart hook is a warning). When a startContainer\n"
      "hook fails, start fails and the container is destroyed (its poststop hooks\n"
      "run), as the runtime spec says.\n";
  static const struct option options[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  struct container_handle handle;
  struct container container;
  enum container_status status;
  oci_error_t err = NULL;
  bool failed = false;
  const char *id;
  int c, ret;

  while ((c = options_next(argc, argv, "+h", options, &err)) != -1) {
    if (c != 'h')
      return oci_option_error("start", &err);
    fputs(usage, stdout);
    return EXIT_OK;
  }
  id = oci_take_id("start", argc, argv);
  if (id == NULL)
    return EXIT_USAGE;
  if (oci_verb_container_load("start", global->root, id, true, &handle, &container, &err) < 0)
    return oci_fail(&err);
  status = container_status(&handle, &container);
  if (status != CONTAINER_CREATED)
    ret = oci_error_set(&err, 0, "start: container '%s' is %s, not created", id,
                        container_status_name(status));
  else
    ret = release(&handle, &container, &failed, &err);
  if (ret == 0) {
    log_message("debug", "start: container '%s' released (pid %d)", id, container.pid);
    run_post_hooks(&container, SPEC_HOOK_POSTSTART, CONTAINER_RUNNING);
  }
  /* The spec (runtime.md "Lifecycle", step 7): a failing startContainer
   * hook stops the container and the lifecycle goes on at its destruction
   * and the poststop hooks, as delete --force would. */
  if (failed) {
    oci_error_t cleanup_err = NULL;
    if (kill_container(&container, &cleanup_err) < 0 ||
        destroy_container(&handle, &container, &cleanup_err) < 0)
      log_message("warning", "start: clean up: %s", cleanup_err->message);
    oci_error_free(&cleanup_err);
  }
  container_clear(&container);
  container_close(&handle);
  return ret < 0 ? oci_fail(&err) : EXIT_OK;
}

/* ---- delete ---- */

static int delete_container(struct container_handle *handle, bool force, oci_error_t *err)
{
  struct container container;
  enum container_status status;
  int ret = -1;

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
  if (status != CONTAINER_STOPPED && !force) {
    oci_error_set(err, 0,
                  "delete: container '%s' is %s, not stopped; kill it first, or 'ocirun delete "
                  "--force' kills it",
                  handle->id, container_status_name(status));
    goto out;
  }
  if (status != CONTAINER_STOPPED && kill_container(&container, err) < 0)
    goto out;
  if (destroy_container(handle, &container, err) < 0)
    goto out;
  ret = 0;
out:
  container_clear(&container);
  return ret;
}

int command_oci_delete(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] =
      "Usage: ocirun delete [--force] ID\n"
      "\n"
      "Deletes container ID: its cgroup and its state; then runs its poststop hooks\n"
      "(a failing one is a warning). The container must be stopped (the runtime\n"
      "spec: a created, running or paused one is an error, left as it is), unless\n"
      "--force, which SIGKILLs every process of it and waits. A missing ID is an\n"
      "error, except with --force (runc's meaning: make sure it is gone).\n"
      "\n"
      "  -f, --force   kill a created, running or paused container first\n";
  static const struct option options[] = {
      {"force", no_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  struct container_handle handle;
  oci_error_t err = NULL;
  bool force = false;
  const char *id;
  int c, ret;

  while ((c = options_next(argc, argv, "+fh", options, &err)) != -1) {
    switch (c) {
    case 'f':
      force = true;
      break;
    case 'h':
      fputs(usage, stdout);
      return EXIT_OK;
    default:
      return oci_option_error("delete", &err);
    }
  }
  id = oci_take_id("delete", argc, argv);
  if (id == NULL)
    return EXIT_USAGE;
  if (container_open(global->root, id, &handle, &err) < 0) {
    /* A run's name is refused even with --force: "gone" would be a lie
     * while the run goes on. */
    oci_refuse_run("delete", global->root, id, &err);
    /* runc's --force also means "make sure it is gone": containerd's shim
     * calls `delete --force` after a delete that already succeeded. */
    if (force && err != NULL && err->errno_value == ENOENT) {
      oci_error_free(&err);
      return EXIT_OK;
    }
    return oci_fail(&err);
  }
  ret = delete_container(&handle, force, &err);
  container_close(&handle);
  return ret < 0 ? oci_fail(&err) : EXIT_OK;
}
