/* A container process's terminal (process.terminal): a pty of the
 * container's own devpts, made by the process itself inside the container's
 * mount namespace, whose master leaves through a unix socket (a caller's
 * console socket, or ocirun's own socketpair when ocirun relays it), and the
 * caller's side of it: receive the master, raw mode, window size. */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <termios.h>

#include "oci/error.h"
#include "runtime/spec/spec.h"

/* The device of ocirun's own devpts (its /dev/pts), never a container's
 * pty: 0 when ocirun has none. Read before the container's namespaces are
 * entered. */
dev_t console_host_devpts(void);

/* Connects to a caller's unix stream socket (a path; what names it in
 * errors); the fd is O_CLOEXEC. */
int unix_socket_connect(const char *path, const char *what, oci_error_t *err);
/* Connects to a caller's console socket (a path); the fd is O_CLOEXEC. */
int console_socket_connect(const char *path, oci_error_t *err);
/* One sendmsg: fd in SCM_RIGHTS, payload (or one zero byte when length
 * is 0) as the data; -1 with errno, EMSGSIZE when only part was sent. */
int unix_send_fd(int socket_fd, int fd, const void *payload, size_t length);

/* In the container's process, in its mount namespace (after pivot_root, or
 * after joining it) and in a session of its own: opens the container's
 * /dev/ptmx (resolved in its root, no magic link), checks that the peer is
 * a devpts pty and not of host_devpts, sizes it at process.consoleSize,
 * sends the master over socket_fd and closes it, and makes the peer fds 0,
 * 1, 2 and, with controlling, the controlling terminal (exec's process
 * takes it itself, once it is the one in the container). The master is
 * never left open here. */
int console_setup(int socket_fd, const struct spec_process *process, dev_t host_devpts,
                  bool controlling, oci_error_t *err);

/* ocirun's side of its own socketpair: the master the process sent, or -1
 * with *err when it sent none (it failed first). */
int console_receive(int socket_fd, oci_error_t *err);

/* The caller's terminal (fd, a tty) in raw mode, *saved its settings for
 * console_restore; returns 1 when set, 0 when fd is no terminal. */
int console_raw_mode(int fd, struct termios *saved, oci_error_t *err);
/* Gives fd its settings back; fails when the terminal refuses them (hung
 * up: it then stays as it was). */
int console_restore(int fd, const struct termios *saved, oci_error_t *err);

/* Sets the pty's window size (the master's side). */
int console_set_size(int master, unsigned short rows, unsigned short cols, oci_error_t *err);
/* The window size of the first terminal among fds, or false. */
bool console_window_size(const int *fds, size_t n, unsigned short *rows, unsigned short *cols);

#endif
