/* Where a destination may land. A bundle's rootfs and an image are
 * hostile: a destination is resolved in the root (never outside it), and
 * what it then lies on (procfs, sysfs, a cgroup, devpts, the container's
 * /dev, the root itself) is checked against what the op may cover there,
 * before anything is created and once the target exists. */
#include "config.h"

#include "runtime/mount/mount_plan.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/in_root.h"
#include "runtime/mount/internal.h"

static bool path_is_or_under(const char *path, const char *top)
{
  size_t n = strlen(top);

  return strncmp(path, top, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* mkdir -p inside the root (oci/in_root.c); 0 or -1 with errno. */
int make_directories_in_root(int root_fd, const char *path)
{
  int fd = in_root_make_directories(root_fd, path);

  if (fd < 0)
    return -1;
  close(fd);
  return 0;
}

/* An O_PATH fd on the target, created as a directory or an empty file when
 * missing. The last component must not be a symlink. */
static int open_target(int root_fd, const char *target, bool directory)
{
  struct stat st;
  int fd;

  fd = in_root_open(root_fd, target, O_PATH | O_NOFOLLOW);
  if (fd < 0 && errno == ENOENT) {
    const char *last;
    cleanup_close int parent_fd = -1;

    if (directory) {
      if (make_directories_in_root(root_fd, target) < 0)
        return -1;
    } else {
      cleanup_free char *parent = strdup(target);

      if (parent == NULL)
        return -1;
      parent[strrchr(parent, '/') - parent] = '\0';
      if (parent[0] != '\0' && make_directories_in_root(root_fd, parent) < 0)
        return -1;
      parent_fd = in_root_open_parent(root_fd, target, &last);
      if (parent_fd < 0)
        return -1;
      int file_fd =
          openat(parent_fd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (file_fd < 0 && errno != EEXIST)
        return -1;
      if (file_fd >= 0)
        close(file_fd);
    }
    fd = in_root_open(root_fd, target, O_PATH | O_NOFOLLOW);
  }
  if (fd < 0)
    return -1;
  if (fstat(fd, &st) < 0) {
    close(fd);
    return -1;
  }
  if (S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode) != directory) {
    close(fd);
    errno = S_ISLNK(st.st_mode) ? ELOOP : directory ? ENOTDIR : EISDIR;
    return -1;
  }
  return fd;
}

enum landing {
  LAND_ORDINARY,
  LAND_ROOT,
  LAND_PROC,
  LAND_SYSFS,
  LAND_CGROUP,
  LAND_DEVPTS,
  LAND_DEV,
  LAND_UNKNOWN,
};

/* What a path of the root lies on: a kernel interface, the container's
 * /dev mount (when /dev is a mount of its own), the root directory itself,
 * or an ordinary directory. *name says it for messages. */
static enum landing landing_of(int fd, int root_fd, const char **name)
{
  cleanup_close int dev_fd = in_root_open(root_fd, "/dev", O_PATH | O_DIRECTORY | O_NOFOLLOW);
  struct statfs fs;
  struct stat st, root, dev;

  *name = "a filesystem that cannot be examined";
  if (fstatfs(fd, &fs) < 0 || fstat(fd, &st) < 0 || fstat(root_fd, &root) < 0)
    return LAND_UNKNOWN;
  switch (fs.f_type) {
  case PROC_SUPER_MAGIC:
    *name = "procfs";
    return LAND_PROC;
  case SYSFS_MAGIC:
    *name = "sysfs";
    return LAND_SYSFS;
  case CGROUP2_SUPER_MAGIC:
    *name = "cgroup2";
    return LAND_CGROUP;
  case CGROUP_SUPER_MAGIC:
    *name = "a cgroup v1 hierarchy";
    return LAND_CGROUP;
  case DEVPTS_SUPER_MAGIC:
    *name = "devpts";
    return LAND_DEVPTS;
  }
  *name = "the root directory";
  if (st.st_dev == root.st_dev && st.st_ino == root.st_ino)
    return LAND_ROOT;
  if (dev_fd >= 0 && fstat(dev_fd, &dev) == 0 && dev.st_dev != root.st_dev &&
      st.st_dev == dev.st_dev) {
    *name = fs.f_type == TMPFS_MAGIC ? "the container's /dev tmpfs" : "the container's /dev mount";
    return LAND_DEV;
  }
  *name = NULL;
  return LAND_ORDINARY;
}

/* fd is root/top/rest, where top is a kernel filesystem of that magic at
 * its usual place and rest is followed inside it without any symlink. */
static bool lies_at(int root_fd, const char *top, unsigned long magic, const char *rest, int fd)
{
  cleanup_close int top_fd = in_root_open(root_fd, top, O_PATH | O_DIRECTORY | O_NOFOLLOW);
  cleanup_close int at = -1;
  struct statfs fs;
  struct stat a, b;

  if (top_fd < 0 || fstatfs(top_fd, &fs) < 0 || (unsigned long)fs.f_type != magic)
    return false;
  at = oci_openat2(top_fd, rest, O_PATH | O_NOFOLLOW,
                   RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
  if (at < 0 || fstat(at, &a) < 0 || fstat(fd, &b) < 0)
    return false;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Files of procfs a config may bind over (lxcfs's emulated views). */
static const char *const proc_bind_files[] = {
    "cpuinfo",
    "diskstats",
    "meminfo",
    "stat",
    "swaps",
    "uptime",
    "loadavg",
    "slabinfo",
    "sys/kernel/ns_last_pid",
    "sys/crypto/fips_enabled",
};

/* A mount may land on a kernel filesystem only as the expected filesystem
 * at its usual place (proc at /proc, sysfs at /sys, devpts at /dev/pts, a
 * cgroup at /sys/fs/cgroup, a bind over one of the procfs files above),
 * and on the container's /dev only when its path is in /dev. Anything else
 * got there through the tree's symlinks. */
static bool landing_allowed(const struct mount_op *op, enum landing where, int root_fd, int fd)
{
  bool fs = op->kind == MOUNT_OP_FILESYSTEM;

  switch (where) {
  case LAND_ORDINARY:
    return true;
  case LAND_DEV:
    return path_is_or_under(op->target, "/dev");
  case LAND_PROC:
    if (fs && strcmp(op->fstype, "proc") == 0 && strcmp(op->target, "/proc") == 0)
      return true;
    if (op->kind != MOUNT_OP_BIND || strncmp(op->target, "/proc/", 6) != 0)
      return false;
    for (size_t i = 0; i < sizeof(proc_bind_files) / sizeof(proc_bind_files[0]); i++) {
      if (strcmp(op->target + 6, proc_bind_files[i]) == 0)
        return lies_at(root_fd, "/proc", PROC_SUPER_MAGIC, proc_bind_files[i], fd);
    }
    return false;
  case LAND_SYSFS:
    if (fs && strcmp(op->fstype, "sysfs") == 0 && strcmp(op->target, "/sys") == 0)
      return true;
    /* sysfs's own fs/cgroup is where a cgroup goes */
    __attribute__((fallthrough));
  case LAND_CGROUP:
    return (fs || op->kind == MOUNT_OP_BIND || op->kind == MOUNT_OP_BIND_CGROUP) &&
           strcmp(op->target, "/sys/fs/cgroup") == 0 &&
           lies_at(root_fd, "/sys", SYSFS_MAGIC, "fs/cgroup", fd);
  case LAND_DEVPTS:
    return fs && strcmp(op->fstype, "devpts") == 0 && strcmp(op->target, "/dev/pts") == 0;
  default:
    return false;
  }
}

/* Where a destination lands is up to the tree's symlinks (resolved in the
 * root, so never outside it). A mount that lands in procfs or sysfs (a
 * writable tmpfs over /proc/sys, a bind over /proc/sysrq-trigger), on
 * devpts or over the container's /dev from elsewhere is the CVE-2019-16884
 * / CVE-2019-19921 redirection. Checked on the deepest part that exists
 * before anything is created (target_fd -1), and on the target itself once
 * it exists; no container process runs yet, so nothing can swap a
 * component in between (CVE-2021-30465). */
int check_landing(const struct mount_op *op, int root_fd, int target_fd, oci_error_t *err)
{
  cleanup_close int fd = -1;
  cleanup_free char *path = NULL;
  const char *name;
  enum landing where;

  if (target_fd >= 0) {
    where = landing_of(target_fd, root_fd, &name);
    if (landing_allowed(op, where, root_fd, target_fd))
      return 0;
  } else {
    path = strdup(op->target);
    if (path == NULL)
      return oci_error_errno(err, "mount plan: allocate");
    while ((fd = in_root_open(root_fd, path, O_PATH)) < 0 && errno == ENOENT &&
           strcmp(path, "/") != 0) {
      char *slash = strrchr(path, '/');
      /* The target is absolute (container_path made it so): at worst "/". */
      slash[slash == path ? 1 : 0] = '\0';
    }
    if (fd < 0)
      return oci_error_errno(err, "%s %s: open %s in the root", mount_op_label(op), op->target,
                             path);
    where = landing_of(fd, root_fd, &name);
    /* Creating a directory under the root is what a target normally does. */
    if (where == LAND_ROOT || landing_allowed(op, where, root_fd, fd))
      return 0;
  }
  return oci_error_set(err, 0,
                       "%s %s: the destination lands (through the root's symlinks or not) on %s, "
                       "which is not its place: refused",
                       mount_op_label(op), op->target, name);
}

/* The target opened (created when missing), checked before and after. */
int open_checked_target(const struct mount_op *op, int root_fd, bool directory, oci_error_t *err)
{
  int fd;

  if (check_landing(op, root_fd, -1, err) < 0)
    return -1;
  fd = open_target(root_fd, op->target, directory);
  if (fd < 0 && errno == ELOOP)
    return oci_error_set(err, ELOOP,
                         "%s %s: the destination is a symlink in the root: refused (a mount "
                         "goes onto what the path names, never where a link leads)",
                         mount_op_label(op), op->target);
  if (fd < 0)
    return -1;
  if (check_landing(op, root_fd, fd, err) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}
