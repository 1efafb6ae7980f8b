/* The container's terminal: the pty made inside the container and its
 * master sent out (create, exec and run share this one path), and the
 * caller's side of it (see console.h for why it is made this way). */
#include "config.h"

#include "runtime/console.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/in_root.h"

dev_t console_host_devpts(void)
{
  struct stat st;

  return stat("/dev/pts", &st) == 0 ? st.st_dev : 0;
}

int unix_socket_connect(const char *path, const char *what, oci_error_t *err)
{
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  int fd;

  if (strlen(path) >= sizeof(address.sun_path))
    return oci_error_set(err, 0, "%s '%s': the path is too long", what, path);
  strcpy(address.sun_path, path);
  fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return oci_error_errno(err, "%s '%s': socket", what, path);
  if (connect(fd, (struct sockaddr *)&address, sizeof(address)) < 0) {
    int saved = errno;
    close(fd);
    return oci_error_set(err, saved, "%s '%s': connect", what, path);
  }
  return fd;
}

int console_socket_connect(const char *path, oci_error_t *err)
{
  return unix_socket_connect(path, "--console-socket", err);
}

int unix_send_fd(int socket_fd, int fd, const void *payload, size_t length)
{
  char control[CMSG_SPACE(sizeof(int))] = {0};
  char byte = 0;
  struct iovec iov = {.iov_base = length > 0 ? (void *)payload : &byte,
                      .iov_len = length > 0 ? length : 1};
  struct msghdr message = {
      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control)};
  struct cmsghdr *header = CMSG_FIRSTHDR(&message);
  ssize_t sent;

  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(header), &fd, sizeof(int));
  sent = sendmsg(socket_fd, &message, MSG_NOSIGNAL);
  if (sent < 0)
    return -1;
  if ((size_t)sent != iov.iov_len) {
    errno = EMSGSIZE; /* a stream socket's short send: the state is cut */
    return -1;
  }
  return 0;
}

/* The peer must be a pty of a devpts that is not ocirun's own: a
 * container's /dev/ptmx that led to the host's pty multiplexer would hand
 * the container a host terminal (the CVE-2016-9962 class). */
static int check_peer(int peer, dev_t host_devpts, oci_error_t *err)
{
  struct statfs fs;
  struct stat st;

  if (fstatfs(peer, &fs) < 0 || fstat(peer, &st) < 0)
    return oci_error_errno(err, "process.terminal: inspect the pty's peer");
  if (fs.f_type != DEVPTS_SUPER_MAGIC || !S_ISCHR(st.st_mode))
    return oci_error_set(err, 0,
                         "process.terminal: the container's /dev/ptmx did not give a "
                         "devpts pty");
  if (host_devpts != 0 && st.st_dev == host_devpts)
    return oci_error_set(err, 0,
                         "process.terminal: refused: the container's /dev/ptmx is the "
                         "host's devpts, not the container's own");
  return 0;
}

int console_setup(int socket_fd, const struct spec_process *process, dev_t host_devpts,
                  bool controlling, oci_error_t *err)
{
  cleanup_close int root = -1, master = -1, peer = -1;
  int unlock = 0;

  root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0)
    return oci_error_errno(err, "process.terminal: open the container's root");
  master = in_root_open(root, "/dev/ptmx", O_RDWR | O_NOCTTY);
  if (master < 0)
    return oci_error_errno(err, "process.terminal: open the container's /dev/ptmx");
  if (ioctl(master, TIOCSPTLCK, &unlock) < 0)
    return oci_error_errno(err, "process.terminal: unlock the pty");
  /* From the master, never by a path the container could have swapped. */
  peer = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (peer < 0)
    return oci_error_errno(err, "process.terminal: open the pty's peer");
  if (check_peer(peer, host_devpts, err) < 0)
    return -1;
  if (process->console_height > 0 || process->console_width > 0) {
    struct winsize size = {.ws_row = (unsigned short)process->console_height,
                           .ws_col = (unsigned short)process->console_width};
    if (ioctl(peer, TIOCSWINSZ, &size) < 0)
      return oci_error_errno(err, "process.consoleSize: set the pty's size");
  }
  if (unix_send_fd(socket_fd, master, NULL, 0) < 0)
    return oci_error_errno(err, "process.terminal: send the pty's master to the console socket");
  close(master);
  master = -1;
  for (int i = 0; i < 3; i++) {
    if (dup2(peer, i) < 0)
      return oci_error_errno(err, "process.terminal: the pty as fd %d", i);
  }
  if (controlling && ioctl(0, TIOCSCTTY, 0) < 0)
    return oci_error_errno(err, "process.terminal: make the pty the controlling terminal");
  return 0;
}

int console_receive(int socket_fd, oci_error_t *err)
{
  char control[CMSG_SPACE(sizeof(int))] = {0};
  char byte;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr message = {
      .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control)};
  struct cmsghdr *header;
  ssize_t n;
  int fd = -1;

  do
    n = recvmsg(socket_fd, &message, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return oci_error_errno(err, "process.terminal: receive the pty's master");
  header = CMSG_FIRSTHDR(&message);
  if (n == 0 || header == NULL || header->cmsg_level != SOL_SOCKET ||
      header->cmsg_type != SCM_RIGHTS || header->cmsg_len != CMSG_LEN(sizeof(int)))
    return oci_error_set(err, 0, "process.terminal: the container's process sent no pty");
  memcpy(&fd, CMSG_DATA(header), sizeof(int));
  if (!isatty(fd)) {
    close(fd);
    return oci_error_set(err, 0,
                         "process.terminal: what the container's process sent is no "
                         "terminal");
  }
  return fd;
}

int console_raw_mode(int fd, struct termios *saved, oci_error_t *err)
{
  struct termios raw;

  if (fd < 0 || !isatty(fd))
    return 0;
  if (tcgetattr(fd, saved) < 0)
    return oci_error_errno(err, "terminal: read the settings of fd %d", fd);
  raw = *saved;
  cfmakeraw(&raw);
  if (tcsetattr(fd, TCSADRAIN, &raw) < 0)
    return oci_error_errno(err, "terminal: raw mode on fd %d", fd);
  return 1;
}

int console_restore(int fd, const struct termios *saved, oci_error_t *err)
{
  int ret;

  do
    ret = tcsetattr(fd, TCSADRAIN, saved);
  while (ret < 0 && errno == EINTR);
  if (ret < 0)
    return oci_error_errno(err, "terminal: restore the settings of fd %d (it stays raw)", fd);
  return 0;
}

bool console_window_size(const int *fds, size_t n, unsigned short *rows, unsigned short *cols)
{
  for (size_t i = 0; i < n; i++) {
    struct winsize size;

    if (fds[i] >= 0 && ioctl(fds[i], TIOCGWINSZ, &size) == 0 && size.ws_row > 0) {
      *rows = size.ws_row;
      *cols = size.ws_col;
      return true;
    }
  }
  return false;
}

int console_set_size(int master, unsigned short rows, unsigned short cols, oci_error_t *err)
{
  struct winsize size = {.ws_row = rows, .ws_col = cols};

  if (ioctl(master, TIOCSWINSZ, &size) < 0)
    return oci_error_errno(err, "terminal: set the pty's size to %ux%u", rows, cols);
  return 0;
}
