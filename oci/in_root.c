/* Paths inside a root an image controls: their one normal form, opening and
 * creating them from the root's fd, and the one openat2 call (in_root.h). */
#include "config.h"

#include "in_root.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"

enum in_root_path_verdict in_root_path_normalize(const char *given, unsigned rules, char *out,
                                                 size_t size)
{
  size_t length = 0; /* out[0, length) is "" or "/a/b" */

  if (given[0] == '\0')
    return IN_ROOT_PATH_EMPTY;
  if (given[0] != '/' && !(rules & IN_ROOT_ALLOW_RELATIVE))
    return IN_ROOT_PATH_NOT_ABSOLUTE;
  for (const char *p = given; *p != '\0';) {
    const char *end = strchrnul(p, '/');
    size_t n = (size_t)(end - p);

    if (n == 2 && p[0] == '.' && p[1] == '.') {
      if (!(rules & IN_ROOT_CLAMP_DOT_DOT))
        return IN_ROOT_PATH_DOT_DOT;
      while (length > 0 && out[--length] != '/')
        ; /* the last component goes, and its "/" */
    } else if (n > 0 && !(n == 1 && p[0] == '.')) {
      if ((rules & IN_ROOT_CHECK_NAME_MAX) && n > NAME_MAX)
        return IN_ROOT_PATH_TOO_LONG;
      if (length + 1 + n >= size)
        return IN_ROOT_PATH_TOO_LONG;
      out[length++] = '/';
      memcpy(out + length, p, n);
      length += n;
    }
    p = *end != '\0' ? end + 1 : end;
  }
  if (length == 0) {
    if (!(rules & IN_ROOT_ALLOW_ROOT))
      return IN_ROOT_PATH_IS_ROOT;
    if (size < 2)
      return IN_ROOT_PATH_TOO_LONG;
    out[length++] = '/';
  }
  out[length] = '\0';
  return IN_ROOT_PATH_NORMAL;
}

/* How often a resolution that raced is tried again before EAGAIN is
 * returned: a race needs a rename or mount at that very moment, so a
 * few tries suffice unless someone keeps renaming on purpose. */
enum { OPENAT2_ATTEMPTS = 16 };

int oci_openat2(int dir_fd, const char *path, int flags, uint64_t resolve)
{
  struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC), .resolve = resolve};
  int attempts = 0;
  int fd;

  do
    fd = (int)syscall(SYS_openat2, dir_fd, path, &how, sizeof(how));
  while (fd < 0 && errno == EAGAIN && ++attempts < OPENAT2_ATTEMPTS);
  return fd;
}

int in_root_open(int root_fd, const char *path, int flags)
{
  while (*path == '/')
    path++;
  return oci_openat2(root_fd, *path != '\0' ? path : ".", flags,
                     RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
}

int in_root_open_parent(int root_fd, const char *path, const char **last)
{
  cleanup_free char *parent = strdup(path);
  char *slash;

  if (parent == NULL)
    return -1;
  slash = strrchr(parent, '/');
  if (slash == NULL) {
    *last = path;
    return in_root_open(root_fd, "/", O_PATH | O_DIRECTORY);
  }
  *last = path + (slash - parent) + 1;
  slash[slash == parent ? 1 : 0] = '\0';
  return in_root_open(root_fd, parent, O_PATH | O_DIRECTORY);
}

int in_root_make_directories(int root_fd, const char *path)
{
  cleanup_free char *prefix = strdup(path);
  cleanup_close int parent = -1;
  size_t i = 0;

  if (prefix == NULL)
    return -1;
  parent = in_root_open(root_fd, "/", O_PATH | O_DIRECTORY);
  if (parent < 0)
    return -1;
  for (;;) {
    size_t start;
    char saved;
    int fd;

    while (prefix[i] == '/')
      i++;
    if (prefix[i] == '\0')
      break;
    start = i;
    while (prefix[i] != '/' && prefix[i] != '\0')
      i++;
    saved = prefix[i];
    prefix[i] = '\0'; /* ends both the prefix and its last component */
    fd = in_root_open(root_fd, prefix, O_PATH | O_DIRECTORY);
    if (fd < 0 && errno == ENOENT) {
      /* The parent is the fd just resolved in the root: a component the
       * image made a symlink was followed inside the root, never out. */
      if (mkdirat(parent, prefix + start, 0755) < 0 && errno != EEXIST)
        return -1;
      fd = in_root_open(root_fd, prefix, O_PATH | O_DIRECTORY);
    }
    if (fd < 0)
      return -1;
    close(parent);
    parent = fd;
    prefix[i] = saved;
  }
  return steal_fd(&parent);
}
