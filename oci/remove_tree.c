/* remove_tree_at: depth-first removal that walks down by name and back up by
 * "..", keeping only the current directory open (see remove_tree.h). The
 * trees removed are private to ocirun (a rootfs being built, a cache entry
 * being dropped), so nothing moves them while we walk. */
#include "config.h"
#include "remove_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

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
    if (unlinkat(dir_fd, entry->d_name, 0) == 0 || errno == ENOENT)
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
  int current = -1, ret = -1;

  if (unlinkat(parent_fd, name, 0) == 0 || errno == ENOENT)
    return 0;
  if (errno != EISDIR && errno != EPERM)
    return oci_error_errno(err, "remove '%s'", name);

  current = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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
      int child = openat(current, subdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
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
      up = openat(current, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (up < 0) {
        oci_error_errno(err, "remove tree: open '..'");
        goto out;
      }
      if (unlinkat(up, stack.names[stack.length - 1], AT_REMOVEDIR) < 0 && errno != ENOENT) {
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
