/* What `ocirun exec ID|NAME` joins: an OCI container by ID (running; the
 * configuration create kept), or else a live `ocirun run --name NAME` of
 * the same root (the configuration its runner kept); its pid 1, through a
 * pidfd opened before that process was checked, and its slice. */
#ifndef CONTAINER_EXEC_TARGET_H
#define CONTAINER_EXEC_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

#include "oci/error.h"
#include "runtime/spec/spec.h"

struct exec_target {
  struct spec spec;
  pid_t pid;
  int pidfd;         /* of pid, opened before its start time was checked: that very process */
  char *cgroup_path; /* NULL: none */
  bool run;          /* a live `ocirun run`, not an OCI container */
};

/* ID-or-NAME: an OCI container ID under root first, then a live run's
 * name; a name that is both is refused, naming both. target starts as
 * {.pidfd = -1}; exec_target_clear releases it whatever was returned. */
int exec_target_resolve(const char *root, const char *id, struct exec_target *target,
                        oci_error_t *err);
void exec_target_clear(struct exec_target *target);

#endif
