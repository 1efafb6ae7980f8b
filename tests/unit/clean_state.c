/* Unit tests of the clean inherited state (src/runtime/clean_state.c): for
 * each entry path into a container, its start (clean_state_init, as the
 * runtime calls it) and the sequence (clean_state_apply), run in a forked
 * child made as dirty as an unprivileged caller can make it first, which
 * then reports what is left. The OOM rule (oom_score_for) apart. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/clean_state.h"
#include "unit.h"

/* What the child reports, through a pipe. */
struct left {
  int applied;       /* clean_state_apply's result */
  int extra_fd_open; /* the leaked fd 9 */
  int kept_fd_open;  /* the fd asked to be kept */
  int ignored;       /* SIGPIPE's disposition is still SIG_IGN */
  int handled;       /* SIGUSR1's handler survives */
  int blocked;       /* SIGTERM still in the mask */
  int leads_session;
  int personality;
  int pdeathsig;
  int dumpable;
  int umask;
  int nice;
  int stdin_is_given; /* fd 0 is the given stdin */
};

static void on_usr1(int sig)
{
  (void)sig;
}

static struct left run_entry(enum clean_entry entry, const struct spec_process *process,
                             bool supervised)
{
  struct left left = {.applied = -99};
  int report[2], given[2];
  pid_t pid;

  if (pipe2(report, O_CLOEXEC) < 0 || pipe(given) < 0)
    exit(99);
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    struct sigaction ignore = {.sa_handler = SIG_IGN}, handle = {.sa_handler = on_usr1};
    struct clean_state state;
    sigset_t term;
    oci_error_t err = NULL;
    struct stat st, in;
    int keep[] = {report[1], -1};
    int fd;

    /* the dirty caller */
    sigaction(SIGPIPE, &ignore, NULL);
    sigaction(SIGUSR1, &handle, NULL);
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, NULL);
    fd = open("/dev/null", O_RDONLY); /* not close-on-exec: a leak */
    if (fd >= 0 && fd != 9) {
      dup2(fd, 9);
      close(fd);
    }
    keep[1] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    personality(PER_LINUX | ADDR_NO_RANDOMIZE);
    prctl(PR_SET_PDEATHSIG, SIGUSR2);
    umask(077);
    setpriority(PRIO_PROCESS, 0, 5); /* above 0: the caller's, kept */

    clean_state_init(&state, entry, process, supervised);
    state.stdio[0] = given[0];
    state.keep = keep;
    state.n_keep = 2;
    left.applied = clean_state_apply(&state, &err);
    oci_error_free(&err);

    left.extra_fd_open = fcntl(9, F_GETFD) >= 0;
    left.kept_fd_open = fcntl(keep[1], F_GETFD) >= 0;
    sigaction(SIGPIPE, NULL, &ignore);
    left.ignored = ignore.sa_handler == SIG_IGN;
    sigaction(SIGUSR1, NULL, &handle);
    left.handled = handle.sa_handler == on_usr1;
    sigprocmask(SIG_SETMASK, NULL, &term);
    left.blocked = sigismember(&term, SIGTERM);
    left.leads_session = getsid(0) == getpid();
    left.personality = personality(0xffffffff);
    prctl(PR_GET_PDEATHSIG, &left.pdeathsig);
    left.dumpable = prctl(PR_GET_DUMPABLE);
    left.umask = (int)umask(0);
    errno = 0;
    left.nice = getpriority(PRIO_PROCESS, 0);
    left.stdin_is_given = fstat(0, &in) == 0 && fstat(report[1], &st) == 0 && S_ISFIFO(in.st_mode);
    if (write(report[1], &left, sizeof(left)) != (ssize_t)sizeof(left))
      _exit(98);
    _exit(0);
  }
  close(report[1]);
  close(given[0]);
  close(given[1]);
  if (read(report[0], &left, sizeof(left)) != (ssize_t)sizeof(left))
    left.applied = -98;
  close(report[0]);
  waitpid(pid, NULL, 0);
  return left;
}

static void check_entry(const char *name, enum clean_entry entry,
                        const struct spec_process *process, bool supervised, int want_umask,
                        int want_pdeathsig)
{
  struct left left = run_entry(entry, process, supervised);

  is_int(left.applied, 0, "%s: the sequence succeeds", name);
  ok(!left.extra_fd_open, "%s: a leaked descriptor of the caller's is closed", name);
  ok(left.kept_fd_open, "%s: a descriptor asked for is kept", name);
  ok(left.stdin_is_given, "%s: the given stdin is fd 0", name);
  ok(!left.ignored, "%s: an ignored signal is back to its default", name);
  ok(!left.handled, "%s: a handled signal is back to its default", name);
  ok(!left.blocked, "%s: the signal mask is empty", name);
  ok(left.leads_session, "%s: a session of its own (no controlling terminal of the caller)", name);
  is_int(left.personality, PER_LINUX, "%s: PER_LINUX (no ADDR_NO_RANDOMIZE)", name);
  is_int(left.pdeathsig, want_pdeathsig, "%s: the parent-death signal", name);
  is_int(left.dumpable, 0, "%s: non-dumpable until its exec", name);
  is_int(left.umask, want_umask, "%s: the umask", name);
  is_int(left.nice, 5, "%s: a nice value above 0 is the caller's, kept", name);
}

int main(void)
{
  struct spec_process plain = {0}, with_umask = {.umask_set = true, .umask = 027};
  struct spec_process configured = {.oom_score_adj_set = true, .oom_score_adj = -300};

  /* every entry path, as the runtime starts it */
  check_entry("run's pid 1", CLEAN_ENTRY_CONTAINER, &plain, true, 022, SIGKILL);
  check_entry("create's pid 1", CLEAN_ENTRY_CONTAINER, &plain, false, 022, 0);
  check_entry("create's pid 1, process.user.umask 027", CLEAN_ENTRY_CONTAINER, &with_umask, false,
              027, 0);
  check_entry("an exec'd process", CLEAN_ENTRY_EXEC, &plain, false, 022, 0);
  check_entry("an exec'd process, process.user.umask 027", CLEAN_ENTRY_EXEC, &with_umask, false,
              027, 0);
  /* a hook is the runtime's program: the runtime's umask (the dirty 077) */
  check_entry("a hook", CLEAN_ENTRY_HOOK, NULL, false, 077, 0);
  ok(clean_state_steps[0] != NULL && clean_state_steps[7] != NULL && clean_state_steps[8] == NULL,
     "the sequence has its eight named steps");

  /* the OOM score each is given */
  is_int(oom_score_for(&plain, -1000), 0, "OOM: a -1000 caller's child starts at docker's 0");
  is_int(oom_score_for(&plain, -1), 0, "OOM: any negative score is raised to 0");
  is_int(oom_score_for(&plain, 500), 500, "OOM: a score above 0 is the caller's, kept");
  is_int(oom_score_for(&configured, -1000), -300, "OOM: process.oomScoreAdj wins");
  is_int(oom_score_for(&configured, 900), -300, "OOM: ... above or below the caller's");
  is_int(oom_score_for(NULL, -17), 0, "OOM: a hook's (no process) is raised too");
  return unit_done();
}
