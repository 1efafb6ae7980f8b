/* The run's cgroup v2 slice: created with its limits before the process
 * starts (clone3 CLONE_INTO_CGROUP takes its fd), killed and removed after. */
#ifndef CGROUP_H
#define CGROUP_H

#include <stdbool.h>

#include "oci/error.h"
#include "docker_run/run_config.h"

#define CGROUP_DEFAULT_PARENT "/sys/fs/cgroup/ocirun"

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
/* Creates parent (enabling +memory +cpu +pids) and parent/name, writes
 * memory.max, memory.swap.max, cpu.max, pids.max from config and, unless
 * rootless, attaches the device program (cgroup_devices.h). Rootless,
 * the parent must exist, be delegated to the caller and hold the caller's
 * own cgroup; only the parent's own subtree_control is written. */
int cgroup_slice_create(const char *parent, const char *name, bool rootless,
                        const struct run_config *config, struct cgroup_slice *slice,
                        oci_error_t *err);
/* memory.events oom_kill > 0 */
bool cgroup_slice_oom_killed(const struct cgroup_slice *slice);
/* cgroup.kill, wait until unpopulated, rmdir, verify the directory is gone. */
int cgroup_slice_destroy(struct cgroup_slice *slice, oci_error_t *err);
/* Kills and removes a slice by path (sweep after a crashed runner). */
int cgroup_remove_path(const char *path, oci_error_t *err);

#endif
