/* The layer applier (see apply.h). Each entry's name is normalised
 * lexically, its parent directory is opened with openat2(RESOLVE_IN_ROOT |
 * RESOLVE_NO_MAGICLINKS) from the rootfs fd, and the last component is only
 * ever touched with *at() calls that do not follow it. So ".." and absolute
 * names stay inside, and a symlink left by an earlier entry or layer is
 * either replaced or resolved as if the rootfs were "/".
 *
 * Rootless (an unprivileged caller, layer_apply_rootless): no chown, so
 * every file is the caller's; xattrs before the mode, since a user.* xattr
 * needs write permission that a 0444 file no longer grants its owner;
 * security.* and trusted.* xattrs refused with EPERM are skipped; and every
 * directory keeps u+rwx until the last layer is applied, its image mode
 * recorded in a struct deferred_modes and set by deferred_modes_apply. */
#include "config.h"
#include "apply.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <archive_entry.h>

#include "cleanup.h"
#include "escape.h"
#include "in_root.h"
#include "remove_tree.h"

#define WHITEOUT_PREFIX ".wh."
#define OPAQUE_MARKER ".wh..wh..opq"

/* Paths this layer has created so far (and their ancestors), as 64-bit
 * hashes: an opaque marker removes only what lower layers put there. A
 * collision would only keep one lower-layer file visible. The table is at
 * most 2^21 slots (16 MiB): a layer with more distinct paths than
 * PATH_SET_MAX is refused, which keeps an unpack under its 64 MiB budget
 * (real layers hold a few hundred thousand). */
#define PATH_SET_MAX 1000000
struct path_set {
  uint64_t *slots; /* 0 = empty */
  size_t capacity, count;
};

#define PATH_HASH_START UINT64_C(0xcbf29ce484222325)

static uint64_t path_hash_add(uint64_t hash, const char *bytes, size_t length)
{
  for (size_t i = 0; i < length; i++)
    hash = (hash ^ (unsigned char)bytes[i]) * UINT64_C(0x100000001b3);
  return hash;
}

static uint64_t path_hash_key(uint64_t hash)
{
  /* Spread FNV's low bits before they index the table; 0 marks empty. */
  hash ^= hash >> 33;
  hash *= UINT64_C(0xff51afd7ed558ccd);
  hash ^= hash >> 33;
  return hash ? hash : 1;
}

static bool path_set_contains(const struct path_set *set, uint64_t hash)
{
  uint64_t key = path_hash_key(hash);
  if (set->capacity == 0)
    return false;
  for (size_t i = key & (set->capacity - 1);; i = (i + 1) & (set->capacity - 1)) {
    if (set->slots[i] == 0)
      return false;
    if (set->slots[i] == key)
      return true;
  }
}

static int path_set_insert_key(struct path_set *set, uint64_t key)
{
  size_t i;
  for (i = key & (set->capacity - 1); set->slots[i] != 0; i = (i + 1) & (set->capacity - 1))
    if (set->slots[i] == key)
      return 0;
  set->slots[i] = key;
  set->count++;
  return 0;
}

static int path_set_insert(struct path_set *set, uint64_t hash)
{
  if (set->count >= PATH_SET_MAX && !path_set_contains(set, hash))
    return -E2BIG;
  if ((set->count + 1) * 2 > set->capacity) {
    struct path_set bigger = {0};
    bigger.capacity = set->capacity ? set->capacity * 2 : 1024;
    bigger.slots = calloc(bigger.capacity, sizeof(uint64_t));
    if (bigger.slots == NULL)
      return -1;
    for (size_t i = 0; i < set->capacity; i++)
      if (set->slots[i] != 0)
        path_set_insert_key(&bigger, set->slots[i]);
    free(set->slots);
    *set = bigger;
  }
  return path_set_insert_key(set, path_hash_key(hash));
}

/* Directory times, set again once the layer is applied: creating children
 * moved them. Bounded, so a layer of millions of directories only loses
 * the fix-up, not the memory budget. */
#define DIR_TIMES_MAX_BYTES (8 * 1024 * 1024)
struct dir_time {
  char *path;
  struct timespec times[2];
};

/* Rootless: the modes directories must end with, applied once the last
 * layer is in (deferred_modes_apply). Only directories whose mode lacks
 * u+rwx are recorded, plus any later record of a path recorded before, so
 * that a later layer's mode for the same path (or a directory created there
 * again, implicitly at 0755) wins over the earlier one. Bounded: an image
 * with more such directories than DEFERRED_MODES_MAX_BYTES holds is
 * refused, never given wrong modes. */
#define DEFERRED_MODES_MAX_BYTES (16 * 1024 * 1024)
struct deferred_mode {
  char *path; /* normalised entry name, "" for the rootfs */
  mode_t mode;
  size_t order; /* of recording: among records of one path the last wins */
};
struct deferred_modes {
  struct path_set recorded; /* hashes of the paths in items */
  struct deferred_mode *items;
  size_t count, capacity, bytes;
};

struct applier {
  int rootfs_fd;
  struct archive *archive;
  const char *layer_name;
  struct deferred_modes *rootless; /* NULL when privileged */
  struct path_set created;
  struct dir_time *dir_times;
  size_t n_dir_times, dir_times_capacity, dir_times_bytes;
  char normal[PATH_MAX + 1]; /* the current entry's name in normal form, "/a/b" */
  const char *path;          /* the same relative to the rootfs: "a/b", "" for the rootfs */
  const char *raw_name;
  char shown_name[1024]; /* raw_name made safe for a one-line message */
};

static int entry_error(struct applier *applier, oci_error_t *err, int errno_value, const char *step)
{
  return oci_error_set(err, errno_value, "layer %s: entry '%.300s': %s", applier->layer_name,
                       applier->shown_name, step);
}

/* How tar reads an entry's name: relative to the rootfs, with ".." stopping
 * at it (an absolute name is taken from it too). */
#define TAR_NAME_RULES                                                                             \
  (IN_ROOT_ALLOW_RELATIVE | IN_ROOT_ALLOW_ROOT | IN_ROOT_CLAMP_DOT_DOT | IN_ROOT_CHECK_NAME_MAX)

/* name in normal form in normal ("/a/b"); returned relative to the rootfs,
 * past its "/" ("a/b", "" for the rootfs itself). NULL when it is longer
 * than PATH_MAX or a component than NAME_MAX. */
static char *entry_path(const char *name, char normal[PATH_MAX + 1])
{
  if (in_root_path_normalize(name[0] != '\0' ? name : ".", TAR_NAME_RULES, normal, PATH_MAX + 1) !=
      IN_ROOT_PATH_NORMAL)
    return NULL;
  return normal + 1;
}

/* Rootless: records that directory `path` must end with `mode` (see struct
 * deferred_modes). */
static int deferred_mode_record(struct applier *applier, const char *path, mode_t mode,
                                oci_error_t *err)
{
  struct deferred_modes *modes = applier->rootless;
  size_t length = strlen(path);
  uint64_t hash = path_hash_add(PATH_HASH_START, path, length);
  size_t bytes = length + 1 + sizeof(struct deferred_mode);
  struct deferred_mode *slot;

  if ((mode & S_IRWXU) == S_IRWXU && !path_set_contains(&modes->recorded, hash))
    return 0;
  if (modes->bytes + bytes > DEFERRED_MODES_MAX_BYTES)
    return entry_error(applier, err, 0,
                       "too many directories without u+rwx for an unprivileged unpack");
  if (modes->count == modes->capacity) {
    size_t capacity = modes->capacity ? modes->capacity * 2 : 64;
    struct deferred_mode *grown = realloc(modes->items, capacity * sizeof(*grown));
    if (grown == NULL)
      return entry_error(applier, err, ENOMEM, "record directory mode");
    modes->items = grown;
    modes->capacity = capacity;
  }
  slot = &modes->items[modes->count];
  slot->path = strdup(path);
  if (slot->path == NULL || path_set_insert(&modes->recorded, hash) < 0) {
    free(slot->path);
    return entry_error(applier, err, ENOMEM, "record directory mode");
  }
  slot->mode = mode;
  slot->order = modes->count++;
  modes->bytes += bytes;
  return 0;
}

/* Records path and each of its ancestors as created by this layer. */
static int record_created(struct applier *applier, const char *path)
{
  uint64_t hash = PATH_HASH_START;
  const char *start = path;

  for (const char *p = path;; p++) {
    if (*p == '/' || *p == '\0') {
      int status;
      hash = path_hash_add(hash, start, (size_t)(p - start));
      status = path_set_insert(&applier->created, hash);
      if (status < 0)
        return status;
      if (*p == '\0')
        return 0;
      start = p;
    }
  }
}

/* Opens the directory `parent` (a normalised path) inside the rootfs,
 * creating missing directories the way tar does (0755, root-owned). */
static int open_parent(struct applier *applier, const char *parent, oci_error_t *err)
{
  char shown[PATH_MAX];
  char prefix[PATH_MAX];
  int fd = in_root_open(applier->rootfs_fd, parent, O_RDONLY | O_DIRECTORY);
  int dir_fd;

  if (fd >= 0 || errno != ENOENT) {
    if (fd < 0)
      return entry_error(applier, err, errno, "open parent directory");
    return fd;
  }

  dir_fd = in_root_open(applier->rootfs_fd, "", O_RDONLY | O_DIRECTORY);
  if (dir_fd < 0)
    return entry_error(applier, err, errno, "open rootfs");
  for (const char *p = parent;;) {
    const char *end = strchrnul(p, '/');
    size_t length = (size_t)(end - parent);
    cleanup_free char *component = strndup(p, (size_t)(end - p));
    int next;

    memcpy(prefix, parent, length);
    prefix[length] = '\0';
    next = in_root_open(applier->rootfs_fd, prefix, O_RDONLY | O_DIRECTORY);
    if (next < 0 && errno == ENOENT && component != NULL) {
      if (mkdirat(dir_fd, component, 0755) < 0) {
        int saved = errno;
        close(dir_fd);
        /* EEXIST: a symlink whose target is missing inside the rootfs. */
        if (saved == EEXIST)
          return oci_error_set(err, 0,
                               "layer %s: entry '%.300s': parent '%.300s' is a symlink to "
                               "nothing inside the rootfs",
                               applier->layer_name, applier->shown_name,
                               oci_escape_into(prefix, OCI_ESCAPE_BACKSLASH, shown, sizeof(shown)));
        return entry_error(applier, err, saved, "create parent directory");
      }
      next = in_root_open(applier->rootfs_fd, prefix, O_RDONLY | O_DIRECTORY);
      /* 0755 whatever the caller's umask, as image builders assume. */
      if (next >= 0 && fchmod(next, 0755) < 0) {
        int saved = errno;
        close(next);
        close(dir_fd);
        return entry_error(applier, err, saved, "chmod parent directory");
      }
      /* Rootless: a directory recorded here earlier was removed since;
       * this new one must not end with its mode. */
      if (next >= 0 && applier->rootless != NULL &&
          deferred_mode_record(applier, prefix, 0755, err) < 0) {
        close(next);
        close(dir_fd);
        return -1;
      }
    }
    if (next < 0) {
      int saved = errno;
      close(dir_fd);
      return entry_error(applier, err, saved, "open parent directory");
    }
    close(dir_fd);
    dir_fd = next;
    if (*end == '\0')
      return dir_fd;
    p = end + 1;
  }
}

/* Makes room for a new entry called name: removes what is there, except a
 * directory when keep_directory (directories merge across layers). Returns
 * 1 when a directory was kept. */
static int clear_name(struct applier *applier, int parent_fd, const char *name, bool keep_directory,
                      oci_error_t *err)
{
  struct stat st;

  if (fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
    if (errno == ENOENT)
      return 0;
    return entry_error(applier, err, errno, "stat existing entry");
  }
  if (keep_directory && S_ISDIR(st.st_mode))
    return 1;
  if (remove_tree_at(parent_fd, name, err) < 0)
    return oci_error_wrap(err, "layer %s: entry '%.300s': replace existing entry",
                          applier->layer_name, applier->shown_name);
  return 0;
}

static int set_xattrs(struct applier *applier, int fd, struct archive_entry *entry,
                      oci_error_t *err)
{
  char shown[512];
  const char *name;
  const void *value;
  size_t size;

  archive_entry_xattr_reset(entry);
  while (archive_entry_xattr_next(entry, &name, &value, &size) == ARCHIVE_OK) {
    /* overlayfs's own metadata (whiteouts, opaque directories, redirects)
     * belongs to the run's overlay, never to an image: once the tree is a
     * lower layer it would hide or redirect the image's files. */
    if (strncmp(name, "trusted.overlay.", 16) == 0 || strncmp(name, "user.overlay.", 13) == 0)
      continue;
    if (fsetxattr(fd, name, value, size, 0) == 0 || errno == EOPNOTSUPP)
      continue;
    /* Rootless: security.capability and trusted.* need privilege. A file
     * capability lost is a privilege lost, not a protection lost; a
     * user.* xattr or an ACL that fails is a real failure. */
    if (errno == EPERM && applier->rootless != NULL &&
        (strncmp(name, "security.", 9) == 0 || strncmp(name, "trusted.", 8) == 0))
      continue;
    oci_error_set(err, errno, "layer %s: entry '%.300s': set xattr '%.100s'", applier->layer_name,
                  applier->shown_name,
                  oci_escape_into(name, OCI_ESCAPE_BACKSLASH, shown, sizeof(shown)));
    return -1;
  }
  return 0;
}

static void entry_times(struct archive_entry *entry, struct timespec times[2])
{
  times[1].tv_sec = archive_entry_mtime(entry);
  times[1].tv_nsec = archive_entry_mtime_is_set(entry) ? archive_entry_mtime_nsec(entry) : 0;
  if (archive_entry_atime_is_set(entry)) {
    times[0].tv_sec = archive_entry_atime(entry);
    times[0].tv_nsec = archive_entry_atime_nsec(entry);
  } else {
    times[0] = times[1];
  }
  if (times[1].tv_nsec < 0 || times[1].tv_nsec > 999999999)
    times[1].tv_nsec = 0;
  if (times[0].tv_nsec < 0 || times[0].tv_nsec > 999999999)
    times[0].tv_nsec = 0;
}

static mode_t entry_mode(struct archive_entry *entry)
{
  return archive_entry_perm(entry) & 07777;
}

/* Privileged: owner, then mode (chown clears set-id bits), then xattrs
 * (chown also drops security.capability). Rootless: no owner, xattrs, then
 * the mode (a 0444 file refuses its owner a user.* xattr); set-id bits are
 * what the kernel lets the caller keep. Times last: the others touch ctime
 * only. */
static int set_metadata(struct applier *applier, int fd, struct archive_entry *entry, mode_t mode,
                        oci_error_t *err)
{
  struct timespec times[2];

  if (applier->rootless == NULL) {
    if (fchown(fd, (uid_t)archive_entry_uid(entry), (gid_t)archive_entry_gid(entry)) < 0)
      return entry_error(applier, err, errno, "chown");
    if (fchmod(fd, mode) < 0)
      return entry_error(applier, err, errno, "chmod");
    if (set_xattrs(applier, fd, entry, err) < 0)
      return -1;
  } else {
    if (set_xattrs(applier, fd, entry, err) < 0)
      return -1;
    if (fchmod(fd, mode) < 0)
      return entry_error(applier, err, errno, "chmod");
  }
  entry_times(entry, times);
  if (futimens(fd, times) < 0)
    return entry_error(applier, err, errno, "set times");
  return 0;
}

static int write_all(int fd, const char *data, size_t size, int64_t offset, int64_t *position)
{
  while (size > 0) {
    ssize_t n = offset == *position ? write(fd, data, size) : pwrite(fd, data, size, (off_t)offset);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    if (offset == *position)
      *position += n;
    data += n;
    size -= (size_t)n;
    offset += n;
  }
  return 0;
}

static int apply_regular(struct applier *applier, int parent_fd, const char *name,
                         struct archive_entry *entry, oci_error_t *err)
{
  char shown[512];
  cleanup_close int fd = -1;
  int64_t position = 0, end = 0;

  fd = openat(parent_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 && errno == EEXIST) {
    if (clear_name(applier, parent_fd, name, false, err) < 0)
      return -1;
    fd = openat(parent_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  }
  if (fd < 0)
    return entry_error(applier, err, errno, "create file");

  for (;;) {
    const void *data;
    size_t size;
    int64_t offset;
    int status = archive_read_data_block(applier->archive, &data, &size, &offset);

    if (status == ARCHIVE_EOF)
      break;
    if (status < ARCHIVE_WARN)
      return oci_error_set(err, 0, "layer %s: entry '%.300s': read data: %s", applier->layer_name,
                           applier->shown_name,
                           oci_escape_into(archive_error_string(applier->archive),
                                           OCI_ESCAPE_BACKSLASH, shown, sizeof(shown)));
    if (write_all(fd, data, size, offset, &position) < 0)
      return entry_error(applier, err, errno, "write file");
    if (offset + (int64_t)size > end)
      end = offset + (int64_t)size;
  }
  /* A sparse file may end in a hole. */
  if (archive_entry_size_is_set(entry) && archive_entry_size(entry) > end &&
      ftruncate(fd, (off_t)archive_entry_size(entry)) < 0)
    return entry_error(applier, err, errno, "truncate file");
  return set_metadata(applier, fd, entry, entry_mode(entry), err);
}

static void dir_time_record(struct applier *applier, struct archive_entry *entry)
{
  size_t bytes = strlen(applier->path) + 1 + sizeof(struct dir_time);
  struct dir_time *slot;

  if (applier->dir_times_bytes + bytes > DIR_TIMES_MAX_BYTES)
    return;
  if (applier->n_dir_times == applier->dir_times_capacity) {
    size_t capacity = applier->dir_times_capacity ? applier->dir_times_capacity * 2 : 256;
    struct dir_time *grown = realloc(applier->dir_times, capacity * sizeof(*grown));
    if (grown == NULL)
      return;
    applier->dir_times = grown;
    applier->dir_times_capacity = capacity;
  }
  slot = &applier->dir_times[applier->n_dir_times];
  slot->path = strdup(applier->path);
  if (slot->path == NULL)
    return;
  entry_times(entry, slot->times);
  applier->n_dir_times++;
  applier->dir_times_bytes += bytes;
}

/* Best effort: a directory removed or replaced later in the layer is
 * simply skipped (O_NOFOLLOW refuses a symlink now in its place). Rootless,
 * every directory still has u+rwx here, and the final chmod of
 * deferred_modes_apply leaves mtimes alone. */
static void dir_times_restore(struct applier *applier)
{
  for (size_t i = applier->n_dir_times; i-- > 0;) {
    int fd = in_root_open(applier->rootfs_fd, applier->dir_times[i].path,
                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (fd >= 0) {
      (void)futimens(fd, applier->dir_times[i].times);
      close(fd);
    }
  }
}

/* Rootless: the mode a directory gets while layers are applied (u+rwx, so
 * later entries can be written inside it), its image mode recorded. */
static int directory_mode(struct applier *applier, struct archive_entry *entry, mode_t *mode,
                          oci_error_t *err)
{
  *mode = entry_mode(entry);
  if (applier->rootless == NULL)
    return 0;
  if (deferred_mode_record(applier, applier->path, *mode, err) < 0)
    return -1;
  *mode |= S_IRWXU;
  return 0;
}

static int apply_directory(struct applier *applier, int parent_fd, const char *name,
                           struct archive_entry *entry, oci_error_t *err)
{
  cleanup_close int fd = -1;
  int kept = clear_name(applier, parent_fd, name, true, err);
  mode_t mode;

  if (kept < 0)
    return -1;
  if (!kept && mkdirat(parent_fd, name, 0700) < 0)
    return entry_error(applier, err, errno, "create directory");
  fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return entry_error(applier, err, errno, "open directory");
  dir_time_record(applier, entry);
  if (directory_mode(applier, entry, &mode, err) < 0)
    return -1;
  return set_metadata(applier, fd, entry, mode, err);
}

static int apply_symlink(struct applier *applier, int parent_fd, const char *name,
                         struct archive_entry *entry, oci_error_t *err)
{
  const char *target = archive_entry_symlink(entry);
  struct timespec times[2];

  if (target == NULL || *target == '\0')
    return entry_error(applier, err, 0, "symlink has no target");
  if (clear_name(applier, parent_fd, name, false, err) < 0)
    return -1;
  if (symlinkat(target, parent_fd, name) < 0)
    return entry_error(applier, err, errno, "create symlink");
  if (applier->rootless == NULL &&
      fchownat(parent_fd, name, (uid_t)archive_entry_uid(entry), (gid_t)archive_entry_gid(entry),
               AT_SYMLINK_NOFOLLOW) < 0)
    return entry_error(applier, err, errno, "chown symlink");
  /* xattrs on symlinks would need a path through /proc: not applied. */
  entry_times(entry, times);
  if (utimensat(parent_fd, name, times, AT_SYMLINK_NOFOLLOW) < 0)
    return entry_error(applier, err, errno, "set symlink times");
  return 0;
}

static int apply_hardlink(struct applier *applier, int parent_fd, const char *name,
                          const char *raw_target, oci_error_t *err)
{
  char shown[1024];
  char normal[PATH_MAX + 1];
  char *target = entry_path(raw_target, normal);
  cleanup_close int target_parent_fd = -1;
  const char *slash, *target_name;

  if (target == NULL)
    return entry_error(applier, err, ENAMETOOLONG, "hardlink target");
  if (target[0] == '\0')
    return entry_error(applier, err, 0, "hardlink to the rootfs itself");
  /* A link to itself is already in place. */
  if (strcmp(target, applier->path) == 0)
    return 0;
  slash = strrchr(target, '/');
  target_name = slash ? slash + 1 : target;
  if (slash)
    target[slash - target] = '\0';
  target_parent_fd = in_root_open(applier->rootfs_fd, slash ? target : "", O_PATH | O_DIRECTORY);
  if (target_parent_fd < 0)
    return oci_error_set(err, errno, "layer %s: entry '%.300s': hardlink target '%.300s'",
                         applier->layer_name, applier->shown_name,
                         oci_escape_into(raw_target, OCI_ESCAPE_BACKSLASH, shown, sizeof(shown)));
  if (clear_name(applier, parent_fd, name, false, err) < 0)
    return -1;
  /* No AT_SYMLINK_FOLLOW: a symlink target is linked itself, never followed. */
  if (linkat(target_parent_fd, target_name, parent_fd, name, 0) < 0)
    return oci_error_set(err, errno,
                         "layer %s: entry '%.300s': hardlink to '%.300s' (resolved inside the "
                         "rootfs)",
                         applier->layer_name, applier->shown_name,
                         oci_escape_into(raw_target, OCI_ESCAPE_BACKSLASH, shown, sizeof(shown)));
  return 0;
}

/* Opaque directories nest no deeper than this below the marker; deeper
 * trees written by the same layer are refused rather than exhausting fds. */
#define OPAQUE_MAX_DEPTH 256

/* Under an opaque directory only what this layer wrote may remain, at any
 * depth: a directory this layer wrote over a lower one was merged with it,
 * so its lower children go too. dir_hash is the hash of the directory's
 * path followed by "/" (or the start value for the root). Removal passes
 * repeat until nothing is removed, since removing while reading may hide
 * names from readdir; then one pass descends into the kept directories. */
static int opaque_clear(struct applier *applier, int dir_fd, uint64_t dir_hash, int depth,
                        oci_error_t *err)
{
  bool descend = false;

  if (depth > OPAQUE_MAX_DEPTH)
    return entry_error(applier, err, 0, "opaque directory: tree too deep");
  for (;;) {
    cleanup_dir DIR *dir = NULL;
    struct dirent *child;
    size_t removed = 0;
    int fd = dup(dir_fd);

    if (fd < 0 || (dir = fdopendir(fd)) == NULL) {
      if (fd >= 0)
        close(fd);
      return entry_error(applier, err, errno, "read opaque directory");
    }
    rewinddir(dir);
    while ((errno = 0, child = readdir(dir)) != NULL) {
      uint64_t child_hash;

      if (strcmp(child->d_name, ".") == 0 || strcmp(child->d_name, "..") == 0)
        continue;
      child_hash = path_hash_add(dir_hash, child->d_name, strlen(child->d_name));
      if (path_set_contains(&applier->created, child_hash)) {
        if (descend && (child->d_type == DT_DIR || child->d_type == DT_UNKNOWN)) {
          cleanup_close int sub_fd =
              openat(dir_fd, child->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (sub_fd < 0 && errno != ENOTDIR && errno != ELOOP)
            return entry_error(applier, err, errno, "open directory under opaque directory");
          if (sub_fd >= 0 &&
              opaque_clear(applier, sub_fd, path_hash_add(child_hash, "/", 1), depth + 1, err) < 0)
            return -1;
        }
        continue;
      }
      if (descend)
        continue; /* appeared meanwhile: not ours to judge twice */
      if (remove_tree_at(dir_fd, child->d_name, err) < 0)
        return oci_error_wrap(err, "layer %s: entry '%.300s': opaque directory",
                              applier->layer_name, applier->shown_name);
      removed++;
    }
    if (errno != 0)
      return entry_error(applier, err, errno, "read opaque directory");
    if (descend)
      return 0;
    if (removed == 0)
      descend = true;
  }
}

static int apply_opaque(struct applier *applier, int dir_fd, const char *dir_path, oci_error_t *err)
{
  uint64_t dir_hash = path_hash_add(PATH_HASH_START, dir_path, strlen(dir_path));
  if (*dir_path != '\0')
    dir_hash = path_hash_add(dir_hash, "/", 1);
  return opaque_clear(applier, dir_fd, dir_hash, 0, err);
}

static int apply_root_entry(struct applier *applier, struct archive_entry *entry, oci_error_t *err)
{
  cleanup_close int fd = -1;
  mode_t mode;

  if (archive_entry_filetype(entry) != AE_IFDIR)
    return entry_error(applier, err, 0, "only a directory may name the rootfs itself");
  fd = in_root_open(applier->rootfs_fd, "", O_RDONLY | O_DIRECTORY);
  if (fd < 0)
    return entry_error(applier, err, errno, "open rootfs");
  dir_time_record(applier, entry);
  if (directory_mode(applier, entry, &mode, err) < 0)
    return -1;
  return set_metadata(applier, fd, entry, mode, err);
}

static int apply_entry(struct applier *applier, struct archive_entry *entry, oci_error_t *err)
{
  cleanup_close int parent_fd = -1;
  char parent[PATH_MAX];
  const char *name, *slash, *hardlink;
  mode_t type = archive_entry_filetype(entry);

  applier->raw_name = archive_entry_pathname(entry);
  if (applier->raw_name != NULL)
    oci_escape_into(applier->raw_name, OCI_ESCAPE_BACKSLASH, applier->shown_name,
                    sizeof(applier->shown_name));
  if (applier->raw_name == NULL)
    return oci_error_set(err, 0, "layer %s: an entry has no usable name", applier->layer_name);
  applier->path = entry_path(applier->raw_name, applier->normal);
  if (applier->path == NULL)
    return entry_error(applier, err, ENAMETOOLONG, "name");
  if (applier->path[0] == '\0')
    return apply_root_entry(applier, entry, err);

  slash = strrchr(applier->path, '/');
  name = slash ? slash + 1 : applier->path;
  memcpy(parent, applier->path, slash ? (size_t)(slash - applier->path) : 0);
  parent[slash ? slash - applier->path : 0] = '\0';

  /* Device nodes, fifos and sockets: the runtime provides /dev. */
  hardlink = archive_entry_hardlink(entry);
  if (hardlink == NULL && type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
    return 0;

  if (strncmp(name, WHITEOUT_PREFIX, sizeof(WHITEOUT_PREFIX) - 1) == 0) {
    const char *hidden = name + sizeof(WHITEOUT_PREFIX) - 1;
    /* A whiteout under a directory that is gone (or now a file, as umoci
     * writes them) has nothing left to hide. */
    parent_fd = in_root_open(applier->rootfs_fd, parent, O_RDONLY | O_DIRECTORY);
    if (parent_fd < 0 && (errno == ENOENT || errno == ENOTDIR))
      return 0;
    if (parent_fd < 0)
      return entry_error(applier, err, errno, "open whiteout's directory");
    if (strcmp(name, OPAQUE_MARKER) == 0)
      return apply_opaque(applier, parent_fd, parent, err);
    /* Other ".wh..wh." names are AUFS bookkeeping with nothing to apply. */
    if (strncmp(hidden, WHITEOUT_PREFIX, sizeof(WHITEOUT_PREFIX) - 1) == 0)
      return 0;
    if (*hidden == '\0' || strcmp(hidden, ".") == 0 || strcmp(hidden, "..") == 0)
      return entry_error(applier, err, 0, "malformed whiteout");
    if (remove_tree_at(parent_fd, hidden, err) < 0)
      return oci_error_wrap(err, "layer %s: entry '%.300s': whiteout", applier->layer_name,
                            applier->shown_name);
    return 0;
  }

  parent_fd = open_parent(applier, parent, err);
  if (parent_fd < 0)
    return -1;
  switch (record_created(applier, applier->path)) {
  case 0:
    break;
  case -E2BIG:
    return oci_error_set(err, 0, "layer %s: entry '%.300s': more than %d paths in one layer",
                         applier->layer_name, applier->shown_name, PATH_SET_MAX);
  default:
    return entry_error(applier, err, ENOMEM, "record entry");
  }
  if (hardlink != NULL)
    return apply_hardlink(applier, parent_fd, name, hardlink, err);
  switch (type) {
  case AE_IFREG:
    return apply_regular(applier, parent_fd, name, entry, err);
  case AE_IFDIR:
    return apply_directory(applier, parent_fd, name, entry, err);
  default:
    return apply_symlink(applier, parent_fd, name, entry, err);
  }
}

static int apply_layer(int rootfs_fd, struct archive *archive, const char *layer_name,
                       struct deferred_modes *rootless, oci_error_t *err)
{
  char shown[512];
  struct applier *applier = calloc(1, sizeof(*applier));
  struct archive_entry *entry;
  int ret = -1;

  if (applier == NULL)
    return oci_error_errno(err, "layer %s: allocate", layer_name);
  applier->rootfs_fd = rootfs_fd;
  applier->archive = archive;
  applier->layer_name = layer_name;
  applier->rootless = rootless;
  for (;;) {
    int status = archive_read_next_header(archive, &entry);
    if (status == ARCHIVE_EOF) {
      dir_times_restore(applier);
      ret = 0;
      break;
    }
    if (status < ARCHIVE_WARN) {
      oci_error_set(err, 0, "layer %s: read tar: %s", layer_name,
                    oci_escape_into(archive_error_string(archive), OCI_ESCAPE_BACKSLASH, shown,
                                    sizeof(shown)));
      break;
    }
    if (apply_entry(applier, entry, err) < 0)
      break;
  }
  for (size_t i = 0; i < applier->n_dir_times; i++)
    free(applier->dir_times[i].path);
  free(applier->dir_times);
  free(applier->created.slots);
  free(applier);
  return ret;
}

int layer_apply(int rootfs_fd, struct archive *archive, const char *layer_name, oci_error_t *err)
{
  return apply_layer(rootfs_fd, archive, layer_name, NULL, err);
}

int layer_apply_rootless(int rootfs_fd, struct archive *archive, const char *layer_name,
                         struct deferred_modes *modes, oci_error_t *err)
{
  return apply_layer(rootfs_fd, archive, layer_name, modes, err);
}

struct deferred_modes *deferred_modes_new(void)
{
  return calloc(1, sizeof(struct deferred_modes));
}

void deferred_modes_free(struct deferred_modes *modes)
{
  if (modes == NULL)
    return;
  for (size_t i = 0; i < modes->count; i++)
    free(modes->items[i].path);
  free(modes->items);
  free(modes->recorded.slots);
  free(modes);
}

/* Descending by path, so every directory comes before its ancestors (a
 * prefix sorts first); the latest record of a path first. */
static int deferred_mode_compare(const void *a, const void *b)
{
  const struct deferred_mode *left = a, *right = b;
  int order = strcmp(right->path, left->path);

  if (order != 0)
    return order;
  return left->order < right->order ? 1 : left->order > right->order ? -1 : 0;
}

int deferred_modes_apply(struct deferred_modes *modes, int rootfs_fd, oci_error_t *err)
{
  char shown[1024];

  if (modes->count > 1)
    qsort(modes->items, modes->count, sizeof(*modes->items), deferred_mode_compare);
  for (size_t i = 0; i < modes->count; i++) {
    const struct deferred_mode *item = &modes->items[i];
    cleanup_close int fd = -1;

    if (i > 0 && strcmp(item->path, modes->items[i - 1].path) == 0)
      continue; /* an earlier record of the same path: the later one won */
    /* Children first, so the ancestors on the way still have u+rwx. No
     * symlink is followed: a directory that a later layer removed or
     * replaced (itself or an ancestor, by a file or a symlink) is gone,
     * and the one now in its place keeps its own mode. */
    fd = oci_openat2(rootfs_fd, item->path[0] != '\0' ? item->path : ".",
                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW,
                     RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP))
      continue;
    if (fd < 0 || fchmod(fd, item->mode) < 0)
      return oci_error_set(err, errno, "directory '/%.300s': set its mode %04o",
                           oci_escape_into(item->path, OCI_ESCAPE_BACKSLASH, shown, sizeof(shown)),
                           (unsigned int)item->mode);
  }
  return 0;
}
