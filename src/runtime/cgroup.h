/* The run's cgroup v2 slice: its limits as data (built from the spec's
 * linux.resources), created before the process starts (clone3
 * CLONE_INTO_CGROUP takes its fd), frozen and listed, killed and removed after. */
#ifndef CGROUP_H
#define CGROUP_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "oci/error.h"
#include "runtime/spec/spec.h"

#define CGROUP_DEFAULT_PARENT "/sys/fs/cgroup/ocirun"
/* Where an absolute linux.cgroupsPath is rooted. */
#define CGROUP_MOUNT "/sys/fs/cgroup"

struct cgroup_slice {
  char *path; /* absolute, e.g. /sys/fs/cgroup/ocirun/<name> */
  int dir_fd; /* O_PATH|O_DIRECTORY fd for CLONE_INTO_CGROUP, -1 when none */
};

struct cgroup_limit {
  char *file;  /* "memory.max": a plain file name of the slice's directory */
  char *value; /* "536870912" */
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
/* One "file: value" line per pair ("(none)" when empty). */
void cgroup_limits_print(const struct cgroup_limits *limits, FILE *out, const char *indent);
void cgroup_limits_clear(struct cgroup_limits *limits);
/* Writes every pair into the cgroup directory dir_fd, in order; the error
 * names the file and the value. */
int cgroup_limits_write(int dir_fd, const struct cgroup_limits *limits, oci_error_t *err);

/* Fails with a clear message unless the parent is on cgroup v2 and memory,
 * cpu and pids can be enabled for it (hybrid v1 hosts fail here). */
int cgroup_check_host(const char *parent, oci_error_t *err);
/* The parent of the run's slice: the one asked for; else, as root,
 * CGROUP_DEFAULT_PARENT; else (rootless) the parent of the caller's own
 * cgroup, the usual shape of a delegation (systemd's user@UID.service holds
 * the caller's scope). *parent is allocated. */
int cgroup_resolve_parent(const char *requested, bool rootless, char **parent, oci_error_t *err);
/* The slice's absolute path from linux.cgroupsPath. NULL: ocirun's default,
 * CGROUP_DEFAULT_PARENT/<id> as root, the delegated parent/<id> rootless.
 * Absolute: below CGROUP_MOUNT (the spec: relative to the cgroups mount).
 * Relative: below the default parent (the spec leaves the base to the
 * runtime). "." and ".." and empty components are refused, and so is
 * systemd's "slice:prefix:name" (there is no --systemd-cgroup). */
int cgroup_slice_path(const char *cgroups_path, const char *id, bool rootless, char **path,
                      oci_error_t *err);
/* Checks the host once (cgroup2, controllers), creates the slice (and its
 * missing parents, enabling in each the controllers the limits need),
 * writes the limits and, when device_rules is not NULL, attaches the device
 * program built from them (cgroup_devices.h: default deny, the spec's
 * order). The slice must not exist yet. Rootless, the parent must exist, be
 * delegated to the caller and hold the caller's own cgroup; only its own
 * subtree_control is written, and device_rules must be NULL (an
 * unprivileged user cannot attach a program). On failure whatever was
 * created is removed again. */
int cgroup_slice_create(const char *path, bool rootless, const struct cgroup_limits *limits,
                        const struct spec_device_rule *device_rules, size_t n_device_rules,
                        struct cgroup_slice *slice, oci_error_t *err);
/* Writes cgroup.freeze and waits (bounded) until cgroup.events says so. */
int cgroup_freeze(const char *path, bool frozen, oci_error_t *err);
/* Every pid in cgroup.procs of path and of its descendants (*pids
 * allocated, NULL when *n is 0). */
int cgroup_list_pids(const char *path, pid_t **pids, size_t *n, oci_error_t *err);
/* memory.events oom_kill > 0 */
bool cgroup_slice_oom_killed(const struct cgroup_slice *slice);
/* cgroup.kill, wait until unpopulated, rmdir, verify the directory is gone. */
int cgroup_slice_destroy(struct cgroup_slice *slice, oci_error_t *err);
/* Kills and removes a slice by path (sweep after a crashed runner). */
int cgroup_remove_path(const char *path, oci_error_t *err);

#endif
