/* The pieces every wait of ocirun's on a process it relays is made of
 * (`run`'s pid 1, `exec`'s process): the caller's signals taken and given
 * back, and one turn of the poll over the process's pidfd, the signalfd
 * and the stdio relay. What a signal means is the caller's: `run` ends the
 * run, `exec` forwards it. */
#ifndef RUNTIME_SUPERVISE_H
#define RUNTIME_SUPERVISE_H

#include <signal.h>
#include <stdbool.h>

#include "oci/error.h"
#include "runtime/stdio_relay.h"

/* While ocirun waits: the signals that end a process by default and that a
 * user or a terminal sends (INT, TERM, HUP, QUIT), and with a terminal
 * SIGWINCH, are blocked and read from a signalfd, never a death that skips
 * teardown or leaves the caller's terminal raw; a caller gone away
 * (SIGPIPE) is a failed write of the relay. A child made while they are
 * taken resets all of it before exec. */
struct supervise_signals {
  sigset_t original_mask;
  struct sigaction original_pipe;
  bool blocked, pipe_ignored;
  int fd; /* the signalfd, -1 until taken */
};

#define SUPERVISE_SIGNALS_NONE                                                                     \
  {                                                                                                \
    .fd = -1                                                                                       \
  }

/* what names the command in messages ("run", "exec"). On failure, what
 * was taken stays recorded for supervise_signals_restore. */
int supervise_signals_take(struct supervise_signals *signals, bool window, const char *what,
                           oci_error_t *err);
/* Gives back what was taken (a signal still pending then acts, as the user
 * meant); safe on SUPERVISE_SIGNALS_NONE and after a failed take. */
int supervise_signals_restore(struct supervise_signals *signals, const char *what,
                              oci_error_t *err);

/* One process waited for while its stdio is relayed. */
struct supervision {
  const char *what; /* "run", "exec": names the command in messages */
  int pidfd;
  int signal_fd;
  int report_fd;             /* polled too (run's report pipe), -1: none */
  struct stdio_relay *relay; /* NULL: the process's stdio is its own */
  bool exited;               /* the pidfd said the process is gone: no longer polled */
};

/* What one turn saw, in the order the caller must act on it. */
struct supervise_turn {
  bool report; /* report_fd is readable: nothing else was done this turn */
  int signal;  /* INT, TERM, HUP or QUIT to ocirun (0: none): nothing else was done */
  bool exited; /* the process exited in this turn: the relay's input is stopped */
};

/* One poll of the pidfd, the signalfd, report_fd and the relay, for at
 * most timeout_ms (-1: no bound): SIGWINCH resizes the pty; a report or a
 * signal is returned before anything else moves; otherwise the exit is
 * noted and the relay moves what is ready. A poll interrupted returns an
 * empty turn. */
int supervise_turn(struct supervision *supervision, int timeout_ms, struct supervise_turn *turn,
                   oci_error_t *err);

#endif
