/* The container's mounts as data: a table of operations built from the OCI
 * configuration (root, mounts, devices, masked and read-only paths), printed
 * by --dry-run, and applied in order by one loop in the child. */
#ifndef RUNTIME_MOUNT_MOUNT_PLAN_H
#define RUNTIME_MOUNT_MOUNT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "oci/error.h"
#include "runtime/spec/spec.h"
#include "runtime/userns.h"

enum mount_op_kind {
  MOUNT_OP_MAKE_PRIVATE,   /* the whole inherited tree rprivate (rslave for a slave
                              rootfsPropagation): nothing propagates back to the host */
  MOUNT_OP_ROOT_SCRATCH,   /* tmpfs layer: a tmpfs for the overlay's upper, work and merged root */
  MOUNT_OP_ROOT_OVERLAY,   /* overlay: lower = root_fd, upper/work in the scratch tmpfs or (disk
                              layer) in the run dir */
  MOUNT_OP_ROOT_BIND,      /* the bundle's root.path bound (recursively) onto itself */
  MOUNT_OP_FILESYSTEM,     /* a fresh filesystem (proc, sysfs, tmpfs, devpts, mqueue, cgroup2) */
  MOUNT_OP_BIND,           /* a host path of the config (mounts[] bind/rbind) */
  MOUNT_OP_BIND_CGROUP,    /* a cgroup mount in a user namespace without a cgroup namespace of
                              its own (the kernel refuses cgroup2 there): the container's own
                              slice bound instead, source its host path (mount_plan_set_slice) */
  MOUNT_OP_BIND_DEVICE,    /* a host device node bound onto an empty file */
  MOUNT_OP_MAKE_DEVICE,    /* mknod in the container's tree, then bound onto itself, dev */
  MOUNT_OP_MASK,           /* /dev/null over a file, an empty read-only tmpfs over a directory */
  MOUNT_OP_READ_ONLY,      /* the path re-bound onto itself read-only */
  MOUNT_OP_SYMLINK,        /* source is the link's text */
  MOUNT_OP_WRITE_FILE,     /* a small file of the run (/etc/hostname): data is its text */
  MOUNT_OP_MAKE_WORKDIR,   /* process.cwd made inside the root when missing, after the mounts
                              and before the root turns read-only */
  MOUNT_OP_ROOT_READ_ONLY, /* root.readonly: the root mount read-only */
  MOUNT_OP_PIVOT_ROOT,     /* into the new root; the old root detached */
  MOUNT_OP_PROPAGATION,    /* linux.rootfsPropagation on the new root, after pivot_root */
};

struct mount_op {
  enum mount_op_kind kind;
  char *source;          /* host path or link text; NULL when none */
  char *target;          /* absolute, inside the container (the host path for the root) */
  const char *fstype;    /* MOUNT_OP_FILESYSTEM */
  uint64_t attr;         /* MOUNT_ATTR_* flags set on the new mount */
  uint64_t attr_clr;     /* MOUNT_ATTR_* flags cleared (binds: "rw", "dev", ...) */
  uint64_t propagation;  /* MS_SHARED, MS_SLAVE, MS_PRIVATE, MS_UNBINDABLE (| MS_REC); 0: none */
  bool recursive;        /* binds: the whole tree (rbind) */
  uint64_t attr_rec;     /* rbind: set on every mount of the tree, before attr on the top one */
  uint64_t attr_rec_clr; /* rbind: cleared on every mount of the tree (the r- forms only) */
  bool copy_up;          /* tmpfs: starts with a copy of the directory under it (tmpcopyup) */
  char *data;            /* filesystem options "key=value,flag", NULL when none */
  /* devices: 'c', 'b' or 'p', the node expected (binds) or made, and for
   * MOUNT_OP_MAKE_DEVICE its mode and owner */
  char dev_type;
  dev_t rdev;
  mode_t mode;
  uid_t uid;
  gid_t gid;
  /* What the op came from, for messages: "config.json: mounts[2]"; a front
   * end may name its own flag instead ("--tmpfs"). NULL: the op's kind. */
  char *what;
  int mount_index; /* index in spec->mounts; -1 for ops of other origins */
  /* MOUNT_OP_BIND, idmapped: the source's tree seen through a user
   * namespace with these mappings (inside: the id on the source's
   * filesystem, outside: the id it is seen as), every mount of the tree
   * for ridmap; the detached mount made by mount_plan_open_idmaps (-1
   * until then). NULL: not idmapped. */
  struct userns_map *idmap;
  bool idmap_recursive;
  int idmap_fd;
  /* MOUNT_OP_BIND of a front end's host source it opened itself
   * (mount_root.sources; copy_up then from there too): that O_PATH fd (the front end's, not the
   * op's; -1: the source is opened by its path when applied), and the
   * detached clone of it the parent makes (mount_plan_open_held_binds; -1
   * until then), which the child attaches: the object opened, never the
   * path looked up again. */
  int source_fd;
  int clone_fd;
  /* ... the held source's identity, and rootless (the parent cannot clone
   * a mount of the host's namespace): the child opens the path again in
   * its copy of the host tree and binds it only if it is that inode
   * (ESTALE otherwise: a path swapped meanwhile fails the run). */
  dev_t source_dev;
  ino_t source_ino;
  bool reopen_checked;
};

/* At most this many idmapped mounts in a plan (their fds stay open in the
 * child until the plan is applied). */
#define MOUNT_PLAN_MAX_IDMAPS 8
/* At most this many binds of held sources (their clones' fds, the same). */
#define MOUNT_PLAN_MAX_HELD_BINDS 32

struct mount_plan {
  struct mount_op *ops;
  size_t n_ops;
  char *root_mountpoint; /* overlay: run_dir/rootfs, where the scratch tmpfs (or, disk
                            layer, the overlay itself) is attached; bind: the root's path */
  char *layer_note;      /* overlay: where the writable layer is and its bound, for --dry-run */
  /* The root tree as an fd that stays open in the process applying the
   * plan (mount_root.root_fd; -1 until set: the overlay's lower, or the
   * tree bound as the root), and the run dir's rootfs/ (the mount point
   * of the scratch or of the overlay; its ".." is the run dir holding the
   * disk layer's upper/ and work/) by identity, (dev, ino) of the directory the parent holds
   * open for the whole run (ino 0 until set). In the run's own mount
   * namespace those steps find each again by its path and use what they
   * find only if it is that inode. */
  int lower_fd;
  dev_t mountpoint_dev;
  ino_t mountpoint_ino;
};

struct mount_file {
  const char *path;
  const char *content;
}; /* written into a writable root */

/* Where an overlay root's writable layer (upper and work) lives. */
enum root_layer {
  ROOT_LAYER_DISK,  /* directories upper/ and work/ in the run dir, on the store's filesystem;
                       bounded by the runner's measure (writable_layer.c) */
  ROOT_LAYER_TMPFS, /* a tmpfs of the run's own mount namespace on run_dir/rootfs: memory,
                       bounded by its size= */
};

struct mount_source {
  int fd;
  bool copy_up;
};

struct mount_root {
  int root_fd;           /* the root tree, an O_PATH directory fd held by the parent */
  const char *root_path; /* the same, for messages and the printed plan */
  bool overlay;          /* ocirun run: an overlay over root_fd (never written), its upper and
                            work on disk in run_dir or in a scratch tmpfs on run_dir/rootfs;
                            false: root_fd is the bundle's root.path, bind-mounted as the root
                            (written if not readonly) */
  const char *run_dir;   /* overlay only */
  enum root_layer layer; /* overlay only */
  uint64_t layer_bound;  /* overlay: bytes; the tmpfs's size=, or the disk layer's soft bound */
  /* overlay: why a disk layer was not possible (the store's filesystem, e.g. "9p"), so the
   * tmpfs is used instead; NULL when the layer is what was asked */
  const char *layer_fallback;
  /* root.readonly also makes the root nosuid (ocirun run --read-only; the OCI commands
   * keep the spec's meaning, read-only only) */
  bool read_only_nosuid;
  const struct mount_file *files; /* written into the root before it is made read-only */
  size_t n_files;
  const char *bundle; /* relative bind sources are relative to it; NULL: refused */
  /* One per mounts[] entry (spec->n_mounts), NULL for none: a bind's
   * host source already opened (O_PATH) by the front end, which keeps it
   * open until the run ends (fd -1 for an entry opened by its path), and
   * whether an empty source starts with a copy of what the root holds at
   * the target (a named volume's first use) */
  const struct mount_source *sources;
};

/* The plan for spec (mounts, linux.devices, maskedPaths, readonlyPaths,
 * process.cwd, root.readonly, rootfsPropagation) on root. user_namespace: the container
 * has its own user namespace, which changes two things: overlayfs keeps its
 * metadata in user.* xattrs, and linux.devices are the host's nodes bound
 * (mknod needs the initial namespace's CAP_MKNOD). Refusals name the
 * property ("config.json: mounts[1].type: ..."). */
int mount_plan_build(const struct spec *spec, const struct mount_root *root, bool user_namespace,
                     struct mount_plan *plan, oci_error_t *err);
/* The container's slice (its host path; NULL: none, --unsafe-no-cgroup)
 * as the source of every MOUNT_OP_BIND_CGROUP: set once the slice's path
 * is known, before the plan is printed or applied. Without a slice such a
 * mount is refused, naming it: nothing else of the host's cgroup tree is
 * the container's to see. */
int mount_plan_set_slice(struct mount_plan *plan, const char *slice_path, oci_error_t *err);
void mount_plan_print(const struct mount_plan *plan, FILE *out);
/* In the parent, before clone3 (the kernel lets only a holder of
 * CAP_SYS_ADMIN over the source's filesystem idmap it, which the child in
 * its user namespace is not): each idmapped bind's source cloned
 * (open_tree) and idmapped (mount_setattr MOUNT_ATTR_IDMAP) through a user
 * namespace of a short-lived helper that has the op's mappings, with the
 * op's attributes; the child only attaches it. Any failure fails the run. */
int mount_plan_open_idmaps(struct mount_plan *plan, oci_error_t *err);
/* In the parent, before clone3 (a mount of another mount namespace cannot
 * be cloned, and the child has its own): each bind of a held source
 * (mount_root.sources) cloned from that fd (open_tree
 * OPEN_TREE_CLONE, with its submounts for rbind) with the op's attributes
 * (read-only set on every submount of an rbind); the child only attaches
 * it. Any failure fails the run. rootless: none is cloned (the parent may
 * not); each is marked reopen_checked instead. */
int mount_plan_open_held_binds(struct mount_plan *plan, bool rootless, oci_error_t *err);
/* Those clones' fds (at most MOUNT_PLAN_MAX_HELD_BINDS), for the child to
 * keep open until the plan is applied; their number. */
size_t mount_plan_held_bind_fds(const struct mount_plan *plan, int *fds);
/* The idmapped mounts' fds (at most MOUNT_PLAN_MAX_IDMAPS), for the child
 * to keep open until the plan is applied; their number. */
size_t mount_plan_idmap_fds(const struct mount_plan *plan, int *fds);
/* The kind's name in the printed plan ("bind", "mask"...). */
const char *mount_op_kind_name(enum mount_op_kind kind);
/* The op's attributes as the printed plan's ATTRS column: "rbind,ro,nosuid",
 * "-" for none. */
void mount_op_format_attrs(const struct mount_op *op, char *buf, size_t size);
/* In the child (new mount namespace): every step in order. On failure the
 * message names the step, its target and errno. plan->lower_fd must be
 * open and, for an overlay root, the mount point's identity set. */
int mount_plan_apply(const struct mount_plan *plan, oci_error_t *err);
/* The same, stopping once between the mounts and the root's last changes
 * (root.readonly, pivot_root) to call before_pivot: there the container's
 * mounts are made, the root is still writable and the host's root still
 * visible (the OCI createRuntime and createContainer hooks run then). Its
 * failure stops the plan. */
struct mount_plan_pause {
  int (*before_pivot)(void *context, oci_error_t *err);
  void *context;
};
int mount_plan_apply_pausing(const struct mount_plan *plan, const struct mount_plan_pause *pause,
                             oci_error_t *err);
void mount_plan_clear(struct mount_plan *plan);

#endif
