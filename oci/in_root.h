/* Paths inside a tree an image controls: an image's rootfs while its layers
 * are applied (oci/apply.c), a container's root before and after
 * pivot_root (the mount plan, the working directory, the command, the
 * account files, the container's own devices). Each is written in one
 * normal form, and resolved from the root's fd with
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), so neither a symlink of
 * the image nor a /proc magic link (/proc/self/fd/N, /proc/self/exe) can
 * lead outside it. Every other openat2 of the program is the same call with
 * resolve flags of its own. */
#ifndef OCI_IN_ROOT_H
#define OCI_IN_ROOT_H

#include <linux/openat2.h>
#include <stddef.h>
#include <stdint.h>

/* One normal form for a path inside the tree, whoever gives it (a mount
 * destination, a device path, a masked path, --tmpfs, a tar entry's name):
 * "/a/b", absolute, without an empty, "." or ".." component and without a
 * trailing "/"; "/" is the root itself. What a caller accepts beyond that
 * is its rules, any of: */
enum in_root_path_rule {
  IN_ROOT_ALLOW_RELATIVE = 1 << 0, /* "a/b" is taken from the root, "/a/b"; else refused */
  IN_ROOT_ALLOW_ROOT = 1 << 1,     /* the root itself ("/", "//", "/.") is a path; else refused */
  /* ".." drops the component before it and stops at the root, as tar reads
   * a name; else refused: inside a tree not yet built it means nothing,
   * and resolved against the tree's links it may mean anything */
  IN_ROOT_CLAMP_DOT_DOT = 1 << 2,
  IN_ROOT_CHECK_NAME_MAX = 1 << 3, /* a component longer than NAME_MAX is refused */
};

enum in_root_path_verdict {
  IN_ROOT_PATH_NORMAL = 0,   /* out holds the normal form */
  IN_ROOT_PATH_EMPTY,        /* "" */
  IN_ROOT_PATH_NOT_ABSOLUTE, /* without IN_ROOT_ALLOW_RELATIVE */
  IN_ROOT_PATH_DOT_DOT,      /* without IN_ROOT_CLAMP_DOT_DOT */
  IN_ROOT_PATH_IS_ROOT,      /* without IN_ROOT_ALLOW_ROOT */
  IN_ROOT_PATH_TOO_LONG,     /* the normal form needs more than size bytes, or a component is
                                longer than NAME_MAX (with IN_ROOT_CHECK_NAME_MAX) */
};

/* given in normal form into out, size bytes (strlen(given) + 2 always
 * suffice), under rules (enum in_root_path_rule). The first verdict that
 * applies is returned: empty, then not absolute, then component by
 * component ".." or too long, then the root. Pure: nothing is looked up in
 * any tree, so the result says nothing of where the tree's links lead. */
enum in_root_path_verdict in_root_path_normalize(const char *given, unsigned rules, char *out,
                                                 size_t size);

/* The one openat2 call: path resolved from dir_fd as resolve (RESOLVE_*)
 * says, O_CLOEXEC added to flags (no mode is given: never O_CREAT),
 * retried while the kernel answers EAGAIN (with RESOLVE_IN_ROOT or
 * RESOLVE_BENEATH it does when a rename or a mount raced with the
 * resolution of "..", rather than risk a wrong answer). path is passed as
 * given ("" is ENOENT). -1 with errno on failure. */
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
