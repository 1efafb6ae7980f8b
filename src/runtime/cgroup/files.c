/* The files of one cgroup directory, read and written by its fd, and the
 * small parsers of what they hold: shared by runtime/cgroup/'s files. */
#include "config.h"

#include "runtime/cgroup/files.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oci/cleanup.h"

/* Reads a small cgroup file (whole content, NUL-terminated). */
int cgroup_file_read_small(int dir_fd, const char *dir_path, const char *file, char *buf,
                           size_t size, oci_error_t *err)
{
  cleanup_close int fd = openat(dir_fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  ssize_t n;
  size_t total = 0;

  if (fd < 0)
    return oci_error_errno(err, "cgroup: open '%s/%s'", dir_path, file);
  while (total + 1 < size) {
    n = read(fd, buf + total, size - 1 - total);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return oci_error_errno(err, "cgroup: read '%s/%s'", dir_path, file);
    if (n == 0)
      break;
    total += (size_t)n;
  }
  buf[total] = '\0';
  return 0;
}

int cgroup_file_write(int dir_fd, const char *dir_path, const char *file, const char *value,
                      oci_error_t *err)
{
  cleanup_close int fd = openat(dir_fd, file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  size_t len = strlen(value);
  ssize_t n;

  if (fd < 0)
    return oci_error_errno(err, "cgroup: open '%s/%s'", dir_path, file);
  do
    n = write(fd, value, len);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return oci_error_errno(err, "cgroup: write '%s' to '%s/%s'", value, dir_path, file);
  if ((size_t)n != len)
    return oci_error_set(err, EIO, "cgroup: short write of '%s' to '%s/%s'", value, dir_path, file);
  return 0;
}

/* Whether a space-separated controller list names `controller`. */
bool cgroup_list_has_word(const char *list, const char *word)
{
  size_t len = strlen(word);
  const char *p = list;

  while ((p = strstr(p, word)) != NULL) {
    bool starts = p == list || p[-1] == ' ' || p[-1] == '\n';
    bool ends = p[len] == '\0' || p[len] == ' ' || p[len] == '\n';
    if (starts && ends)
      return true;
    p += len;
  }
  return false;
}

/* Copies path and strips its last component ("/a/b" -> "/a", "/a" -> "/"). */
void cgroup_path_parent(char *path)
{
  char *slash = strrchr(path, '/');
  if (slash == NULL)
    return;
  if (slash == path)
    slash[1] = '\0';
  else
    *slash = '\0';
}

const char *cgroup_filesystem_name(long type)
{
  switch (type) {
  case CGROUP2_SUPER_MAGIC:
    return "cgroup2";
  case CGROUP_SUPER_MAGIC:
    return "a cgroup v1 hierarchy";
  case TMPFS_MAGIC:
    return "a tmpfs";
  case SYSFS_MAGIC:
    return "sysfs";
  default:
    return "not a cgroup filesystem";
  }
}

/* The value of `key` in a flat-keyed file ("key value" lines), or -1. */
long long cgroup_flat_key_value(const char *content, const char *key)
{
  size_t len = strlen(key);
  const char *line = content;

  while (line != NULL && *line != '\0') {
    if (strncmp(line, key, len) == 0 && line[len] == ' ')
      return strtoll(line + len + 1, NULL, 10);
    line = strchr(line, '\n');
    if (line != NULL)
      line++;
  }
  return -1;
}
