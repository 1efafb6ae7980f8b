/* The bounded reader of files that come from outside: see file_read.h. */
#include "config.h"
#include "file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "cleanup.h"
#include "in_root.h"

const char *oci_file_type_name(mode_t mode)
{
  switch (mode & S_IFMT) {
  case S_IFIFO:
    return "a FIFO";
  case S_IFCHR:
    return "a character device";
  case S_IFBLK:
    return "a block device";
  case S_IFSOCK:
    return "a socket";
  case S_IFDIR:
    return "a directory";
  case S_IFLNK:
    return "a symbolic link";
  default:
    return "not a regular file";
  }
}

static int open_scoped(int dir_fd, const char *name, enum oci_file_scope scope, int flags)
{
  /* openat2 refuses O_PATH with any flag but a few: no O_NOCTTY there. */
  int all_flags = flags | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY);

  if (scope == OCI_FILE_NAMED)
    return openat(dir_fd, name, all_flags);
  return oci_openat2(dir_fd, name, all_flags,
                     RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS);
}

int oci_file_open_regular(int dir_fd, const char *name, enum oci_file_scope scope, const char *what,
                          struct stat *st, oci_error_t *err)
{
  cleanup_close int probe_fd = -1;
  cleanup_close int fd = -1;
  struct stat opened;

  /* O_PATH opens nothing: the type is known before a FIFO could block the
   * open or a device could act on it. */
  probe_fd = open_scoped(dir_fd, name, scope, O_PATH);
  if (probe_fd < 0 && errno == ELOOP && scope == OCI_FILE_BENEATH)
    return oci_error_set(err, 0, "%s is a symbolic link or passes through one: refused", what);
  if (probe_fd < 0 && errno == EXDEV)
    return oci_error_set(err, 0, "%s leads out of its directory: refused", what);
  if (probe_fd < 0)
    return oci_error_errno(err, "open %s", what);
  if (fstat(probe_fd, st) < 0)
    return oci_error_errno(err, "stat %s", what);
  if (!S_ISREG(st->st_mode))
    return oci_error_set(err, 0, "%s is %s, not a regular file: refused", what,
                         oci_file_type_name(st->st_mode));
  /* Opened again by name: O_NONBLOCK in case it was swapped for a FIFO in
   * between, which the inode comparison then catches. */
  fd = open_scoped(dir_fd, name, scope, O_RDONLY | O_NONBLOCK);
  if (fd < 0)
    return oci_error_errno(err, "open %s", what);
  if (fstat(fd, &opened) < 0)
    return oci_error_errno(err, "stat %s", what);
  if (!S_ISREG(opened.st_mode) || opened.st_dev != st->st_dev || opened.st_ino != st->st_ino)
    return oci_error_set(err, 0, "%s was replaced while it was opened: refused", what);
  *st = opened;
  return steal_fd(&fd);
}

int oci_file_read_fd(int fd, const char *what, size_t max_size, char **out, size_t *length,
                     oci_error_t *err)
{
  cleanup_free char *buffer = NULL;
  struct stat st;
  size_t capacity, done = 0;

  if (fstat(fd, &st) < 0)
    return oci_error_errno(err, "stat %s", what);
  if (st.st_size < 0 || (uint64_t)st.st_size > max_size)
    return oci_error_set(err, 0, "%s: size %lld exceeds the limit of %zu bytes", what,
                         (long long)st.st_size, max_size);
  /* One byte past the size shows EOF; the bound holds even if it grows. */
  capacity = (size_t)st.st_size + 2;
  buffer = malloc(capacity);
  if (buffer == NULL)
    return oci_error_set(err, ENOMEM, "read %s", what);
  for (;;) {
    ssize_t n;
    if (done + 1 == capacity) {
      size_t grown = capacity * 2 > max_size + 2 ? max_size + 2 : capacity * 2;
      char *bigger;
      if (grown <= capacity)
        return oci_error_set(err, 0, "%s: exceeds the limit of %zu bytes", what, max_size);
      bigger = realloc(buffer, grown);
      if (bigger == NULL)
        return oci_error_set(err, ENOMEM, "read %s", what);
      buffer = bigger;
      capacity = grown;
    }
    n = read(fd, buffer + done, capacity - 1 - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return oci_error_errno(err, "read %s", what);
    if (n == 0)
      break;
    done += (size_t)n;
    if (done > max_size)
      return oci_error_set(err, 0, "%s: exceeds the limit of %zu bytes", what, max_size);
  }
  buffer[done] = '\0';
  *out = steal_pointer(&buffer);
  if (length != NULL)
    *length = done;
  return 0;
}

int oci_file_read(int dir_fd, const char *name, enum oci_file_scope scope, const char *what,
                  size_t max_size, char **out, size_t *length, oci_error_t *err)
{
  struct stat st;
  cleanup_close int fd = oci_file_open_regular(dir_fd, name, scope, what, &st, err);

  if (fd < 0)
    return -1;
  return oci_file_read_fd(fd, what, max_size, out, length, err);
}
