/* The files of one cgroup directory, read and written through the
 * directory's fd, and the parsers of what they hold: see files.h. */
#include "config.h"

#include "runtime/cgroup/files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/file_read.h"

/* The bound of a file read whole: above what any pid_max can fill in
 * cgroup.procs (4194304 pids of 8 bytes). */
#define CGROUP_FILE_MAX (64u << 20)

int cgroup_file_read(int dir_fd, const char *dir_path, const char *file, char **out,
                     oci_error_t *err)
{
  cleanup_close int fd = openat(dir_fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  char what[PATH_MAX + 32];

  *out = NULL;
  if (fd < 0)
    return oci_error_errno(err, "cgroup: open '%s/%s'", dir_path, file);
  snprintf(what, sizeof(what), "cgroup file '%s/%s'", dir_path, file);
  return oci_file_read_fd(fd, what, CGROUP_FILE_MAX, out, NULL, err);
}

int cgroup_file_write(int dir_fd, const char *dir_path, const char *file, const char *value,
                      oci_error_t *err)
{
  cleanup_close int fd = openat(dir_fd, file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  const char *in = dir_path != NULL ? "' in '" : "";
  const char *dir = dir_path != NULL ? dir_path : "";
  size_t len = strlen(value);
  ssize_t n;

  if (fd < 0)
    return oci_error_errno(err, "cgroup: set %s to '%s%s%s': open%s", file, value, in, dir,
                           errno != ENOENT                    ? ""
                           : strncmp(file, "cgroup.", 7) == 0 ? " (this kernel does not have it)"
                                                              : " (its controller is not enabled "
                                                                "here, or this kernel does not "
                                                                "have it)");
  do
    n = write(fd, value, len);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return oci_error_errno(err, "cgroup: set %s to '%s%s%s'", file, value, in, dir);
  if ((size_t)n != len)
    return oci_error_set(err, EIO, "cgroup: set %s to '%s%s%s': short write", file, value, in, dir);
  return 0;
}

static int append_pid(struct cgroup_pid_list *list, pid_t pid, oci_error_t *err)
{
  if (list->n == list->capacity) {
    size_t grown_capacity = list->capacity ? list->capacity * 2 : 16;
    pid_t *grown = realloc(list->pids, grown_capacity * sizeof(*list->pids));
    if (grown == NULL)
      return oci_error_errno(err, "cgroup: allocate");
    list->pids = grown;
    list->capacity = grown_capacity;
  }
  list->pids[list->n++] = pid;
  return 0;
}

int cgroup_procs_parse(const char *content, const char *what, struct cgroup_pid_list *list,
                       oci_error_t *err)
{
  size_t before = list->n, line = 1;

  for (const char *p = content; *p != '\0'; line++) {
    size_t digits = strspn(p, "0123456789");
    long long pid = 0;

    for (size_t i = 0; i < digits && pid <= INT_MAX; i++)
      pid = pid * 10 + (p[i] - '0');
    if (digits == 0 || pid <= 0 || pid > INT_MAX || (p[digits] != '\n' && p[digits] != '\0')) {
      list->n = before;
      return oci_error_set(err, 0, "%s: line %zu is not a pid", what, line);
    }
    if (append_pid(list, (pid_t)pid, err) < 0) {
      list->n = before;
      return -1;
    }
    p += digits + (p[digits] == '\n');
  }
  return 0;
}

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
