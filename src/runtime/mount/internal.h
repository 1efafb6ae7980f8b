/* What the files of runtime/mount/ share (not for anyone else): an op's
 * label for messages (plan.c), and the landing checks every step that
 * makes a target calls (landing.c). */
#ifndef RUNTIME_MOUNT_INTERNAL_H
#define RUNTIME_MOUNT_INTERNAL_H

#include <stdbool.h>

#include "oci/error.h"
#include "runtime/mount/mount_plan.h"

/* What an op came from ("config.json: mounts[2]"), else its kind's name. */
const char *mount_op_label(const struct mount_op *op);

/* mkdir -p inside the root (oci/in_root.c); 0 or -1 with errno. */
int make_directories_in_root(int root_fd, const char *path);
/* Where op's target lands is allowed: checked on the deepest part that
 * exists (target_fd -1), or on the target itself. */
int check_landing(const struct mount_op *op, int root_fd, int target_fd, oci_error_t *err);
/* op's target opened O_PATH (created as a directory or an empty file when
 * missing, never through a symlink), its landing checked before and after. */
int open_checked_target(const struct mount_op *op, int root_fd, bool directory, oci_error_t *err);
/* A bind's source (an O_PATH fd) cloned as op says, its attributes set: a
 * detached mount, or -1 with errno (apply.c). */
int clone_bind_source(const struct mount_op *op, int source_fd);

#endif
