/* /proc/PID/stat as the host shows it: the fields a process is judged by
 * (its state, its parent, its start time). With the pid, the start time
 * identifies a process even after its pid is reused. */
#ifndef PROCESS_STAT_H
#define PROCESS_STAT_H

#include "oci/error.h"

/* The fields of /proc/PID/stat (the host's) a pid is judged by. */
struct process_stat {
  char state;                    /* field 3: 'Z' for a zombie */
  int parent;                    /* field 4 */
  unsigned long long start_time; /* field 22 */
};
/* The host's /proc/PID/stat of pid, parsed; -1 with *err when it cannot be
 * read (ENOENT: no such process) or is malformed. */
int process_stat_read(int pid, struct process_stat *out, oci_error_t *err);
/* One stat line: the fields are counted from the last ')' (comm may hold
 * spaces and parentheses), state one byte, parent and start time decimal.
 * 0, or -1 (out unchanged) when the line is not in that shape. */
int process_stat_parse(const char *line, struct process_stat *out);

/* Field 22 of /proc/PID/stat (clock ticks after boot): with the pid, it
 * identifies a process even after its pid is reused. */
int process_start_time(int pid, unsigned long long *start_time, oci_error_t *err);

#endif
