/* The files of one cgroup directory, read and written through the
 * directory's fd, and the parsers of what they hold: the one reader, the
 * one writer and the one cgroup.procs parser of runtime/cgroup/. */
#ifndef CGROUP_FILES_H
#define CGROUP_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "oci/error.h"

/* Reads dir_fd/file whole (never through a symlink) into *out, allocated and
 * NUL-terminated; dir_path names the directory in messages. */
int cgroup_file_read(int dir_fd, const char *dir_path, const char *file, char **out,
                     oci_error_t *err);
/* Writes value into dir_fd/file in one write(2), as the kernel takes one
 * value per write (a short write is an error), never through a symlink.
 * The message names the file, the value and dir_path (NULL: none); ENOENT
 * in the error when the file is absent. */
int cgroup_file_write(int dir_fd, const char *dir_path, const char *file, const char *value,
                      oci_error_t *err);

/* The pids read from cgroup.procs files, appended in order. */
struct cgroup_pid_list {
  pid_t *pids;
  size_t n, capacity;
};
/* Appends the pids of a cgroup.procs listing (one decimal pid a line) to
 * list. Anything else (a sign, a space, an empty line, 0, a number above
 * what a pid can be) is an error naming `what`, and nothing is appended. */
int cgroup_procs_parse(const char *content, const char *what, struct cgroup_pid_list *list,
                       oci_error_t *err);

/* Whether a space-separated list (cgroup.controllers) names `word`. */
bool cgroup_list_has_word(const char *list, const char *word);
/* The value of `key` in a flat-keyed file ("key value" lines), or -1. */
long long cgroup_flat_key_value(const char *content, const char *key);
/* Strips path's last component in place ("/a/b" -> "/a", "/a" -> "/"). */
void cgroup_path_parent(char *path);
/* What a statfs f_type is, for messages ("cgroup2", "a tmpfs"...). */
const char *cgroup_filesystem_name(long type);

#endif
