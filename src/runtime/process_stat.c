/* /proc/PID/stat read as the host shows it (see process_stat.h). */
#include "config.h"

#include "runtime/process_stat.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oci/cleanup.h"

int process_stat_read(int pid, struct process_stat *out, oci_error_t *err)
{
  char path[64], buf[1024];
  cleanup_close int fd = -1;
  ssize_t n;
  char *p;

  snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return oci_error_errno(err, "run state: open '%s'", path);
  n = read(fd, buf, sizeof(buf) - 1);
  if (n < 0)
    return oci_error_errno(err, "run state: read '%s'", path);
  buf[n] = '\0';
  /* comm (field 2) may hold spaces and parentheses: count from the last ')'. */
  p = strrchr(buf, ')');
  if (p == NULL || p[1] != ' ' || p[2] == '\0')
    return oci_error_set(err, 0, "run state: malformed '%s'", path);
  out->state = p[2];
  out->parent = atoi(p + 3);
  p++;
  /* After ')' come fields 3.. ; field 22 is the 20th of them. */
  for (int field = 3; field < 22; field++) {
    p = strchr(p + 1, ' ');
    if (p == NULL)
      return oci_error_set(err, 0, "run state: malformed '%s'", path);
  }
  out->start_time = strtoull(p + 1, NULL, 10);
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
