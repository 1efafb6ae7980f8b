/* Waiting for a process ocirun relays: the caller's signals taken and
 * given back, one turn of the poll over the pidfd, the signalfd and the
 * stdio relay (supervise.h), shared by `run` and `exec`; a run's pid 1
 * under its deadline and the writable layer's bound in a loop of those
 * turns; what the child's report pipe and ocirun's init say of it. */
#include "config.h"

#include "runtime/supervise.h"

#include "runtime/launch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/exec_stub/protocol.h"
#include "runtime/exit_codes.h"
#include "oci/cleanup.h"
#include "runtime/process_stat.h"
#include "oci/events.h"

/* docker's (and timeout(1)'s) status at the deadline */
#define EXIT_TIMED_OUT 124

int supervise_signals_take(struct supervise_signals *signals, bool window, const char *what,
                           oci_error_t *err)
{
  struct sigaction ignore_pipe = {.sa_handler = SIG_IGN};
  sigset_t taken;

  if (sigemptyset(&taken) < 0 || sigaddset(&taken, SIGINT) < 0 || sigaddset(&taken, SIGTERM) < 0 ||
      sigaddset(&taken, SIGHUP) < 0 || sigaddset(&taken, SIGQUIT) < 0 ||
      (window && sigaddset(&taken, SIGWINCH) < 0)) /* the caller's terminal resized */
    return oci_error_errno(err, "%s: the signal set SIGINT/SIGTERM/SIGHUP/SIGQUIT", what);
  if (sigprocmask(SIG_BLOCK, &taken, &signals->original_mask) < 0)
    return oci_error_errno(err, "%s: block SIGINT/SIGTERM/SIGHUP/SIGQUIT", what);
  signals->blocked = true;
  if (sigaction(SIGPIPE, &ignore_pipe, &signals->original_pipe) < 0)
    return oci_error_errno(err, "%s: ignore SIGPIPE", what);
  signals->pipe_ignored = true;
  signals->fd = signalfd(-1, &taken, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signals->fd < 0)
    return oci_error_errno(err, "%s: signalfd for SIGINT/SIGTERM/SIGHUP/SIGQUIT", what);
  return 0;
}

int supervise_signals_restore(struct supervise_signals *signals, const char *what, oci_error_t *err)
{
  int ret = 0;

  if (signals->fd >= 0)
    close(signals->fd);
  signals->fd = -1;
  if (signals->pipe_ignored && sigaction(SIGPIPE, &signals->original_pipe, NULL) < 0)
    ret = oci_error_errno(err, "%s: restore the caller's SIGPIPE", what);
  signals->pipe_ignored = false;
  if (signals->blocked && sigprocmask(SIG_SETMASK, &signals->original_mask, NULL) < 0 && ret == 0)
    ret = oci_error_errno(err, "%s: restore the caller's signal mask", what);
  signals->blocked = false;
  return ret;
}

int supervise_turn(struct supervision *supervision, int timeout_ms, struct supervise_turn *turn,
                   oci_error_t *err)
{
  struct pollfd fds[3 + STDIO_RELAY_MAX_POLL] = {
      {.fd = supervision->exited ? -1 : supervision->pidfd, .events = POLLIN},
      {.fd = supervision->signal_fd, .events = POLLIN},
      {.fd = supervision->report_fd, .events = POLLIN}};
  size_t n_relay =
      supervision->relay != NULL ? stdio_relay_poll_fds(supervision->relay, fds + 3) : 0;
  int ready;

  *turn = (struct supervise_turn){0};
  ready = poll(fds, 3 + n_relay, timeout_ms);
  if (ready < 0 && errno == EINTR)
    return 0;
  if (ready < 0)
    return oci_error_errno(err, "%s: poll the process's pidfd", supervision->what);
  if (fds[2].revents != 0) {
    turn->report = true; /* the report comes before the exit it explains */
    return 0;
  }
  if (fds[1].revents != 0) {
    struct signalfd_siginfo si;

    if (read(supervision->signal_fd, &si, sizeof(si)) != (ssize_t)sizeof(si)) {
      /* nothing read */
    } else if (si.ssi_signo == SIGWINCH) { /* -t: the caller's terminal resized */
      if (supervision->relay != NULL && stdio_relay_resize(supervision->relay, err) < 0)
        return oci_error_wrap(err, "%s", supervision->what);
    } else {
      turn->signal = (int)si.ssi_signo;
      return 0;
    }
  }
  if (fds[0].revents != 0) {
    supervision->exited = turn->exited = true;
    if (supervision->relay != NULL)
      stdio_relay_stop_input(supervision->relay);
  }
  if (supervision->relay != NULL)
    stdio_relay_step(supervision->relay, fds + 3, n_relay);
  return 0;
}

/* The workload under ocirun's init: the init's one child (it forks
 * nothing else), read from the host's /proc, with a pidfd taken before its
 * parent is checked (so it is that process); -1 when it cannot be told
 * (already gone, or no children file): the observer then looks at the
 * init, whose credentials, capabilities, filter and slice are the
 * workload's. */
static pid_t init_workload(pid_t init, int *pidfd)
{
  char path[64], text[64];
  cleanup_close int fd = -1, child_fd = -1;
  struct process_stat stat;
  oci_error_t ignored = NULL;
  ssize_t n;
  long pid;

  *pidfd = -1;
  snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)init, (int)init);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || (n = read(fd, text, sizeof(text) - 1)) <= 0)
    return -1;
  text[n] = '\0';
  pid = strtol(text, NULL, 10);
  if (pid <= 0 || (child_fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0)) < 0)
    return -1;
  if (process_stat_read((int)pid, &stat, &ignored) < 0 || stat.parent != init) {
    oci_error_free(&ignored);
    return -1;
  }
  *pidfd = steal_fd(&child_fd);
  return (pid_t)pid;
}

/* The init's report, read once it has exited: the workload's own status
 * (an exit code, or the signal that killed it), or why the init failed.
 * Nothing when the init itself was killed (the deadline, a signal to
 * ocirun): result keeps what waitid said. */
int init_outcome(int status_fd, struct run_result *result, oci_error_t *err)
{
  static const char *const steps[] = {
      [INIT_STEP_ARGUMENTS] = "read its arguments",
      [INIT_STEP_DUMPABLE] = "make itself non-dumpable",
      [INIT_STEP_GATE] = "let the workload go",
      [INIT_STEP_WAIT] = "wait for signals",
  };
  struct init_report report;
  int flags = fcntl(status_fd, F_GETFL);
  ssize_t n;

  if (flags < 0 || fcntl(status_fd, F_SETFL, flags | O_NONBLOCK) < 0)
    return oci_error_errno(err, "run: the init's status pipe");
  do
    n = read(status_fd, &report, sizeof(report));
  while (n < 0 && errno == EINTR);
  if (n != (ssize_t)sizeof(report) || result->timed_out || result->interrupted)
    return 0;
  switch (report.kind) {
  case INIT_REPORT_EXITED:
    result->exited = true;
    result->signal = 0;
    result->exit_code = report.value;
    return 0;
  case INIT_REPORT_SIGNALED:
    result->exited = false;
    result->signal = report.value;
    result->exit_code = 128 + report.value;
    return 0;
  default:
    result->exit_code = EXIT_RUNTIME_ERROR;
    return oci_error_set(err, report.value, "run: ocirun's init could not %s",
                         report.step > 0 && (size_t)report.step < sizeof(steps) / sizeof(steps[0])
                             ? steps[report.step]
                             : "start");
  }
}

/* A timed step of the child's (child.c), "NS NAME": a phase event at the
 * child's own CLOCK_MONOTONIC. */
static void emit_child_phase(const struct run_io *io, const struct child_report *report)
{
  char *name;
  long long ns = strtoll(report->message, &name, 10);

  if (name != report->message && *name == ' ')
    oci_emit_at(io->events, (int64_t)ns, OCI_EVENT_PHASE, name + 1, NULL);
}

/* Reads the report pipe once it is readable: a phase, then what else is
 * already there; a report means the child failed before exec; end of file
 * without one means execve closed it (CLOEXEC) or the child died. Only a
 * child still running has exec'd. */
void watch_report(int pidfd, struct child_watch *watch)
{
  ssize_t n;
  siginfo_t info = {0};
  cleanup_close int workload_pidfd = -1;
  pid_t workload;

  for (;;) {
    do
      n = read(watch->report_fd, &watch->report, sizeof(watch->report));
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(watch->report))
      break;
    watch->report.message[sizeof(watch->report.message) - 1] = '\0';
    if (watch->report.kind != CHILD_PHASE) {
      watch->reported = true;
      return; /* the child exits next; end of file follows */
    }
    emit_child_phase(watch->io, &watch->report);
    if (poll(&(struct pollfd){.fd = watch->report_fd, .events = POLLIN}, 1, 0) != 1)
      return; /* nothing more yet: the caller polls again */
  }
  watch->report_fd = -1;
  if (!watch->reported)
    oci_emit(watch->io->events, OCI_EVENT_PHASE, "exec", NULL, NULL);
  if (watch->reported || watch->io->on_exec == NULL)
    return;
  if (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG | WNOWAIT) < 0 || info.si_pid != 0)
    return; /* gone before anything could look at it */
  workload = watch->init ? init_workload(watch->pid, &workload_pidfd) : -1;
  watch->io->on_exec(&(struct run_started){.pid = watch->pid,
                                           .pidfd = pidfd,
                                           .workload_pid = workload > 0 ? workload : watch->pid,
                                           .workload_pidfd = workload > 0 ? workload_pidfd : pidfd,
                                           .cgroup_fd = watch->cgroup_fd},
                     watch->io->context);
}

/* Waits for pid 1 under the deadline while relaying stdio, then drains
 * what pid 1 and its namespace left in the output pipes; kills pid 1 (and
 * with it every process of its pid namespace) on expiry or on a signal to
 * ocirun. At the deadline, with a stop signal, docker's order: the signal
 * first (to pid 1, which passes it to the workload's process group), then
 * SIGKILL once the grace period is over. The relay never blocks on a pipe
 * or socket, so a caller that stops reading cannot hold off the deadline
 * or a signal. */
int wait_for_child(int pidfd, int signal_fd, const struct runtime_options *options,
                   struct child_watch *watch, struct stdio_relay *relay, struct run_result *result,
                   oci_error_t *err)
{
  /* no --timeout (0): no deadline */
  int64_t deadline = options->timeout_seconds > 0
                         ? oci_monotonic_ms() + (int64_t)(options->timeout_seconds * 1000)
                         : INT64_MAX;
  siginfo_t info = {0};
  struct supervision supervision = {
      .what = "run", .pidfd = pidfd, .signal_fd = signal_fd, .relay = relay};
  int64_t next_check = INT64_MAX;

  for (;;) {
    struct supervise_turn turn;
    int64_t remaining;

    /* pid 1 is gone, so is every process of its namespace: the pipes'
     * write ends are all closed and the output ends at end of file. */
    if (supervision.exited && !stdio_relay_output_open(relay))
      break;
    remaining = deadline - oci_monotonic_ms();
    if (remaining <= 0 && !result->timed_out && options->stop_signal != 0 && !supervision.exited) {
      result->timed_out = true;
      if (pidfd_send_signal(pidfd, options->stop_signal, NULL, 0) < 0 && errno != ESRCH)
        return oci_error_errno(err, "run: send the stop signal %d to the container's pid 1",
                               options->stop_signal);
      deadline = oci_monotonic_ms() + (int64_t)(options->stop_timeout_seconds * 1000);
      continue;
    }
    if (remaining <= 0) {
      result->timed_out = true;
      break;
    }
    if (!supervision.exited) {
      int64_t now = oci_monotonic_ms();
      int over = writable_layer_check(watch->layer, pidfd, now, &next_check, err);

      if (over < 0)
        return oci_error_wrap(err, "run: the writable layer could not be measured: killed");
      if (over > 0) {
        result->layer_exceeded = true;
        result->layer_bytes = watch->layer->bytes;
        result->layer_bound = watch->layer->bound;
        break;
      }
      if (next_check - now < remaining)
        remaining = next_check > now ? next_check - now : 0;
    }
    supervision.report_fd = watch->report_fd;
    if (supervise_turn(&supervision, remaining > 60000 ? 60000 : (int)remaining, &turn, err) < 0)
      return -1;
    if (turn.report) {
      watch_report(pidfd, watch);
      continue;
    }
    if (turn.signal != 0) {
      result->interrupted = true;
      result->signal = turn.signal;
      break;
    }
  }
  if ((result->timed_out || result->interrupted || result->layer_exceeded) &&
      pidfd_send_signal(pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
    return oci_error_errno(err, "run: kill the container's pid 1");
  while (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED) < 0) {
    if (errno != EINTR)
      return oci_error_errno(err, "run: waitid on the container's pidfd");
  }
  if (info.si_code == CLD_EXITED) {
    result->exited = true;
    result->exit_code = info.si_status;
  } else {
    if (!result->interrupted)
      result->signal = info.si_status;
    result->exit_code = 128 + info.si_status;
  }
  if (result->timed_out)
    result->exit_code = EXIT_TIMED_OUT;
  else if (result->interrupted)
    result->exit_code = 128 + result->signal;
  return 0;
}
