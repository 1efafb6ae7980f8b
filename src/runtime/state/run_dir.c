/* The per-run directory: created next to the run records, removed at
 * teardown. It holds the mount point of the run's root and, for a writable
 * layer on disk, the overlay's upper and work directories: what the
 * container wrote, a tree it controls. Every step goes from the store's run
 * folder (checked: the caller's, written by nobody else) by fd with
 * O_NOFOLLOW, so a folder swapped for a symlink meanwhile fails the step
 * instead of leading root elsewhere, and the one remover (remove_tree.c)
 * never follows a link the container planted. */
#include "config.h"

#include "runtime/state/run_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/oci.h"
#include "oci/remove_tree.h"
#include "runtime/state/root.h"
#include "runtime/userns.h"

/* upper/ takes the owner and mode of the lower's root, as the merged root
 * shows them; work/ is overlayfs's, empty and private. */
static int make_layer_dirs(int dir_fd, const struct stat *like, int *upper_fd)
{
  if (mkdirat(dir_fd, "upper", 0700) < 0 ||
      fchownat(dir_fd, "upper", like->st_uid, like->st_gid, AT_SYMLINK_NOFOLLOW) < 0 ||
      fchmodat(dir_fd, "upper", like->st_mode & 07777, 0) < 0 || mkdirat(dir_fd, "work", 0700) < 0)
    return -1;
  *upper_fd = openat(dir_fd, "upper", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  return *upper_fd < 0 ? -1 : 0;
}

int run_dir_create(const struct state_root *state, const char *name, const struct stat *upper_like,
                   int *mountpoint_fd, int *upper_fd, oci_error_t *err)
{
  const char *root = state->path;
  int run_fd = state_root_folder(state, STATE_RUN, err);
  cleanup_close int dir_fd = -1;

  *mountpoint_fd = -1;
  *upper_fd = -1;
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
  if (dir_fd >= 0 && mkdirat(dir_fd, "rootfs", 0700) == 0 &&
      (upper_like == NULL || make_layer_dirs(dir_fd, upper_like, upper_fd) == 0))
    *mountpoint_fd = openat(dir_fd, "rootfs", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (*mountpoint_fd < 0) {
    int saved = errno;
    oci_error_t ignored = NULL;

    if (*upper_fd >= 0)
      close(*upper_fd);
    *upper_fd = -1;
    run_dir_remove_at(run_fd, root, name, &ignored);
    oci_error_free(&ignored);
    return oci_error_set(err, saved, "run dir: set up '%s/run/%s'", root, name);
  }
  return 0;
}

/* Without privilege, files a container's user other than its root made are
 * owned by ids of the caller's subordinate range, and a directory of theirs
 * may deny the caller the unlink. In a user namespace mapped like the run's
 * (the caller's range, through newuidmap/newgidmap) the remover holds
 * CAP_DAC_OVERRIDE over exactly those ids, and nothing else. The child
 * waits for its map, then removes; it dies with the caller. */
static int remove_in_mapped_namespace(int run_fd, const char *name, oci_error_t *err)
{
  struct userns_map map;
  int ready[2], mapped[2], status;
  pid_t pid;
  char byte = 0;

  userns_map_choose(&map);
  if (map.self_only)
    return oci_error_set(err, EACCES, "no subordinate id range to remove it with");
  if (pipe2(ready, O_CLOEXEC) < 0)
    return oci_error_errno(err, "pipe");
  if (pipe2(mapped, O_CLOEXEC) < 0) {
    close(ready[0]);
    close(ready[1]);
    return oci_error_errno(err, "pipe");
  }
  pid = fork();
  if (pid == 0) {
    oci_error_t ignored = NULL;

    close(ready[0]);
    close(mapped[1]);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || unshare(CLONE_NEWUSER) < 0 ||
        write(ready[1], "r", 1) != 1 || read(mapped[0], &byte, 1) != 1)
      _exit(2);
    _exit(remove_tree_at(run_fd, name, &ignored) < 0 ? 1 : 0);
  }
  close(ready[1]);
  close(mapped[0]);
  if (pid < 0) {
    close(ready[0]);
    close(mapped[1]);
    return oci_error_errno(err, "fork");
  }
  if (read(ready[0], &byte, 1) != 1 || userns_map_write(&map, pid, err) < 0) {
    kill(pid, SIGKILL);
    if (*err == NULL)
      oci_error_set(err, 0, "the remover's user namespace could not be made");
  } else if (write(mapped[1], "m", 1) != 1) {
    kill(pid, SIGKILL);
  }
  close(ready[0]);
  close(mapped[1]);
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return oci_error_errno(err, "wait for the remover");
  }
  if (*err != NULL)
    return -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return oci_error_set(err, 0, "the remover in the mapped user namespace failed (status 0x%x)",
                         (unsigned)status);
  return 0;
}

int run_dir_remove_at(int run_fd, const char *root, const char *name, oci_error_t *err)
{
  if (remove_tree_at(run_fd, name, err) < 0) {
    int why = *err != NULL ? (*err)->errno_value : 0;
    oci_error_t again = NULL;

    if (geteuid() == 0 || (why != EACCES && why != EPERM) ||
        remove_in_mapped_namespace(run_fd, name, &again) < 0) {
      oci_error_free(&again);
      return oci_error_wrap(err, "run dir: remove '%s/run/%s'", root, name);
    }
    oci_error_free(err);
  }
  if (faccessat(run_fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
    return oci_error_set(err, 0, "run dir: '%s/run/%s' still exists after removal", root, name);
  return 0;
}

int run_dir_remove(const struct state_root *state, const char *name, oci_error_t *err)
{
  int run_fd = state_root_folder(state, STATE_RUN, err);

  if (run_fd < 0)
    return -1;
  return run_dir_remove_at(run_fd, state->path, name, err);
}
