/* The per-run directory: created next to the run records, removed at
 * teardown. It holds only the mount point of the run's scratch tmpfs,
 * which lives in the run's mount namespace; the removal still walks by
 * directory fd and never follows a symlink, since `ocirun sweep` also
 * removes the directories of crashed runs of older versions, whose overlay
 * upper layer (written by the container) was kept here. */
#include "config.h"

#include "run_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/cleanup.h"

/* Deeper trees than this are refused rather than recursed into. */
#define REMOVE_MAX_DEPTH 256

int run_dir_create(const char *root, const char *name, char **path, oci_error_t *err)
{
  cleanup_free char *runs = NULL;
  cleanup_free char *dir = NULL;
  cleanup_close int dir_fd = -1;

  if (asprintf(&runs, "%s/run", root) < 0 || asprintf(&dir, "%s/run/%s", root, name) < 0) {
    runs = dir = NULL;
    return oci_error_errno(err, "run dir: allocate");
  }
  if (mkdir(runs, 0700) < 0 && errno != EEXIST)
    return oci_error_errno(err, "run dir: mkdir '%s'", runs);
  if (mkdir(dir, 0700) < 0) {
    if (errno == EEXIST)
      return oci_error_set(err, EEXIST,
                           "run dir: '%s' exists: a run named '%s' is live or crashed "
                           "(see 'ocirun sweep')",
                           dir, name);
    return oci_error_errno(err, "run dir: mkdir '%s'", dir);
  }
  *path = steal_pointer(&dir);
  dir_fd = open(*path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd < 0 || mkdirat(dir_fd, "rootfs", 0700) < 0) {
    int saved = errno;
    oci_error_t ignored = NULL;

    run_dir_remove(*path, &ignored);
    oci_error_free(&ignored);
    oci_error_set(err, saved, "run dir: set up '%s'", *path);
    free(*path);
    *path = NULL;
    return -1;
  }
  return 0;
}

/* Empties the directory open as dir_fd (which it closes). */
static int remove_contents(int dir_fd, const char *path, int depth, oci_error_t *err)
{
  cleanup_dir DIR *dir = fdopendir(dir_fd);
  struct dirent *entry;

  if (dir == NULL) {
    close(dir_fd);
    return oci_error_errno(err, "run dir: fdopendir under '%s'", path);
  }
  if (depth > REMOVE_MAX_DEPTH)
    return oci_error_set(err, 0, "run dir: '%s' is nested too deeply to remove", path);
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
      continue;
    if (unlinkat(dirfd(dir), entry->d_name, 0) == 0)
      continue;
    if (errno != EISDIR && errno != EPERM)
      return oci_error_errno(err, "run dir: unlink '%s/.../%s'", path, entry->d_name);
    int child = openat(dirfd(dir), entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child < 0)
      return oci_error_errno(err, "run dir: open '%s/.../%s'", path, entry->d_name);
    /* overlayfs leaves a mode-000 work/work; root may still empty it */
    if (remove_contents(child, path, depth + 1, err) < 0)
      return -1;
    if (unlinkat(dirfd(dir), entry->d_name, AT_REMOVEDIR) < 0)
      return oci_error_errno(err, "run dir: rmdir '%s/.../%s'", path, entry->d_name);
  }
  if (errno != 0)
    return oci_error_errno(err, "run dir: readdir under '%s'", path);
  return 0;
}

int run_dir_remove(const char *path, oci_error_t *err)
{
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  if (fd < 0)
    return errno == ENOENT ? 0 : oci_error_errno(err, "run dir: open '%s'", path);
  if (remove_contents(fd, path, 0, err) < 0)
    return -1;
  if (rmdir(path) < 0 && errno != ENOENT)
    return oci_error_errno(err, "run dir: rmdir '%s'", path);
  if (access(path, F_OK) == 0 || errno != ENOENT)
    return oci_error_set(err, 0, "run dir: '%s' still exists after removal", path);
  return 0;
}
