/* The one reader for files that come from outside (an image layout's files,
 * an archive, an --env-file): opened without blocking and, inside a layout,
 * without following any link; the type checked before a byte is read; the
 * content read whole up to a bound. */
#ifndef OCI_FILE_READ_H
#define OCI_FILE_READ_H

#include <stddef.h>
#include <sys/stat.h>

#include "error.h"

enum oci_file_scope {
  /* name lies inside dir_fd: no symlink, no "..", no magic link on the way */
  OCI_FILE_BENEATH,
  /* a path the caller typed: its symlinks are the caller's choice */
  OCI_FILE_NAMED,
};

/* Opens dir_fd/name read-only (O_NONBLOCK, O_NOCTTY, O_CLOEXEC) when it is a
 * regular file. Anything else (a FIFO, a device, a socket, a directory, a
 * symlink inside a layout) is refused with a message naming `what` and the
 * type, before the file is opened for reading: a FIFO cannot block, a device
 * is never opened. st receives the file's status. Returns the fd. */
int oci_file_open_regular(int dir_fd, const char *name, enum oci_file_scope scope, const char *what,
                          struct stat *st, oci_error_t *err);

/* Reads fd to its end into a NUL-terminated buffer (caller frees); more than
 * max_size bytes, present at the start or grown while reading, is refused. */
int oci_file_read_fd(int fd, const char *what, size_t max_size, char **out, size_t *length,
                     oci_error_t *err);

/* "a FIFO", "a directory"...: the type of a refused file, for messages. */
const char *oci_file_type_name(mode_t mode);

/* oci_file_open_regular + oci_file_read_fd. */
int oci_file_read(int dir_fd, const char *name, enum oci_file_scope scope, const char *what,
                  size_t max_size, char **out, size_t *length, oci_error_t *err);

#endif
