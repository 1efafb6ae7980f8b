/* The per-run directory $ROOT/run/<name>/: the mount point of the run's
 * scratch tmpfs (see mount_plan.c), and the config.json `ocirun exec NAME`
 * joins the run with (run_state.c). Created before the run, removed (and
 * its absence checked) after; always reached from the store's checked run
 * folder by fd, one component at a time, never through a symlink. */
#ifndef RUN_DIR_H
#define RUN_DIR_H

#include "oci/error.h"

/* Creates root/run/<name>/rootfs; fails if the directory exists.
 * *mountpoint_fd gets an O_PATH fd of rootfs/, the directory just created:
 * the scratch tmpfs is attached onto that fd, never onto a path. */
int run_dir_create(const char *root, const char *name, int *mountpoint_fd, oci_error_t *err);
/* Removes root/run/<name> and everything in it without following symlinks
 * or crossing into a mount, then checks it is gone. Missing is fine. */
int run_dir_remove(const char *root, const char *name, oci_error_t *err);
/* The same from the run folder's fd (root names it in messages). */
int run_dir_remove_at(int run_fd, const char *root, const char *name, oci_error_t *err);

#endif
