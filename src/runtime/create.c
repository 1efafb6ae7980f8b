/* ocirun create: everything up to the user program, the container's pid 1
 * then left waiting for ocirun start on its exec fifo; the createRuntime
 * and prestart hooks run by this process while the child waits. */
#include "config.h"

#include "runtime/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/console.h"
#include "runtime/container_state.h"
#include "runtime/hooks.h"
#include "oci/cleanup.h"

/* prestart (deprecated) then createRuntime, in the runtime's namespaces
 * (this process's), while the child waits between its mounts and
 * pivot_root; the pid in their state is the child's in ours. */
static int run_runtime_hooks(const struct launch *launch, pid_t pid, oci_error_t *err)
{
  static const enum spec_hook_kind kinds[] = {SPEC_HOOK_PRESTART, SPEC_HOOK_CREATE_RUNTIME};
  const struct spec *spec = launch->spec;
  cleanup_free char *state = container_state_json_for_spec(
      spec, launch->options->id, launch->options->bundle, pid, CONTAINER_CREATED, err);

  if (state == NULL)
    return -1;
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
    const struct spec_hooks *list = &spec->hooks[kinds[i]];
    if (hooks_run(list->hooks, list->n_hooks, kinds[i], spec_hook_kind_name(kinds[i]), state,
                  launch->options->events, err) < 0)
      return oci_error_wrap(err, "create");
  }
  return 0;
}

/* Reads the child's reports until it is ready (it waits for `start`):
 * on the way, its call for the runtime's hooks; or why it failed. */
static int wait_until_ready(const struct launch *launch, struct spawned *child, oci_error_t *err)
{
  struct child_report report;
  struct run_result ignored;
  ssize_t n;

  for (;;) {
    do
      n = read(child->report_fd, &report, sizeof(report));
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(report))
      return oci_error_set(err, n < 0 ? errno : 0,
                           "create: the container's process died before it was ready");
    report.message[sizeof(report.message) - 1] = '\0';
    if (report.kind == CHILD_READY)
      return 0;
    if (report.kind != CHILD_HOOKS)
      return report_failure(&report, &ignored, err);
    if (run_runtime_hooks(launch, child->pid, err) < 0)
      return -1;
    if (write(child->go_fd, "h", 1) != 1)
      return oci_error_errno(err, "create: let the container's process go on after its hooks");
  }
}

/* In a new user namespace the child opens the exec fifo as the namespace's
 * root (userns_become_root), whose host ids are not the runtime's: the fifo
 * is given to them (as runc does), else the open fails and the container
 * dies before start. */
static int exec_fifo_for_userns_root(const struct launch *launch, oci_error_t *err)
{
  unsigned uid, gid;

  if (!launch->new_user_ns || !userns_map_host_uid(&launch->map, 0, &uid) ||
      !userns_map_host_gid(&launch->map, 0, &gid))
    return 0;
  if (fchownat(launch->exec_fifo_fd, "", (uid_t)uid, (gid_t)gid, AT_EMPTY_PATH) < 0)
    return oci_error_errno(err, "create: give the exec fifo to the user namespace's root");
  return 0;
}

int runtime_create(struct runtime_plan *plan, const char *exec_fifo, pid_t *pid, char **cgroup_path,
                   oci_error_t *err)
{
  const struct runtime_options *options = &plan->options;
  struct launch *launch = &plan->launch;
  struct slice_plan *slice = &plan->slice;
  struct cgroup_slice created = {.dir_fd = -1};
  bool slice_created = false;
  struct spawned child = {.pid = -1, .pidfd = -1, .report_fd = -1, .go_fd = -1, .status_fd = -1};
  cleanup_close int null_fd = -1;
  int ret = -1;

  *pid = -1;
  *cgroup_path = NULL;
  if (plan->mode != RUNTIME_PLAN_CREATE)
    return oci_error_set(err, EINVAL, "create: the plan was not made for ocirun create");
  launch->exec_fifo_fd = open(exec_fifo, O_PATH | O_CLOEXEC | O_NOFOLLOW);
  if (launch->exec_fifo_fd < 0) {
    oci_error_errno(err, "create: open the exec fifo '%s'", exec_fifo);
    goto out;
  }
  if (exec_fifo_for_userns_root(launch, err) < 0)
    goto out;
  /* The caller's own 0, 1, 2 are pid 1's stdio (the OCI contract: conmon
   * and containerd's shim hand create pipes they made for it), but only
   * pipes, sockets or null devices: create returns at once, so nothing
   * could relay a terminal or a file, which the container would keep. With
   * a terminal, /dev/null until the pty replaces them. */
  if (options->console_socket != NULL) {
    null_fd = open("/dev/null", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (null_fd < 0) {
      oci_error_errno(err, "create: open /dev/null");
      goto out;
    }
  } else if (stdio_relay_check_hand_over((const int[3]){0, 1, 2}, "create", err) < 0) {
    goto out;
  }
  for (int i = 0; i < 3; i++)
    launch->stdio[i] = null_fd >= 0 ? null_fd : i;
  if (options->console_socket != NULL &&
      (launch->console_fd = console_socket_connect(options->console_socket, err)) < 0)
    goto out;
  if (slice->path != NULL) {
    if (slice_create(slice, options->rootless, &created, err) < 0)
      goto out;
    slice_created = true;
  }
  if (spawn_child(launch, slice_created ? created.dir_fd : -1, &child, err) < 0 ||
      wait_until_ready(launch, &child, err) < 0) {
    spawned_kill(&child);
    goto out;
  }
  *pid = child.pid;
  if (slice->path != NULL) {
    *cgroup_path = steal_pointer(&slice->path);
  }
  ret = 0;
out:
  if (child.go_fd >= 0)
    close(child.go_fd);
  if (child.report_fd >= 0)
    close(child.report_fd);
  if (child.pidfd >= 0)
    close(child.pidfd);
  if (slice_created) {
    if (ret < 0) {
      oci_error_t one = NULL;
      if (cgroup_slice_destroy(&created, &one) < 0)
        keep_first_error(err, &one);
    } else {
      /* the slice stays for `delete`; only ocirun's handle goes */
      if (created.dir_fd >= 0)
        close(created.dir_fd);
      free(created.path);
    }
  }
  return ret;
}
