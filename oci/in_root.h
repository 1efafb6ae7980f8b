/* Paths inside a tree an image controls (the container's root, before and
 * after pivot_root): resolved from the root's fd with
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), so neither a symlink of
 * the image nor a /proc magic link (/proc/self/fd/N, /proc/self/exe) can
 * lead outside it. The one place the mount plan, the working directory and
 * the account files resolve such paths. */
#ifndef OCI_IN_ROOT_H
#define OCI_IN_ROOT_H

/* path's leading slashes are dropped ("/" is the root itself); O_CLOEXEC is
 * added to flags. -1 with errno on failure. */
int in_root_open(int root_fd, const char *path, int flags);

/* The directory holding path's last component (O_PATH), and that
 * component in *last (a pointer into path). */
int in_root_open_parent(int root_fd, const char *path, const char **last);

/* mkdir -p of path inside the root (mode 0755), one component at a time,
 * each parent resolved in the root; returns an O_PATH fd of the directory. */
int in_root_make_directories(int root_fd, const char *path);

#endif
