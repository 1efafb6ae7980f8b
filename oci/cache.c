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

static int ensure_dir(int root_fd, const char *name, oci_error_t *err)
{
  if (mkdirat(root_fd, name, 0700) < 0 && errno != EEXIST)
    return oci_error_errno(err, "create %s directory", name);
  return 0;
}

bool cache_entry_present(int root_fd, const char *chain_id, bool rootless)
{
  char name[CACHE_ENTRY_NAME_LEN];
  char path[128];

  cache_entry_name(chain_id, rootless, name);
  snprintf(path, sizeof(path), CACHE_DIR "/%s/" MARKER, name);
  return faccessat(root_fd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
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
  char path[128];
  int fd;

  if (ensure_dir(root_fd, CACHE_DIR, err) < 0)
    return -1;
  snprintf(path, sizeof(path), CACHE_DIR "/%s.lock", chain_id + 7);
  /* Read-only and readable (flock needs no more; cache/ is 0700): when
   * root unpacks in a store its owner made, the owner can still take the
   * lock that root created. */
  fd = openat(root_fd, path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
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
  if (ensure_dir(root_fd, TEMP_DIR, err) < 0)
    return -1;
  temp_fd = openat(root_fd, TEMP_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (temp_fd < 0)
    return oci_error_errno(err, "open " TEMP_DIR " directory");
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
  temp_fd = openat(root_fd, TEMP_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  cache_fd = openat(root_fd, CACHE_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (temp_fd < 0 || cache_fd < 0)
    return oci_error_errno(err, "open cache directories");
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
    cleanup_close int temp_fd = openat(root_fd, TEMP_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
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
  cache_fd = openat(root_fd, CACHE_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (cache_fd < 0)
    return errno == ENOENT ? 0 : oci_error_errno(err, "open " CACHE_DIR " directory");
  if (entry_remove(cache_fd, chain_id, false, err) < 0)
    return -1;
  return entry_remove(cache_fd, chain_id, true, err);
}
