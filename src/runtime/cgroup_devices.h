/* The run's device policy: Docker's default device allowlist, compiled to a
 * cgroup v2 device program (BPF_PROG_TYPE_CGROUP_DEVICE) attached to the
 * slice before the container's first process is cloned into it. */
#ifndef CGROUP_DEVICES_H
#define CGROUP_DEVICES_H

#include <stdio.h>

#include "oci/error.h"

/* Loads the program and attaches it to the cgroup directory `dir_fd`
 * (path names it in messages). The attachment holds the program: it lives
 * exactly as long as the cgroup, and no fd of it stays open here. */
int cgroup_devices_attach(int dir_fd, const char *path, oci_error_t *err);
/* The rules, one a line ("c 1:3 rwm  /dev/null"), for --dry-run. */
void cgroup_devices_print(FILE *out, const char *indent);

#endif
