/* Files that appear whole or not at all: written under a temporary name,
 * fsynced, then renamed (or linked) to their final name and the directory
 * fsynced. Every step that fails removes the temporary name itself, so a
 * caller chains them with || and has nothing to clean up:
 *
 *   if (atomic_file_begin(&file, dir_fd, ".prefix", 0644, "what", err) < 0 ||
 *       atomic_file_write(&file, data, length, err) < 0 ||
 *       atomic_file_commit(&file, dir_fd, "name", ATOMIC_FILE_REPLACE, err) < 0)
 *     return -1;
 */
#ifndef OCI_ATOMIC_FILE_H
#define OCI_ATOMIC_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"

struct atomic_file {
  int temp_dir_fd;  /* the directory of the temporary name (borrowed) */
  int fd;           /* the temporary file; -1 once committed or discarded */
  const char *what; /* names the final file in error messages (borrowed) */
  char temp[256];   /* the temporary name: PREFIX-<pid>-<random> */
};

/* What commit does when the final name exists. */
enum atomic_file_existing {
  ATOMIC_FILE_REPLACE,    /* rename(2): replaced; readers see old or new */
  ATOMIC_FILE_NO_REPLACE, /* link(2): fails with EEXIST (the error's
                             errno_value), so only one writer gets the name */
};

/* A name for a temporary file or directory that no other process will
 * pick: PREFIX-<pid>-<random>. -1 when it does not fit in size. */
int oci_temp_name(char *buffer, size_t size, const char *prefix);

/* Creates temp_dir_fd/PREFIX-<pid>-<random>, mode as given (less the
 * umask). what names the final file in messages ("the artifact /x/a"). */
int atomic_file_begin(struct atomic_file *file, int temp_dir_fd, const char *prefix, mode_t mode,
                      const char *what, oci_error_t *err);
/* Appends a whole buffer; discards the file on failure. */
int atomic_file_write(struct atomic_file *file, const void *data, size_t length, oci_error_t *err);
/* fsyncs the file, gives it the name dir_fd/name, removes the temporary
 * name and fsyncs dir_fd. Closes the file; on failure also discards it.
 * dir_fd may differ from temp_dir_fd on the same filesystem. */
int atomic_file_commit(struct atomic_file *file, int dir_fd, const char *name,
                       enum atomic_file_existing existing, oci_error_t *err);
/* Closes and removes an uncommitted file; a no-op once it is closed. */
void atomic_file_discard(struct atomic_file *file);

#endif
