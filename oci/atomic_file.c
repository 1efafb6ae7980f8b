/* Files that appear whole or not at all (see atomic_file.h): the one
 * temporary-file, fsync and rename/link sequence of ocirun. */
#include "config.h"
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "io.h"

int oci_temp_name(char *buffer, size_t size, const char *prefix)
{
  uint32_t random_part = 0;

  if (getrandom(&random_part, sizeof(random_part), 0) != sizeof(random_part))
    random_part = (uint32_t)rand();
  if (snprintf(buffer, size, "%s-%d-%08x", prefix, (int)getpid(), random_part) >= (int)size)
    return -1;
  return 0;
}

int atomic_file_begin(struct atomic_file *file, int temp_dir_fd, const char *prefix, mode_t mode,
                      const char *what, oci_error_t *err)
{
  file->temp_dir_fd = temp_dir_fd;
  file->fd = -1;
  file->what = what;
  if (oci_temp_name(file->temp, sizeof(file->temp), prefix) < 0)
    return oci_error_set(err, ENAMETOOLONG, "name a temporary file for %s", what);
  /* O_CREAT | O_EXCL: a new file, never one (or a symlink) already there. */
  file->fd = openat(temp_dir_fd, file->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (file->fd < 0)
    return oci_error_errno(err, "create a temporary file for %s", what);
  return 0;
}

int atomic_file_write(struct atomic_file *file, const void *data, size_t length, oci_error_t *err)
{
  if (oci_write_all(file->fd, data, length) < 0) {
    oci_error_errno(err, "write %s", file->what);
    atomic_file_discard(file);
    return -1;
  }
  return 0;
}

int atomic_file_commit(struct atomic_file *file, int dir_fd, const char *name,
                       enum atomic_file_existing existing, oci_error_t *err)
{
  /* The data must be on disk before a name points at it. */
  if (fsync(file->fd) < 0) {
    oci_error_errno(err, "fsync %s", file->what);
    goto fail;
  }
  if (existing == ATOMIC_FILE_REPLACE) {
    if (renameat(file->temp_dir_fd, file->temp, dir_fd, name) < 0) {
      oci_error_errno(err, "rename %s into place", file->what);
      goto fail;
    }
  } else {
    /* Unlike rename(2), link(2) fails when the name exists. */
    if (linkat(file->temp_dir_fd, file->temp, dir_fd, name, 0) < 0) {
      oci_error_errno(err, "link %s into place", file->what);
      goto fail;
    }
    if (unlinkat(file->temp_dir_fd, file->temp, 0) < 0) {
      oci_error_errno(err, "remove the temporary name of %s", file->what);
      goto fail;
    }
  }
  close(file->fd);
  file->fd = -1;
  /* The new name is durable only once its directory is. */
  if (fsync(dir_fd) < 0)
    return oci_error_errno(err, "fsync the directory of %s", file->what);
  return 0;
fail:
  atomic_file_discard(file);
  return -1;
}

void atomic_file_discard(struct atomic_file *file)
{
  if (file->fd < 0)
    return;
  close(file->fd);
  file->fd = -1;
  unlinkat(file->temp_dir_fd, file->temp, 0);
}
