/* Binds of a host source the front end opened once (ocirun run's -v and
 * --mount), made by the parent before clone3: a mount of another mount
 * namespace cannot be cloned (open_tree answers EINVAL), and the child has
 * a namespace of its own, so the parent clones the very object the front
 * end opened (open_tree on its fd, never its path), with the op's
 * attributes, and the child attaches the detached mount (mount/apply.c).
 * A symlink swapped into the path since it was opened changes nothing.
 * Rootless, the parent may not clone a mount of the host's namespace: the
 * child opens the path again and binds it only if it is the inode the
 * front end opened (mount/apply.c), so a swap fails the run instead. */
#include "config.h"

#include "runtime/mount/mount_plan.h"

#include <errno.h>

#include "runtime/mount/internal.h"

int mount_plan_open_held_binds(struct mount_plan *plan, bool rootless, oci_error_t *err)
{
  for (size_t i = 0; i < plan->n_ops; i++) {
    struct mount_op *op = &plan->ops[i];

    if (op->source_fd < 0 || op->clone_fd >= 0)
      continue;
    if (rootless) {
      op->reopen_checked = true;
      continue;
    }
    op->clone_fd = clone_bind_source(op, op->source_fd);
    if (op->clone_fd < 0)
      return oci_error_errno(err,
                             "%s: clone the bind source %s (open_tree on the fd opened when "
                             "it was given)",
                             mount_op_label(op), op->source);
  }
  return 0;
}

size_t mount_plan_held_bind_fds(const struct mount_plan *plan, int *fds)
{
  size_t n = 0;

  for (size_t i = 0; i < plan->n_ops && n < MOUNT_PLAN_MAX_HELD_BINDS; i++) {
    if (plan->ops[i].clone_fd >= 0)
      fds[n++] = plan->ops[i].clone_fd;
  }
  return n;
}
