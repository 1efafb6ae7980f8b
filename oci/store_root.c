/* The store's root and its folders, opened checked: only root or the
 * caller may change the directory or any directory above it, or any
 * directory its path is looked up in (oci_store_root_open); each folder
 * private to the caller and never a symlink (oci_store_dir_open). Every
 * part of ocirun that keeps state under $ROOT opens it through these. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "oci.h"

/* Creates path's missing parents (the root is the caller's choice, as
 * mkdir -p would); the root itself is created by oci_store_root_open. */
static int make_parents(const char *path, oci_error_t *err)
{
  cleanup_free char *copy = strdup(path);
  if (copy == NULL)
    return oci_error_set(err, ENOMEM, "mkdir %s", path);
  for (char *p = copy + 1; *p != '\0'; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(copy, 0755) < 0 && errno != EEXIST)
      return oci_error_errno(err, "mkdir %s", copy);
    *p = '/';
  }
  return 0;
}

/* ---- trust: a store that nobody but its owner can change ----
 * Everything ocirun runs comes out of the store (rootfs trees, compiled
 * seccomp filters, run records that sweep acts on), so a store another
 * user can write is refused, the way ssh refuses a loose ~/.ssh: the
 * message names the path, what was found and the command that fixes it. */

/* Refuses fd (named path) unless it is a directory the caller owns and
 * neither group nor others may write. */
static int check_private_dir(int fd, const char *path, oci_error_t *err)
{
  uid_t me = geteuid();
  struct stat st;

  if (fstat(fd, &st) < 0)
    return oci_error_errno(err, "store: stat '%s'", path);
  if (!S_ISDIR(st.st_mode))
    return oci_error_set(err, 0, "store: '%s' is not a directory", path);
  if (st.st_uid != me)
    return oci_error_set(err, 0,
                         "store: '%s' is owned by uid %u, not by you (uid %u): that user could "
                         "change what ocirun runs. Fix: chown %u '%s', or pass --root a "
                         "directory of your own",
                         path, (unsigned)st.st_uid, (unsigned)me, (unsigned)me, path);
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return oci_error_set(err, 0,
                         "store: '%s' has mode %04o: group or others may write to it. "
                         "Fix: chmod go-w '%s'",
                         path, (unsigned)(st.st_mode & 07777), path);
  return 0;
}

/* The directories above the store, up to '/': whoever may rename entries
 * in one of them could swap the store for a tree of their own between two
 * opens. Each must belong to root or to the caller, and be writable by
 * group or others only with the sticky bit (/tmp), which keeps others
 * from renaming what is not theirs. Walked by "..", so a symlink in the
 * path given is judged where it leads. */
static int check_ancestors(int root_fd, const char *root, oci_error_t *err)
{
  char path[PATH_MAX], link[64];
  uid_t me = geteuid();
  int fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 0);
  ssize_t n;

  if (fd < 0)
    return oci_error_errno(err, "store: dup '%s'", root);
  snprintf(link, sizeof(link), "/proc/self/fd/%d", root_fd);
  n = readlink(link, path, sizeof(path) - 1);
  if (n <= 0 || path[0] != '/')
    n = snprintf(path, sizeof(path), "%s", root);
  path[n] = '\0';
  for (;;) {
    struct stat here, up;
    int parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
    char *slash = strrchr(path, '/');

    if (parent < 0 || fstat(fd, &here) < 0 || fstat(parent, &up) < 0) {
      oci_error_errno(err, "store: look above '%s'", path);
      break;
    }
    close(fd);
    fd = parent;
    if (here.st_dev == up.st_dev && here.st_ino == up.st_ino) {
      close(fd);
      return 0; /* reached '/' */
    }
    if (slash != NULL)
      *(slash == path ? slash + 1 : slash) = '\0';
    if (up.st_uid != 0 && up.st_uid != me) {
      oci_error_set(err, 0,
                    "store: '%s', above the store '%s', is owned by uid %u (neither root nor "
                    "you): that user could swap the store. Fix: pass --root a directory "
                    "outside it, or chown root '%s'",
                    path, root, (unsigned)up.st_uid, path);
      break;
    }
    if ((up.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (up.st_mode & S_ISVTX) == 0) {
      oci_error_set(err, 0,
                    "store: '%s', above the store '%s', has mode %04o: group or others may "
                    "rename what is in it and swap the store. Fix: chmod go-w '%s' (or chmod "
                    "+t '%s'), or pass --root a directory outside it",
                    path, root, (unsigned)(up.st_mode & 07777), path, path);
      break;
    }
  }
  close(fd);
  return -1;
}

/* A directory the store's path is looked up in: another user who may
 * change its entries could point the path elsewhere between two opens. */
static bool lookup_dir_trusted(const struct stat *dir, const struct stat *entry, uid_t me)
{
  if (dir->st_uid != 0 && dir->st_uid != me)
    return false;
  if ((dir->st_mode & (S_IWGRP | S_IWOTH)) == 0)
    return true;
  /* Sticky (/tmp): only an entry's owner may replace it. */
  return (dir->st_mode & S_ISVTX) != 0 &&
         (entry == NULL || entry->st_uid == 0 || entry->st_uid == me);
}

/* check_ancestors judges where the path leads; this judges the way there.
 * The path given is walked as the kernel resolves it, symlinks expanded,
 * and every directory an entry is looked up in must be one only root or
 * the caller can change: a symlink in another user's directory (root's
 * --root /home/alice/link/store, the link leading to /var/lib) would let
 * that user swap the store for any root-owned tree, e.g. one unpacked
 * from an image, between two opens. A missing component ends the walk:
 * what is created from there is created in a checked directory. */
static int check_lookup_path(const char *root, oci_error_t *err)
{
  char pending[2 * PATH_MAX], target[PATH_MAX], here[PATH_MAX] = "";
  uid_t me = geteuid();
  cleanup_close int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  size_t here_length = 0;
  int hops = 0;

  if (fd < 0)
    return oci_error_errno(err, "store: open '/'");
  if (snprintf(pending, sizeof(pending), "%s", root) >= (int)sizeof(pending))
    return oci_error_set(err, ENAMETOOLONG, "store: '%s'", root);
  for (char *rest = pending;;) {
    struct stat dir, entry;
    char component[NAME_MAX + 1];
    size_t length;
    bool missing;
    int next;

    rest += strspn(rest, "/");
    if (*rest == '\0')
      return 0;
    length = strcspn(rest, "/");
    if (length > NAME_MAX)
      return oci_error_set(err, ENAMETOOLONG, "store: '%s'", root);
    memcpy(component, rest, length);
    component[length] = '\0';
    rest += length;
    if (strcmp(component, ".") == 0)
      continue;
    if (fstat(fd, &dir) < 0)
      return oci_error_errno(err, "store: stat '%s/'", here);
    missing = fstatat(fd, component, &entry, AT_SYMLINK_NOFOLLOW) < 0;
    if (missing && (errno != ENOENT || strcmp(component, "..") == 0))
      return oci_error_errno(err, "store: look up '%s/%s'", here, component);
    /* Without a symlink the way is the ancestors check_ancestors judges
     * (with messages of its own); ".." is never another user's to change. */
    if ((hops > 0 || (!missing && S_ISLNK(entry.st_mode))) && strcmp(component, "..") != 0 &&
        !lookup_dir_trusted(&dir, missing ? NULL : &entry, me))
      return oci_error_set(err, 0,
                           "store: the path '%s' is looked up in '%s/' (owner uid %u, mode "
                           "%04o), whose entry '%s' another user could change to lead the store "
                           "elsewhere. Fix: pass --root a path through directories only root "
                           "or you can write (e.g. the symlink's target)",
                           root, here, (unsigned)dir.st_uid, (unsigned)(dir.st_mode & 07777),
                           component);
    if (missing)
      return 0;
    if (S_ISLNK(entry.st_mode)) {
      ssize_t n = readlinkat(fd, component, target, sizeof(target) - 1);
      char joined[2 * PATH_MAX];

      if (n < 0 || ++hops > 40)
        return oci_error_set(err, n < 0 ? errno : ELOOP, "store: follow '%s/%s'", here, component);
      target[n] = '\0';
      if (snprintf(joined, sizeof(joined), "%s%s", target, rest) >= (int)sizeof(joined))
        return oci_error_set(err, ENAMETOOLONG, "store: '%s'", root);
      memcpy(pending, joined, strlen(joined) + 1);
      rest = pending;
      if (target[0] == '/') {
        next = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        here_length = 0;
        here[0] = '\0';
        if (next < 0)
          return oci_error_errno(err, "store: open '/'");
        close(fd);
        fd = next;
      }
      continue;
    }
    if (!S_ISDIR(entry.st_mode))
      return 0; /* the open that follows says what is wrong */
    next = openat(fd, component, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0)
      return oci_error_errno(err, "store: open '%s/%s'", here, component);
    close(fd);
    fd = next;
    if (strcmp(component, "..") == 0) {
      char *slash = strrchr(here, '/');
      here_length = slash ? (size_t)(slash - here) : 0;
    } else if (here_length + 1 + length < sizeof(here)) {
      here[here_length++] = '/';
      memcpy(here + here_length, component, length);
      here_length += length;
    }
    here[here_length] = '\0';
  }
}

int oci_store_root_open(const char *root, bool create, oci_error_t *err)
{
  int fd;

  if (root[0] != '/')
    return oci_error_set(err, 0, "store: '%s' is not an absolute path", root);
  if (check_lookup_path(root, err) < 0)
    return -1;
  if (create) {
    if (make_parents(root, err) < 0)
      return -1;
    if (mkdir(root, 0700) < 0 && errno != EEXIST)
      return oci_error_errno(err, "store: mkdir '%s'", root);
  }
  fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return oci_error_errno(err, "store: open '%s'", root);
  if (check_private_dir(fd, root, err) < 0 || check_ancestors(fd, root, err) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int oci_store_dir_open(int dir_fd, const char *path, const char *name, bool create,
                       oci_error_t *err)
{
  cleanup_free char *full = NULL;
  char link[64], here[PATH_MAX];
  int fd;

  /* Without a name for dir_fd, the kernel's. */
  if (path == NULL) {
    ssize_t n;
    snprintf(link, sizeof(link), "/proc/self/fd/%d", dir_fd);
    n = readlink(link, here, sizeof(here) - 1);
    if (n < 0)
      n = snprintf(here, sizeof(here), "(the store)");
    here[n] = '\0';
    path = here;
  }
  if (asprintf(&full, "%s/%s", path, name) < 0) {
    full = NULL;
    return oci_error_set(err, ENOMEM, "store: open '%s/%s'", path, name);
  }
  if (create && mkdirat(dir_fd, name, 0700) < 0 && errno != EEXIST)
    return oci_error_errno(err, "store: mkdir '%s'", full);
  fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    struct stat st;
    int saved = errno;

    /* O_DIRECTORY makes a symlink ENOTDIR rather than ELOOP. */
    if ((saved == ELOOP || saved == ENOTDIR) &&
        fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
      return oci_error_set(err, 0, "store: '%s' is a symlink; a store's folders must not be", full);
    errno = saved;
    return oci_error_errno(err, "store: open '%s'", full);
  }
  if (check_private_dir(fd, full, err) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}
