/* How the run's filesystem is set up: the plan (a table built from the
 * config) and the one loop that applies it. Every target inside the image is
 * opened with openat2(RESOLVE_IN_ROOT) on the new root and mounted through
 * the new mount API on that fd, never through a joined path string.
 * The root is always an overlay whose lower layer is the cached rootfs, so a
 * run never writes the cache, and mount points missing from the image can be
 * created (in the upper layer) even for --read-only, which is applied last.
 * The upper layer lives in a tmpfs mounted in the run's own mount namespace:
 * whatever the container writes is memory charged to its cgroup, and it
 * disappears with the namespace. The host never walks a tree the container
 * wrote, and the store may be on any filesystem (9p, NFS: not usable as an
 * overlay upper). */
#include "config.h"

#include "runtime/mount_plan.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "runtime/in_root.h"
#include "oci/cleanup.h"

#define RO_NOSUID_NODEV_NOEXEC                                                                     \
  (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)

/* Hidden from the container: they leak host state or kernel memory. */
static const char *const masked_paths[] = {
    "/proc/acpi",        "/proc/asound",        "/proc/interrupts", "/proc/kcore",
    "/proc/keys",        "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
    "/proc/sched_debug", "/proc/scsi",
};
static const char *const masked_sys_paths[] = {
    "/sys/firmware",
    "/sys/devices/virtual/powercap",
};
/* Kernel knobs the container may read but never write. */
static const char *const read_only_paths[] = {
    "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};
static const char *const host_devices[] = {"null", "zero", "full", "random", "urandom", "tty"};
static const struct {
  const char *target;
  const char *link;
} dev_symlinks[] = {
    {"/dev/ptmx", "pts/ptmx"},          {"/dev/fd", "/proc/self/fd"},
    {"/dev/stdin", "/proc/self/fd/0"},  {"/dev/stdout", "/proc/self/fd/1"},
    {"/dev/stderr", "/proc/self/fd/2"},
};

static const char *const kind_names[] = {
    [MOUNT_OP_MAKE_PRIVATE] = "private",      [MOUNT_OP_ROOT_SCRATCH] = "root-scratch",
    [MOUNT_OP_ROOT_OVERLAY] = "root-overlay", [MOUNT_OP_FILESYSTEM] = "mount",
    [MOUNT_OP_BIND_DEVICE] = "bind-device",   [MOUNT_OP_MASK] = "mask",
    [MOUNT_OP_READ_ONLY] = "read-only",       [MOUNT_OP_SYMLINK] = "symlink",
    [MOUNT_OP_WRITE_FILE] = "write-file",     [MOUNT_OP_ROOT_READ_ONLY] = "root-read-only",
    [MOUNT_OP_PIVOT_ROOT] = "pivot-root",
};

/* Appends one operation; strings are copied (NULL stays NULL). */
static int add_op(struct mount_plan *plan, enum mount_op_kind kind, const char *source,
                  const char *target, const char *fstype, uint64_t attr, const char *data,
                  oci_error_t *err)
{
  struct mount_op *grown = reallocarray(plan->ops, plan->n_ops + 1, sizeof(*grown));
  struct mount_op op = {.kind = kind, .fstype = fstype, .attr = attr};

  if (grown == NULL)
    return oci_error_errno(err, "mount plan: allocate");
  plan->ops = grown;
  op.source = source != NULL ? strdup(source) : NULL;
  op.target = strdup(target);
  op.data = data != NULL ? strdup(data) : NULL;
  if ((source != NULL && op.source == NULL) || op.target == NULL ||
      (data != NULL && op.data == NULL)) {
    free(op.source);
    free(op.target);
    free(op.data);
    return oci_error_errno(err, "mount plan: allocate");
  }
  plan->ops[plan->n_ops++] = op;
  return 0;
}

static uint64_t attr_from_ms_flags(unsigned long flags)
{
  return ((flags & MS_RDONLY) ? MOUNT_ATTR_RDONLY : 0) |
         ((flags & MS_NOSUID) ? MOUNT_ATTR_NOSUID : 0) |
         ((flags & MS_NODEV) ? MOUNT_ATTR_NODEV : 0) |
         ((flags & MS_NOEXEC) ? MOUNT_ATTR_NOEXEC : 0);
}

static int add_dev(struct mount_plan *plan, bool user_namespace, oci_error_t *err)
{
  char target[64], source[64];

  /* nodev: a node the workload makes in /dev cannot be opened; the host
   * devices below are bind mounts of their own and keep working. */
  if (add_op(plan, MOUNT_OP_FILESYSTEM, "tmpfs", "/dev", "tmpfs",
             MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, "mode=755,size=65536k", err) < 0)
    return -1;
  for (size_t i = 0; i < sizeof(host_devices) / sizeof(host_devices[0]); i++) {
    snprintf(target, sizeof(target), "/dev/%s", host_devices[i]);
    snprintf(source, sizeof(source), "/dev/%s", host_devices[i]);
    if (add_op(plan, MOUNT_OP_BIND_DEVICE, source, target, NULL, MOUNT_ATTR_NOSUID, NULL, err) < 0)
      return -1;
  }
  if (add_op(plan, MOUNT_OP_FILESYSTEM, "devpts", "/dev/pts", "devpts",
             MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
             user_namespace ? "newinstance,ptmxmode=0666,mode=0620"
                            : "newinstance,ptmxmode=0666,mode=0620,gid=5",
             err) < 0)
    return -1;
  if (add_op(plan, MOUNT_OP_FILESYSTEM, "shm", "/dev/shm", "tmpfs",
             MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, "mode=1777,size=65536k",
             err) < 0)
    return -1;
  /* POSIX message queues of the run's own ipc namespace */
  if (add_op(plan, MOUNT_OP_FILESYSTEM, "mqueue", "/dev/mqueue", "mqueue",
             MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, NULL, err) < 0)
    return -1;
  for (size_t i = 0; i < sizeof(dev_symlinks) / sizeof(dev_symlinks[0]); i++) {
    if (add_op(plan, MOUNT_OP_SYMLINK, dev_symlinks[i].link, dev_symlinks[i].target, NULL, 0, NULL,
               err) < 0)
      return -1;
  }
  return 0;
}

static int add_user_tmpfs(struct mount_plan *plan, const struct tmpfs_mount *mount,
                          oci_error_t *err)
{
  char data[64];

  /* Every mount the workload can write is nodev (so also without a device
   * cgroup): refuse Docker's "dev" rather than ignore it. */
  if ((mount->flags & MS_NODEV) == 0)
    return oci_error_set(err, 0,
                         "--tmpfs '%s': option 'dev' is not allowed: every mount the container "
                         "can write is nodev",
                         mount->path);

  if (mount->size_bytes > 0)
    snprintf(data, sizeof(data), "mode=%o,size=%llu", (unsigned)mount->mode,
             (unsigned long long)mount->size_bytes);
  else
    snprintf(data, sizeof(data), "mode=%o", (unsigned)mount->mode);
  if (add_op(plan, MOUNT_OP_FILESYSTEM, "tmpfs", mount->path, "tmpfs",
             attr_from_ms_flags(mount->flags), data, err) < 0)
    return -1;
  plan->ops[plan->n_ops - 1].user_target = true;
  return 0;
}

int mount_plan_build(const struct run_config *config, const char *rootfs, const char *run_dir,
                     const char *hostname, bool user_namespace, struct mount_plan *plan,
                     oci_error_t *err)
{
  cleanup_free char *overlay_data = NULL;
  cleanup_free char *merged = NULL;
  cleanup_free char *hostname_file = NULL;

  *plan = (struct mount_plan){.lower_fd = -1};
  /* The overlay's directories are given to overlayfs as /proc/self/fd/N of
   * fds (lower_fd, and the scratch tmpfs's own): the data printed here
   * names them for the reader; apply_root_overlay writes the real one. */
  if (asprintf(&plan->root_mountpoint, "%s/rootfs", run_dir) < 0 ||
      asprintf(&merged, "%s/rootfs/root", run_dir) < 0 ||
      asprintf(&overlay_data, "upperdir=%s/rootfs/upper,workdir=%s/rootfs/work%s", run_dir, run_dir,
               user_namespace ? ",userxattr" : "") < 0) {
    plan->root_mountpoint = merged = overlay_data = NULL;
    return oci_error_errno(err, "mount plan: allocate");
  }
  /* The scratch's source is the rootfs only so that its upper/ can take
   * the owner and mode of the rootfs' root directory. */
  if (add_op(plan, MOUNT_OP_MAKE_PRIVATE, NULL, "/", NULL, 0, NULL, err) < 0 ||
      add_op(plan, MOUNT_OP_ROOT_SCRATCH, rootfs, plan->root_mountpoint, "tmpfs", MOUNT_ATTR_NODEV,
             "mode=0700", err) < 0 ||
      /* The writable root is nodev: a device node the workload makes (it
       * has CAP_MKNOD by default, as in Docker) cannot be opened through it,
       * with or without the device cgroup. */
      add_op(plan, MOUNT_OP_ROOT_OVERLAY, rootfs, merged, "overlay", MOUNT_ATTR_NODEV, overlay_data,
             err) < 0 ||
      add_op(plan, MOUNT_OP_FILESYSTEM, "proc", "/proc", "proc",
             MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, NULL, err) < 0)
    goto fail;
  for (size_t i = 0; i < sizeof(masked_paths) / sizeof(masked_paths[0]); i++) {
    if (add_op(plan, MOUNT_OP_MASK, "/dev/null", masked_paths[i], NULL, RO_NOSUID_NODEV_NOEXEC,
               NULL, err) < 0)
      goto fail;
  }
  for (size_t i = 0; i < sizeof(read_only_paths) / sizeof(read_only_paths[0]); i++) {
    if (add_op(plan, MOUNT_OP_READ_ONLY, NULL, read_only_paths[i], NULL, RO_NOSUID_NODEV_NOEXEC,
               NULL, err) < 0)
      goto fail;
  }
  if (add_dev(plan, user_namespace, err) < 0)
    goto fail;
  /* sysfs shows the network namespace it is mounted in: the new one. */
  if (add_op(plan, MOUNT_OP_FILESYSTEM, "sysfs", "/sys", "sysfs", RO_NOSUID_NODEV_NOEXEC, NULL,
             err) < 0 ||
      add_op(plan, MOUNT_OP_FILESYSTEM, "cgroup2", "/sys/fs/cgroup", "cgroup2",
             RO_NOSUID_NODEV_NOEXEC, NULL, err) < 0)
    goto fail;
  for (size_t i = 0; i < sizeof(masked_sys_paths) / sizeof(masked_sys_paths[0]); i++) {
    if (add_op(plan, MOUNT_OP_MASK, "/dev/null", masked_sys_paths[i], NULL, RO_NOSUID_NODEV_NOEXEC,
               NULL, err) < 0)
      goto fail;
  }
  /* As docker: the image's /etc/hostname and /etc/hosts describe the run,
   * not the machine the image was built on. Written into the overlay's upper
   * layer, before a --read-only root is made read-only. */
  if (asprintf(&hostname_file, "%s\n", hostname) < 0) {
    hostname_file = NULL;
    oci_error_errno(err, "mount plan: allocate");
    goto fail;
  }
  if (add_op(plan, MOUNT_OP_WRITE_FILE, NULL, "/etc/hostname", NULL, 0, hostname_file, err) < 0 ||
      add_op(plan, MOUNT_OP_WRITE_FILE, NULL, "/etc/hosts", NULL, 0,
             "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n", err) < 0)
    goto fail;
  for (size_t i = 0; i < config->n_tmpfs; i++) {
    if (add_user_tmpfs(plan, &config->tmpfs[i], err) < 0)
      goto fail;
  }
  if (config->read_only &&
      add_op(plan, MOUNT_OP_ROOT_READ_ONLY, NULL, "/", NULL,
             MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, NULL, err) < 0)
    goto fail;
  if (add_op(plan, MOUNT_OP_PIVOT_ROOT, plan->root_mountpoint, "/", NULL, 0, NULL, err) < 0)
    goto fail;
  return 0;
fail:
  mount_plan_clear(plan);
  return -1;
}

void mount_plan_clear(struct mount_plan *plan)
{
  for (size_t i = 0; i < plan->n_ops; i++) {
    free(plan->ops[i].source);
    free(plan->ops[i].target);
    free(plan->ops[i].data);
  }
  free(plan->ops);
  free(plan->root_mountpoint);
  *plan = (struct mount_plan){.lower_fd = -1};
}

static void format_attr(uint64_t attr, char *buf, size_t size)
{
  static const struct {
    uint64_t bit;
    const char *name;
  } names[] = {{MOUNT_ATTR_RDONLY, "ro"},
               {MOUNT_ATTR_NOSUID, "nosuid"},
               {MOUNT_ATTR_NODEV, "nodev"},
               {MOUNT_ATTR_NOEXEC, "noexec"}};
  size_t used = 0;

  buf[0] = '\0';
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    if ((attr & names[i].bit) && used < size)
      used += (size_t)snprintf(buf + used, size - used, "%s%s", used > 0 ? "," : "", names[i].name);
  }
  if (used == 0)
    snprintf(buf, size, "-");
}

/* File contents on one line of the table: newlines and tabs as \n, \t. */
static void print_escaped(const char *text, FILE *out)
{
  for (const char *p = text; *p != '\0'; p++) {
    if (*p == '\n')
      fputs("\\n", out);
    else if (*p == '\t')
      fputs("\\t", out);
    else
      fputc(*p, out);
  }
}

void mount_plan_print(const struct mount_plan *plan, FILE *out)
{
  char attrs[64];

  fprintf(out, "%-3s %-15s %-32s %-24s %-24s %s\n", "#", "KIND", "TARGET", "SOURCE", "ATTRS",
          "DATA");
  for (size_t i = 0; i < plan->n_ops; i++) {
    const struct mount_op *op = &plan->ops[i];

    format_attr(op->attr, attrs, sizeof(attrs));
    fprintf(out, "%-3zu %-15s %-32s %-24s %-24s ", i + 1, kind_names[op->kind], op->target,
            op->source != NULL ? op->source : "-", attrs);
    print_escaped(op->data != NULL ? op->data : "-", out);
    fputc('\n', out);
  }
}

/* ---- applying the plan (child side) ---- */

/* mkdir -p inside the root (in_root.c); 0 or -1 with errno. */
static int make_directories_in_root(int root_fd, const char *path)
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
 * symlinks, and upper/work are in the fresh scratch. The merged root is
 * attached onto the scratch's root/ and *root_fd is the overlay itself. */
static int apply_root_overlay(const struct mount_op *op, const struct mount_plan *plan,
                              int scratch_fd, int *root_fd)
{
  cleanup_free char *data = NULL;
  cleanup_close int mount_fd = -1;
  cleanup_close int target_fd = -1;
  cleanup_close int lower_fd = -1;
  struct stat lower;

  if (scratch_fd < 0) {
    errno = EBADF;
    return -1;
  }
  if (fstat(plan->lower_fd, &lower) < 0)
    return -1;
  lower_fd = reopen_in_this_namespace(lower.st_dev, lower.st_ino, op->source);
  if (lower_fd < 0)
    return -1;
  if (asprintf(&data,
               "lowerdir=/proc/self/fd/%d,upperdir=/proc/self/fd/%d/upper,"
               "workdir=/proc/self/fd/%d/work%s",
               lower_fd, scratch_fd, scratch_fd,
               op->data != NULL && strstr(op->data, ",userxattr") != NULL ? ",userxattr" : "") <
      0) {
    data = NULL;
    return -1;
  }
  mount_fd = make_filesystem("overlay", "overlay", data, op->attr);
  if (mount_fd < 0)
    return -1;
  target_fd = openat(scratch_fd, "root", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (target_fd < 0 || attach(mount_fd, target_fd) < 0)
    return -1;
  *root_fd = steal_fd(&mount_fd);
  return 0;
}

static int apply_filesystem(const struct mount_op *op, int root_fd)
{
  cleanup_close int target_fd = open_target(root_fd, op->target, true);
  cleanup_close int mount_fd = -1;

  if (target_fd < 0)
    return -1;
  mount_fd = make_filesystem(op->fstype, op->source, op->data, op->attr);
  if (mount_fd < 0)
    return -1;
  return attach(mount_fd, target_fd);
}

/* The kernel interface a directory lies on, or NULL for an ordinary one.
 * dev_fd is ocirun's /dev tmpfs. */
static const char *kernel_filesystem_of(int fd, int root_fd, int dev_fd)
{
  struct statfs fs;
  struct stat st, root, dev;

  if (fstatfs(fd, &fs) < 0 || fstat(fd, &st) < 0 || fstat(root_fd, &root) < 0 ||
      fstat(dev_fd, &dev) < 0)
    return "a filesystem that cannot be examined";
  switch (fs.f_type) {
  case PROC_SUPER_MAGIC:
    return "procfs";
  case SYSFS_MAGIC:
    return "sysfs";
  case CGROUP2_SUPER_MAGIC:
    return "cgroup2";
  case DEVPTS_SUPER_MAGIC:
    return "devpts";
  }
  if (st.st_dev == dev.st_dev)
    return "the /dev tmpfs";
  if (st.st_dev == root.st_dev && st.st_ino == root.st_ino)
    return "the root directory";
  return NULL;
}

/* Where a flag's target lands is up to the image's symlinks (resolved in
 * the root, so never outside it). It must not land in /proc, /sys or /dev:
 * a writable tmpfs over /proc/sys or /sys/kernel, or a tmpfs hiding /dev,
 * is the CVE-2019-16884 / CVE-2019-19921 redirection. Checked on the
 * deepest part that exists before anything is created, and on the target
 * itself once it exists; no container process runs yet, so nothing can
 * swap a component in between (CVE-2021-30465). */
static int check_user_target(const struct mount_op *op, int root_fd, int target_fd,
                             oci_error_t *err)
{
  cleanup_close int dev_fd = in_root_open(root_fd, "/dev", O_PATH | O_DIRECTORY | O_NOFOLLOW);
  cleanup_close int fd = -1;
  cleanup_free char *path = strdup(op->target);
  const char *kind;

  if (dev_fd < 0 || path == NULL)
    return oci_error_errno(err, "mount plan: check --tmpfs %s: open /dev", op->target);
  if (target_fd >= 0) {
    kind = kernel_filesystem_of(target_fd, root_fd, dev_fd);
  } else {
    while ((fd = in_root_open(root_fd, path, O_PATH)) < 0 && errno == ENOENT &&
           strcmp(path, "/") != 0) {
      char *slash = strrchr(path, '/');
      /* The target is absolute (run_config normalised it): at worst "/". */
      slash[slash == path ? 1 : 0] = '\0';
    }
    if (fd < 0)
      return oci_error_errno(err, "mount plan: check --tmpfs %s: open %s", op->target, path);
    kind = kernel_filesystem_of(fd, root_fd, dev_fd);
    /* Creating a directory under the root is what a target normally does. */
    if (kind != NULL && strcmp(kind, "the root directory") == 0)
      kind = NULL;
  }
  if (kind != NULL)
    return oci_error_set(err, 0,
                         "--tmpfs %s: the target resolves (through the image's symlinks) onto %s: "
                         "refused",
                         op->target, kind);
  return 0;
}

static int apply_user_filesystem(const struct mount_op *op, int root_fd, oci_error_t *err)
{
  cleanup_close int target_fd = -1;
  cleanup_close int mount_fd = -1;

  if (check_user_target(op, root_fd, -1, err) < 0)
    return -1;
  target_fd = open_target(root_fd, op->target, true);
  if (target_fd < 0)
    return oci_error_errno(err, "mount plan: --tmpfs %s: open the target", op->target);
  if (check_user_target(op, root_fd, target_fd, err) < 0)
    return -1;
  mount_fd = make_filesystem(op->fstype, op->source, op->data, op->attr);
  if (mount_fd < 0 || attach(mount_fd, target_fd) < 0)
    return oci_error_errno(err, "mount plan: --tmpfs %s", op->target);
  return 0;
}

/* A detached clone of a host device node (source is a host path, resolved
 * before pivot_root in the host's tree, never the image's). It must be a
 * character device, and the one masks use must be the real /dev/null (1:3):
 * a mask made of anything else (a symlink, a file, CVE-2025-31133) would
 * expose or let the container write what it hides. */
static int open_host_device(const char *source, bool must_be_null)
{
  int mount_fd =
      open_tree(AT_FDCWD, source, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);
  struct stat st;

  if (mount_fd < 0)
    return -1;
  if (fstat(mount_fd, &st) < 0) {
    int saved = errno;

    close(mount_fd);
    errno = saved;
    return -1;
  }
  if (!S_ISCHR(st.st_mode) || (must_be_null && st.st_rdev != makedev(1, 3))) {
    close(mount_fd);
    errno = ENODEV;
    return -1;
  }
  return mount_fd;
}

static int apply_bind_device(const struct mount_op *op, int root_fd)
{
  cleanup_close int target_fd = open_target(root_fd, op->target, false);
  cleanup_close int mount_fd = -1;
  struct mount_attr attr = {.attr_set = op->attr};

  if (target_fd < 0)
    return -1;
  mount_fd = open_host_device(op->source, false);
  if (mount_fd < 0)
    return -1;
  if (mount_setattr(mount_fd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
    return -1;
  return attach(mount_fd, target_fd);
}

/* A missing path needs no mask; anything else present is covered. */
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
    mount_fd = make_filesystem("tmpfs", "tmpfs", "size=0,mode=555", op->attr);
  } else {
    mount_fd = open_host_device(op->source, true);
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

static int apply_symlink(const struct mount_op *op, int root_fd)
{
  const char *last;
  cleanup_close int parent_fd = in_root_open_parent(root_fd, op->target, &last);

  if (parent_fd < 0)
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

/* The host path a step takes a device from, for its error message. */
static const char *host_source(const struct mount_op *op)
{
  return op->kind == MOUNT_OP_BIND_DEVICE || op->kind == MOUNT_OP_MASK ? op->source : NULL;
}

int mount_plan_apply(const struct mount_plan *plan, oci_error_t *err)
{
  cleanup_close int root_fd = -1;
  cleanup_close int scratch_fd = -1;

  for (size_t i = 0; i < plan->n_ops; i++) {
    const struct mount_op *op = &plan->ops[i];
    int ret;

    if (op->kind != MOUNT_OP_MAKE_PRIVATE && op->kind != MOUNT_OP_ROOT_SCRATCH &&
        op->kind != MOUNT_OP_ROOT_OVERLAY && root_fd < 0)
      return oci_error_set(err, 0, "mount plan: step %zu (%s %s) before the root exists", i + 1,
                           kind_names[op->kind], op->target);
    switch (op->kind) {
    case MOUNT_OP_MAKE_PRIVATE:
      ret = mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
      break;
    case MOUNT_OP_ROOT_SCRATCH:
      ret = apply_root_scratch(op, plan, &scratch_fd);
      break;
    case MOUNT_OP_ROOT_OVERLAY:
      ret = apply_root_overlay(op, plan, scratch_fd, &root_fd);
      break;
    case MOUNT_OP_FILESYSTEM:
      if (op->user_target) {
        if (apply_user_filesystem(op, root_fd, err) < 0)
          return -1;
        ret = 0;
        break;
      }
      ret = apply_filesystem(op, root_fd);
      break;
    case MOUNT_OP_BIND_DEVICE:
      ret = apply_bind_device(op, root_fd);
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
    case MOUNT_OP_ROOT_READ_ONLY:
      ret = apply_root_read_only(op, root_fd);
      break;
    case MOUNT_OP_PIVOT_ROOT:
      ret = apply_pivot_root(root_fd);
      break;
    default:
      errno = EINVAL;
      ret = -1;
    }
    if (ret < 0)
      return oci_error_errno(
          err, "mount plan: step %zu (%s %s%s%s%s%s)", i + 1, kind_names[op->kind], op->target,
          op->fstype != NULL ? " type " : "", op->fstype != NULL ? op->fstype : "",
          host_source(op) != NULL ? " from " : "", host_source(op) != NULL ? host_source(op) : "");
  }
  return 0;
}
