/* The pieces `run` and `exec` wait with (runtime/supervise.c): the caller's
 * signals taken (blocked, read from a signalfd, SIGPIPE ignored) and given
 * back as they were; one turn of the poll saying, in order, a report, a
 * signal to ocirun (SIGWINCH only resizing), the process's exit. */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oci/error.h"
#include "runtime/console.h"
#include "runtime/stdio_relay.h"
#include "runtime/supervise.h"
#include "unit.h"

static bool blocked(int signo)
{
  sigset_t now;

  return sigprocmask(SIG_BLOCK, NULL, &now) == 0 && sigismember(&now, signo) == 1;
}

static bool pipe_ignored(void)
{
  struct sigaction now;

  return sigaction(SIGPIPE, NULL, &now) == 0 && now.sa_handler == SIG_IGN;
}

/* A relay of nothing: no stdin, output discarded, its container ends closed
 * (the output pipes then end at the first turn). */
static void empty_relay(struct stdio_relay *relay)
{
  oci_error_t err = NULL;

  ok(stdio_relay_open(relay, (const int[3]){-1, -1, -1}, &err) == 0, "a relay of nothing opens");
  oci_error_free(&err);
  stdio_relay_close_container_ends(relay);
}

static void test_signals(void)
{
  struct supervise_signals signals = SUPERVISE_SIGNALS_NONE;
  struct stdio_relay relay;
  struct supervise_turn turn;
  oci_error_t err = NULL;
  struct supervision supervision = {.what = "test", .pidfd = -1, .report_fd = -1};

  ok(!blocked(SIGTERM) && !pipe_ignored(), "before: SIGTERM not blocked, SIGPIPE not ignored");
  is_int(supervise_signals_take(&signals, true, "test", &err), 0, "take the signals");
  ok(blocked(SIGINT) && blocked(SIGTERM) && blocked(SIGHUP) && blocked(SIGQUIT) &&
         blocked(SIGWINCH),
     "INT, TERM, HUP, QUIT and (a terminal) WINCH are blocked");
  ok(pipe_ignored(), "SIGPIPE is ignored");
  ok(signals.fd >= 0, "a signalfd reads them");

  empty_relay(&relay);
  supervision.signal_fd = signals.fd;
  supervision.relay = &relay;
  kill(getpid(), SIGWINCH);
  is_int(supervise_turn(&supervision, 1000, &turn, &err), 0, "a turn with SIGWINCH pending");
  ok(turn.signal == 0 && !turn.report && !turn.exited, "... SIGWINCH is no signal to act on");
  kill(getpid(), SIGTERM);
  is_int(supervise_turn(&supervision, 1000, &turn, &err), 0, "a turn with SIGTERM pending");
  is_int(turn.signal, SIGTERM, "... says SIGTERM");
  kill(getpid(), SIGHUP);
  is_int(supervise_turn(&supervision, 1000, &turn, &err), 0, "a turn with SIGHUP pending");
  is_int(turn.signal, SIGHUP, "... says SIGHUP");
  is_int(stdio_relay_clear(&relay, &err), 0, "the relay ends");

  is_int(supervise_signals_restore(&signals, "test", &err), 0, "give them back");
  ok(!blocked(SIGTERM) && !blocked(SIGWINCH) && !pipe_ignored(),
     "after: SIGTERM and SIGWINCH not blocked, SIGPIPE not ignored");
  is_int(signals.fd, -1, "... the signalfd closed");
  is_int(supervise_signals_restore(&signals, "test", &err), 0, "giving back twice is nothing");

  is_int(supervise_signals_take(&signals, false, "test", &err), 0, "take them without a terminal");
  ok(blocked(SIGTERM) && !blocked(SIGWINCH), "... SIGWINCH is left alone");
  is_int(supervise_signals_restore(&signals, "test", &err), 0, "... and give them back");
  oci_error_free(&err);
}

static void test_exit_and_report(void)
{
  struct supervise_signals signals = SUPERVISE_SIGNALS_NONE;
  struct stdio_relay relay;
  struct supervise_turn turn;
  oci_error_t err = NULL;
  int report[2], pidfd;
  pid_t child;
  struct supervision supervision = {.what = "test", .report_fd = -1, .relay = &relay};

  if (supervise_signals_take(&signals, false, "test", &err) < 0 || pipe(report) < 0) {
    ok(false, "set up the exit and report turns");
    return;
  }
  child = fork();
  if (child == 0)
    _exit(3);
  pidfd = (int)syscall(SYS_pidfd_open, child, 0);
  ok(pidfd >= 0, "a pidfd of a child that exits");
  empty_relay(&relay);
  supervision.pidfd = pidfd;
  supervision.signal_fd = signals.fd;
  supervision.report_fd = report[0];
  if (write(report[1], "r", 1) != 1)
    ok(false, "write a report");
  usleep(100000); /* the child is gone too */
  is_int(supervise_turn(&supervision, 1000, &turn, &err), 0, "a turn with a report and an exit");
  ok(turn.report && !turn.exited && !supervision.exited,
     "... the report comes first, the exit is not noted yet");
  supervision.report_fd = -1;
  for (int i = 0; i < 5 && !turn.exited; i++)
    supervise_turn(&supervision, 1000, &turn, &err);
  ok(turn.exited && supervision.exited, "then the exit");
  ok(relay.channel[0].from < 0, "... and the relay takes no more input");
  is_int(supervise_turn(&supervision, 0, &turn, &err), 0, "a turn after the exit");
  ok(!turn.exited, "... polls the pidfd no more");
  ok(!stdio_relay_output_open(&relay), "... the relay's output has ended");

  stdio_relay_clear(&relay, &err);
  waitpid(child, NULL, 0);
  close(pidfd);
  close(report[0]);
  close(report[1]);
  supervise_signals_restore(&signals, "test", &err);
  oci_error_free(&err);
}

/* A terminal that refuses its settings back (here a pipe, as a terminal
 * hung up refuses them) is the relay's error at the end, and everything
 * is closed all the same; a pty's size that cannot be set is an error. */
static void test_terminal_refusing(void)
{
  struct stdio_relay relay;
  oci_error_t err = NULL;
  int fds[2], master;

  ok(pipe(fds) == 0, "a pipe standing for a terminal");
  empty_relay(&relay);
  relay.raw_fd = fds[0];
  relay.terminal_fd = master = dup(fds[1]);
  is_int(stdio_relay_clear(&relay, &err), -1, "a terminal refusing its settings: an error");
  ok(err != NULL && strstr(err->message, "restore the settings of fd") != NULL,
     "... naming the step");
  ok(fcntl(master, F_GETFD) < 0 && relay.terminal_fd < 0 && relay.raw_fd < 0,
     "... and the pty's master is closed all the same");
  oci_error_free(&err);
  is_int(console_set_size(fds[1], 24, 80, &err), -1, "a pty's size not set: an error");
  ok(err != NULL && strstr(err->message, "size to 24x80") != NULL, "... naming the size");
  oci_error_free(&err);
  close(fds[0]);
  close(fds[1]);
}

int main(void)
{
  test_signals();
  test_terminal_refusing();
  test_exit_and_report();
  return unit_done();
}
