/* How the container's filesystem is set up: the plan (a table built from
 * the OCI configuration) and the one loop that applies it. Every target
 * inside the root is opened with openat2(RESOLVE_IN_ROOT) on the new root and
 * mounted through the new mount API on that fd, never through a joined path.
 *
 * The root is either an overlay (ocirun run: the lower is the cached image
 * rootfs, never written; upper and work are directories of the run dir on
 * the store's filesystem, or with --root-tmpfs live in a tmpfs of the run's
 * own mount namespace, memory charged to its cgroup that vanishes with the
 * namespace; see writable_layer.c), or a bundle's root.path bound onto
 * itself (the OCI commands).
 * Then the config's mounts in order, the default devices and /dev links,
 * linux.devices, masked and read-only paths, root.readonly, pivot_root and
 * rootfsPropagation. A bundle's rootfs and an image are hostile: where each
 * destination lands is checked (see check_landing). */
#include "config.h"

#include "runtime/mount_plan.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "oci/in_root.h"
#include "oci/cleanup.h"

#define RO_NOSUID_NODEV_NOEXEC                                                                     \
  (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)
/* A host device node bound in: its inode the host's (see default_devices) */
#define HOST_DEVICE_ATTR (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC)

/* runtime-spec config-linux.md, "Default Devices": bound from the host's
 * nodes, each checked to be that very device when it is bound, and
 * read-only: the node is the host's own inode, which a container's root
 * with CAP_FOWNER or CAP_CHOWN would otherwise chmod or chown (the host's
 * /dev/null made unusable); a read-only mount refuses that (EROFS) and
 * still lets the device be read and written, as any device node. */
static const struct {
  const char *path;
  unsigned major, minor;
} default_devices[] = {
    {"/dev/null", 1, 3},   {"/dev/zero", 1, 5},    {"/dev/full", 1, 7},
    {"/dev/random", 1, 8}, {"/dev/urandom", 1, 9}, {"/dev/tty", 5, 0},
};
/* config-linux.md: /dev/ptmx as a link to the container's devpts, and
 * runtime.md's "/dev symbolic links". */
static const struct {
  const char *target;
  const char *link;
} dev_symlinks[] = {
    {"/dev/ptmx", "pts/ptmx"},          {"/dev/fd", "/proc/self/fd"},
    {"/dev/stdin", "/proc/self/fd/0"},  {"/dev/stdout", "/proc/self/fd/1"},
    {"/dev/stderr", "/proc/self/fd/2"},
};
/* The filesystems a config may mount. A closed list: anything else (a disk
 * filesystem from a block device, a network filesystem) is a host action a
 * container's config has no business asking of the runtime. "cgroup" is
 * cgroup2: ocirun runs on cgroup v2 only. */
static const char *const filesystems[] = {"tmpfs", "proc", "sysfs", "devpts", "mqueue", "cgroup2"};

static const char *const kind_names[] = {
    [MOUNT_OP_MAKE_PRIVATE] = "private",
    [MOUNT_OP_ROOT_SCRATCH] = "root-scratch",
    [MOUNT_OP_ROOT_OVERLAY] = "root-overlay",
    [MOUNT_OP_ROOT_BIND] = "root-bind",
    [MOUNT_OP_FILESYSTEM] = "mount",
    [MOUNT_OP_BIND] = "bind",
    [MOUNT_OP_BIND_DEVICE] = "bind-device",
    [MOUNT_OP_MAKE_DEVICE] = "make-device",
    [MOUNT_OP_MASK] = "mask",
    [MOUNT_OP_READ_ONLY] = "read-only",
    [MOUNT_OP_SYMLINK] = "symlink",
    [MOUNT_OP_WRITE_FILE] = "write-file",
    [MOUNT_OP_ROOT_READ_ONLY] = "root-read-only",
    [MOUNT_OP_PIVOT_ROOT] = "pivot-root",
    [MOUNT_OP_PROPAGATION] = "propagation",
};

static void free_op(struct mount_op *op)
{
  free(op->source);
  free(op->target);
  free(op->data);
  free(op->what);
}

/* Appends one operation; strings are copied (NULL stays NULL). The op is
 * returned for the caller to fill in the rest. */
static struct mount_op *add_op(struct mount_plan *plan, enum mount_op_kind kind, const char *source,
                               const char *target, const char *fstype, uint64_t attr,
                               const char *data, oci_error_t *err)
{
  struct mount_op *grown = reallocarray(plan->ops, plan->n_ops + 1, sizeof(*grown));
  struct mount_op op = {.kind = kind, .fstype = fstype, .attr = attr, .mount_index = -1};

  if (grown == NULL) {
    oci_error_errno(err, "mount plan: allocate");
    return NULL;
  }
  plan->ops = grown;
  op.source = source != NULL ? strdup(source) : NULL;
  op.target = strdup(target);
  op.data = data != NULL ? strdup(data) : NULL;
  if ((source != NULL && op.source == NULL) || op.target == NULL ||
      (data != NULL && op.data == NULL)) {
    free_op(&op);
    oci_error_errno(err, "mount plan: allocate");
    return NULL;
  }
  plan->ops[plan->n_ops] = op;
  return &plan->ops[plan->n_ops++];
}

static int set_what(struct mount_op *op, oci_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int set_what(struct mount_op *op, oci_error_t *err, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vasprintf(&op->what, fmt, ap);
  va_end(ap);
  if (n < 0) {
    op->what = NULL;
    return oci_error_errno(err, "mount plan: allocate");
  }
  return 0;
}

/* A path inside the container as the config gives it, made canonical: "//"
 * and "." components dropped, no trailing "/". A ".." component is refused
 * (it means nothing inside a root and everything outside one), and so is
 * any spelling of the root itself. relative_ok: a mount destination may be
 * relative, and then means relative to "/" (config.md, deprecated). */
static int container_path(const char *path, bool relative_ok, const char *what, char **out,
                          oci_error_t *err)
{
  cleanup_free char *copy = NULL;
  char *result, *save = NULL;
  size_t used = 0;

  *out = NULL;
  if (path == NULL || path[0] == '\0')
    return oci_error_set(err, 0, "config.json: %s: the path is empty", what);
  if (path[0] != '/' && !relative_ok)
    return oci_error_set(err, 0, "config.json: %s: '%s' is not an absolute path", what, path);
  copy = strdup(path);
  result = malloc(strlen(path) + 2);
  if (copy == NULL || result == NULL) {
    free(result);
    return oci_error_errno(err, "mount plan: allocate");
  }
  result[0] = '\0';
  for (char *c = strtok_r(copy, "/", &save); c != NULL; c = strtok_r(NULL, "/", &save)) {
    if (strcmp(c, ".") == 0)
      continue;
    if (strcmp(c, "..") == 0) {
      free(result);
      return oci_error_set(err, 0, "config.json: %s: '%s' has a '..' component: refused", what,
                           path);
    }
    used += (size_t)sprintf(result + used, "/%s", c);
  }
  if (used == 0) {
    free(result);
    return oci_error_set(err, 0, "config.json: %s: '%s' is the root itself: refused", what, path);
  }
  *out = result;
  return 0;
}

static bool path_is_or_under(const char *path, const char *top)
{
  size_t n = strlen(top);

  return strncmp(path, top, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* MS_* options of a mount split into what mount_setattr/fsmount take
 * (*set, *clr) and superblock flags (only a new filesystem has its own:
 * added to *data as fsconfig flags). An option ocirun cannot apply is
 * refused, naming it. */
#define ATTR_FLAGS                                                                                 \
  (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME |       \
   MS_STRICTATIME | MS_NOSYMFOLLOW)
static const struct {
  unsigned long flag;
  const char *word;
} superblock_flags[] = {
    {MS_SYNCHRONOUS, "sync"},
    {MS_DIRSYNC, "dirsync"},
    {MS_LAZYTIME, "lazytime"},
    {MS_MANDLOCK, "mand"},
};

/* MS_* bits set and cleared -> mount_setattr's MOUNT_ATTR_* set and clear. */
static void attr_from_flags(unsigned long flags, unsigned long clear_flags, uint64_t *set,
                            uint64_t *clr)
{
  *set = ((flags & MS_RDONLY) ? MOUNT_ATTR_RDONLY : 0) |
         ((flags & MS_NOSUID) ? MOUNT_ATTR_NOSUID : 0) |
         ((flags & MS_NODEV) ? MOUNT_ATTR_NODEV : 0) |
         ((flags & MS_NOEXEC) ? MOUNT_ATTR_NOEXEC : 0) |
         ((flags & MS_NODIRATIME) ? MOUNT_ATTR_NODIRATIME : 0) |
         ((flags & MS_NOSYMFOLLOW) ? MOUNT_ATTR_NOSYMFOLLOW : 0);
  *clr = ((clear_flags & MS_RDONLY) ? MOUNT_ATTR_RDONLY : 0) |
         ((clear_flags & MS_NOSUID) ? MOUNT_ATTR_NOSUID : 0) |
         ((clear_flags & MS_NODEV) ? MOUNT_ATTR_NODEV : 0) |
         ((clear_flags & MS_NOEXEC) ? MOUNT_ATTR_NOEXEC : 0) |
         ((clear_flags & MS_NODIRATIME) ? MOUNT_ATTR_NODIRATIME : 0) |
         ((clear_flags & MS_NOSYMFOLLOW) ? MOUNT_ATTR_NOSYMFOLLOW : 0);
  /* One access-time mode: setting it means clearing the field first. */
  if (flags & MS_STRICTATIME)
    *set |= MOUNT_ATTR_STRICTATIME;
  else if (flags & MS_NOATIME)
    *set |= MOUNT_ATTR_NOATIME;
  if ((flags & (MS_STRICTATIME | MS_NOATIME | MS_RELATIME)) ||
      (clear_flags & (MS_NOATIME | MS_STRICTATIME)))
    *clr |= MOUNT_ATTR__ATIME;
}

static int mount_options(const struct spec_mount *m, size_t index, bool bind, uint64_t *set,
                         uint64_t *clr, char **data, oci_error_t *err)
{
  /* silent/loud only quiets the kernel's log of a failed mount */
  unsigned long flags = m->flags & ~(unsigned long)(MS_BIND | MS_REC | MS_SILENT);
  unsigned long known = ATTR_FLAGS;
  size_t extra = 0;

  attr_from_flags(flags, m->clear_flags, set, clr);
  for (size_t i = 0; i < sizeof(superblock_flags) / sizeof(superblock_flags[0]); i++) {
    if (!(flags & superblock_flags[i].flag))
      continue;
    if (bind)
      return oci_error_set(err, 0,
                           "config.json: mounts[%zu].options: '%s' is a filesystem's option, not a "
                           "mount's: not supported on a bind mount",
                           index, superblock_flags[i].word);
    known |= superblock_flags[i].flag;
    extra += strlen(superblock_flags[i].word) + 1;
  }
  if (flags & MS_REMOUNT)
    return oci_error_set(err, 0,
                         "config.json: mounts[%zu].options: 'remount' is not supported (every "
                         "mount of the plan is a new one; its options are applied as it is made)",
                         index);
  if (flags & MS_I_VERSION)
    return oci_error_set(err, 0, "config.json: mounts[%zu].options: 'iversion' is not supported",
                         index);
  if (flags & ~known)
    return oci_error_set(err, 0,
                         "config.json: mounts[%zu].options: mount flags %#lx are not supported",
                         index, flags & ~known);
  *data = NULL;
  /* The spec passes an option it does not name to mount(2) as data, which
   * mount(2) ignores for a bind (MS_BIND): so does ocirun. */
  if (bind)
    return 0;
  if (m->data == NULL && extra == 0)
    return 0;
  *data = malloc((m->data != NULL ? strlen(m->data) : 0) + extra + 1);
  if (*data == NULL)
    return oci_error_errno(err, "mount plan: allocate");
  strcpy(*data, m->data != NULL ? m->data : "");
  for (size_t i = 0; i < sizeof(superblock_flags) / sizeof(superblock_flags[0]); i++) {
    if (flags & superblock_flags[i].flag)
      sprintf(*data + strlen(*data), "%s%s", (*data)[0] != '\0' ? "," : "",
              superblock_flags[i].word);
  }
  return 0;
}

static const char *filesystem_type(const char *type)
{
  if (type == NULL)
    return NULL;
  if (strcmp(type, "cgroup") == 0)
    return "cgroup2";
  for (size_t i = 0; i < sizeof(filesystems) / sizeof(filesystems[0]); i++) {
    if (strcmp(type, filesystems[i]) == 0)
      return filesystems[i];
  }
  return NULL;
}

/* A bind source: a host path of the config (the caller's, trusted as the
 * config is), absolute or relative to the bundle. */
static int bind_source(const struct spec_mount *m, size_t index, const struct mount_root *root,
                       char **out, oci_error_t *err)
{
  int n;

  *out = NULL;
  if (m->source == NULL || m->source[0] == '\0')
    return oci_error_set(err, 0, "config.json: mounts[%zu].source: a bind mount needs a source",
                         index);
  if (m->source[0] == '/')
    n = asprintf(out, "%s", m->source);
  else if (root->bundle != NULL)
    n = asprintf(out, "%s/%s", root->bundle, m->source);
  else
    return oci_error_set(err, 0,
                         "config.json: mounts[%zu].source: '%s' is relative to a bundle, and "
                         "there is none",
                         index, m->source);
  if (n < 0) {
    *out = NULL;
    return oci_error_errno(err, "mount plan: allocate");
  }
  return 0;
}

static int add_spec_mount(struct mount_plan *plan, const struct spec_mount *m, size_t index,
                          const struct mount_root *root, oci_error_t *err)
{
  char what[64];
  cleanup_free char *target = NULL;
  cleanup_free char *source = NULL;
  cleanup_free char *data = NULL;
  const char *fstype = NULL;
  struct mount_op *op;
  uint64_t set, clr;

  snprintf(what, sizeof(what), "mounts[%zu].destination", index);
  if (container_path(m->destination, true, what, &target, err) < 0)
    return -1;
  if (m->bind) {
    if (bind_source(m, index, root, &source, err) < 0)
      return -1;
  } else {
    if (m->type == NULL || m->type[0] == '\0')
      return oci_error_set(err, 0,
                           "config.json: mounts[%zu].type: a mount that is not a bind mount "
                           "needs a type",
                           index);
    fstype = filesystem_type(m->type);
    if (fstype == NULL)
      return oci_error_set(err, 0,
                           "config.json: mounts[%zu].type: '%s' is not supported (ocirun mounts "
                           "tmpfs, proc, sysfs, devpts, mqueue, cgroup, cgroup2 and bind mounts)",
                           index, m->type);
  }
  if (mount_options(m, index, m->bind, &set, &clr, &data, err) < 0)
    return -1;
  /* Every filesystem the workload could write is nodev unless the config
   * says "dev" (the device cgroup is the other layer, absent rootless);
   * devpts's nodes are its purpose. A bind keeps what the host path is. */
  if (!m->bind && strcmp(fstype, "devpts") != 0 && !(clr & MOUNT_ATTR_NODEV))
    set |= MOUNT_ATTR_NODEV;
  op = add_op(plan, m->bind ? MOUNT_OP_BIND : MOUNT_OP_FILESYSTEM,
              m->bind ? source : (m->source != NULL ? m->source : fstype), target, fstype, set,
              data, err);
  if (op == NULL)
    return -1;
  op->attr_clr = clr;
  op->propagation = m->propagation;
  op->recursive = m->bind && m->recursive;
  if (op->recursive) {
    /* What every mount of the tree gets: the r- forms, and what the top
     * one is set to (a submount is never left less restricted than the
     * mount the config asked for: "rbind,ro" is read-only all the way
     * down). Only the r- forms clear anything below the top. */
    attr_from_flags(m->rec_flags, m->rec_clear_flags, &op->attr_rec, &op->attr_rec_clr);
    op->attr_rec |= set & ~(uint64_t)MOUNT_ATTR__ATIME;
  }
  if (m->tmpcopyup && (m->bind || strcmp(fstype, "tmpfs") != 0))
    return oci_error_set(err, 0, "config.json: mounts[%zu].options: 'tmpcopyup' is for a tmpfs",
                         index);
  op->copy_up = m->tmpcopyup;
  op->mount_index = (int)index;
  return set_what(op, err, "config.json: mounts[%zu]", index);
}

static bool has_device(const struct spec *spec, const char *path)
{
  for (size_t i = 0; i < spec->n_devices; i++) {
    if (spec->devices[i].path != NULL && strcmp(spec->devices[i].path, path) == 0)
      return true;
  }
  return false;
}

/* The config binds its own /dev: it brings its devices (as runc). */
static bool binds_dev(const struct spec *spec)
{
  for (size_t i = 0; i < spec->n_mounts; i++) {
    cleanup_free char *target = NULL;
    oci_error_t ignored = NULL;

    if (!spec->mounts[i].bind)
      continue;
    if (container_path(spec->mounts[i].destination, true, "", &target, &ignored) < 0) {
      oci_error_free(&ignored);
      continue;
    }
    if (strcmp(target, "/dev") == 0)
      return true;
  }
  return false;
}

static int add_default_devices(struct mount_plan *plan, const struct spec *spec, oci_error_t *err)
{
  char data[32];

  for (size_t i = 0; i < sizeof(default_devices) / sizeof(default_devices[0]); i++) {
    struct mount_op *op;

    if (has_device(spec, default_devices[i].path))
      continue;
    snprintf(data, sizeof(data), "c %u:%u", default_devices[i].major, default_devices[i].minor);
    op = add_op(plan, MOUNT_OP_BIND_DEVICE, default_devices[i].path, default_devices[i].path, NULL,
                HOST_DEVICE_ATTR, data, err);
    if (op == NULL)
      return -1;
    op->dev_type = 'c';
    op->rdev = makedev(default_devices[i].major, default_devices[i].minor);
  }
  for (size_t i = 0; i < sizeof(dev_symlinks) / sizeof(dev_symlinks[0]); i++) {
    if (has_device(spec, dev_symlinks[i].target))
      continue;
    if (add_op(plan, MOUNT_OP_SYMLINK, dev_symlinks[i].link, dev_symlinks[i].target, NULL, 0, NULL,
               err) == NULL)
      return -1;
  }
  return 0;
}

/* linux.devices. Without a user namespace the node is made (mknod) with the
 * config's mode and owner where the config says, and bound onto itself with
 * dev: the one file is a device, the filesystem around it stays nodev. In a
 * user namespace mknod is refused by the kernel, so the host's node of that
 * major:minor (/dev/char/M:m, /dev/block/M:m, else the host's node at the
 * config's path) is bound, checked to be it;
 * its mode and owner are the host's. A fifo is always made. */
static int add_spec_device(struct mount_plan *plan, const struct spec_device *d, size_t index,
                           bool user_namespace, oci_error_t *err)
{
  char what[64], data[96], host[64];
  cleanup_free char *target = NULL;
  struct mount_op *op;
  char type;
  mode_t mode = d->file_mode_set ? d->file_mode & 07777 : 0666;

  snprintf(what, sizeof(what), "linux.devices[%zu].path", index);
  if (container_path(d->path, false, what, &target, err) < 0)
    return -1;
  switch (d->type) {
  case 'c':
  case 'u':
    type = 'c';
    break;
  case 'b':
    type = 'b';
    break;
  case 'p':
    type = 'p';
    break;
  default:
    return oci_error_set(err, 0, "config.json: linux.devices[%zu].type: '%c' is not supported",
                         index, d->type);
  }
  if (type != 'p' && (d->major < 0 || d->major > 0xfff || d->minor < 0 || d->minor > 0xfffff))
    return oci_error_set(
        err, 0, "config.json: linux.devices[%zu]: %" PRId64 ":%" PRId64 " is not a device number",
        index, d->major, d->minor);
  if (type == 'p')
    snprintf(data, sizeof(data), "p mode=%04o uid=%u gid=%u", (unsigned)mode,
             (unsigned)(d->uid_set ? d->uid : 0), (unsigned)(d->gid_set ? d->gid : 0));
  else
    snprintf(data, sizeof(data), "%c %" PRId64 ":%" PRId64 " mode=%04o uid=%u gid=%u", type,
             d->major, d->minor, (unsigned)mode, (unsigned)(d->uid_set ? d->uid : 0),
             (unsigned)(d->gid_set ? d->gid : 0));
  if (user_namespace && type != 'p') {
    snprintf(host, sizeof(host), "/dev/%s/%" PRId64 ":%" PRId64, type == 'c' ? "char" : "block",
             d->major, d->minor);
    snprintf(data, sizeof(data), "%c %" PRId64 ":%" PRId64, type, d->major, d->minor);
    op = add_op(plan, MOUNT_OP_BIND_DEVICE, host, target, NULL, HOST_DEVICE_ATTR, data, err);
  } else {
    op = add_op(plan, MOUNT_OP_MAKE_DEVICE, NULL, target, NULL, MOUNT_ATTR_NOSUID, data, err);
  }
  if (op == NULL)
    return -1;
  op->attr_clr = MOUNT_ATTR_NODEV;
  op->dev_type = type;
  op->rdev = type == 'p' ? 0 : makedev((unsigned)d->major, (unsigned)d->minor);
  op->mode = mode;
  op->uid = d->uid_set ? d->uid : 0;
  op->gid = d->gid_set ? d->gid : 0;
  return set_what(op, err, "config.json: linux.devices[%zu]", index);
}

static int add_paths(struct mount_plan *plan, char *const *paths, const char *name,
                     enum mount_op_kind kind, oci_error_t *err)
{
  for (size_t i = 0; paths != NULL && paths[i] != NULL; i++) {
    char what[64];
    cleanup_free char *target = NULL;
    struct mount_op *op;

    snprintf(what, sizeof(what), "linux.%s[%zu]", name, i);
    if (container_path(paths[i], false, what, &target, err) < 0)
      return -1;
    op = add_op(plan, kind, kind == MOUNT_OP_MASK ? "/dev/null" : NULL, target, NULL,
                RO_NOSUID_NODEV_NOEXEC, NULL, err);
    if (op == NULL)
      return -1;
    op->dev_type = 'c';
    op->rdev = kind == MOUNT_OP_MASK ? makedev(1, 3) : 0;
  }
  return 0;
}

/* "64 MiB", "10 GiB", "1536 KiB" for the printed plan. */
static void format_size(uint64_t bytes, char *buf, size_t size)
{
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  size_t unit = 0;

  while (unit + 1 < sizeof(units) / sizeof(units[0]) && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    unit++;
  }
  snprintf(buf, size, "%" PRIu64 " %s", bytes, units[unit]);
}

static int add_root(struct mount_plan *plan, const struct mount_root *root, bool user_namespace,
                    oci_error_t *err)
{
  cleanup_free char *overlay_data = NULL;
  cleanup_free char *merged = NULL;
  cleanup_free char *scratch_data = NULL;
  bool disk = root->layer == ROOT_LAYER_DISK;
  char bound[32];
  int n;

  if (!root->overlay) {
    plan->root_mountpoint = strdup(root->root_path);
    if (plan->root_mountpoint == NULL)
      return oci_error_errno(err, "mount plan: allocate");
    /* nodev: a node the workload makes (CAP_MKNOD) cannot be opened
     * through the root, with or without the device cgroup. */
    return add_op(plan, MOUNT_OP_ROOT_BIND, root->root_path, root->root_path, NULL,
                  MOUNT_ATTR_NODEV, NULL, err) != NULL
               ? 0
               : -1;
  }
  if (root->run_dir == NULL)
    return oci_error_set(err, 0, "mount plan: an overlay root needs a run directory");
  if (root->layer_bound == 0)
    return oci_error_set(err, 0, "mount plan: the writable layer needs a bound");
  format_size(root->layer_bound, bound, sizeof(bound));
  /* The overlay's directories are given to overlayfs as /proc/self/fd/N of
   * fds (the root's, and the run dir's or the scratch tmpfs's own): the
   * data printed here names them for the reader; apply_root_overlay writes
   * the real one. On disk, the merged root goes straight onto rootfs/. */
  if (disk)
    n = asprintf(&overlay_data, "upperdir=%s/upper,workdir=%s/work,volatile%s", root->run_dir,
                 root->run_dir, user_namespace ? ",userxattr" : "");
  else
    n = asprintf(&overlay_data, "upperdir=%s/rootfs/upper,workdir=%s/rootfs/work%s", root->run_dir,
                 root->run_dir, user_namespace ? ",userxattr" : "");
  if (n < 0 || asprintf(&plan->root_mountpoint, "%s/rootfs", root->run_dir) < 0 ||
      asprintf(&merged, disk ? "%s/rootfs" : "%s/rootfs/root", root->run_dir) < 0 ||
      asprintf(&scratch_data, "mode=0700,size=%" PRIu64, root->layer_bound) < 0) {
    overlay_data = plan->root_mountpoint = merged = scratch_data = NULL;
    return oci_error_errno(err, "mount plan: allocate");
  }
  if (disk)
    n = asprintf(&plan->layer_note,
                 "writable layer: on disk in %s/upper, the store's filesystem; soft bound %s "
                 "(measured while the run lives: killed past it)",
                 root->run_dir, bound);
  else
    n = asprintf(&plan->layer_note, "writable layer: a tmpfs of %s in memory%s%s%s", bound,
                 root->layer_fallback != NULL ? " (the store's filesystem, " : "",
                 root->layer_fallback != NULL ? root->layer_fallback : "",
                 root->layer_fallback != NULL ? ", cannot hold an overlay upper layer)" : "");
  if (n < 0) {
    plan->layer_note = NULL;
    return oci_error_errno(err, "mount plan: allocate");
  }
  /* The scratch's source is the root only so that its upper/ can take the
   * owner and mode of the root's own directory (on disk the parent made
   * upper/ so). The writable root is nodev as above. */
  if (!disk && add_op(plan, MOUNT_OP_ROOT_SCRATCH, root->root_path, plan->root_mountpoint, "tmpfs",
                      MOUNT_ATTR_NODEV, scratch_data, err) == NULL)
    return -1;
  if (add_op(plan, MOUNT_OP_ROOT_OVERLAY, root->root_path, merged, "overlay", MOUNT_ATTR_NODEV,
             overlay_data, err) == NULL)
    return -1;
  return 0;
}

int mount_plan_build(const struct spec *spec, const struct mount_root *root, bool user_namespace,
                     struct mount_plan *plan, oci_error_t *err)
{
  struct mount_op *op;

  *plan = (struct mount_plan){.lower_fd = root->root_fd};
  if (root->root_path == NULL) {
    oci_error_set(err, 0, "mount plan: no root path");
    goto fail;
  }
  /* private first: nothing the container mounts propagates to the host;
   * what a mount's propagation option asks is applied on top. A slave
   * rootfsPropagation makes the tree a slave instead: it then receives the
   * host's mounts (the spec's meaning) and still sends nothing back. */
  op = add_op(plan, MOUNT_OP_MAKE_PRIVATE, NULL, "/", NULL, 0, NULL, err);
  if (op == NULL)
    goto fail;
  op->propagation = MS_REC | ((spec->rootfs_propagation & MS_SLAVE) ? MS_SLAVE : MS_PRIVATE);
  if (add_root(plan, root, user_namespace, err) < 0)
    goto fail;
  /* The run's own files describe the root (/etc/hostname): written into
   * it before anything is mounted over it, so an image's /etc that links
   * to /proc leads to the image's own /proc directory, not to procfs. */
  for (size_t i = 0; i < root->n_files; i++) {
    cleanup_free char *target = NULL;

    if (container_path(root->files[i].path, false, "root file", &target, err) < 0 ||
        add_op(plan, MOUNT_OP_WRITE_FILE, NULL, target, NULL, 0, root->files[i].content, err) ==
            NULL)
      goto fail;
  }
  for (size_t i = 0; i < spec->n_mounts; i++) {
    if (add_spec_mount(plan, &spec->mounts[i], i, root, err) < 0)
      goto fail;
  }
  for (size_t i = 0; i < spec->n_devices; i++) {
    if (add_spec_device(plan, &spec->devices[i], i, user_namespace, err) < 0)
      goto fail;
  }
  if (!binds_dev(spec) && add_default_devices(plan, spec, err) < 0)
    goto fail;
  if (add_paths(plan, spec->masked_paths, "maskedPaths", MOUNT_OP_MASK, err) < 0 ||
      add_paths(plan, spec->readonly_paths, "readonlyPaths", MOUNT_OP_READ_ONLY, err) < 0)
    goto fail;
  /* not AT_RECURSIVE when applied: the mounts keep their own flags */
  if (spec->root_readonly && add_op(plan, MOUNT_OP_ROOT_READ_ONLY, NULL, "/", NULL,
                                    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV |
                                        (root->read_only_nosuid ? MOUNT_ATTR_NOSUID : 0),
                                    NULL, err) == NULL)
    goto fail;
  if (add_op(plan, MOUNT_OP_PIVOT_ROOT, plan->root_mountpoint, "/", NULL, 0, NULL, err) == NULL)
    goto fail;
  /* After pivot_root: it refuses a new root that is shared. */
  if (spec->rootfs_propagation != 0) {
    op = add_op(plan, MOUNT_OP_PROPAGATION, NULL, "/", NULL, 0, NULL, err);
    if (op == NULL)
      goto fail;
    op->propagation = spec->rootfs_propagation;
  }
  return 0;
fail:
  mount_plan_clear(plan);
  return -1;
}

void mount_plan_clear(struct mount_plan *plan)
{
  for (size_t i = 0; i < plan->n_ops; i++)
    free_op(&plan->ops[i]);
  free(plan->ops);
  free(plan->root_mountpoint);
  free(plan->layer_note);
  *plan = (struct mount_plan){.lower_fd = -1};
}

static void format_attr(const struct mount_op *op, char *buf, size_t size)
{
  static const struct {
    uint64_t bit;
    const char *set, *clr;
  } names[] = {
      {MOUNT_ATTR_RDONLY, "ro", "rw"},
      {MOUNT_ATTR_NOSUID, "nosuid", "suid"},
      {MOUNT_ATTR_NODEV, "nodev", "dev"},
      {MOUNT_ATTR_NOEXEC, "noexec", "exec"},
      {MOUNT_ATTR_NODIRATIME, "nodiratime", "diratime"},
      {MOUNT_ATTR_NOSYMFOLLOW, "nosymfollow", "symfollow"},
  };
  static const struct {
    unsigned long flag;
    const char *name;
  } propagations[] = {
      {MS_PRIVATE, "private"},
      {MS_SLAVE, "slave"},
      {MS_SHARED, "shared"},
      {MS_UNBINDABLE, "unbindable"},
  };
  size_t used = 0;

#define APPEND(...)                                                                                \
  do {                                                                                             \
    if (used < size)                                                                               \
      used += (size_t)snprintf(buf + used, size - used, "%s", used > 0 ? "," : "");                \
    if (used < size)                                                                               \
      used += (size_t)snprintf(buf + used, size - used, __VA_ARGS__);                              \
  } while (0)
  buf[0] = '\0';
  if (op->recursive)
    APPEND("rbind");
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    if (op->attr & names[i].bit)
      APPEND("%s", names[i].set);
    else if (op->attr_clr & names[i].bit)
      APPEND("%s", names[i].clr);
  }
  /* below the top: what differs from it */
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    if ((op->attr_rec & names[i].bit) && !(op->attr & names[i].bit))
      APPEND("r%s", names[i].set);
    else if ((op->attr_rec_clr & names[i].bit) && !(op->attr_clr & names[i].bit))
      APPEND("r%s", names[i].clr);
  }
  if ((op->attr_clr & MOUNT_ATTR__ATIME) || (op->attr & MOUNT_ATTR__ATIME))
    APPEND("%s", (op->attr & MOUNT_ATTR__ATIME) == MOUNT_ATTR_NOATIME       ? "noatime"
                 : (op->attr & MOUNT_ATTR__ATIME) == MOUNT_ATTR_STRICTATIME ? "strictatime"
                                                                            : "relatime");
  for (size_t i = 0; i < sizeof(propagations) / sizeof(propagations[0]); i++) {
    if (op->propagation & propagations[i].flag)
      APPEND("%s%s", (op->propagation & MS_REC) ? "r" : "", propagations[i].name);
  }
#undef APPEND
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
  char attrs[128];

  fprintf(out, "%-3s %-15s %-32s %-24s %-24s %s\n", "#", "KIND", "TARGET", "SOURCE", "ATTRS",
          "DATA");
  for (size_t i = 0; i < plan->n_ops; i++) {
    const struct mount_op *op = &plan->ops[i];

    format_attr(op, attrs, sizeof(attrs));
    fprintf(out, "%-3zu %-15s %-32s %-24s %-24s ", i + 1, kind_names[op->kind], op->target,
            op->source != NULL ? op->source : "-", attrs);
    if (op->fstype != NULL && op->kind == MOUNT_OP_FILESYSTEM)
      fprintf(out, "type=%s%s", op->fstype, op->data != NULL ? "," : "");
    if (op->data != NULL || op->fstype == NULL || op->kind != MOUNT_OP_FILESYSTEM)
      print_escaped(op->data != NULL ? op->data : "-", out);
    fputc('\n', out);
  }
  if (plan->layer_note != NULL)
    fprintf(out, "%s\n", plan->layer_note);
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

/* ---- where a destination lands ---- */

/* What an op came from, for messages. */
static const char *label(const struct mount_op *op)
{
  return op->what != NULL ? op->what : kind_names[op->kind];
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
    return (fs || op->kind == MOUNT_OP_BIND) && strcmp(op->target, "/sys/fs/cgroup") == 0 &&
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
static int check_landing(const struct mount_op *op, int root_fd, int target_fd, oci_error_t *err)
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
      return oci_error_errno(err, "%s %s: open %s in the root", label(op), op->target, path);
    where = landing_of(fd, root_fd, &name);
    /* Creating a directory under the root is what a target normally does. */
    if (where == LAND_ROOT || landing_allowed(op, where, root_fd, fd))
      return 0;
  }
  return oci_error_set(err, 0,
                       "%s %s: the destination lands (through the root's symlinks or not) on %s, "
                       "which is not its place: refused",
                       label(op), op->target, name);
}

/* The target opened (created when missing), checked before and after. */
static int open_checked_target(const struct mount_op *op, int root_fd, bool directory,
                               oci_error_t *err)
{
  int fd;

  if (check_landing(op, root_fd, -1, err) < 0)
    return -1;
  fd = open_target(root_fd, op->target, directory);
  if (fd < 0 && errno == ELOOP)
    return oci_error_set(err, ELOOP,
                         "%s %s: the destination is a symlink in the root: refused (a mount "
                         "goes onto what the path names, never where a link leads)",
                         label(op), op->target);
  if (fd < 0)
    return -1;
  if (check_landing(op, root_fd, fd, err) < 0) {
    close(fd);
    return -1;
  }
  return fd;
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
                             label(op), op->target);
  }
  if (attach(mount_fd, target_fd) < 0)
    return -1;
  return set_propagation(mount_fd, op);
}

/* A host path of the config, opened (O_PATH) in this namespace's copy of
 * the host tree before pivot_root, then cloned (with its submounts for
 * rbind) onto the destination: a directory for a directory, a file for
 * anything else. */
static int apply_bind(const struct mount_op *op, int root_fd, oci_error_t *err)
{
  cleanup_close int source_fd = open(op->source, O_PATH | O_CLOEXEC);
  cleanup_close int target_fd = -1;
  cleanup_close int mount_fd = -1;
  unsigned int recursive = op->recursive ? AT_RECURSIVE : 0;
  struct mount_attr attr = {.attr_set = op->attr, .attr_clr = op->attr_clr};
  struct mount_attr below = {.attr_set = op->attr_rec, .attr_clr = op->attr_rec_clr};
  struct stat st;

  if (source_fd < 0 || fstat(source_fd, &st) < 0)
    return oci_error_errno(err, "%s: bind source %s", label(op), op->source);
  target_fd = open_checked_target(op, root_fd, S_ISDIR(st.st_mode), err);
  if (target_fd < 0)
    return -1;
  mount_fd =
      open_tree(source_fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | recursive);
  if (mount_fd < 0)
    return -1;
  /* the tree first, then the top mount as the config says */
  if (op->recursive && (below.attr_set != 0 || below.attr_clr != 0) &&
      mount_setattr(mount_fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &below, sizeof(below)) < 0)
    return -1;
  if ((attr.attr_set != 0 || attr.attr_clr != 0) &&
      mount_setattr(mount_fd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
    return -1;
  if (attach(mount_fd, target_fd) < 0)
    return -1;
  return set_propagation(mount_fd, op);
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
  return op->kind == MOUNT_OP_BIND_DEVICE || op->kind == MOUNT_OP_MASK || op->kind == MOUNT_OP_BIND
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
                           kind_names[op->kind], op->target);
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
          err, "mount plan: step %zu (%s %s%s%s%s%s%s%s)", i + 1, kind_names[op->kind], op->target,
          op->fstype != NULL ? " type " : "", op->fstype != NULL ? op->fstype : "",
          host_source(op) != NULL ? " from " : "", host_source(op) != NULL ? host_source(op) : "",
          op->what != NULL ? " of " : "", op->what != NULL ? op->what : "");
  }
  return 0;
}
