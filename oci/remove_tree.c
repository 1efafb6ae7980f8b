/* remove_tree_at: depth-first removal that walks down by name and back up by
 * "..", keeping only the current directory open (see remove_tree.h). The
 * trees removed are private to ocirun (a rootfs being built, a cache entry
 * being dropped), so nothing moves them while we walk.
 *
 * A tree unpacked without privilege is the caller's but may hold
 * directories the caller cannot read, search or write (an image's 0555
 * /proc, a 0000 directory). When a step inside the tree fails with EACCES,
 * the directory in the way gets u+rwx (0700: nothing for others) and the
 * step is tried once more; chmod succeeds only for its owner. Root never
 * gets EACCES here (CAP_DAC_OVERRIDE), so nothing changes for it. The
 * directory holding the tree is never changed.
 *
 * The walk never enters another mount (a run dir may still have one on it
 * after a crash): a directory whose mount differs from that of the
 * directory holding the tree is refused, not emptied. */
#include "config.h"
#include "remove_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

/* Called after a step failed: true when errno is EACCES and directory fd
 * (name NULL) or fd/name, never a symlink, now has u+rwx, so the step is
 * worth one more try. errno is left as it was. */
static bool owner_access_granted(int fd, const char *name)
{
  int saved = errno, status;

  if (saved != EACCES)
    return false;
  /* AT_SYMLINK_NOFOLLOW: a symlink's mode is never changed (EOPNOTSUPP),
   * its target never reached. */
  status = name != NULL ? fchmodat(fd, name, S_IRWXU, AT_SYMLINK_NOFOLLOW) : fchmod(fd, S_IRWXU);
  errno = saved;
  return status == 0;
}

/* The id of the mount fd is on, or 0 when the kernel cannot say. */
static uint64_t mount_id(int fd)
{
  struct statx stx;

  if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) < 0 ||
      (stx.stx_mask & STATX_MNT_ID) == 0)
    return 0;
  return stx.stx_mnt_id;
}

/* Opens the directory fd/name to empty it, never following a symlink nor
 * entering a mount other than `mount` (EXDEV). */
static int open_for_removal(int fd, const char *name, uint64_t mount)
{
  int dir_fd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  if (dir_fd < 0 && owner_access_granted(fd, name))
    dir_fd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd >= 0 && mount_id(dir_fd) != mount) {
    close(dir_fd);
    errno = EXDEV;
    return -1;
  }
  return dir_fd;
}

/* unlinkat, retried once after giving the directory fd u+rwx. */
static int unlink_in_tree(int fd, const char *name, int flags)
{
  if (unlinkat(fd, name, flags) == 0)
    return 0;
  if (!owner_access_granted(fd, NULL))
    return -1;
  return unlinkat(fd, name, flags);
}

struct name_stack {
  char **names;
  size_t length, capacity;
};

static int name_stack_push(struct name_stack *stack, const char *name)
{
  if (stack->length == stack->capacity) {
    size_t capacity = stack->capacity ? stack->capacity * 2 : 16;
    char **names = realloc(stack->names, capacity * sizeof(*names));
    if (names == NULL)
      return -1;
    stack->names = names;
    stack->capacity = capacity;
  }
  stack->names[stack->length] = strdup(name);
  if (stack->names[stack->length] == NULL)
    return -1;
  stack->length++;
  return 0;
}

static void name_stack_clear(struct name_stack *stack)
{
  for (size_t i = 0; i < stack->length; i++)
    free(stack->names[i]);
  free(stack->names);
}

/* Empties the directory of everything but subdirectories; returns 1 and the
 * name of one subdirectory in *subdir when one remains, 0 when empty. */
static int clear_files(int dir_fd, char **subdir, oci_error_t *err)
{
  int fd = dup(dir_fd);
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;

  if (fd < 0)
    return oci_error_errno(err, "remove tree: dup");
  dir = fdopendir(fd);
  if (dir == NULL) {
    close(fd);
    return oci_error_errno(err, "remove tree: opendir");
  }
  rewinddir(dir);
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
      continue;
    if (unlink_in_tree(dir_fd, entry->d_name, 0) == 0 || errno == ENOENT)
      continue;
    if (errno == EISDIR || errno == EPERM) {
      struct stat st;
      if (fstatat(dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
        *subdir = strdup(entry->d_name);
        if (*subdir == NULL)
          return oci_error_errno(err, "remove tree");
        return 1;
      }
    }
    return oci_error_errno(err, "remove '%s'", entry->d_name);
  }
  if (errno != 0)
    return oci_error_errno(err, "remove tree: readdir");
  return 0;
}

int remove_tree_at(int parent_fd, const char *name, oci_error_t *err)
{
  struct name_stack stack = {0};
  uint64_t mount = mount_id(parent_fd);
  int current = -1, ret = -1;

  if (unlinkat(parent_fd, name, 0) == 0 || errno == ENOENT)
    return 0;
  if (errno != EISDIR && errno != EPERM)
    return oci_error_errno(err, "remove '%s'", name);

  current = open_for_removal(parent_fd, name, mount);
  if (current < 0)
    return oci_error_errno(err, "open '%s' for removal", name);
  if (name_stack_push(&stack, name) < 0) {
    oci_error_errno(err, "remove '%s'", name);
    goto out;
  }
  while (stack.length > 0) {
    char *subdir = NULL;
    int status = clear_files(current, &subdir, err), up;

    if (status < 0)
      goto out;
    if (status == 1) {
      int child = open_for_removal(current, subdir, mount);
      if (child < 0 || name_stack_push(&stack, subdir) < 0) {
        oci_error_errno(err, "open '%s' for removal", subdir);
        free(subdir);
        if (child >= 0)
          close(child);
        goto out;
      }
      free(subdir);
      close(current);
      current = child;
      continue;
    }
    /* Empty: go back up and remove it. */
    if (stack.length == 1) {
      up = -1;
      if (unlinkat(parent_fd, stack.names[0], AT_REMOVEDIR) < 0 && errno != ENOENT) {
        oci_error_errno(err, "remove directory '%s'", stack.names[0]);
        goto out;
      }
    } else {
      /* ".." is inside the tree here, and was readable when we came down;
       * looking it up needs search permission on the current directory. */
      up = openat(current, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (up < 0 && owner_access_granted(current, NULL))
        up = openat(current, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (up < 0) {
        oci_error_errno(err, "remove tree: open '..'");
        goto out;
      }
      if (unlink_in_tree(up, stack.names[stack.length - 1], AT_REMOVEDIR) < 0 && errno != ENOENT) {
        oci_error_errno(err, "remove directory '%s'", stack.names[stack.length - 1]);
        close(up);
        goto out;
      }
    }
    close(current);
    current = up;
    free(stack.names[--stack.length]);
  }
  ret = 0;
out:
  if (current >= 0)
    close(current);
  name_stack_clear(&stack);
  return ret;
}
