/* linux.resources as cgroup v2 (file, value) pairs: built once from the spec,
 * written by one loop, printed by --dry-run, reused by `ocirun update`. */
#ifndef CGROUP_LIMITS_H
#define CGROUP_LIMITS_H

#include <stdbool.h>
#include <stdio.h>

#include "oci/error.h"
#include "runtime/spec/spec.h"

struct cgroup_limit {
  char *file;      /* "memory.max": a plain file name of the slice's directory */
  char *value;     /* "536870912" */
  bool if_present; /* the kernel may not have the file (io.bfq.weight without BFQ): its
                      absence skips the pair */
};
struct cgroup_limits {
  struct cgroup_limit *items;
  size_t n;
};

/* The (file, value) pairs linux.resources means on cgroup v2, built once:
 * written by one loop, printed by --dry-run, reused by `ocirun update`.
 * Refuses (naming the field) values the kernel would refuse or that mean
 * something else than asked, and unified keys that are not a plain
 * "controller.file", that could move or kill processes, or that repeat a
 * file a converted field already sets. *out is cleared first; on failure
 * it is left empty. resources may be NULL (no limits). */
int cgroup_limits_build(const struct spec_resources *resources, struct cgroup_limits *out,
                        oci_error_t *err);
/* One "file: value" line per pair ("(none)" when empty); a pair written
 * only where the kernel has the file says so after its value. */
void cgroup_limits_print(const struct cgroup_limits *limits, FILE *out, const char *indent);
void cgroup_limits_clear(struct cgroup_limits *limits);
/* Writes every pair into the cgroup directory dir_fd, in order; the error
 * names the file and the value. */
int cgroup_limits_write(int dir_fd, const struct cgroup_limits *limits, oci_error_t *err);

#endif
