/* Whole-buffer writes: write(2) may write less than asked or be
 * interrupted; callers want all or an error. */
#ifndef OCI_IO_H
#define OCI_IO_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

/* Returns 0 when every byte was written, -1 with errno set otherwise. */
static inline int oci_write_all(int fd, const void *data, size_t length)
{
  const char *p = data;
  while (length > 0) {
    ssize_t n = write(fd, p, length);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    p += n;
    length -= (size_t)n;
  }
  return 0;
}

#endif
