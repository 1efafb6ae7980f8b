/* /proc/PID/stat read as the host shows it (see process_stat.h). */
#include "config.h"

#include "runtime/process_stat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oci/cleanup.h"

/* A decimal field at *p, which must end in ' ' or the end of the line; *p
 * moves past it and its space. */
static bool field_number(const char **p, unsigned long long *value)
{
  char *end;

  if (**p < '0' || **p > '9')
    return false;
  errno = 0;
  *value = strtoull(*p, &end, 10);
  if (errno != 0 || (*end != ' ' && *end != '\n' && *end != '\0'))
    return false;
  *p = *end == ' ' ? end + 1 : end;
  return true;
}

/* The field after *p's, *p moved past its space (false at the end). */
static bool field_skip(const char **p)
{
  const char *space = strchr(*p, ' ');

  if (space == NULL || space == *p)
    return false;
  *p = space + 1;
  return true;
}

int process_stat_parse(const char *line, struct process_stat *out)
{
  /* comm (field 2) may hold spaces and parentheses: the fields the kernel
   * writes start after the last ')'. */
  const char *p = strrchr(line, ')');
  unsigned long long parent, start_time;
  char state;

  if (p == NULL || p[1] != ' ' || p[2] == '\0' || p[2] == ' ' || p[3] != ' ')
    return -1;
  state = p[2];
  p += 4;
  if (!field_number(&p, &parent) || parent > INT32_MAX)
    return -1;
  /* fields 5 to 21, then the start time, field 22 */
  for (int field = 5; field < 22; field++)
    if (!field_skip(&p))
      return -1;
  if (!field_number(&p, &start_time))
    return -1;
  out->state = state;
  out->parent = (int)parent;
  out->start_time = start_time;
  return 0;
}

int process_stat_read(int pid, struct process_stat *out, oci_error_t *err)
{
  char path[64], buf[1024];
  cleanup_close int fd = -1;
  ssize_t n;

  snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return oci_error_errno(err, "run state: open '%s'", path);
  n = read(fd, buf, sizeof(buf) - 1);
  if (n < 0)
    return oci_error_errno(err, "run state: read '%s'", path);
  buf[n] = '\0';
  if (process_stat_parse(buf, out) < 0)
    return oci_error_set(err, 0, "run state: malformed '%s'", path);
  return 0;
}

int process_start_time(int pid, unsigned long long *start_time, oci_error_t *err)
{
  struct process_stat stat;

  if (process_stat_read(pid, &stat, err) < 0)
    return -1;
  *start_time = stat.start_time;
  return 0;
}
