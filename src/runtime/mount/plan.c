/* Which mounts a container gets: the plan, a table of operations built
 * from the OCI configuration (root, mounts, devices, masked and read-only
 * paths) and printed by --dry-run; mount/apply.c applies it in the child.
 *
 * The root is either an overlay (ocirun run: the lower is the cached image
 * rootfs, never written; upper and work are directories of the run dir on
 * the store's filesystem, or with --root-tmpfs live in a tmpfs of the run's
 * own mount namespace, memory charged to its cgroup that vanishes with the
 * namespace; see writable_layer.c), or a bundle's root.path bound onto
 * itself (the OCI commands).
 * Then the config's mounts in order, the default devices and /dev links,
 * linux.devices, masked and read-only paths, root.readonly, pivot_root and
 * rootfsPropagation. */
#include "config.h"

#include "runtime/mount/mount_plan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/in_root.h"
#include "runtime/mount/internal.h"

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
    [MOUNT_OP_BIND_CGROUP] = "bind-cgroup",
    [MOUNT_OP_BIND_DEVICE] = "bind-device",
    [MOUNT_OP_MAKE_DEVICE] = "make-device",
    [MOUNT_OP_MASK] = "mask",
    [MOUNT_OP_READ_ONLY] = "read-only",
    [MOUNT_OP_SYMLINK] = "symlink",
    [MOUNT_OP_WRITE_FILE] = "write-file",
    [MOUNT_OP_MAKE_WORKDIR] = "workdir",
    [MOUNT_OP_ROOT_READ_ONLY] = "root-read-only",
    [MOUNT_OP_PIVOT_ROOT] = "pivot-root",
    [MOUNT_OP_PROPAGATION] = "propagation",
};

const char *mount_op_kind_name(enum mount_op_kind kind)
{
  return kind_names[kind];
}

const char *mount_op_label(const struct mount_op *op)
{
  return op->what != NULL ? op->what : mount_op_kind_name(op->kind);
}

static void free_op(struct mount_op *op)
{
  free(op->source);
  free(op->target);
  free(op->data);
  free(op->what);
  free(op->idmap);
  if (op->idmap_fd >= 0)
    close(op->idmap_fd);
  if (op->clone_fd >= 0)
    close(op->clone_fd);
}

/* Appends one operation; strings are copied (NULL stays NULL). The op is
 * returned for the caller to fill in the rest. */
static struct mount_op *add_op(struct mount_plan *plan, enum mount_op_kind kind, const char *source,
                               const char *target, const char *fstype, uint64_t attr,
                               const char *data, oci_error_t *err)
{
  struct mount_op *grown = reallocarray(plan->ops, plan->n_ops + 1, sizeof(*grown));
  struct mount_op op = {.kind = kind,
                        .fstype = fstype,
                        .attr = attr,
                        .mount_index = -1,
                        .idmap_fd = -1,
                        .source_fd = -1,
                        .clone_fd = -1};

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

/* Nothing is mounted over the root itself, in any spelling. */
static int refuse_root(const char *what, const char *path, oci_error_t *err)
{
  return oci_error_set(err, 0, "config.json: %s: '%s' is the root itself: refused", what, path);
}

/* A path the config gives as it is (a masked or read-only path, the run's
 * own files) in its one normal form (oci/in_root.c): absolute, no ".."
 * (it means nothing inside a root and everything outside one), never the
 * root itself. A mount destination and a device path come normal from
 * spec_parse, which allows the root (refused where they are added). */
static int container_path(const char *path, const char *what, char **out, oci_error_t *err)
{
  size_t size = (path != NULL ? strlen(path) : 0) + 2;
  cleanup_free char *normal = malloc(size);

  *out = NULL;
  if (normal == NULL)
    return oci_error_errno(err, "mount plan: allocate");
  switch (in_root_path_normalize(path != NULL ? path : "", 0, normal, size)) {
  case IN_ROOT_PATH_NORMAL:
    *out = steal_pointer(&normal);
    return 0;
  case IN_ROOT_PATH_EMPTY:
    return oci_error_set(err, 0, "config.json: %s: the path is empty", what);
  case IN_ROOT_PATH_NOT_ABSOLUTE:
    return oci_error_set(err, 0, "config.json: %s: '%s' is not an absolute path", what, path);
  case IN_ROOT_PATH_DOT_DOT:
    return oci_error_set(err, 0, "config.json: %s: '%s' has a '..' component: refused", what, path);
  case IN_ROOT_PATH_IS_ROOT:
    return refuse_root(what, path, err);
  case IN_ROOT_PATH_TOO_LONG:
    break;
  }
  return oci_error_set(err, ENAMETOOLONG, "config.json: %s: '%s'", what, path);
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

/* A cgroup mount the kernel refuses: in a user namespace, cgroup2 mounts
 * only in a cgroup namespace that namespace owns. runc and crun then bind
 * the host's cgroup tree; ocirun binds the container's own slice, which is
 * what a cgroup namespace would have shown as the root, and nothing
 * above it. */
static bool cgroup_needs_bind(const struct spec *spec, const char *fstype)
{
  return fstype != NULL && strcmp(fstype, "cgroup2") == 0 &&
         spec->namespaces[SPEC_NS_USER].present && !spec->namespaces[SPEC_NS_CGROUP].present;
}

/* The id mappings of a configuration as a user namespace's ranges. */
static void ranges_from_mappings(const struct spec_id_mapping *mappings, size_t n,
                                 struct id_range *ranges)
{
  for (size_t i = 0; i < n && i < USERNS_MAX_RANGES; i++)
    ranges[i] = (struct id_range){.inside = mappings[i].container_id,
                                  .outside = mappings[i].host_id,
                                  .count = mappings[i].size};
}

static size_t count_idmaps(const struct mount_plan *plan)
{
  size_t n = 0;

  for (size_t i = 0; i < plan->n_ops; i++)
    n += plan->ops[i].idmap != NULL;
  return n;
}

/* An idmapped bind (idmap, ridmap, or a mount's uidMappings and
 * gidMappings): the mount's own mappings, or, none given, the container's
 * user namespace's (the spec's rule). Refused: on anything but a bind, one
 * of the two mappings alone, idmap with no mappings anywhere to take. */
static int plan_idmap(struct mount_plan *plan, struct mount_op *op, const struct spec *spec,
                      size_t index, oci_error_t *err)
{
  const struct spec_mount *m = &spec->mounts[index];
  const struct spec_id_mapping *uid = m->uid_mappings, *gid = m->gid_mappings;
  size_t n_uid = m->n_uid_mappings, n_gid = m->n_gid_mappings;
  struct id_range uid_ranges[USERNS_MAX_RANGES], gid_ranges[USERNS_MAX_RANGES];
  struct userns_map map;

  if (!m->idmap && n_uid == 0 && n_gid == 0)
    return 0;
  if (!m->bind)
    return oci_error_set(err, 0,
                         "config.json: mounts[%zu]: an idmapped mount ('idmap', 'ridmap', "
                         "uidMappings, gidMappings) must be a bind mount",
                         index);
  if ((n_uid == 0) != (n_gid == 0))
    return oci_error_set(err, 0,
                         "config.json: mounts[%zu]: uidMappings and gidMappings go together "
                         "(an idmapped mount maps both)",
                         index);
  if (n_uid == 0) {
    if (!spec->namespaces[SPEC_NS_USER].present || spec->n_uid_mappings == 0 ||
        spec->n_gid_mappings == 0)
      return oci_error_set(err, 0,
                           "config.json: mounts[%zu].options: 'idmap' without uidMappings takes "
                           "the container's user namespace mappings (linux.uidMappings and "
                           "linux.gidMappings), and there are none",
                           index);
    uid = spec->uid_mappings, n_uid = spec->n_uid_mappings;
    gid = spec->gid_mappings, n_gid = spec->n_gid_mappings;
  }
  if (count_idmaps(plan) >= MOUNT_PLAN_MAX_IDMAPS)
    return oci_error_set(err, 0, "config.json: mounts[%zu]: more than %d idmapped mounts", index,
                         MOUNT_PLAN_MAX_IDMAPS);
  ranges_from_mappings(uid, n_uid, uid_ranges);
  ranges_from_mappings(gid, n_gid, gid_ranges);
  if (userns_map_from_ranges(uid_ranges, n_uid, gid_ranges, n_gid, false, &map, err) < 0)
    return oci_error_wrap(err, "config.json: mounts[%zu]: ", index);
  op->idmap = malloc(sizeof(*op->idmap));
  if (op->idmap == NULL)
    return oci_error_errno(err, "mount plan: allocate");
  *op->idmap = map;
  op->idmap_recursive = m->idmap_recursive;
  return 0;
}

/* A bind whose source the front end opened: that fd is what is bound. */
static int plan_held_source(const struct mount_plan *plan, struct mount_op *op,
                            const struct mount_root *root, oci_error_t *err)
{
  struct stat st;
  size_t n = 0;

  if (root->sources == NULL || root->sources[op->mount_index].fd < 0)
    return 0;
  if (op->kind != MOUNT_OP_BIND || op->idmap != NULL)
    return oci_error_set(err, 0, "mount plan: mounts[%d]: a held source is for a plain bind",
                         op->mount_index);
  for (size_t i = 0; i < plan->n_ops; i++)
    n += plan->ops[i].source_fd >= 0;
  if (n >= MOUNT_PLAN_MAX_HELD_BINDS)
    return oci_error_set(err, 0, "mount plan: more than %d binds of host paths",
                         MOUNT_PLAN_MAX_HELD_BINDS);
  if (fstat(root->sources[op->mount_index].fd, &st) < 0)
    return oci_error_errno(err, "mount plan: mounts[%d]: the held source %s", op->mount_index,
                           op->source);
  op->source_dev = st.st_dev;
  op->source_ino = st.st_ino;
  op->source_fd = root->sources[op->mount_index].fd;
  op->copy_up = root->sources[op->mount_index].copy_up;
  return 0;
}

static int add_spec_mount(struct mount_plan *plan, const struct spec *spec, size_t index,
                          const struct mount_root *root, oci_error_t *err)
{
  const struct spec_mount *m = &spec->mounts[index];
  char what[64];
  cleanup_free char *source = NULL;
  cleanup_free char *data = NULL;
  const char *fstype = NULL;
  struct mount_op *op;
  uint64_t set, clr;

  snprintf(what, sizeof(what), "mounts[%zu].destination", index);
  if (strcmp(m->destination, "/") == 0)
    return refuse_root(what, m->destination, err);
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
  if (mount_options(m, index, m->bind || cgroup_needs_bind(spec, fstype), &set, &clr, &data, err) <
      0)
    return -1;
  /* Every filesystem the workload could write is nodev unless the config
   * says "dev" (the device cgroup is the other layer, absent rootless);
   * devpts's nodes are its purpose. A bind keeps what the host path is. */
  if (!m->bind && strcmp(fstype, "devpts") != 0 && !(clr & MOUNT_ATTR_NODEV))
    set |= MOUNT_ATTR_NODEV;
  if (cgroup_needs_bind(spec, fstype)) {
    /* read-only unless the mount says "rw": the host's files of the slice */
    if (!(clr & MOUNT_ATTR_RDONLY))
      set |= MOUNT_ATTR_RDONLY;
    op = add_op(plan, MOUNT_OP_BIND_CGROUP, NULL, m->destination, fstype, set, NULL, err);
  } else {
    op = add_op(plan, m->bind ? MOUNT_OP_BIND : MOUNT_OP_FILESYSTEM,
                m->bind ? source : (m->source != NULL ? m->source : fstype), m->destination, fstype,
                set, data, err);
  }
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
  if (plan_idmap(plan, op, spec, index, err) < 0 || plan_held_source(plan, op, root, err) < 0)
    return -1;
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
    if (spec->mounts[i].bind && strcmp(spec->mounts[i].destination, "/dev") == 0)
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
  struct mount_op *op;
  char type;
  mode_t mode = d->file_mode_set ? d->file_mode & 07777 : 0666;

  snprintf(what, sizeof(what), "linux.devices[%zu].path", index);
  if (strcmp(d->path, "/") == 0)
    return refuse_root(what, d->path, err);
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
    op = add_op(plan, MOUNT_OP_BIND_DEVICE, host, d->path, NULL, HOST_DEVICE_ATTR, data, err);
  } else {
    op = add_op(plan, MOUNT_OP_MAKE_DEVICE, NULL, d->path, NULL, MOUNT_ATTR_NOSUID, data, err);
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
    if (container_path(paths[i], what, &target, err) < 0)
      return -1;
    /* A file's mask is the host's null device, bound alone: without
     * nodev, so that it reads empty (as runc's, crun's and Docker's), not
     * EACCES; a directory's is a nodev tmpfs (apply_mask). */
    op = add_op(plan, kind, kind == MOUNT_OP_MASK ? "/dev/null" : NULL, target, NULL,
                kind == MOUNT_OP_MASK ? HOST_DEVICE_ATTR : RO_NOSUID_NODEV_NOEXEC, NULL, err);
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

    if (container_path(root->files[i].path, "root file", &target, err) < 0 ||
        add_op(plan, MOUNT_OP_WRITE_FILE, NULL, target, NULL, 0, root->files[i].content, err) ==
            NULL)
      goto fail;
  }
  for (size_t i = 0; i < spec->n_mounts; i++) {
    if (add_spec_mount(plan, spec, i, root, err) < 0)
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
  /* As runc and crun: a missing working directory is made while the root
   * can still be written, so that a read-only root may start in one. */
  if (spec->has_process && spec->process.cwd != NULL) {
    op = add_op(plan, MOUNT_OP_MAKE_WORKDIR, NULL, spec->process.cwd, NULL, 0, NULL, err);
    if (op == NULL || set_what(op, err, "the working directory (process.cwd)") < 0)
      goto fail;
  }
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

int mount_plan_set_slice(struct mount_plan *plan, const char *slice_path, oci_error_t *err)
{
  for (size_t i = 0; i < plan->n_ops; i++) {
    struct mount_op *op = &plan->ops[i];

    if (op->kind != MOUNT_OP_BIND_CGROUP)
      continue;
    if (slice_path == NULL)
      return oci_error_set(err, 0,
                           "%s: a cgroup mount in a user namespace without a cgroup namespace "
                           "binds the container's own cgroup, and it has none "
                           "(--unsafe-no-cgroup): refused (add a 'cgroup' namespace)",
                           mount_op_label(op));
    free(op->source);
    op->source = strdup(slice_path);
    if (op->source == NULL)
      return oci_error_errno(err, "mount plan: allocate");
  }
  return 0;
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

void mount_op_format_attrs(const struct mount_op *op, char *buf, size_t size)
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
  if (op->idmap != NULL)
    APPEND("%s", op->idmap_recursive ? "ridmap" : "idmap");
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

    mount_op_format_attrs(op, attrs, sizeof(attrs));
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
