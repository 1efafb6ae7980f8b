/* The clean inherited state (clean_state.h): the one sequence every
 * process ocirun starts runs first, and the OOM score its creator gives it. */
#include "config.h"

#include "runtime/clean_state.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/io.h"

const char *const clean_state_steps[] = {
    "signals",    "descriptors",         "session",  "personality", "umask",
    "scheduling", "parent-death signal", "dumpable", NULL,
};

/* Dispositions the caller set to ignore (SIGPIPE, SIGQUIT under nohup,
 * even glibc's internal 32 and 33, which its sigaction refuses to touch)
 * survive execve, and so would a blocked mask (ocirun blocks INT, TERM,
 * HUP, QUIT for its signalfd). The raw system call with an all-zero kernel
 * sigaction (SIG_DFL, no flags, an empty mask, whatever the architecture's
 * layout) reaches every signal; only SIGKILL and SIGSTOP cannot be
 * changed. */
static int reset_signals(oci_error_t *err)
{
  const unsigned long default_action[8] = {0};
  sigset_t empty;

  for (int sig = 1; sig < _NSIG; sig++) {
    if (sig == SIGKILL || sig == SIGSTOP)
      continue;
    if (syscall(SYS_rt_sigaction, sig, default_action, NULL, _NSIG / 8) < 0)
      return oci_error_errno(err, "reset the disposition of signal %d", sig);
  }
  if (sigemptyset(&empty) < 0 || sigprocmask(SIG_SETMASK, &empty, NULL) < 0)
    return oci_error_errno(err, "empty the signal mask");
  return 0;
}

static int compare_fds(const void *a, const void *b)
{
  return *(const int *)a - *(const int *)b;
}

/* The given stdio onto 0, 1, 2 and every other descriptor closed but the
 * kept ones, before anything else runs: anything the caller or ocirun had
 * open (a host directory, a store fd, the caller's terminal) would
 * otherwise be reachable through /proc/self/fd from a working directory, a
 * mount source, or the workload and anything that can read its /proc. */
static int install_descriptors(const struct clean_state *state, oci_error_t *err)
{
  cleanup_free int *keep = calloc(state->n_keep + 1, sizeof(*keep));
  unsigned next = 3;
  int copies[3];

  if (keep == NULL)
    return oci_error_errno(err, "allocate");
  for (size_t i = 0; i < state->n_keep; i++) {
    keep[i] = state->keep[i];
    if (keep[i] >= 0 && keep[i] < 3)
      return oci_error_set(err, 0, "internal fd %d collides with stdio", keep[i]);
  }
  /* via fresh copies, so that no dup2 overwrites a source still needed */
  for (int i = 0; i < 3; i++) {
    copies[i] = fcntl(state->stdio[i], F_DUPFD_CLOEXEC, 3);
    if (copies[i] < 0)
      return oci_error_errno(err, "dup stdio fd %d", state->stdio[i]);
  }
  for (int i = 0; i < 3; i++) {
    if (dup2(copies[i], i) < 0)
      return oci_error_errno(err, "dup2 onto fd %d", i);
  }
  qsort(keep, state->n_keep, sizeof(keep[0]), compare_fds);
  for (size_t i = 0; i < state->n_keep; i++) {
    if (keep[i] < 0 || (unsigned)keep[i] < next)
      continue;
    if ((unsigned)keep[i] > next && close_range(next, (unsigned)keep[i] - 1, 0) < 0)
      return oci_error_errno(err, "close_range %u-%d", next, keep[i] - 1);
    next = (unsigned)keep[i] + 1;
  }
  if (close_range(next, ~0U, 0) < 0)
    return oci_error_errno(err, "close_range %u-", next);
  return 0;
}

/* The scheduling the caller runs with is inherited across fork: a caller
 * at SCHED_FIFO or SCHED_RR, a negative nice value or the realtime I/O
 * class (a service's CPUSchedulingPolicy=, Nice=, IOSchedulingClass=) would
 * hand the process a priority it could never set itself (CAP_SYS_NICE,
 * CAP_SYS_ADMIN are not in its set), and cpu.max (--cpus) does not throttle
 * realtime tasks at all. Each is brought back to a plain process's; a
 * weaker setting (nice above 0, SCHED_BATCH/IDLE, idle I/O) is the caller's
 * choice and is kept. Lowering a priority needs no privilege. RLIMIT_RTPRIO
 * and RLIMIT_NICE above 0 (limits.conf's rtprio for an audio group, a
 * service's LimitRTPRIO=) would let the process, of any uid, take a
 * realtime policy or a negative nice value back without privilege: both go
 * to 0, docker's default (lowering a limit needs no privilege either);
 * process.rlimits may set them again afterwards. */
#define IOPRIO_WHO_PROCESS_ 1
#define IOPRIO_CLASS_SHIFT_ 13
#define IOPRIO_CLASS_RT_ 1

static int reset_scheduling(oci_error_t *err)
{
  static const int priority_limits[] = {RLIMIT_RTPRIO, RLIMIT_NICE};
  int policy = sched_getscheduler(0);
  long ioprio;

  if (policy < 0)
    return oci_error_errno(err, "sched_getscheduler");
  if (policy != SCHED_OTHER && policy != SCHED_BATCH && policy != SCHED_IDLE &&
      sched_setscheduler(0, SCHED_OTHER, &(struct sched_param){.sched_priority = 0}) < 0)
    return oci_error_errno(err, "reset the caller's realtime scheduling policy %d", policy);
  errno = 0;
  if (getpriority(PRIO_PROCESS, 0) < 0 && errno == 0 && setpriority(PRIO_PROCESS, 0, 0) < 0)
    return oci_error_errno(err, "reset the caller's negative nice value");
  for (size_t i = 0; i < sizeof(priority_limits) / sizeof(priority_limits[0]); i++) {
    struct rlimit limit;

    if (getrlimit(priority_limits[i], &limit) < 0)
      return oci_error_errno(err, "getrlimit %d", priority_limits[i]);
    if ((limit.rlim_cur > 0 || limit.rlim_max > 0) &&
        setrlimit(priority_limits[i], &(struct rlimit){0, 0}) < 0)
      return oci_error_errno(err, "set the caller's %s to 0",
                             priority_limits[i] == RLIMIT_RTPRIO ? "RLIMIT_RTPRIO" : "RLIMIT_NICE");
  }
  ioprio = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS_, 0);
  if (ioprio >= 0 && (ioprio >> IOPRIO_CLASS_SHIFT_) == IOPRIO_CLASS_RT_ &&
      syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS_, 0, 0) < 0)
    return oci_error_errno(err, "reset the caller's realtime I/O class");
  return 0;
}

void clean_state_init(struct clean_state *state, enum clean_entry entry,
                      const struct spec_process *process, bool supervised)
{
  *state = (struct clean_state){.entry = entry, .stdio = {0, 1, 2}, .umask = -1};
  if (entry != CLEAN_ENTRY_HOOK)
    state->umask = process != NULL && process->umask_set ? (int)process->umask : 022;
  if (entry == CLEAN_ENTRY_CONTAINER && supervised)
    state->parent_death_signal = SIGKILL;
}

int clean_state_apply(const struct clean_state *state, oci_error_t *err)
{
  /* what the process must not see goes first */
  if (install_descriptors(state, err) < 0 || reset_signals(err) < 0)
    return -1;
  /* A session of its own: the caller's terminal is not its controlling
   * terminal, so TIOCSTI cannot type into the caller's shell and the
   * terminal's signals never reach it. */
  if (setsid() < 0)
    return oci_error_errno(err, "setsid");
  /* The caller's personality flags survive execve: setarch -R
   * (ADDR_NO_RANDOMIZE) would switch off the workload's ASLR,
   * READ_IMPLIES_EXEC make every readable mapping executable. */
  if (personality(PER_LINUX) < 0)
    return oci_error_errno(err, "reset the personality to PER_LINUX");
  if (state->umask >= 0)
    umask((mode_t)state->umask);
  if (reset_scheduling(err) < 0)
    return -1;
  if (prctl(PR_SET_PDEATHSIG, state->parent_death_signal) < 0)
    return oci_error_errno(err, "PR_SET_PDEATHSIG %d", state->parent_death_signal);
  /* Until its exec nothing in a container may open this process's /proc
   * files (its exe is ocirun's binary, its fds ocirun's); the exec that
   * follows makes the program dumpable again as any exec does. */
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    return oci_error_errno(err, "PR_SET_DUMPABLE 0");
  return 0;
}

int oom_score_for(const struct spec_process *process, int creator_score)
{
  if (process != NULL && process->oom_score_adj_set)
    return process->oom_score_adj;
  return creator_score < 0 ? 0 : creator_score;
}

int oom_score_read_self(int *score, oci_error_t *err)
{
  char text[32];
  cleanup_close int fd = open("/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC);
  ssize_t n;
  char *end;
  long value;

  if (fd < 0 || (n = read(fd, text, sizeof(text) - 1)) <= 0)
    return oci_error_errno(err, "read /proc/self/oom_score_adj");
  text[n] = '\0';
  errno = 0;
  value = strtol(text, &end, 10);
  if (errno != 0 || end == text || (*end != '\n' && *end != '\0') || value < -1000 || value > 1000)
    return oci_error_set(err, 0, "/proc/self/oom_score_adj: '%.*s' is not a score", (int)n, text);
  *score = (int)value;
  return 0;
}

int oom_score_adjust(pid_t pid, const struct spec_process *process, oci_error_t *err)
{
  char text[16], path[64];
  cleanup_close int fd = -1;
  int creator, target;

  if (oom_score_read_self(&creator, err) < 0)
    return -1;
  target = oom_score_for(process, creator);
  /* a child inherits its creator's score: nothing to write */
  if (target == creator)
    return 0;
  if (pid == 0)
    snprintf(path, sizeof(path), "/proc/self/oom_score_adj");
  else
    snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
  snprintf(text, sizeof(text), "%d", target);
  fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || oci_write_all(fd, text, strlen(text)) < 0)
    return oci_error_errno(err, "%s: write %s to %s (the caller's own is %d)",
                           process != NULL && process->oom_score_adj_set ? "process.oomScoreAdj"
                                                                         : "raise the OOM score",
                           text, path, creator);
  return 0;
}
