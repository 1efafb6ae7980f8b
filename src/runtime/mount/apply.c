/* How the plan is applied: the one loop, in the child, and each op's step.
 * Every target inside the root is opened with openat2(RESOLVE_IN_ROOT) on
 * the new root (checked where it lands: mount/landing.c) and mounted
 * through the new mount API on that fd, never through a joined path. */
#include "config.h"

#include "runtime/mount/mount_plan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/in_root.h"
#include "runtime/cgroup/slice.h"
#include "runtime/mount/internal.h"

static int attach(int mount_fd, int target_fd)
{
  return move_mount(mount_fd, "", target_fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}

/* fsopen + one fsconfig per "key=value" or "flag" word + fsmount. */
static int make_filesystem(const char *fstype, const char *source, const char *data, uint64_t attr)
{
  cleanup_close int fs_fd = fsopen(fstype, FSOPEN_CLOEXEC);
  cleanup_free char *words = data != NULL ? strdup(data) : NULL;
  char *save = NULL;

  if (fs_fd < 0 || (data != NULL && words == NULL))
    return -1;
  if (source != NULL && fsconfig(fs_fd, FSCONFIG_SET_STRING, "source", source, 0) < 0)
    return -1;
  for (char *w = words != NULL ? strtok_r(words, ",", &save) : NULL; w != NULL;
       w = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(w, '=');
    int ret;

    if (eq != NULL) {
      *eq = '\0';
      ret = fsconfig(fs_fd, FSCONFIG_SET_STRING, w, eq + 1, 0);
    } else {
      ret = fsconfig(fs_fd, FSCONFIG_SET_FLAG, w, NULL, 0);
    }
    if (ret < 0)
      return -1;
  }
  if (fsconfig(fs_fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    return -1;
  return fsmount(fs_fd, FSMOUNT_CLOEXEC, (unsigned int)attr);
}

/* The parent's fds name mounts of the parent's namespace, and the kernel
 * mounts only onto (move_mount) and overlayfs takes layers only from
 * (clone_private_mount) mounts of the caller's own namespace. So a
 * directory is found again here by the path the plan names, and taken only
 * if it is the very inode (dev, ino) the parent holds: a path swapped
 * meanwhile (a symlink, a rename) fails the run (ESTALE) instead of leading
 * it elsewhere. */
static int reopen_in_this_namespace(dev_t dev, ino_t ino, const char *path)
{
  struct stat got;
  int here;

  if (ino == 0) {
    errno = EBADF;
    return -1;
  }
  here = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (here < 0)
    return -1;
  if (fstat(here, &got) < 0 || got.st_dev != dev || got.st_ino != ino) {
    close(here);
    errno = ESTALE;
    return -1;
  }
  return here;
}

/* The tmpfs onto the run dir's mount point (the directory ocirun created,
 * whatever its path leads to now), with upper/ (owner and mode of
 * the lower's root, as the merged root shows them), work/ and root/ in it.
 * *scratch_fd keeps the attached tmpfs for the overlay step. */
static int apply_root_scratch(const struct mount_op *op, const struct mount_plan *plan,
                              int *scratch_fd)
{
  cleanup_close int mount_fd = make_filesystem(op->fstype, "tmpfs", op->data, op->attr);
  cleanup_close int target_fd = -1;
  struct stat lower;

  if (mount_fd < 0 || fstat(plan->lower_fd, &lower) < 0)
    return -1;
  target_fd = reopen_in_this_namespace(plan->mountpoint_dev, plan->mountpoint_ino, op->target);
  if (target_fd < 0 || attach(mount_fd, target_fd) < 0)
    return -1;
  if (mkdirat(mount_fd, "upper", 0700) < 0 ||
      fchownat(mount_fd, "upper", lower.st_uid, lower.st_gid, AT_SYMLINK_NOFOLLOW) < 0 ||
      fchmodat(mount_fd, "upper", lower.st_mode & 07777, 0) < 0 ||
      mkdirat(mount_fd, "work", 0700) < 0 || mkdirat(mount_fd, "root", 0700) < 0)
    return -1;
  *scratch_fd = steal_fd(&mount_fd);
  return 0;
}

/* overlayfs resolves its directories itself: each is /proc/self/fd/N of an
 * fd this process holds, so the lower is the cache entry opened without
 * symlinks. With a scratch tmpfs (scratch_fd), upper/work are in it and the
 * merged root is attached onto its root/. Without one (the disk layer),
 * upper/ and work/ are the run dir's, found from the mount point the parent
 * holds (checked by identity; its ".." is the run dir, which only ocirun
 * writes), and the merged root is attached onto the mount point itself.
 * *root_fd is the overlay. */
static int apply_root_overlay(const struct mount_op *op, const struct mount_plan *plan,
                              int scratch_fd, int *root_fd)
{
  const char *userxattr =
      op->data != NULL && strstr(op->data, ",userxattr") != NULL ? ",userxattr" : "";
  cleanup_free char *data = NULL;
  cleanup_close int mount_fd = -1;
  cleanup_close int target_fd = -1;
  cleanup_close int lower_fd = -1;
  cleanup_close int run_fd = -1, upper_fd = -1, work_fd = -1;
  struct stat lower;
  int n;

  if (fstat(plan->lower_fd, &lower) < 0)
    return -1;
  lower_fd = reopen_in_this_namespace(lower.st_dev, lower.st_ino, op->source);
  if (lower_fd < 0)
    return -1;
  if (scratch_fd >= 0) {
    n = asprintf(&data,
                 "lowerdir=/proc/self/fd/%d,upperdir=/proc/self/fd/%d/upper,"
                 "workdir=/proc/self/fd/%d/work%s",
                 lower_fd, scratch_fd, scratch_fd, userxattr);
    target_fd = openat(scratch_fd, "root", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  } else {
    target_fd =
        reopen_in_this_namespace(plan->mountpoint_dev, plan->mountpoint_ino, plan->root_mountpoint);
    if (target_fd < 0)
      return -1;
    run_fd = openat(target_fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (run_fd < 0)
      return -1;
    upper_fd = openat(run_fd, "upper", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    work_fd = openat(run_fd, "work", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (upper_fd < 0 || work_fd < 0)
      return -1;
    /* volatile: the layer is thrown away at the end, so nothing of it
     * need reach the disk; without it the overlay's unmount (the end of
     * the run's mount namespace) syncs the store's whole filesystem, and
     * every fsync in the container is a real one */
    n = asprintf(&data,
                 "lowerdir=/proc/self/fd/%d,upperdir=/proc/self/fd/%d,workdir=/proc/self/fd/%d,"
                 "volatile%s",
                 lower_fd, upper_fd, work_fd, userxattr);
  }
  if (n < 0) {
    data = NULL;
    return -1;
  }
  if (target_fd < 0)
    return -1;
  mount_fd = make_filesystem("overlay", "overlay", data, op->attr);
  if (mount_fd < 0 || attach(mount_fd, target_fd) < 0)
    return -1;
  *root_fd = steal_fd(&mount_fd);
  return 0;
}

/* A mount propagation option, on a mount already attached in the tree
 * (applied after the fact: ocirun's tree starts private). */
static int set_propagation(int mount_fd, const struct mount_op *op)
{
  struct mount_attr attr = {.propagation = op->propagation & ~(uint64_t)MS_REC};

  if (op->propagation == 0)
    return 0;
  return mount_setattr(mount_fd, "",
                       AT_EMPTY_PATH | ((op->propagation & MS_REC) ? AT_RECURSIVE : 0), &attr,
                       sizeof(attr));
}

/* ---- the steps ---- */

/* The bundle's root.path (the very directory the parent holds) cloned with
 * its submounts and attached onto itself: a mount of its own, which
 * pivot_root needs, with the plan's attributes (nodev) on this copy only. */
static int apply_root_bind(const struct mount_op *op, const struct mount_plan *plan, int *root_fd)
{
  cleanup_close int here = -1;
  cleanup_close int mount_fd = -1;
  struct mount_attr attr = {.attr_set = op->attr};
  struct stat st;

  if (fstat(plan->lower_fd, &st) < 0)
    return -1;
  here = reopen_in_this_namespace(st.st_dev, st.st_ino, op->source);
  if (here < 0)
    return -1;
  mount_fd =
      open_tree(here, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
  if (mount_fd < 0 ||
      mount_setattr(mount_fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0 ||
      attach(mount_fd, here) < 0)
    return -1;
  *root_fd = steal_fd(&mount_fd);
  return 0;
}

/* tmpcopyup: what the directory under a new tmpfs holds, copied into it
 * before it is attached. The tree is the image's, so hostile: every entry
 * is opened from its parent's fd without following a symlink, a symlink
 * is copied as a link (never followed), only directories, regular files
 * and links are copied (the tmpfs is nodev: a device node would be
 * useless), and depth is bounded. The tmpfs's size bounds the bytes. */
#define COPY_UP_MAX_DEPTH 64

static int copy_up_tree(int from_fd, int to_fd, int depth)
{
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;
  int list_fd;

  if (depth > COPY_UP_MAX_DEPTH) {
    errno = ELOOP;
    return -1;
  }
  list_fd = openat(from_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (list_fd < 0 || (dir = fdopendir(list_fd)) == NULL) {
    if (list_fd >= 0)
      close(list_fd);
    return -1;
  }
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    const char *name = entry->d_name;
    struct stat st;

    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
      continue;
    if (fstatat(from_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
      return -1;
    if (S_ISDIR(st.st_mode)) {
      cleanup_close int sub_from = -1, sub_to = -1;

      if (mkdirat(to_fd, name, 0700) < 0)
        return -1;
      sub_from = openat(from_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      sub_to = openat(to_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub_from < 0 || sub_to < 0 || copy_up_tree(sub_from, sub_to, depth + 1) < 0)
        return -1;
    } else if (S_ISREG(st.st_mode)) {
      cleanup_close int in = openat(from_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      cleanup_close int out = -1;

      if (in < 0)
        return -1;
      out = openat(to_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (out < 0)
        return -1;
      for (off_t left = st.st_size; left > 0;) {
        ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);
        if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS))
          n = sendfile(out, in, NULL, (size_t)left);
        if (n < 0)
          return -1;
        if (n == 0)
          break; /* the file shrank meanwhile */
        left -= n;
      }
    } else if (S_ISLNK(st.st_mode)) {
      char link[PATH_MAX];
      ssize_t n = readlinkat(from_fd, name, link, sizeof(link) - 1);

      if (n < 0)
        return -1;
      link[n] = '\0';
      if (symlinkat(link, to_fd, name) < 0)
        return -1;
    } else {
      continue;
    }
    if (fchownat(to_fd, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) < 0 ||
        (!S_ISLNK(st.st_mode) && fchmodat(to_fd, name, st.st_mode & 07777, 0) < 0))
      return -1;
  }
  return errno != 0 ? -1 : 0;
}

static int apply_filesystem(const struct mount_op *op, int root_fd, oci_error_t *err)
{
  cleanup_close int target_fd = open_checked_target(op, root_fd, true, err);
  cleanup_close int mount_fd = -1;

  if (target_fd < 0)
    return -1;
  mount_fd = make_filesystem(op->fstype, op->source, op->data, op->attr);
  if (mount_fd < 0)
    return -1;
  if (op->copy_up) {
    cleanup_close int from = openat(target_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    cleanup_close int to = openat(mount_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;

    if (from < 0 || to < 0 || copy_up_tree(from, to, 0) < 0 || fstat(from, &st) < 0 ||
        fchown(to, st.st_uid, st.st_gid) < 0 || fchmod(to, st.st_mode & 07777) < 0)
      return oci_error_errno(err, "%s: copy what '%s' holds into the new tmpfs (tmpcopyup)",
                             mount_op_label(op), op->target);
  }
  if (attach(mount_fd, target_fd) < 0)
    return -1;
  return set_propagation(mount_fd, op);
}

/* A host path of the config (source_fd, O_PATH) cloned, with its
 * submounts for rbind, the tree's attributes set first and then the top
 * mount's as the config says: a detached mount, or -1 with errno. */
int clone_bind_source(const struct mount_op *op, int source_fd)
{
  cleanup_close int mount_fd = -1;
  unsigned int recursive = op->recursive ? AT_RECURSIVE : 0;
  struct mount_attr attr = {.attr_set = op->attr, .attr_clr = op->attr_clr};
  struct mount_attr below = {.attr_set = op->attr_rec, .attr_clr = op->attr_rec_clr};
  int fd;

  mount_fd =
      open_tree(source_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | recursive);
  if (mount_fd < 0)
    return -1;
  if (op->recursive && (below.attr_set != 0 || below.attr_clr != 0) &&
      mount_setattr(mount_fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &below, sizeof(below)) < 0)
    return -1;
  if ((attr.attr_set != 0 || attr.attr_clr != 0) &&
      mount_setattr(mount_fd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
    return -1;
  fd = mount_fd;
  mount_fd = -1;
  return fd;
}

/* A named volume's first use (op->copy_up, from the front end): an empty
 * source directory gets a copy of what the root holds at the target (the
 * checked target_fd), owner and mode included, before it covers it;
 * copied as tmpcopyup copies (never following the image's links). A source
 * with anything in it is left as it is. */
static int copy_into_empty(const struct mount_op *op, int mount_fd, int target_fd, oci_error_t *err)
{
  cleanup_close int to = openat(mount_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int from = openat(target_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;
  int list_fd;
  struct stat st;

  if (to < 0 || from < 0 || (list_fd = dup(to)) < 0)
    return oci_error_errno(err, "%s: open the volume %s", mount_op_label(op), op->source);
  dir = fdopendir(list_fd);
  if (dir == NULL) {
    close(list_fd);
    return oci_error_errno(err, "%s: read the volume %s", mount_op_label(op), op->source);
  }
  while ((entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
      return 0;
  }
  if (copy_up_tree(from, to, 0) < 0 || fstat(from, &st) < 0 ||
      fchown(to, st.st_uid, st.st_gid) < 0 || fchmod(to, st.st_mode & 07777) < 0)
    return oci_error_errno(err, "%s: copy what '%s' holds into the volume %s", mount_op_label(op),
                           op->target, op->source);
  return 0;
}

/* A detached mount (mount_fd) attached onto op's destination, a directory
 * for a directory, a file for anything else, its propagation set. */
static int attach_bind(const struct mount_op *op, int mount_fd, int root_fd, oci_error_t *err)
{
  cleanup_close int target_fd = -1;
  struct stat st;

  if (fstat(mount_fd, &st) < 0)
    return oci_error_errno(err, "%s: bind source %s", mount_op_label(op), op->source);
  target_fd = open_checked_target(op, root_fd, S_ISDIR(st.st_mode), err);
  if (target_fd < 0)
    return -1;
  if (op->copy_up && S_ISDIR(st.st_mode) && copy_into_empty(op, mount_fd, target_fd, err) < 0)
    return -1;
  if (attach(mount_fd, target_fd) < 0)
    return -1;
  return set_propagation(mount_fd, op);
}

/* A host path of the config, opened (O_PATH) in this namespace's copy of
 * the host tree before pivot_root, cloned and attached. */
static int bind_from(const struct mount_op *op, int source_fd, int root_fd, oci_error_t *err)
{
  cleanup_close int mount_fd = clone_bind_source(op, source_fd);

  return mount_fd < 0 ? -1 : attach_bind(op, mount_fd, root_fd, err);
}

/* An idmapped bind was cloned by the parent (mount/idmap.c): only attached
 * here. */
static int apply_bind(const struct mount_op *op, int root_fd, oci_error_t *err)
{
  cleanup_close int source_fd = -1;

  if (op->idmap != NULL && op->idmap_fd < 0)
    return oci_error_set(err, 0, "%s: the idmapped mount of %s was not made", mount_op_label(op),
                         op->source);
  if (op->idmap != NULL)
    return attach_bind(op, op->idmap_fd, root_fd, err);
  /* a held source was cloned by the parent (mount/held_bind.c), or,
   * rootless, is opened again here and must be the inode held */
  if (op->source_fd >= 0 && op->clone_fd >= 0)
    return attach_bind(op, op->clone_fd, root_fd, err);
  if (op->source_fd >= 0 && !op->reopen_checked)
    return oci_error_set(err, 0, "%s: the bind of %s was not made", mount_op_label(op), op->source);
  source_fd = open(op->source, O_PATH | O_CLOEXEC);
  if (source_fd < 0)
    return oci_error_errno(err, "%s: bind source %s", mount_op_label(op), op->source);
  if (op->reopen_checked) {
    struct stat st;

    if (fstat(source_fd, &st) < 0)
      return oci_error_errno(err, "%s: bind source %s", mount_op_label(op), op->source);
    if (st.st_dev != op->source_dev || st.st_ino != op->source_ino)
      return oci_error_set(err, ESTALE,
                           "%s: the bind source %s is no longer what it was when it was given "
                           "(swapped meanwhile): refused",
                           mount_op_label(op), op->source);
  }
  return bind_from(op, source_fd, root_fd, err);
}

/* The container's slice, found again in this namespace's copy of the
 * host's cgroup2 tree the way every recorded cgroup is (beneath the mount,
 * no symlink, checked to be cgroup2), and bound alone: a tree whose root
 * is the slice, as a cgroup namespace would show it. */
static int apply_bind_cgroup(const struct mount_op *op, int root_fd, oci_error_t *err)
{
  cleanup_close int source_fd = -1;

  if (op->source == NULL)
    return oci_error_set(err, 0, "%s: no slice to bind", mount_op_label(op));
  source_fd = cgroup_open_path(op->source, err);
  if (source_fd < 0)
    return oci_error_wrap(err, "%s: the container's cgroup", mount_op_label(op));
  return bind_from(op, source_fd, root_fd, err);
}

/* A detached clone of a host device node (source is a host path, resolved
 * before pivot_root in the host's tree, never the root's). It must be that
 * very device (type and number): a /dev/null mask made of anything else (a
 * symlink, a file, CVE-2025-31133) would expose or let the container write
 * what it hides. /dev/char and /dev/block are links by design: followed. */
static int open_host_device(const char *source, char type, dev_t rdev)
{
  bool follow = strncmp(source, "/dev/char/", 10) == 0 || strncmp(source, "/dev/block/", 11) == 0;
  int mount_fd = open_tree(
      AT_FDCWD, source, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (follow ? 0 : AT_SYMLINK_NOFOLLOW));
  struct stat st;

  if (mount_fd < 0)
    return -1;
  if (fstat(mount_fd, &st) < 0) {
    int saved = errno;

    close(mount_fd);
    errno = saved;
    return -1;
  }
  if (!(type == 'b' ? S_ISBLK(st.st_mode) : S_ISCHR(st.st_mode)) || st.st_rdev != rdev) {
    close(mount_fd);
    errno = ENODEV;
    return -1;
  }
  return mount_fd;
}

static int apply_bind_device(const struct mount_op *op, int root_fd, oci_error_t *err)
{
  cleanup_close int target_fd = -1;
  cleanup_close int mount_fd = -1;
  struct mount_attr attr = {.attr_set = op->attr};

  mount_fd = open_host_device(op->source, op->dev_type, op->rdev);
  /* A host without udev has no /dev/char: its node at the config's path
   * will do, if it is that very device. */
  if (mount_fd < 0 && errno == ENOENT && strcmp(op->source, op->target) != 0)
    mount_fd = open_host_device(op->target, op->dev_type, op->rdev);
  if (mount_fd < 0)
    return -1;
  target_fd = open_checked_target(op, root_fd, false, err);
  if (target_fd < 0)
    return -1;
  if (mount_setattr(mount_fd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
    return -1;
  return attach(mount_fd, target_fd);
}

/* mknod where the config says (whatever the tree had there is unlinked,
 * never followed), with its mode and owner, then the node bound onto
 * itself without nodev: that one file is a device, the filesystem it is on
 * stays nodev, and a mount point cannot be unlinked or renamed over. */
static int apply_make_device(const struct mount_op *op, int root_fd, oci_error_t *err)
{
  mode_t type = op->dev_type == 'c' ? S_IFCHR : op->dev_type == 'b' ? S_IFBLK : S_IFIFO;
  struct mount_attr attr = {.attr_set = op->attr, .attr_clr = op->attr_clr};
  cleanup_free char *parent = strdup(op->target);
  cleanup_close int parent_fd = -1;
  cleanup_close int target_fd = -1;
  cleanup_close int mount_fd = -1;
  const char *last;
  struct stat st;

  if (parent == NULL)
    return -1;
  if (check_landing(op, root_fd, -1, err) < 0)
    return -1;
  parent[strrchr(parent, '/') - parent] = '\0';
  if (parent[0] != '\0' && make_directories_in_root(root_fd, parent) < 0)
    return -1;
  parent_fd = in_root_open_parent(root_fd, op->target, &last);
  if (parent_fd < 0)
    return -1;
  if (unlinkat(parent_fd, last, 0) < 0 && errno != ENOENT)
    return -1;
  if (mknodat(parent_fd, last, type | 0600, op->rdev) < 0 ||
      fchownat(parent_fd, last, op->uid, op->gid, AT_SYMLINK_NOFOLLOW) < 0)
    return -1;
  target_fd = openat(parent_fd, last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (target_fd < 0 || fstat(target_fd, &st) < 0)
    return -1;
  if ((st.st_mode & S_IFMT) != type || (type != S_IFIFO && st.st_rdev != op->rdev)) {
    errno = ESTALE;
    return -1;
  }
  /* the mode after the owner: chown clears set-id bits */
  if (fchmodat(parent_fd, last, op->mode, 0) < 0)
    return -1;
  if (check_landing(op, root_fd, target_fd, err) < 0)
    return -1;
  if (type == S_IFIFO)
    return 0;
  mount_fd = open_tree(target_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
  if (mount_fd < 0 || mount_setattr(mount_fd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
    return -1;
  return attach(mount_fd, target_fd);
}

/* A missing path needs no mask; anything else present is covered: a
 * directory by an empty read-only tmpfs, anything else by the host's null
 * device (checked to be 1:3), a mount of that one inode whose device is
 * usable there: it reads empty. nodev on it would make it EACCES; what
 * nodev guards against, a node the workload makes, cannot be made in a
 * mount that is a single device file. */
static int apply_mask(const struct mount_op *op, int root_fd)
{
  cleanup_close int target_fd = in_root_open(root_fd, op->target, O_PATH | O_NOFOLLOW);
  cleanup_close int mount_fd = -1;
  struct mount_attr attr = {.attr_set = op->attr};
  struct stat st;

  if (target_fd < 0)
    return errno == ENOENT ? 0 : -1;
  if (fstat(target_fd, &st) < 0)
    return -1;
  if (S_ISDIR(st.st_mode)) {
    mount_fd = make_filesystem("tmpfs", "tmpfs", "size=0,mode=555", op->attr | MOUNT_ATTR_NODEV);
  } else {
    mount_fd = open_host_device(op->source, op->dev_type, op->rdev);
    if (mount_fd >= 0 && mount_setattr(mount_fd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
      return -1;
  }
  if (mount_fd < 0)
    return -1;
  return attach(mount_fd, target_fd);
}

static int apply_read_only(const struct mount_op *op, int root_fd)
{
  cleanup_close int target_fd = in_root_open(root_fd, op->target, O_PATH | O_NOFOLLOW);
  cleanup_close int mount_fd = -1;
  struct mount_attr attr = {.attr_set = op->attr};

  if (target_fd < 0)
    return errno == ENOENT ? 0 : -1;
  mount_fd =
      open_tree(target_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
  if (mount_fd < 0)
    return -1;
  if (mount_setattr(mount_fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
    return -1;
  return attach(mount_fd, target_fd);
}

/* A link the spec wants (/dev/ptmx, /dev/fd...): what the tree has there
 * already is replaced unless it is a directory or that very link. */
static int apply_symlink(const struct mount_op *op, int root_fd)
{
  const char *last;
  cleanup_close int parent_fd = in_root_open_parent(root_fd, op->target, &last);
  char text[256];
  ssize_t n;

  if (parent_fd < 0)
    return -1;
  if (symlinkat(op->source, parent_fd, last) == 0)
    return 0;
  if (errno != EEXIST)
    return -1;
  n = readlinkat(parent_fd, last, text, sizeof(text) - 1);
  if (n >= 0) {
    text[n] = '\0';
    if (strcmp(text, op->source) == 0)
      return 0;
  }
  if (unlinkat(parent_fd, last, 0) < 0)
    return -1;
  return symlinkat(op->source, parent_fd, last);
}

/* Replaces whatever the image has there (a symlink included: it is
 * unlinked, never followed) with a fresh regular file. */
static int apply_write_file(const struct mount_op *op, int root_fd)
{
  const char *last;
  cleanup_free char *parent = strdup(op->target);
  cleanup_close int parent_fd = -1;
  cleanup_close int fd = -1;
  size_t len = strlen(op->data);

  if (parent == NULL)
    return -1;
  parent[strrchr(parent, '/') - parent] = '\0';
  if (parent[0] != '\0' && make_directories_in_root(root_fd, parent) < 0)
    return -1;
  parent_fd = in_root_open_parent(root_fd, op->target, &last);
  if (parent_fd < 0)
    return -1;
  if (unlinkat(parent_fd, last, 0) < 0 && errno != ENOENT)
    return -1;
  fd = openat(parent_fd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  if (write(fd, op->data, len) != (ssize_t)len)
    return -1;
  return 0;
}

/* The working directory as the process will enter it (child.c's
 * enter_workdir resolves the same path the same way): made one component
 * at a time inside the root, each parent resolved there (oci/in_root.c),
 * so a symlink of the image, absolute or climbing with "..", leads to a
 * directory inside the root and never makes one outside it. Made only on
 * an ordinary directory: never a directory in procfs, sysfs or a cgroup
 * (a new cgroup) through the root's symlinks. */
static int apply_make_workdir(const struct mount_op *op, int root_fd, oci_error_t *err)
{
  cleanup_close int fd = in_root_open(root_fd, op->target, O_PATH | O_DIRECTORY);

  /* there, or not a missing one (a magic link, a file): entering it
   * refuses it (child.c's enter_workdir) */
  if (fd >= 0 || errno != ENOENT)
    return 0;
  if (check_landing(op, root_fd, -1, err) < 0)
    return -1;
  fd = in_root_make_directories(root_fd, op->target);
  if (fd < 0)
    return oci_error_errno(err, "%s '%s': make it inside the root", mount_op_label(op), op->target);
  return check_landing(op, root_fd, fd, err);
}

static int apply_root_read_only(const struct mount_op *op, int root_fd)
{
  struct mount_attr attr = {.attr_set = op->attr};

  /* not AT_RECURSIVE: /dev, /proc, the tmpfs mounts keep their own flags */
  return mount_setattr(root_fd, "", AT_EMPTY_PATH, &attr, sizeof(attr));
}

/* pivot_root(".", ".") stacks the old root over the new one; detaching "."
 * then removes the old root, so no path leads back to the host tree. */
static int apply_pivot_root(int root_fd)
{
  if (fchdir(root_fd) < 0)
    return -1;
  if (syscall(SYS_pivot_root, ".", ".") < 0)
    return -1;
  if (umount2(".", MNT_DETACH) < 0)
    return -1;
  return chdir("/");
}

/* The host path a step takes a device or a bind from, for its message. */
static const char *host_source(const struct mount_op *op)
{
  return op->kind == MOUNT_OP_BIND_DEVICE || op->kind == MOUNT_OP_MASK ||
                 op->kind == MOUNT_OP_BIND || op->kind == MOUNT_OP_BIND_CGROUP
             ? op->source
             : NULL;
}

int mount_plan_apply(const struct mount_plan *plan, oci_error_t *err)
{
  return mount_plan_apply_pausing(plan, NULL, err);
}

int mount_plan_apply_pausing(const struct mount_plan *plan, const struct mount_plan_pause *pause,
                             oci_error_t *err)
{
  cleanup_close int root_fd = -1;
  cleanup_close int scratch_fd = -1;
  bool paused = pause == NULL;

  for (size_t i = 0; i < plan->n_ops; i++) {
    const struct mount_op *op = &plan->ops[i];
    oci_error_t step_err = NULL;
    int ret;

    if (!paused && (op->kind == MOUNT_OP_ROOT_READ_ONLY || op->kind == MOUNT_OP_PIVOT_ROOT)) {
      paused = true;
      if (pause->before_pivot(pause->context, err) < 0)
        return -1;
    }
    if (op->kind != MOUNT_OP_MAKE_PRIVATE && op->kind != MOUNT_OP_ROOT_SCRATCH &&
        op->kind != MOUNT_OP_ROOT_OVERLAY && op->kind != MOUNT_OP_ROOT_BIND && root_fd < 0)
      return oci_error_set(err, 0, "mount plan: step %zu (%s %s) before the root exists", i + 1,
                           mount_op_kind_name(op->kind), op->target);
    switch (op->kind) {
    case MOUNT_OP_MAKE_PRIVATE:
      ret = mount(NULL, "/", NULL,
                  op->propagation == (MS_REC | MS_SLAVE) ? MS_REC | MS_SLAVE : MS_REC | MS_PRIVATE,
                  NULL);
      break;
    case MOUNT_OP_ROOT_SCRATCH:
      ret = apply_root_scratch(op, plan, &scratch_fd);
      break;
    case MOUNT_OP_ROOT_OVERLAY:
      ret = apply_root_overlay(op, plan, scratch_fd, &root_fd);
      break;
    case MOUNT_OP_ROOT_BIND:
      ret = apply_root_bind(op, plan, &root_fd);
      break;
    case MOUNT_OP_FILESYSTEM:
      ret = apply_filesystem(op, root_fd, &step_err);
      break;
    case MOUNT_OP_BIND:
      ret = apply_bind(op, root_fd, &step_err);
      break;
    case MOUNT_OP_BIND_CGROUP:
      ret = apply_bind_cgroup(op, root_fd, &step_err);
      break;
    case MOUNT_OP_BIND_DEVICE:
      ret = apply_bind_device(op, root_fd, &step_err);
      break;
    case MOUNT_OP_MAKE_DEVICE:
      ret = apply_make_device(op, root_fd, &step_err);
      break;
    case MOUNT_OP_MASK:
      ret = apply_mask(op, root_fd);
      break;
    case MOUNT_OP_READ_ONLY:
      ret = apply_read_only(op, root_fd);
      break;
    case MOUNT_OP_SYMLINK:
      ret = apply_symlink(op, root_fd);
      break;
    case MOUNT_OP_WRITE_FILE:
      ret = apply_write_file(op, root_fd);
      break;
    case MOUNT_OP_MAKE_WORKDIR:
      ret = apply_make_workdir(op, root_fd, &step_err);
      break;
    case MOUNT_OP_ROOT_READ_ONLY:
      ret = apply_root_read_only(op, root_fd);
      break;
    case MOUNT_OP_PIVOT_ROOT:
      ret = apply_pivot_root(root_fd);
      break;
    case MOUNT_OP_PROPAGATION:
      ret = set_propagation(root_fd, op);
      break;
    default:
      errno = EINVAL;
      ret = -1;
    }
    if (ret < 0 && step_err != NULL) {
      *err = step_err;
      return -1;
    }
    if (ret < 0)
      return oci_error_errno(
          err, "mount plan: step %zu (%s %s%s%s%s%s%s%s)", i + 1, mount_op_kind_name(op->kind),
          op->target, op->fstype != NULL ? " type " : "", op->fstype != NULL ? op->fstype : "",
          host_source(op) != NULL ? " from " : "", host_source(op) != NULL ? host_source(op) : "",
          op->what != NULL ? " of " : "", op->what != NULL ? op->what : "");
  }
  return 0;
}
