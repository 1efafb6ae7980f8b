/* The stdio relay: three pipes between the container and ocirun, and the
 * moving of bytes between them and the caller's descriptors, driven by the
 * parent's poll loop (see stdio_relay.h for why, and where a pty goes). */
#include "config.h"

#include "runtime/stdio_relay.h"

#include "runtime/console.h"
#include "oci/in_root.h"
#include "oci/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Larger pipes mean fewer wake-ups per byte; refused sizes are harmless. */
#define RELAY_PIPE_SIZE (1024 * 1024)
#define RELAY_CHUNK (1024 * 1024)
#define RELAY_BUFFER (64 * 1024)

static void channel_init(struct relay_channel *c)
{
  *c = (struct relay_channel){.from = -1, .to = -1, .close_after = {-1, -1}};
}

static void channel_finish(struct relay_channel *c)
{
  for (int i = 0; i < 2; i++) {
    if (c->close_after[i] >= 0)
      close(c->close_after[i]);
    c->close_after[i] = -1;
  }
  free(c->buffer);
  c->buffer = NULL;
  c->from = c->to = -1;
}

/* read/write through a buffer: for what splice refuses (a tty, an O_APPEND
 * file), for sockets (send never blocks with MSG_DONTWAIT), and to discard. */
static void channel_copy(struct relay_channel *c)
{
  if (c->buffer == NULL && (c->buffer = malloc(RELAY_BUFFER)) == NULL) {
    channel_finish(c);
    return;
  }
  if (c->start == c->end) {
    ssize_t n = read(c->from, c->buffer, RELAY_BUFFER);

    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      return;
    if (n <= 0) { /* end of file, or unreadable (a directory, a write-only fd) */
      channel_finish(c);
      return;
    }
    c->start = 0;
    c->end = (size_t)n;
  }
  if (c->to < 0) {
    c->start = c->end = 0;
    return;
  }
  while (c->start < c->end) {
    ssize_t n = c->to_socket ? send(c->to, c->buffer + c->start, c->end - c->start,
                                    MSG_DONTWAIT | MSG_NOSIGNAL)
                             : write(c->to, c->buffer + c->start, c->end - c->start);

    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && errno == EAGAIN) {
      c->waiting_for_output = true;
      return;
    }
    if (n <= 0) { /* the reader is gone: so is this stream, as with a plain pipe */
      channel_finish(c);
      return;
    }
    c->start += (size_t)n;
  }
  c->waiting_for_output = false;
}

/* splice: one side is always ocirun's pipe, and a pipe-to-pipe splice with
 * SPLICE_F_NONBLOCK blocks on neither side. EAGAIN after a readable `from`
 * means `to` is full, and after a writable `to` that `from` is empty. */
static void channel_move(struct relay_channel *c)
{
  ssize_t n;

  if (c->copy || c->to < 0) {
    channel_copy(c);
    return;
  }
  n = splice(c->from, NULL, c->to, NULL, RELAY_CHUNK, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (n > 0) {
    c->waiting_for_output = false;
    return;
  }
  if (n == 0) {
    channel_finish(c);
    return;
  }
  switch (errno) {
  case EINTR:
    return;
  case EAGAIN:
    c->waiting_for_output = !c->waiting_for_output;
    return;
  case EINVAL:
    c->copy = true;
    channel_copy(c);
    return;
  default:
    channel_finish(c);
  }
}

/* A terminal (or other device) written through the caller's own open file
 * would block once full (a terminal stopped with ^S, a pty nobody reads),
 * and with it the deadline; setting O_NONBLOCK there would change the
 * caller's shared file. A new open of the same device is ocirun's own.
 * Only for an fd the caller opened for writing: a read-only one must stay
 * one, or the workload's output would reach a device (a terminal, kmsg)
 * the caller never let anyone write. Returns -1 where the reopen is not
 * done or refused: the caller's fd is then used as it is. */
static int reopen_nonblocking(int fd)
{
  char path[64];
  int flags = fcntl(fd, F_GETFL);

  if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
    return -1;

  snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
  return open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

static void relay_init(struct stdio_relay *relay, const int caller_fd[3])
{
  for (int i = 0; i < 3; i++) {
    channel_init(&relay->channel[i]);
    relay->container_fd[i] = -1;
    relay->caller_fd[i] = caller_fd[i];
  }
  relay->terminal_fd = relay->raw_fd = -1;
}

/* Writes to a terminal go through ocirun's own non-blocking open of it;
 * to a socket through send. */
static void channel_set_output(struct relay_channel *c, int caller_fd)
{
  struct stat st;
  int reopened;

  if (caller_fd < 0 || fstat(caller_fd, &st) < 0)
    return;
  if (S_ISSOCK(st.st_mode))
    c->copy = c->to_socket = true;
  else if (S_ISCHR(st.st_mode) && (reopened = reopen_nonblocking(caller_fd)) >= 0)
    c->to = c->close_after[1] = reopened;
}

int stdio_relay_open(struct stdio_relay *relay, const int caller_fd[3], oci_error_t *err)
{
  relay_init(relay, caller_fd);
  for (int i = 0; i < 3; i++) {
    struct relay_channel *c = &relay->channel[i];
    int pipe_fds[2];
    int ours;

    if (pipe2(pipe_fds, O_CLOEXEC) < 0)
      return oci_error_errno(err, "run: pipe for the container's fd %d", i);
    if (i == 0) {
      relay->container_fd[0] = pipe_fds[0];
      ours = c->close_after[0] = pipe_fds[1];
      c->from = caller_fd[0];
      c->to = ours;
    } else {
      relay->container_fd[i] = pipe_fds[1];
      ours = c->close_after[0] = pipe_fds[0];
      c->from = ours;
      c->to = caller_fd[i];
    }
    (void)fcntl(ours, F_SETPIPE_SZ, RELAY_PIPE_SIZE);
    if (fcntl(ours, F_SETFL, O_NONBLOCK) < 0)
      return oci_error_errno(err, "run: make the relay's end of fd %d non-blocking", i);
    if (caller_fd[i] < 0 && i == 0) {
      channel_finish(c); /* no stdin: the container reads end of file */
      continue;
    }
    if (i > 0)
      channel_set_output(c, caller_fd[i]);
  }
  return 0;
}

int stdio_relay_open_terminal(struct stdio_relay *relay, const int caller_fd[3], oci_error_t *err)
{
  relay_init(relay, caller_fd);
  for (int i = 0; i < 3; i++) {
    relay->container_fd[i] = open("/dev/null", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (relay->container_fd[i] < 0)
      return oci_error_errno(err, "run: open /dev/null");
  }
  return 0;
}

int stdio_relay_attach_terminal(struct stdio_relay *relay, int master, oci_error_t *err)
{
  struct relay_channel *in = &relay->channel[0], *out = &relay->channel[1];
  int raw;

  relay->terminal_fd = master;
  if (fcntl(master, F_SETFL, O_NONBLOCK) < 0)
    return oci_error_errno(err, "run: make the pty's master non-blocking");
  /* splice refuses a tty: read and write */
  if (relay->caller_fd[0] >= 0)
    *in = (struct relay_channel){
        .from = relay->caller_fd[0], .to = master, .copy = true, .close_after = {-1, -1}};
  *out = (struct relay_channel){
      .from = master, .to = relay->caller_fd[1], .copy = true, .close_after = {-1, -1}};
  channel_set_output(out, relay->caller_fd[1]);
  if (stdio_relay_resize(relay, err) < 0)
    return -1;
  raw = console_raw_mode(in->from, &relay->saved, err);
  if (raw < 0)
    return -1;
  if (raw > 0)
    relay->raw_fd = in->from;
  return 0;
}

int stdio_relay_resize(const struct stdio_relay *relay, oci_error_t *err)
{
  unsigned short rows, cols;

  if (relay->terminal_fd >= 0 && console_window_size(relay->caller_fd, 3, &rows, &cols))
    return console_set_size(relay->terminal_fd, rows, cols, err);
  return 0;
}

void stdio_relay_close_container_ends(struct stdio_relay *relay)
{
  for (int i = 0; i < 3; i++) {
    if (relay->container_fd[i] >= 0)
      close(relay->container_fd[i]);
    relay->container_fd[i] = -1;
  }
}

size_t stdio_relay_poll_fds(const struct stdio_relay *relay, struct pollfd *fds)
{
  size_t n = 0;

  for (int i = 0; i < 3; i++) {
    const struct relay_channel *c = &relay->channel[i];

    if (c->from < 0)
      continue;
    if (c->waiting_for_output)
      fds[n++] = (struct pollfd){.fd = c->to, .events = POLLOUT};
    else
      fds[n++] = (struct pollfd){.fd = c->from, .events = POLLIN};
  }
  return n;
}

void stdio_relay_step(struct stdio_relay *relay, const struct pollfd *fds, size_t n)
{
  size_t k = 0;

  /* The same walk as stdio_relay_poll_fds: entry k is channel i's. */
  for (int i = 0; i < 3 && k < n; i++) {
    struct relay_channel *c = &relay->channel[i];

    if (c->from < 0)
      continue;
    if (fds[k].revents & POLLNVAL)
      channel_finish(c);
    else if (fds[k].revents != 0)
      channel_move(c);
    k++;
  }
}

void stdio_relay_stop_input(struct stdio_relay *relay)
{
  channel_finish(&relay->channel[0]);
}

bool stdio_relay_output_open(const struct stdio_relay *relay)
{
  return relay->channel[1].from >= 0 || relay->channel[2].from >= 0;
}

int stdio_relay_clear(struct stdio_relay *relay, oci_error_t *err)
{
  int ret = 0;

  for (int i = 0; i < 3; i++)
    channel_finish(&relay->channel[i]);
  stdio_relay_close_container_ends(relay);
  if (relay->raw_fd >= 0)
    ret = console_restore(relay->raw_fd, &relay->saved, err);
  relay->raw_fd = -1;
  if (relay->terminal_fd >= 0)
    close(relay->terminal_fd);
  relay->terminal_fd = -1;
  return ret;
}

static const struct {
  unsigned major, minor;
  const char *path;
} null_devices[] = {{1, 3, "/dev/null"},
                    {1, 5, "/dev/zero"},
                    {1, 7, "/dev/full"},
                    {1, 8, "/dev/random"},
                    {1, 9, "/dev/urandom"}};
#define N_NULL_DEVICES (sizeof(null_devices) / sizeof(null_devices[0]))

static int null_device_index(const struct stat *st)
{
  if (!S_ISCHR(st->st_mode))
    return -1;
  for (size_t i = 0; i < N_NULL_DEVICES; i++) {
    if (major(st->st_rdev) == null_devices[i].major && minor(st->st_rdev) == null_devices[i].minor)
      return (int)i;
  }
  return -1;
}

/* A pipe or a socket that is nothing but itself: an anonymous pipe
 * (pipefs) or a FIFO whose name is gone (a FIFO made, opened and unlinked,
 * as OCI callers' helpers do), reopened through /proc only as that same
 * pipe; a socket of sockfs, which cannot be reopened. A named FIFO is a
 * file of the caller's filesystem: through the fd, a root process chmods
 * and chowns it, and reopens it the other way (reads what other writers
 * put in it). An O_PATH fd of a socket file says S_ISSOCK too, and
 * connect() to /proc/self/fd/N reaches the socket it names. */
static bool nothing_but_a_channel(int fd, const struct stat *st)
{
  struct statfs fs;

  if (fstatfs(fd, &fs) < 0)
    return false;
  if (S_ISFIFO(st->st_mode))
    return fs.f_type == PIPEFS_MAGIC || st->st_nlink == 0;
  return S_ISSOCK(st->st_mode) && fs.f_type == SOCKFS_MAGIC;
}

/* What a process in a container may be handed of its caller's as its
 * stdio: a pipe or a socket (an OCI caller's own, made for this process,
 * and nothing but a channel: nothing_but_a_channel), or a device every
 * container has anyway (/dev/null, zero, full, random, urandom). Never a
 * terminal (the process would keep it after ocirun returns, read what its
 * user types next, change its modes) nor a file (reopened through
 * /proc/self/fd with the process's own credentials, a file given for
 * reading is written, an append-only log read and truncated). */
static bool may_hand_over(int fd, const struct stat *st)
{
  return nothing_but_a_channel(fd, st) || null_device_index(st) >= 0;
}

static const char *kind_of(const struct stat *st, int fd)
{
  if (S_ISCHR(st->st_mode))
    return isatty(fd) ? "a terminal" : "a device";
  if (S_ISREG(st->st_mode))
    return "a file";
  if (S_ISDIR(st->st_mode))
    return "a directory";
  if (S_ISFIFO(st->st_mode))
    return "a named FIFO (a file of the host)";
  if (S_ISSOCK(st->st_mode))
    return "a socket file (a way to connect to it, not a socket)";
  return "neither a pipe nor a socket";
}

bool stdio_relay_may_hand_over(int fd)
{
  struct stat st;

  return fstat(fd, &st) == 0 && may_hand_over(fd, &st);
}

int stdio_relay_check_hand_over(const int fd[3], const char *what, oci_error_t *err)
{
  static const char *const names[] = {"stdin", "stdout", "stderr"};

  for (int i = 0; i < 3; i++) {
    struct stat st;
    char link[64], target[256] = "";
    ssize_t n;

    if (fstat(fd[i], &st) < 0)
      return oci_error_errno(err, "%s: %s (fd %d)", what, names[i], fd[i]);
    if (may_hand_over(fd[i], &st))
      continue;
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd[i]);
    n = readlink(link, target, sizeof(target) - 1);
    target[n > 0 ? n : 0] = '\0';
    return oci_error_set(err, 0,
                         "%s: %s is %s%s%s%s: the container's process would hold it and could "
                         "reopen it through /proc (write a file given for reading, read what a "
                         "terminal's user types next); give it a pipe or /dev/null, or a terminal "
                         "through --console-socket",
                         what, names[i], kind_of(&st, fd[i]), n > 0 ? " ('" : "", target,
                         n > 0 ? "')" : "");
  }
  return 0;
}

int stdio_relay_own_null_devices(oci_error_t *err)
{
  cleanup_close int root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

  if (root_fd < 0)
    return oci_error_errno(err, "stdio: open the container's root");
  for (int fd = 0; fd < 3; fd++) {
    struct stat given, own;
    cleanup_close int replacement = -1;
    int index, flags, status;

    if (fstat(fd, &given) < 0 || (index = null_device_index(&given)) < 0)
      continue;
    flags = fcntl(fd, F_GETFL);
    if (flags < 0)
      return oci_error_errno(err, "stdio: fd %d", fd);
    /* O_NONBLOCK: the path is the container's, and its workload may have
     * made it a FIFO, whose open would wait for a writer for ever. */
    replacement = in_root_open(root_fd, null_devices[index].path,
                               (flags & O_ACCMODE) | O_NOCTTY | O_NONBLOCK);
    if (replacement < 0 || fstat(replacement, &own) < 0 || null_device_index(&own) != index)
      return oci_error_set(err, replacement < 0 ? errno : 0,
                           "stdio: fd %d is the caller's %s; the container's own %s, which would "
                           "stand in for it, is %s",
                           fd, null_devices[index].path, null_devices[index].path,
                           replacement < 0 ? "missing or unreachable" : "not that device");
    status = fcntl(replacement, F_GETFL);
    if (status < 0 || fcntl(replacement, F_SETFL, status & ~O_NONBLOCK) < 0)
      return oci_error_errno(err, "stdio: the container's %s", null_devices[index].path);
    if (dup2(replacement, fd) < 0)
      return oci_error_errno(err, "stdio: the container's %s onto fd %d", null_devices[index].path,
                             fd);
  }
  return 0;
}
