/* The per-run scratch directory $ROOT/run/<name>/: the overlay's upper and
 * work directories and the root mount point. Created before the run,
 * removed (and its absence checked) after. */
#ifndef RUN_DIR_H
#define RUN_DIR_H

#include "oci/error.h"

/* Creates root/run/<name>/{rootfs,upper,work}; fails if it exists. upper's
 * mode and owner are the rootfs root's, as the overlay root shows them.
 * *path gets the absolute directory (caller frees). */
int run_dir_create(const char *root, const char *name, const char *rootfs, char **path,
                   oci_error_t *err);
/* Removes the directory and everything in it without following symlinks
 * (the upper layer holds whatever the container wrote). Missing is fine. */
int run_dir_remove(const char *path, oci_error_t *err);

#endif
