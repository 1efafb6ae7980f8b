/* The per-run directory $ROOT/run/<name>/: the mount point of the run's
 * root (rootfs/), the overlay's upper/ and work/ when the writable layer is
 * on disk (see mount_plan.c, writable_layer.c), and the config.json
 * `ocirun exec NAME` joins the run with (run_state.c). Created before the
 * run, removed (and its absence checked) after; always reached from the
 * store's checked run folder by fd, one component at a time, never through
 * a symlink. */
#ifndef RUN_DIR_H
#define RUN_DIR_H

#include <sys/stat.h>

#include "oci/error.h"
#include "runtime/state/root.h"

/* Creates run/<name>/rootfs in the run folder state holds (which must
 * exist); fails if the directory exists.
 * *mountpoint_fd gets an O_PATH fd of rootfs/, the directory just created:
 * the root is attached onto that fd, never onto a path. With upper_like
 * (the lower's root directory), also upper/ with its owner and mode and an
 * empty work/, and *upper_fd an O_RDONLY fd of upper/ (else -1). */
int run_dir_create(const struct state_root *state, const char *name, const struct stat *upper_like,
                   int *mountpoint_fd, int *upper_fd, oci_error_t *err);
/* Removes run/<name> and everything in it without following symlinks
 * or crossing into a mount, then checks it is gone. Missing is fine. Run
 * without privilege, what the removal cannot reach (a directory a
 * container's other user made, owned by an id of the caller's subordinate
 * range) is removed again in a user namespace of that range's map. */
int run_dir_remove(const struct state_root *state, const char *name, oci_error_t *err);
/* The same from the run folder's fd (root names it in messages). */
int run_dir_remove_at(int run_fd, const char *root, const char *name, oci_error_t *err);

#endif
