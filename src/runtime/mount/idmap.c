/* Idmapped binds, made by the parent before clone3: the kernel idmaps a
 * mount only for a holder of CAP_SYS_ADMIN over the source's filesystem
 * (the host's, for a bind), which the child in its own user namespace is
 * not. Each source is cloned (open_tree), given the op's attributes and
 * idmapped (mount_setattr MOUNT_ATTR_IDMAP) through the user namespace of
 * a helper process that has the op's mappings and exits at once; the
 * child inherits the detached mount and attaches it (mount/apply.c). */
#include "config.h"

#include "runtime/mount/mount_plan.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "runtime/mount/internal.h"

/* A user namespace with map, held by an fd: a helper is cloned into a new
 * one, mapped (userns_map_write) while it waits on a pipe, its namespace
 * opened, and it is let go and reaped. */
static int open_mapped_user_namespace(const struct userns_map *map, const char *what,
                                      oci_error_t *err)
{
  struct clone_args args = {.flags = CLONE_NEWUSER, .exit_signal = SIGCHLD};
  char path[64];
  int hold[2];
  int ns_fd = -1;
  long pid;

  if (pipe2(hold, O_CLOEXEC) < 0)
    return oci_error_errno(err, "%s: idmap: pipe", what);
  pid = syscall(SYS_clone3, &args, sizeof(args));
  if (pid == 0) {
    char byte;

    close(hold[1]);
    (void)!read(hold[0], &byte, 1);
    _exit(0);
  }
  close(hold[0]);
  if (pid < 0) {
    close(hold[1]);
    return oci_error_errno(err, "%s: idmap: clone3 a helper into a new user namespace", what);
  }
  if (userns_map_write(map, (pid_t)pid, err) == 0) {
    snprintf(path, sizeof(path), "/proc/%ld/ns/user", pid);
    ns_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (ns_fd < 0)
      oci_error_errno(err, "%s: idmap: open %s", what, path);
  }
  close(hold[1]);
  while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
    ;
  if (ns_fd < 0)
    return oci_error_wrap(err, "%s: ", what);
  return ns_fd;
}

/* op's source as an idmapped detached mount, or -1 with err set. */
static int open_idmapped(const struct mount_op *op, oci_error_t *err)
{
  const char *what = mount_op_label(op);
  cleanup_close int source_fd = open(op->source, O_PATH | O_CLOEXEC);
  cleanup_close int ns_fd = -1;
  cleanup_close int mount_fd = -1;
  struct mount_attr attr = {.attr_set = MOUNT_ATTR_IDMAP};
  int fd;

  if (source_fd < 0)
    return oci_error_errno(err, "%s: bind source %s", what, op->source);
  ns_fd = open_mapped_user_namespace(op->idmap, what, err);
  if (ns_fd < 0)
    return -1;
  mount_fd = clone_bind_source(op, source_fd);
  if (mount_fd < 0)
    return oci_error_errno(err, "%s: clone the bind source %s", what, op->source);
  attr.userns_fd = (uint64_t)ns_fd;
  if (mount_setattr(mount_fd, "", AT_EMPTY_PATH | (op->idmap_recursive ? AT_RECURSIVE : 0), &attr,
                    sizeof(attr)) < 0)
    return oci_error_errno(err, "%s: %s the bind of %s (mount_setattr MOUNT_ATTR_IDMAP)", what,
                           op->idmap_recursive ? "ridmap" : "idmap", op->source);
  fd = mount_fd;
  mount_fd = -1;
  return fd;
}

int mount_plan_open_idmaps(struct mount_plan *plan, oci_error_t *err)
{
  for (size_t i = 0; i < plan->n_ops; i++) {
    struct mount_op *op = &plan->ops[i];

    if (op->idmap == NULL || op->idmap_fd >= 0)
      continue;
    op->idmap_fd = open_idmapped(op, err);
    if (op->idmap_fd < 0)
      return -1;
  }
  return 0;
}

size_t mount_plan_idmap_fds(const struct mount_plan *plan, int *fds)
{
  size_t n = 0;

  for (size_t i = 0; i < plan->n_ops && n < MOUNT_PLAN_MAX_IDMAPS; i++) {
    if (plan->ops[i].idmap_fd >= 0)
      fds[n++] = plan->ops[i].idmap_fd;
  }
  return n;
}
