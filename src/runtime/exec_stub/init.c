/* The init of `ocirun run`: pid 1 of the container, the workload its only
 * child. It exists so that the run's life is tied to its runner's by
 * something the workload cannot undo: pid 1 holds the parent-death signal
 * (SIGKILL when ocirun dies, and with pid 1 every process of the
 * namespace), while the workload may clear its own with prctl, lose it to
 * a setuid() or a setuid program, and it would not matter. The workload
 * cannot signal pid 1 away (a namespace's init gets only the signals it
 * waits for, never SIGKILL from inside), nor trace it or read its /proc
 * (it makes itself non-dumpable before the workload may exec). It reaps
 * every orphan, passes every other signal on to the workload's process
 * group, and exits with the workload's status, which it also reports to
 * ocirun (exit code or signal) on the status fd.
 *
 * ocirun's pid 1 blocked every signal, forked the workload and exec'd this
 * from the same sealed memfd as the exec stub; the mask is inherited, so
 * nothing is lost between the fork and the first wait. Syscalls: prctl,
 * close, write, rt_sigtimedwait, wait4, kill, exit_group: all in the
 * default seccomp profile, under which this runs. */
#include <linux/errno.h>
#include <linux/prctl.h>
#include <linux/wait.h>

#include "runtime/exec_stub/protocol.h"
#include "runtime/exec_stub/sys.h"

#define SIGNAL_KILL 9
#define SIGNAL_CHILD 17
#define SIGNAL_STOP 19
#define SIGSET_BYTES 8

static int status_fd = -1;

static void report(int kind, int value, int step)
{
  struct init_report r = {.kind = kind, .value = value, .step = step};

  if (status_fd >= 0)
    syscall5(__NR_write, status_fd, (long)&r, sizeof(r), 0, 0);
}

static _Noreturn void fail(int step, long error)
{
  report(INIT_REPORT_FAILED, (int)-error, step);
  exit_group(125);
}

/* Reaps every child that has exited; returns 1 once the workload is among
 * them (*status its wait status). */
static int reap(long workload, int *status)
{
  int done = 0;

  for (;;) {
    int one = 0;
    long pid = syscall5(__NR_wait4, -1, (long)&one, WNOHANG, 0, 0);

    if (pid == -EINTR)
      continue;
    if (pid <= 0)
      return done;
    if (pid == workload) {
      *status = one;
      done = 1;
    }
  }
}

_Noreturn void init_main(long argc, char **argv)
{
  unsigned long all = ~0UL;
  char info[128];
  long workload, gate, r;
  int status = 0;

  if (argc != INIT_ARG_COUNT)
    exit_group(126);
  workload = parse_number(argv[INIT_ARG_CHILD]);
  status_fd = (int)parse_number(argv[INIT_ARG_STATUS_FD]);
  gate = parse_number(argv[INIT_ARG_GATE_FD]);
  if (workload <= 1 || status_fd < 3 || gate < 3)
    fail(INIT_STEP_ARGUMENTS, -EINVAL);
  /* First: the exec made this process dumpable again, and the workload
   * (same user) could ptrace it and clear its parent-death signal; it
   * waits on the gate until this is done. */
  r = syscall5(__NR_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0);
  if (r < 0)
    fail(INIT_STEP_DUMPABLE, r);
  syscall5(__NR_prctl, PR_SET_NAME, (long)INIT_STUB_NAME, 0, 0, 0);
  /* Nothing of the run's stdio: the workload's end of a pipe closing is
   * then the relay's end of file, as without an init. */
  for (int fd = 0; fd < 3; fd++)
    syscall5(__NR_close, fd, 0, 0, 0, 0);
  r = syscall5(__NR_write, gate, (long)"g", 1, 0, 0);
  if (r != 1)
    fail(INIT_STEP_GATE, r < 0 ? r : -EIO);
  syscall5(__NR_close, gate, 0, 0, 0, 0);

  all &= ~((1UL << (SIGNAL_KILL - 1)) | (1UL << (SIGNAL_STOP - 1)));
  for (;;) {
    long sig = syscall5(__NR_rt_sigtimedwait, (long)&all, (long)info, 0, SIGSET_BYTES, 0);

    if (sig == -EINTR || sig == -EAGAIN)
      continue;
    if (sig < 0)
      fail(INIT_STEP_WAIT, sig);
    if (sig != SIGNAL_CHILD) {
      /* the workload's group; the workload itself if it left the group */
      if (syscall5(__NR_kill, -workload, sig, 0, 0, 0) < 0)
        syscall5(__NR_kill, workload, sig, 0, 0, 0);
      continue;
    }
    if (!reap(workload, &status))
      continue;
    if ((status & 0x7f) == 0) {
      report(INIT_REPORT_EXITED, (status >> 8) & 0xff, 0);
      exit_group((status >> 8) & 0xff);
    }
    report(INIT_REPORT_SIGNALED, status & 0x7f, 0);
    exit_group(128 + (status & 0x7f));
  }
}
