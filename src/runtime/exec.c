/* ocirun exec: a second process in a live container, made from outside its
 * pid namespace by a joiner that takes the child's steps (child.c:
 * exec_join, the same table) and spawns it already confined; its stdio
 * relayed while it lives (or handed over). */
#include "config.h"

#include "runtime/launch.h"
#include "runtime/supervise.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/clean_state.h"
#include "runtime/console.h"
#include "runtime/exec_stub.h"
#include "oci/cleanup.h"
#include "oci/io.h"
#include "oci/events.h"

/* The namespaces of pid that are not ocirun's own: joining one's own user
 * namespace is an error, and the others need not be joined. */
static int namespaces_to_join(pid_t pid, int *flags, oci_error_t *err)
{
  static const struct {
    const char *name;
    int flag;
  } types[] = {{"user", CLONE_NEWUSER},     {"mnt", CLONE_NEWNS},   {"pid", CLONE_NEWPID},
               {"net", CLONE_NEWNET},       {"ipc", CLONE_NEWIPC},  {"uts", CLONE_NEWUTS},
               {"cgroup", CLONE_NEWCGROUP}, {"time", CLONE_NEWTIME}};
  char path[64];

  *flags = 0;
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
    struct stat theirs, ours;

    snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, types[i].name);
    if (stat(path, &theirs) < 0) {
      if (errno == ENOENT && strcmp(types[i].name, "time") == 0)
        continue; /* a kernel without time namespaces */
      return oci_error_errno(err, "exec: %s", path);
    }
    snprintf(path, sizeof(path), "/proc/self/ns/%s", types[i].name);
    if (stat(path, &ours) < 0)
      return oci_error_errno(err, "exec: %s", path);
    if (theirs.st_dev != ours.st_dev || theirs.st_ino != ours.st_ino)
      *flags |= types[i].flag;
  }
  return 0;
}

int runtime_exec_start(const struct runtime_exec *exec, pid_t *exec_pid, oci_error_t *err)
{
  struct launch launch;
  struct spec joined = *exec->spec; /* shallow: the container's, with this process */
  cleanup_close int pidfd = -1, cgroup_fd = -1, null_fd = -1;
  int report[2] = {-1, -1}, pid_pipe[2] = {-1, -1};
  cleanup_close int report_read = -1, pid_read = -1;
  struct runtime_options options = {.state_root = exec->state_root, .id = "exec"};
  struct child_report failure;
  pid_t joiner;
  int ns_flags, status;
  ssize_t n;
  int ret = -1;

  *exec_pid = -1;
  joined.process = *exec->process;
  joined.has_process = true;
  launch_init(&launch, &joined, &options, false);
  launch.envp = joined.process.env;
  launch.caps = (struct capability_sets){.bounding = joined.process.cap_bounding,
                                         .effective = joined.process.cap_effective,
                                         .permitted = joined.process.cap_permitted,
                                         .inheritable = joined.process.cap_inheritable,
                                         .ambient = joined.process.cap_ambient};
  launch.groups = joined.process.additional_gids;
  launch.n_groups = joined.process.n_additional_gids;
  launch.set_groups = exec->set_groups;
  if (joined.process.terminal) {
    if (exec->console_fd < 0)
      return oci_error_set(err, 0, "exec: process.terminal: no console socket to send the pty to");
    launch.console_fd = exec->console_fd;
    /* until the pty replaces them: never the caller's descriptors */
    null_fd = open("/dev/null", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (null_fd < 0)
      return oci_error_errno(err, "exec: open /dev/null");
  } else if (stdio_relay_check_hand_over(exec->stdio, "exec", err) < 0) {
    return -1;
  }
  if (exec->pidfd >= 0)
    pidfd = fcntl(exec->pidfd, F_DUPFD_CLOEXEC, 3);
  else
    pidfd = (int)syscall(SYS_pidfd_open, exec->pid, 0);
  if (pidfd < 0)
    return oci_error_errno(err, "exec: the container's process %d", (int)exec->pid);
  if (namespaces_to_join(exec->pid, &ns_flags, err) < 0)
    return -1;
  /* Still alive after /proc/PID/ns was read: that was this process's (a
   * pid is not reused while its process lives). */
  if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
    return oci_error_errno(err, "exec: the container's process %d", (int)exec->pid);
  if (exec->cgroup_path != NULL) {
    cgroup_fd = cgroup_open_path(exec->cgroup_path, err);
    if (cgroup_fd < 0)
      return oci_error_wrap(err, "exec: the container's cgroup");
  }
  if (exec->sub_cgroup != NULL) {
    int sub_fd = cgroup_open_sub(cgroup_fd, exec->sub_cgroup, err);

    if (sub_fd < 0)
      return -1;
    if (cgroup_fd >= 0)
      close(cgroup_fd);
    cgroup_fd = sub_fd; /* joined instead of the slice (child.c: join_cgroup) */
  }
  if (joined.seccomp != NULL &&
      seccomp_filter_build_oci(joined.seccomp, joined.process.cap_effective, exec->state_root,
                               &launch.filter, err) < 0)
    goto out;
  if (pipe2(report, O_CLOEXEC) < 0 || pipe2(pid_pipe, O_CLOEXEC) < 0) {
    oci_error_errno(err, "exec: pipe");
    goto out;
  }
  report_read = report[0];
  pid_read = pid_pipe[0];
  launch.report_fd = report[1];
  for (int i = 0; i < 3; i++)
    launch.stdio[i] = null_fd >= 0 ? null_fd : exec->stdio[i];
  joiner = fork();
  if (joiner == 0) {
    close(report[0]);
    close(pid_pipe[0]);
    exec_join(&launch, pidfd, ns_flags, cgroup_fd, pid_pipe[1]);
  }
  close(report[1]);
  close(pid_pipe[1]);
  if (joiner < 0) {
    oci_error_errno(err, "exec: fork");
    goto out;
  }
  while (waitpid(joiner, &status, 0) < 0 && errno == EINTR)
    ;
  do
    n = read(pid_read, exec_pid, sizeof(*exec_pid));
  while (n < 0 && errno == EINTR);
  if (n != (ssize_t)sizeof(*exec_pid))
    *exec_pid = -1;
  /* End of file: the process exec'd (the write end was close-on-exec);
   * a report: it failed before, and says why. */
  do
    n = read(report_read, &failure, sizeof(failure));
  while (n < 0 && errno == EINTR);
  if (n == (ssize_t)sizeof(failure)) {
    struct run_result ignored;
    failure.message[sizeof(failure.message) - 1] = '\0';
    if (*exec_pid > 0)
      waitpid(*exec_pid, &status, 0);
    *exec_pid = -1;
    report_failure(&failure, &ignored, err);
    ret = failure.kind == CHILD_EXEC_FAILED ? -ignored.exit_code : -1;
    goto out;
  }
  if (*exec_pid <= 0) {
    oci_error_set(err, 0, "exec: the process could not be started in the container");
    goto out;
  }
  ret = 0;
out:
  launch.report_fd = -1;
  launch.console_fd = -1; /* the caller's */
  launch_clear(&launch);
  return ret;
}

int runtime_exec_wait(pid_t exec_pid, int *exit_code, oci_error_t *err)
{
  siginfo_t info = {0};

  while (waitid(P_PID, (id_t)exec_pid, &info, WEXITED) < 0) {
    if (errno != EINTR)
      return oci_error_errno(err, "exec: wait for process %d", (int)exec_pid);
  }
  *exit_code = info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
  return 0;
}

/* The exec'd process is gone: what it (or a process it left holding the
 * pty) still writes is drained for at most this long. */
#define EXEC_DRAIN_MS 500

int runtime_exec_relay(pid_t exec_pid, struct stdio_relay *relay, int signal_fd, int *exit_code,
                       oci_error_t *err)
{
  struct supervision supervision = {
      .what = "exec", .pidfd = -1, .signal_fd = signal_fd, .report_fd = -1, .relay = relay};
  cleanup_close int pidfd = -1;
  int64_t drain_until = -1;
  int ret = -1;

  pidfd = (int)syscall(SYS_pidfd_open, exec_pid, 0);
  if (pidfd < 0) {
    oci_error_errno(err, "exec: watch process %d", (int)exec_pid);
    goto out;
  }
  supervision.pidfd = pidfd;
  for (;;) {
    struct supervise_turn turn;
    int timeout = -1;

    if (drain_until >= 0) {
      int64_t left = drain_until - oci_monotonic_ms();
      if (left <= 0 || relay == NULL || !stdio_relay_output_open(relay))
        break;
      timeout = (int)left;
    }
    if (supervise_turn(&supervision, timeout, &turn, err) < 0)
      goto out;
    /* a process gone meanwhile (ESRCH) has nothing to be told */
    if (turn.signal != 0 && pidfd_send_signal(pidfd, turn.signal, NULL, 0) < 0 && errno != ESRCH) {
      oci_error_errno(err, "exec: forward signal %d to process %d", turn.signal, (int)exec_pid);
      goto out;
    }
    if (turn.exited)
      drain_until = oci_monotonic_ms() + EXEC_DRAIN_MS;
  }
  ret = runtime_exec_wait(exec_pid, exit_code, err);
out:
  /* a process whose stdio ocirun cannot relay is not left behind */
  if (ret < 0 && pidfd >= 0 && pidfd_send_signal(pidfd, SIGKILL, NULL, 0) == 0)
    waitid(P_PIDFD, (id_t)pidfd, &(siginfo_t){0}, WEXITED);
  if (relay != NULL && stdio_relay_clear(relay, err) < 0)
    ret = -1;
  return ret;
}
