/* The rootfs cache (see cache.h): chain IDs, entry names (a rootless tree
 * apart from a privileged one), entry locks, private build directories and
 * their atomic commit. A build directory is flock()ed by the process filling
 * it; one that can be locked by someone else belongs to a process that died,
 * and is swept. */
#include "config.h"
#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "digest.h"
#include "layout.h"
#include "oci.h"
#include "remove_tree.h"

#define CACHE_DIR "cache"
#define TEMP_DIR "tmp"
#define BUILD_PREFIX "unpack"
#define MARKER "complete"
#define ROOTLESS_SUFFIX "-rootless"

void cache_chain_id(const struct oci_image *image, char chain_id[OCI_DIGEST_LEN])
{
  if (image->n_layers == 0) {
    oci_sha256_buffer("", 0, chain_id);
    return;
  }
  memcpy(chain_id, image->layers[0].diff_id, OCI_DIGEST_LEN);
  for (size_t i = 1; i < image->n_layers; i++) {
    char joined[2 * OCI_DIGEST_LEN];
    int length = snprintf(joined, sizeof(joined), "%s %s", chain_id, image->layers[i].diff_id);
    oci_sha256_buffer(joined, (size_t)length, chain_id);
  }
}

void cache_entry_name(const char *chain_id, bool rootless, char name[CACHE_ENTRY_NAME_LEN])
{
  snprintf(name, CACHE_ENTRY_NAME_LEN, "%.64s%s", chain_id + 7, rootless ? ROOTLESS_SUFFIX : "");
}

/* cache/ or tmp/ of the store, created when missing: a directory, never a
 * symlink, that only the caller can change (oci_store_dir_open). */
static int open_store_dir(int root_fd, const char *name, oci_error_t *err)
{
  return oci_store_dir_open(root_fd, NULL, name, true, err);
}

/* The entry directory cache/<name>, one symlink-free step at a time. */
static int open_entry(int root_fd, const char *name, oci_error_t *err)
{
  cleanup_close int cache_fd = oci_store_dir_open(root_fd, NULL, CACHE_DIR, false, err);

  if (cache_fd < 0)
    return -1;
  return oci_store_dir_open(cache_fd, NULL, name, false, err);
}

bool cache_entry_present(int root_fd, const char *chain_id, bool rootless)
{
  char name[CACHE_ENTRY_NAME_LEN];
  cleanup_close int entry_fd = -1;
  oci_error_t ignored = NULL;

  cache_entry_name(chain_id, rootless, name);
  entry_fd = open_entry(root_fd, name, &ignored);
  oci_error_free(&ignored);
  return entry_fd >= 0 && faccessat(entry_fd, MARKER, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int oci_image_rootfs_open(const char *root, const struct oci_image *image, oci_error_t *err)
{
  cleanup_close int root_fd = oci_store_root_open(root, false, err);
  cleanup_close int entry_fd = -1;
  char chain_id[OCI_DIGEST_LEN];
  char name[CACHE_ENTRY_NAME_LEN];
  struct stat st;
  int fd;

  if (root_fd < 0)
    return -1;
  cache_chain_id(image, chain_id);
  cache_entry_name(chain_id, geteuid() != 0, name);
  entry_fd = open_entry(root_fd, name, err);
  if (entry_fd < 0)
    return oci_error_wrap(err, "rootfs of %s", image->image_id);
  if (faccessat(entry_fd, MARKER, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
    return oci_error_errno(err, "rootfs of %s: '%s/" CACHE_DIR "/%s' is not a complete entry",
                           image->image_id, root, name);
  /* O_NOFOLLOW with O_PATH would open a symlink itself: O_DIRECTORY and
   * the fstat make sure this is the directory. */
  fd = openat(entry_fd, "rootfs", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return oci_error_errno(err,
                           "rootfs of %s: open '%s/" CACHE_DIR "/%s/rootfs' (never through "
                           "a symlink)",
                           image->image_id, root, name);
  if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
    close(fd);
    return oci_error_set(err, ENOTDIR,
                         "rootfs of %s: '%s/" CACHE_DIR "/%s/rootfs' is not a directory",
                         image->image_id, root, name);
  }
  return fd;
}

static int flock_retry(int fd, int operation)
{
  int status;
  do
    status = flock(fd, operation);
  while (status < 0 && errno == EINTR);
  return status;
}

int cache_entry_lock(int root_fd, const char *chain_id, enum cache_lock_mode mode, oci_error_t *err)
{
  static const int operations[] = {
      [CACHE_LOCK_BUILD] = LOCK_EX,
      [CACHE_LOCK_USE] = LOCK_SH,
      [CACHE_LOCK_REMOVE] = LOCK_EX | LOCK_NB,
  };
  cleanup_close int cache_fd = open_store_dir(root_fd, CACHE_DIR, err);
  char path[128];
  int fd;

  if (cache_fd < 0)
    return -1;
  snprintf(path, sizeof(path), "%s.lock", chain_id + 7);
  /* Read-only (flock needs no more). */
  fd = openat(cache_fd, path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return oci_error_errno(err, "open cache lock %s", path);
  if (flock_retry(fd, operations[mode]) < 0) {
    if (errno == EWOULDBLOCK)
      oci_error_set(err, EBUSY, "the rootfs of layer chain %s is in use by a run", chain_id);
    else
      oci_error_errno(err, "lock %s", path);
    close(fd);
    return -1;
  }
  return fd;
}

int cache_build_begin(int root_fd, struct cache_build *build, oci_error_t *err)
{
  cleanup_close int temp_fd = -1;
  cleanup_free char *name = NULL;

  build->dir_fd = build->rootfs_fd = -1;
  build->name[0] = '\0';
  temp_fd = open_store_dir(root_fd, TEMP_DIR, err);
  if (temp_fd < 0)
    return -1;
  /* The same private, flocked directories as an import's staging: those of
   * dead unpacks are swept first. */
  build->dir_fd = oci_make_temp_dir(temp_fd, BUILD_PREFIX, &name, err);
  if (build->dir_fd < 0)
    return -1;
  if ((size_t)snprintf(build->name, sizeof(build->name), "%s", name) >= sizeof(build->name)) {
    oci_error_t ignored = NULL;

    close(build->dir_fd);
    build->dir_fd = -1;
    remove_tree_at(temp_fd, name, &ignored);
    oci_error_free(&ignored);
    return oci_error_set(err, ENAMETOOLONG, "build directory " TEMP_DIR "/%s", name);
  }
  if (mkdirat(build->dir_fd, "rootfs", 0755) < 0) {
    oci_error_errno(err, "prepare build directory " TEMP_DIR "/%s", build->name);
    cache_build_discard(root_fd, build);
    return -1;
  }
  build->rootfs_fd =
      openat(build->dir_fd, "rootfs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  /* 0755 whatever the umask; a layer's "./" entry may set it otherwise. */
  if (build->rootfs_fd < 0 || fchmod(build->rootfs_fd, 0755) < 0) {
    oci_error_errno(err, "open " TEMP_DIR "/%s/rootfs", build->name);
    cache_build_discard(root_fd, build);
    return -1;
  }
  return 0;
}

int cache_build_commit(int root_fd, struct cache_build *build, const char *chain_id, bool rootless,
                       oci_error_t *err)
{
  cleanup_close int marker_fd = -1;
  cleanup_close int temp_fd = -1;
  cleanup_close int cache_fd = -1;
  char name[CACHE_ENTRY_NAME_LEN];

  cache_entry_name(chain_id, rootless, name);
  /* The marker goes in before the rename: the entry appears complete or
   * not at all. */
  marker_fd = openat(build->dir_fd, MARKER, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (marker_fd < 0 || write(marker_fd, chain_id, strlen(chain_id)) != (ssize_t)strlen(chain_id))
    return oci_error_errno(err, "write cache marker in " TEMP_DIR "/%s", build->name);
  temp_fd = open_store_dir(root_fd, TEMP_DIR, err);
  if (temp_fd < 0)
    return -1;
  cache_fd = open_store_dir(root_fd, CACHE_DIR, err);
  if (cache_fd < 0)
    return -1;
  if (renameat(temp_fd, build->name, cache_fd, name) < 0) {
    /* Only an incomplete entry can be in the way (the caller holds the lock
     * and saw no marker): drop it. */
    if (errno != EEXIST && errno != ENOTEMPTY)
      return oci_error_errno(err, "rename build directory into " CACHE_DIR "/%s", name);
    if (remove_tree_at(cache_fd, name, err) < 0)
      return oci_error_wrap(err, "remove incomplete cache entry %s", name);
    if (renameat(temp_fd, build->name, cache_fd, name) < 0)
      return oci_error_errno(err, "rename build directory into " CACHE_DIR "/%s", name);
  }
  close(build->rootfs_fd);
  close(build->dir_fd);
  build->rootfs_fd = build->dir_fd = -1;
  build->name[0] = '\0';
  return 0;
}

void cache_build_discard(int root_fd, struct cache_build *build)
{
  if (build->name[0] != '\0') {
    cleanup_close int temp_fd =
        openat(root_fd, TEMP_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    oci_error_t ignored = NULL;
    /* If this fails the next unpack's sweep removes it. */
    if (temp_fd >= 0)
      remove_tree_at(temp_fd, build->name, &ignored);
    oci_error_free(&ignored);
  }
  if (build->rootfs_fd >= 0)
    close(build->rootfs_fd);
  if (build->dir_fd >= 0)
    close(build->dir_fd);
  build->rootfs_fd = build->dir_fd = -1;
  build->name[0] = '\0';
}

static int entry_remove(int cache_fd, const char *chain_id, bool rootless, oci_error_t *err)
{
  char name[CACHE_ENTRY_NAME_LEN];
  char path[128];

  cache_entry_name(chain_id, rootless, name);
  snprintf(path, sizeof(path), "%s/" MARKER, name);
  if (unlinkat(cache_fd, path, 0) < 0 && errno != ENOENT)
    return oci_error_errno(err, "remove " CACHE_DIR "/%s", path);
  return remove_tree_at(cache_fd, name, err);
}

int cache_entry_remove(int root_fd, const char *chain_id, oci_error_t *err)
{
  cleanup_close int cache_fd = -1;

  if (!oci_digest_valid(chain_id))
    return oci_error_set(err, 0, "malformed chain ID '%.80s'", chain_id);
  cache_fd = oci_store_dir_open(root_fd, NULL, CACHE_DIR, false, err);
  if (cache_fd < 0) {
    if ((*err)->errno_value != ENOENT)
      return -1;
    oci_error_free(err);
    return 0;
  }
  if (entry_remove(cache_fd, chain_id, false, err) < 0)
    return -1;
  return entry_remove(cache_fd, chain_id, true, err);
}
