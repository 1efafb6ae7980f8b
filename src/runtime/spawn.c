/* The container's first process made: clone3 into its namespaces and
 * slice, then the parent's steps between clone3 and the go byte (the user
 * namespace's maps, the OOM score) while the child waits. */
#include "config.h"

#include "runtime/launch.h"

#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/clean_state.h"
#include "runtime/exit_codes.h"
#include "runtime/seccomp_listener.h"
#include "oci/cleanup.h"

void spawned_kill(struct spawned *child)
{
  if (child->pidfd < 0)
    return;
  pidfd_send_signal(child->pidfd, SIGKILL, NULL, 0);
  waitid(P_PIDFD, (id_t)child->pidfd, &(siginfo_t){0}, WEXITED);
}

/* The user namespace's uid and gid maps: the child becomes root of it
 * first thing after the go byte (child.c: become-root). */
static int map_user_namespace(struct launch *launch, pid_t pid, oci_error_t *err)
{
  return launch->new_user_ns ? userns_map_write(&launch->map, pid, err) : 0;
}

/* From the host's /proc: lowering a score needs the host's
 * CAP_SYS_RESOURCE, and the child's own /proc will be the container's
 * (clean_state.h). */
static int set_oom_score(struct launch *launch, pid_t pid, oci_error_t *err)
{
  return oom_score_adjust(pid, &launch->spec->process, err);
}

/* pasta for the new network namespace (runtime/pasta.h), once the user
 * namespace's maps are written (pasta enters it rootless); its pid file
 * in the run dir. */
static int start_pasta(struct launch *launch, pid_t pid, oci_error_t *err)
{
  cleanup_free char *pid_file = NULL;

  if (launch->options->pasta_options == NULL)
    return 0;
  if (!(launch->clone_flags & CLONE_NEWNET) || launch->options->root.run_dir == NULL)
    return oci_error_set(err, EINVAL, "network pasta: needs a new network namespace and a run dir");
  if (asprintf(&pid_file, "%s/pasta.pid", launch->options->root.run_dir) < 0) {
    pid_file = NULL;
    return oci_error_errno(err, "network pasta: allocate");
  }
  return pasta_start(pid, launch->new_user_ns, launch->options->pasta_options, pid_file,
                     &launch->pasta, err);
}

/* The parent's steps between clone3 and the go byte, in order, while the
 * child waits on the go pipe; the first that fails kills the child. A
 * helper the container needs before it runs anything (a network helper,
 * say) is a row here. */
static const struct {
  const char *name;
  int (*run)(struct launch *launch, pid_t pid, oci_error_t *err);
} parent_steps[] = {
    {"id-maps", map_user_namespace},
    {"oom-score", set_oom_score},
    {"network-pasta", start_pasta}, /* last: a failure after it is stopped in spawn_child */
};

int spawn_child(struct launch *launch, int cgroup_fd, struct spawned *child, oci_error_t *err)
{
  int go[2] = {-1, -1}, report[2] = {-1, -1};
  cleanup_close int own_pid_ns = -1;
  struct clone_args args = {0};
  int pid_join = launch->join_fd[SPEC_NS_PID];
  long pid;
  int saved;

  *child = (struct spawned){.pid = -1, .pidfd = -1, .report_fd = -1, .go_fd = -1, .status_fd = -1};
  /* idmapped binds and binds of held sources: the parent's to make, the
   * child's to attach */
  if (mount_plan_open_idmaps(&launch->plan, err) < 0 ||
      mount_plan_open_held_binds(&launch->plan, launch->options->rootless, err) < 0)
    return -1;
  /* From the caller's namespaces, as the spec's host path means; the
   * child sends the listener over it once its filter is loaded. */
  if (launch->spec->seccomp_listener_path != NULL && seccomp_filter_notifies(launch->filter) &&
      (launch->listener_fd = seccomp_listener_connect(launch->spec->seccomp_listener_path, err)) <
          0)
    return -1;
  if (launch->init) {
    int status[2];

    if (pipe2(status, O_CLOEXEC) < 0)
      return oci_error_errno(err, "run: pipe");
    child->status_fd = status[0];
    launch->status_fd = status[1];
  }
  if (pipe2(go, O_CLOEXEC) < 0)
    return oci_error_errno(err, "run: pipe");
  child->go_fd = go[1];
  if (pipe2(report, O_CLOEXEC) < 0) {
    close(go[0]);
    return oci_error_errno(err, "run: pipe");
  }
  child->report_fd = report[0];
  launch->go_fd = go[0];
  launch->report_fd = report[1];

  args.flags = CLONE_PIDFD | launch->clone_flags;
  args.pidfd = (uint64_t)(uintptr_t)&child->pidfd;
  args.exit_signal = SIGCHLD;
  if (cgroup_fd >= 0) {
    args.flags |= CLONE_INTO_CGROUP;
    args.cgroup = (uint64_t)cgroup_fd;
  }
  /* A pid namespace is entered only by children: the parent steps in for
   * clone3 and straight back. */
  if (pid_join >= 0) {
    own_pid_ns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    if (own_pid_ns < 0 || setns(pid_join, CLONE_NEWPID) < 0) {
      close(go[0]);
      close(report[1]);
      return oci_error_errno(err, "linux.namespaces: join the pid namespace '%s'",
                             launch->spec->namespaces[SPEC_NS_PID].path);
    }
  }
  pid = syscall(SYS_clone3, &args, sizeof(args));
  if (pid == 0)
    child_main(launch);
  saved = errno;
  if (own_pid_ns >= 0 && setns(own_pid_ns, CLONE_NEWPID) < 0) {
    /* ocirun's later children would land there: stop here */
    oci_error_errno(err, "linux.namespaces: return to ocirun's own pid namespace");
    abort();
  }
  close(go[0]);
  close(report[1]);
  if (launch->status_fd >= 0)
    close(launch->status_fd); /* the child's: only the init may hold it */
  launch->status_fd = -1;
  if (launch->listener_fd >= 0)
    close(launch->listener_fd); /* the child's: the agent sees its end when the child is done */
  launch->listener_fd = -1;
  if (pid < 0)
    return oci_error_set(err, saved, "run: clone3 into new namespaces%s%s",
                         cgroup_fd >= 0 ? " and the cgroup slice" : "",
                         launch->new_user_ns && (saved == EPERM || saved == ENOSPC)
                             ? " (rootless: does this host allow unprivileged user namespaces? "
                               "see the sysctls kernel.unprivileged_userns_clone and "
                               "user.max_user_namespaces)"
                             : "");
  child->pid = (pid_t)pid;
  for (size_t i = 0; i < sizeof(parent_steps) / sizeof(parent_steps[0]); i++) {
    if (parent_steps[i].run(launch, child->pid, err) < 0) {
      spawned_kill(child);
      return -1;
    }
  }
  if (write(child->go_fd, "g", 1) != 1) {
    oci_error_t ignored = NULL;

    saved = errno;
    spawned_kill(child);
    if (pasta_stop(&launch->pasta, &ignored) < 0)
      oci_error_free(&ignored);
    return oci_error_set(err, saved, "run: start the container");
  }
  return 0;
}

/* A report the child wrote before exec: the run's outcome and message. */
int report_failure(const struct child_report *report, struct run_result *result, oci_error_t *err)
{
  if (report->kind == CHILD_EXEC_FAILED) {
    result->exit_code =
        report->errno_value == ENOENT ? EXIT_COMMAND_NOT_FOUND : EXIT_CANNOT_EXECUTE;
    return oci_error_set(err, 0, "run: %s", report->message);
  }
  result->exit_code = EXIT_RUNTIME_ERROR;
  return oci_error_set(err, 0, "run: in the container, before exec: %s", report->message);
}
