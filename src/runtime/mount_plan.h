/* The run's mounts as data: a table of operations built from the config,
 * printed by --dry-run, and applied in order by one loop in the child. */
#ifndef MOUNT_PLAN_H
#define MOUNT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "oci/error.h"
#include "docker_run/run_config.h"

enum mount_op_kind {
  MOUNT_OP_MAKE_PRIVATE,   /* the whole inherited tree: nothing propagates back to the host */
  MOUNT_OP_ROOT_SCRATCH,   /* a tmpfs for the overlay's upper, work and merged root */
  MOUNT_OP_ROOT_OVERLAY,   /* overlay: lower = cached rootfs, upper/work in the scratch tmpfs */
  MOUNT_OP_FILESYSTEM,     /* a fresh filesystem (proc, sysfs, tmpfs, devpts, cgroup2) */
  MOUNT_OP_BIND_DEVICE,    /* a host device node bound onto an empty file */
  MOUNT_OP_MASK,           /* /dev/null over a file, an empty read-only tmpfs over a directory */
  MOUNT_OP_READ_ONLY,      /* the path re-bound onto itself read-only */
  MOUNT_OP_SYMLINK,        /* source is the link's text */
  MOUNT_OP_WRITE_FILE,     /* a small file of the run (/etc/hostname): data is its text */
  MOUNT_OP_ROOT_READ_ONLY, /* --read-only: the root mount read-only, nosuid, nodev */
  MOUNT_OP_PIVOT_ROOT,     /* into the new root; the old root detached */
};

struct mount_op {
  enum mount_op_kind kind;
  char *source;       /* host path or link text; NULL when none */
  char *target;       /* absolute, inside the container (the host path for the root) */
  const char *fstype; /* MOUNT_OP_FILESYSTEM */
  uint64_t attr;      /* MOUNT_ATTR_* flags of the new mount */
  char *data;         /* filesystem options "key=value,flag", NULL when none */
  bool user_target;   /* named by a flag (--tmpfs): refused where it lands in /proc, /sys, /dev */
};

struct mount_plan {
  struct mount_op *ops;
  size_t n_ops;
  char *root_mountpoint; /* host: run_dir/rootfs, where the scratch tmpfs is attached */
  /* The two host directories of the root steps, opened by the parent from
   * the store without symlinks: the cached rootfs as an fd that stays open
   * in the process applying the plan (-1 until set; the overlay's lower,
   * and the owner and mode of the scratch's upper/), and the run dir's
   * rootfs/ (the scratch's mount point) by identity, (dev, ino) of the
   * directory the parent holds open for the whole run (ino 0 until set).
   * In the run's own mount namespace those steps find each again by its
   * path (source, target) and use what they find only if it is that inode. */
  int lower_fd;
  dev_t mountpoint_dev;
  ino_t mountpoint_ino;
};

/* rootfs: the cached image rootfs (never written: it is the overlay's lower
 * layer). run_dir: the per-run directory holding the empty mount point
 * rootfs/. user_namespace: the run has its own user namespace (rootless),
 * which changes two options: overlayfs keeps its metadata in user.*
 * xattrs, and devpts gets no gid= (only the mapped ids exist). */
int mount_plan_build(const struct run_config *config, const char *rootfs, const char *run_dir,
                     const char *hostname, bool user_namespace, struct mount_plan *plan,
                     oci_error_t *err);
void mount_plan_print(const struct mount_plan *plan, FILE *out);
/* In the child (new mount namespace): every step in order. On failure the
 * message names the step, its target and errno. plan->lower_fd must be
 * open and the mount point's identity set. */
int mount_plan_apply(const struct mount_plan *plan, oci_error_t *err);
void mount_plan_clear(struct mount_plan *plan);

#endif
