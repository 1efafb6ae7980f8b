/* The per-run directory $ROOT/run/<name>/: the mount point of the run's
 * scratch tmpfs (see mount_plan.c). Created before the run, removed (and
 * its absence checked) after. */
#ifndef RUN_DIR_H
#define RUN_DIR_H

#include "oci/error.h"

/* Creates root/run/<name>/rootfs; fails if the directory exists.
 * *path gets the absolute directory (caller frees). */
int run_dir_create(const char *root, const char *name, char **path, oci_error_t *err);
/* Removes the directory and everything in it without following symlinks.
 * Missing is fine. */
int run_dir_remove(const char *path, oci_error_t *err);

#endif
