/* The writable layer of an `ocirun run` root: where it lives (on disk in
 * the run dir by default, or a tmpfs) and how big it may grow. A tmpfs is
 * bounded by its size=; the disk layer by the runner, which measures it
 * while it supervises the run and kills the run once it is past its bound
 * (a soft bound: there is no project quota on a plain ext4). */
#ifndef WRITABLE_LAYER_H
#define WRITABLE_LAYER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/error.h"
#include "runtime/mount/mount_plan.h"
#include "runtime/state/root.h"

/* The defaults, in bytes: 10 GiB on disk, 64 MiB of memory (docker's
 * /dev/shm). See docs/runtime.md, "The writable layer". */
#define WRITABLE_LAYER_DISK_DEFAULT (UINT64_C(10) << 30)
#define WRITABLE_LAYER_TMPFS_DEFAULT (UINT64_C(64) << 20)

/* What the parent holds of the layer for the whole run. */
struct writable_layer {
  int mountpoint_fd; /* the run dir's rootfs/, where the root is attached; -1 */
  int upper_fd;      /* disk: upper/, measured while the run lives; -1 */
  uint64_t bound;    /* bytes */
  uint64_t bytes;    /* the last measure */
  bool join_userns;  /* rootless: the measure runs in the container's user namespace */
  pid_t walker;      /* the process measuring now, or -1 */
  int walker_fd;     /* its report (non-blocking), or -1 */
  int64_t walk_started_ms, next_walk_ms;
};

/* A disk layer needs a store on a filesystem overlayfs takes as an upper
 * layer. When the store's is not one (9p, NFS, SMB, FUSE, overlay...),
 * root->layer becomes ROOT_LAYER_TMPFS and root->layer_fallback names that
 * filesystem (a static string). Nothing else changes. */
int writable_layer_choose(const struct state_root *state, struct mount_root *root,
                          oci_error_t *err);

/* Creates the run dir (rootfs/; with a disk layer also upper/ and work/)
 * and records in plan the mount point's identity, which the child checks.
 * join_userns: the run has its own user namespace. */
int writable_layer_create(struct writable_layer *layer, const struct state_root *state,
                          const char *name, const struct mount_root *root, bool join_userns,
                          struct mount_plan *plan, oci_error_t *err);

/* The periodic check, from the wait loop while pid 1 lives (pidfd): a
 * measure is started in a child process at most once per interval (1 s, or
 * ten times the last measure's own time when longer; the first one second
 * after the first call), and its report
 * collected on a later call. Returns 1 when the last measure (layer->bytes)
 * is past the bound, 0 when not or not known yet, -1 when the layer could
 * not be measured (the run must then end: fail closed). *next_ms: when to
 * call again (monotonic; INT64_MAX: never). */
int writable_layer_check(struct writable_layer *layer, int pidfd, int64_t now_ms, int64_t *next_ms,
                         oci_error_t *err);

/* Ends a measure still running and closes the fds. */
void writable_layer_close(struct writable_layer *layer);

/* The bytes allocated in the tree dir_fd is the top of (st_blocks: what it
 * takes on disk; a file of n links counted 1/n at each), never following a
 * symlink, never crossing into another filesystem, with an explicit stack
 * of at most WRITABLE_LAYER_MAX_DEPTH open directories (deeper fails). */
#define WRITABLE_LAYER_MAX_DEPTH 256
int writable_layer_measure(int dir_fd, uint64_t *bytes, oci_error_t *err);

#endif
