/* The files of one cgroup directory, read and written through its fd, and
 * the small parsers of what they hold: for runtime/cgroup/'s own files. */
#ifndef CGROUP_FILES_H
#define CGROUP_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "oci/error.h"

/* Reads a small cgroup file (whole content, NUL-terminated). */
int cgroup_file_read_small(int dir_fd, const char *dir_path, const char *file, char *buf,
                           size_t size, oci_error_t *err);
int cgroup_file_write(int dir_fd, const char *dir_path, const char *file, const char *value,
                      oci_error_t *err);
/* Whether a space-separated controller list names `word`. */
bool cgroup_list_has_word(const char *list, const char *word);
/* Strips path's last component in place ("/a/b" -> "/a", "/a" -> "/"). */
void cgroup_path_parent(char *path);
/* What a statfs f_type is, for messages ("cgroup2", "a tmpfs"...). */
const char *cgroup_filesystem_name(long type);
/* The value of `key` in a flat-keyed file ("key value" lines), or -1. */
long long cgroup_flat_key_value(const char *content, const char *key);

#endif
