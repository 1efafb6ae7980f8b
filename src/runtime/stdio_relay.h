/* The container's stdio: pipes that ocirun owns, relayed to and from the
 * caller's descriptors by the parent's wait loop. The workload never holds a
 * caller's descriptor, so it cannot reopen, truncate, seek or ioctl the
 * caller's files or terminal through /proc/self/fd.
 *
 * A terminal (process.terminal, run -t, exec -t) attaches here: the
 * container's stdio is then a pty it makes in its own devpts (console.c),
 * whose master ocirun receives; channel 0 moves the caller's stdin into the
 * master, channel 1 the master's output to the caller's stdout, and the
 * caller's terminal is in raw mode until stdio_relay_clear. The wait loops
 * do not change: they poll whatever stdio_relay_poll_fds gives. */
#ifndef STDIO_RELAY_H
#define STDIO_RELAY_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

#include "oci/oci.h"

/* One direction of one stream: bytes from `from` to `to`. */
struct relay_channel {
  int from;                /* -1 once finished */
  int to;                  /* -1: discard; a device: ocirun's O_NONBLOCK reopen of it */
  bool copy;               /* read/write through buffer: splice was refused (EINVAL) */
  bool to_socket;          /* send(MSG_DONTWAIT): splice into a socket may block */
  bool waiting_for_output; /* poll `to` for room, not `from` for data */
  char *buffer;            /* copy mode: bytes read but not yet written */
  size_t start, end;
  int close_after[2]; /* owned (its pipe end, a reopened device), closed at the end */
};

struct stdio_relay {
  struct relay_channel channel[3]; /* 0: into the container; 1, 2: out of it */
  int container_fd[3];             /* the container's ends: its 0, 1, 2 */
  int caller_fd[3];
  int terminal_fd;      /* a terminal: the pty's master, ocirun's; -1 */
  int raw_fd;           /* the caller's terminal in raw mode; -1 */
  struct termios saved; /* raw_fd's settings before */
};

#define STDIO_RELAY_MAX_POLL 3

/* caller_fd[i] is the caller's descriptor for stream i, or -1: stdin at end
 * of file, output discarded. All descriptors made are O_CLOEXEC. */
int stdio_relay_open(struct stdio_relay *relay, const int caller_fd[3], oci_error_t *err);
/* A terminal: no pipes; the container's 0, 1, 2 are /dev/null until its pty
 * replaces them (the caller's descriptors never reach it). */
int stdio_relay_open_terminal(struct stdio_relay *relay, const int caller_fd[3], oci_error_t *err);
/* The pty's master, received from the container's process: relayed from
 * here on, and the caller's stdin, if relayed and a terminal, in raw mode.
 * Takes master (closed by stdio_relay_clear, also on failure). */
int stdio_relay_attach_terminal(struct stdio_relay *relay, int master, oci_error_t *err);
/* SIGWINCH: the caller's terminal's size onto the pty. */
int stdio_relay_resize(const struct stdio_relay *relay, oci_error_t *err);
/* In the parent once the child holds its copies. */
void stdio_relay_close_container_ends(struct stdio_relay *relay);
/* Fills fds (STDIO_RELAY_MAX_POLL at most); returns how many. */
size_t stdio_relay_poll_fds(const struct stdio_relay *relay, struct pollfd *fds);
/* Moves what poll said is ready; never blocks on a pipe or a socket. */
void stdio_relay_step(struct stdio_relay *relay, const struct pollfd *fds, size_t n);
/* pid 1 is gone: nothing more goes in. */
void stdio_relay_stop_input(struct stdio_relay *relay);
/* Output still to drain (some process still holds a write end, or data). */
bool stdio_relay_output_open(const struct stdio_relay *relay);
/* Ends the relay; restores the caller's terminal settings. Everything is
 * closed even when the terminal refuses its settings, which is then the
 * error (*err keeps an error already set). */
int stdio_relay_clear(struct stdio_relay *relay, oci_error_t *err);

/* Where ocirun does not stay to relay (create, exec --detach), or for an
 * OCI caller handing pipes it made (exec ID): whether a caller's fd may be
 * a container process's stdio as it is (a pipe, a socket, /dev/null and
 * its kin; never a terminal or a file: stdio_relay.c says why). */
bool stdio_relay_may_hand_over(int fd);
/* The same for 0, 1, 2 of a process: an error naming `what` and the first
 * descriptor refused, and what to give instead. */
int stdio_relay_check_hand_over(const int fd[3], const char *what, oci_error_t *err);
/* In a container's process, once its root is the container's: a null
 * device among 0, 1, 2 handed over by the caller is the host's inode,
 * which a root process with CAP_FOWNER or CAP_CHOWN could chmod or chown
 * through its fd (the host's /dev/null made unusable): each is replaced by
 * the container's own node of that device, opened with the same access,
 * found in the root without leaving it. Fails when the container has none. */
int stdio_relay_own_null_devices(oci_error_t *err);

#endif
