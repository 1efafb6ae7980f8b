/* The run's cgroup v2 slice: where it is, created before the process starts
 * (clone3 CLONE_INTO_CGROUP takes its fd), frozen and listed, killed and
 * removed after (slice.c makes it, processes.c acts on what is in it). */
#ifndef CGROUP_SLICE_H
#define CGROUP_SLICE_H

#include <stdbool.h>
#include <sys/types.h>

#include "oci/error.h"
#include "runtime/cgroup/limits.h"
#include "runtime/spec/spec.h"

/* Where cgroup2 is mounted: every cgroup ocirun names is below it (an
 * absolute linux.cgroupsPath is rooted here). */
#define CGROUP_MOUNT "/sys/fs/cgroup"
#define CGROUP_DEFAULT_PARENT CGROUP_MOUNT "/ocirun"

struct cgroup_slice {
  char *path; /* absolute, e.g. /sys/fs/cgroup/ocirun/<name> */
  int dir_fd; /* O_PATH|O_DIRECTORY fd for CLONE_INTO_CGROUP, -1 when none */
};

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
 * program built from them (devices.h: default deny, the spec's
 * order). The slice must not exist yet. Rootless, the parent must exist, be
 * delegated to the caller and hold the caller's own cgroup; only its own
 * subtree_control is written, and device_rules must be NULL (an
 * unprivileged user cannot attach a program). On failure whatever was
 * created is removed again. */
int cgroup_slice_create(const char *path, bool rootless, const struct cgroup_limits *limits,
                        const struct spec_device_rule *device_rules, size_t n_device_rules,
                        struct cgroup_slice *slice, oci_error_t *err);
/* For new limits on a live slice (`ocirun update`): enables in the slice's
 * parents, as cgroup_slice_create does, the controllers the limits need
 * that the slice was made without (a container created with no I/O limit
 * has no io.* files until then); rootless, in its delegated parent only.
 * dir_fd is the slice's (cgroup_open_path), path names it in messages; the
 * parents are reached from it by "..", never by path. */
int cgroup_slice_enable(int dir_fd, const char *path, bool rootless,
                        const struct cgroup_limits *limits, oci_error_t *err);
/* Opens the cgroup at `path` (absolute, below CGROUP_MOUNT, plain names) as
 * an O_PATH directory fd: resolved beneath the mount without following a
 * symlink, then checked to be on cgroup2. A recorded path (a container's
 * state, a run record) is acted on only through this fd. ENOENT in the
 * error when it is gone. */
int cgroup_open_path(const char *path, oci_error_t *err);
/* `exec --cgroup SUB`: SUB, plain names below the slice (no empty, '.' or
 * '..' component, not absolute), checked first; then (slice_fd >= 0) opened
 * beneath slice_fd as cgroup_open_path opens a path, never leaving its
 * mount. It must exist (as runc has it): ocirun makes no cgroup for exec.
 * slice_fd -1: the container has no slice, an error. */
int cgroup_open_sub(int slice_fd, const char *sub, oci_error_t *err);

/* The calls below act on the cgroup directory dir_fd (as cgroup_open_path
 * or cgroup_slice_create opened and checked it) and on its descendants,
 * reached from it by fd; path only names it in messages. */

/* Moves the calling process into the cgroup. */
int cgroup_join(int dir_fd, const char *path, oci_error_t *err);
/* Writes cgroup.freeze and waits (bounded) until cgroup.events says so. */
int cgroup_freeze(int dir_fd, const char *path, bool frozen, oci_error_t *err);
/* 1 when cgroup.freeze asks for the cgroup to be frozen, else 0. */
int cgroup_is_frozen(int dir_fd, const char *path, oci_error_t *err);
/* Every pid in cgroup.procs of the cgroup and of its descendants (*pids
 * allocated, NULL when *n is 0). */
int cgroup_list_pids(int dir_fd, const char *path, pid_t **pids, size_t *n, oci_error_t *err);
/* SIGKILL to every process of the cgroup and its descendants: cgroup.kill
 * (Linux 5.14), else cgroup_kill_each. */
int cgroup_kill(int dir_fd, const char *path, oci_error_t *err);
/* cgroup.kill's fallback: SIGKILL to each pid of cgroup_list_pids, through a
 * pidfd used only when a second listing still has the pid (a reused pid is
 * never signalled), until a listing is empty (bounded). */
int cgroup_kill_each(int dir_fd, const char *path, oci_error_t *err);
/* Kills (cgroup_kill), waits until unpopulated, removes the cgroup and its
 * child cgroups (deepest first) and verifies it is gone. Refused unless
 * dir_fd is a cgroup2 directory that is path's last component in its
 * parent (opened from dir_fd). */
int cgroup_remove(int dir_fd, const char *path, oci_error_t *err);
/* memory.events oom_kill > 0 */
bool cgroup_slice_oom_killed(const struct cgroup_slice *slice);
/* cgroup_remove of the slice (by path when it has no fd), then its path and
 * fd released. */
int cgroup_slice_destroy(struct cgroup_slice *slice, oci_error_t *err);
/* cgroup_open_path, then cgroup_remove; 0 when it is gone already (sweep
 * after a crashed runner, a failed create). */
int cgroup_remove_path(const char *path, oci_error_t *err);

#endif
