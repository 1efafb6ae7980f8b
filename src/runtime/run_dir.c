/* The per-run directory: created next to the run records, removed at
 * teardown. It holds only the mount point of the run's scratch tmpfs,
 * which lives in the run's own mount namespace. Every step goes from the
 * store's run folder (checked: the caller's, written by nobody else) by
 * fd with O_NOFOLLOW, so a folder swapped for a symlink meanwhile fails the
 * step instead of leading root elsewhere. */
#include "config.h"

#include "runtime/run_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/oci.h"
#include "oci/remove_tree.h"

static int open_run_folder(const char *root, bool create, oci_error_t *err)
{
  cleanup_close int root_fd = oci_store_root_open(root, create, err);

  if (root_fd < 0)
    return -1;
  return oci_store_dir_open(root_fd, root, "run", create, err);
}

int run_dir_create(const char *root, const char *name, int *mountpoint_fd, oci_error_t *err)
{
  cleanup_close int run_fd = open_run_folder(root, true, err);
  cleanup_close int dir_fd = -1;

  *mountpoint_fd = -1;
  if (run_fd < 0)
    return -1;
  if (mkdirat(run_fd, name, 0700) < 0) {
    if (errno == EEXIST)
      return oci_error_set(err, EEXIST,
                           "run dir: '%s/run/%s' exists: a run named '%s' is live or crashed "
                           "(see 'ocirun sweep')",
                           root, name, name);
    return oci_error_errno(err, "run dir: mkdir '%s/run/%s'", root, name);
  }
  dir_fd = openat(run_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd >= 0 && mkdirat(dir_fd, "rootfs", 0700) == 0)
    *mountpoint_fd = openat(dir_fd, "rootfs", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (*mountpoint_fd < 0) {
    int saved = errno;
    oci_error_t ignored = NULL;

    run_dir_remove_at(run_fd, root, name, &ignored);
    oci_error_free(&ignored);
    return oci_error_set(err, saved, "run dir: set up '%s/run/%s'", root, name);
  }
  return 0;
}

int run_dir_remove_at(int run_fd, const char *root, const char *name, oci_error_t *err)
{
  if (remove_tree_at(run_fd, name, err) < 0)
    return oci_error_wrap(err, "run dir: remove '%s/run/%s'", root, name);
  if (faccessat(run_fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
    return oci_error_set(err, 0, "run dir: '%s/run/%s' still exists after removal", root, name);
  return 0;
}

int run_dir_remove(const char *root, const char *name, oci_error_t *err)
{
  cleanup_close int run_fd = open_run_folder(root, false, err);

  if (run_fd < 0)
    return -1;
  return run_dir_remove_at(run_fd, root, name, err);
}
