/* Paths inside a tree an image controls: an image's rootfs while its layers
 * are applied (oci/apply.c), a container's root before and after
 * pivot_root (the mount plan, the working directory, the command, the
 * account files, the container's own devices). Each is resolved from the
 * root's fd with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), so
 * neither a symlink of the image nor a /proc magic link (/proc/self/fd/N,
 * /proc/self/exe) can lead outside it. Every other openat2 of the program
 * is the same call with resolve flags of its own. */
#ifndef OCI_IN_ROOT_H
#define OCI_IN_ROOT_H

#include <linux/openat2.h>
#include <stdint.h>

/* The one openat2 call: path resolved from dir_fd as resolve (RESOLVE_*)
 * says, O_CLOEXEC added to flags, retried while the kernel answers EAGAIN
 * (with RESOLVE_IN_ROOT or RESOLVE_BENEATH it does when a rename or a mount
 * raced with the resolution of "..", rather than risk a wrong answer). path
 * is passed as given ("" is ENOENT). -1 with errno on failure. */
int oci_openat2(int dir_fd, const char *path, int flags, uint64_t resolve);

/* path inside the root: its leading slashes are dropped and "" or "/" is
 * the root itself; resolved with RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS
 * through oci_openat2. -1 with errno on failure. */
int in_root_open(int root_fd, const char *path, int flags);

/* The directory holding path's last component (O_PATH), and that
 * component in *last (a pointer into path). */
int in_root_open_parent(int root_fd, const char *path, const char **last);

/* mkdir -p of path inside the root (mode 0755), one component at a time,
 * each parent resolved in the root; returns an O_PATH fd of the directory. */
int in_root_make_directories(int root_fd, const char *path);

#endif
