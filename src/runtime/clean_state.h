/* What every process ocirun starts inherits of its caller: nothing. One
 * sequence, run first by each of them (a run's or a created container's
 * pid 1, an exec'd process, a hook), so that a fix to one door is a fix to
 * every door: fds and stdio, signal dispositions and mask, session and
 * controlling terminal, personality, umask, scheduling priority, the
 * parent-death signal and dumpability. The OOM score is the one piece a
 * process cannot always set for itself (lowering it needs CAP_SYS_RESOURCE
 * of the host, and after it has joined a container its /proc is the
 * container's): whoever creates the process sets it, from the host's
 * /proc, with oom_score_adjust (see each entry path in docs/runtime.md,
 * "What a process inherits"). */
#ifndef CLEAN_STATE_H
#define CLEAN_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "oci/error.h"
#include "runtime/spec/spec.h"

/* The ways into a container, each with its own first process. */
enum clean_entry {
  CLEAN_ENTRY_CONTAINER, /* ocirun run's and ocirun create's pid 1 */
  CLEAN_ENTRY_EXEC,      /* ocirun exec ID|NAME (with or without a terminal) */
  CLEAN_ENTRY_HOOK,      /* a hook of any kind, host or container side */
  CLEAN_ENTRY_COUNT
};

struct clean_state {
  enum clean_entry entry;
  /* What becomes 0, 1, 2 (each may already be that fd); never a
   * descriptor of the caller's that ocirun has not vetted
   * (stdio_relay_may_hand_over). */
  int stdio[3];
  /* Descriptors above 2 that stay open (-1 entries are ignored): ocirun's
   * own pipes and fds the next steps need, each close-on-exec unless the
   * exec is meant to hand it on. */
  const int *keep;
  size_t n_keep;
  /* process.user.umask, or Docker's and runc's 0022: never the caller's.
   * -1: left as it is (a hook, which is the runtime's program). */
  int umask;
  /* SIGKILL for ocirun run's pid 1 (the run dies with its runner); 0 for
   * everything else. */
  int parent_death_signal;
};

/* What each entry path starts from: stdio 0, 1, 2 as they are, nothing
 * kept, the umask process.user.umask or 0022 (a hook keeps the runtime's:
 * it is the runtime's program), no parent-death signal but for a
 * supervised run's pid 1 (SIGKILL). The caller then sets stdio and keep. */
void clean_state_init(struct clean_state *state, enum clean_entry entry,
                      const struct spec_process *process, bool supervised);

/* The sequence, in this order: stdio and every other fd, signals, a
 * session of its own, personality, umask, scheduling, parent-death
 * signal, non-dumpable (until the exec that follows). Fails closed: the
 * caller exits without running anything. */
int clean_state_apply(const struct clean_state *state, oci_error_t *err);

/* The names of the steps clean_state_apply runs, in order (for the plan,
 * docs and the unit test). */
extern const char *const clean_state_steps[];

/* The OOM score a process gets: process.oomScoreAdj when set; otherwise
 * the creator's own score raised to Docker's 0 when it is negative (a
 * service's -1000, sshd's say, would make the workload a process the OOM
 * killer never picks, even in its own slice); a score above 0 is the
 * caller's choice and is kept. */
int oom_score_for(const struct spec_process *process, int creator_score);
/* This process's own score, from fd (an open /proc/self/oom_score_adj of
 * the host's /proc) or, with fd -1, from /proc/self/oom_score_adj. */
int oom_score_read_self(int *score, oci_error_t *err);
/* Writes oom_score_for(process, this process's score) to the
 * oom_score_adj of pid (0: this process), through the host's /proc. Must
 * run before the process is made non-dumpable when it is its own target
 * and unprivileged (its /proc files are root's then). */
int oom_score_adjust(pid_t pid, const struct spec_process *process, oci_error_t *err);

#endif
