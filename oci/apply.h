/* The layer applier: one tar stream (already opened as a libarchive reader)
 * applied to a rootfs directory. Every path is resolved inside the rootfs
 * (openat2 RESOLVE_IN_ROOT on the parent, then *at() on the last component
 * without following it), so a hostile layer cannot reach outside it. A
 * caller without privilege applies layers with layer_apply_rootless. */
#ifndef OCI_APPLY_H
#define OCI_APPLY_H

#include <stddef.h>

#include <archive.h>

#include "error.h"

/* Applies every entry of archive to rootfs_fd: files, directories, symlinks,
 * hardlinks, modes, numeric owners, mtimes, xattrs, and OCI whiteouts and
 * opaque directories. Device nodes, fifos and sockets are skipped. Errors
 * name layer_name and the entry. */
int layer_apply(int rootfs_fd, struct archive *archive, const char *layer_name, oci_error_t *err);

/* The same for a caller without privilege (rootless), for every layer of
 * one image in turn with the same modes, then deferred_modes_apply once:
 * owners are not applied (every file is the caller's), security.* and
 * trusted.* xattrs the kernel refuses (EPERM) are skipped, set-id bits are
 * what the kernel lets the caller keep, and directories keep u+rwx until
 * deferred_modes_apply gives them their image modes (a later layer's mode
 * for the same directory wins; a directory a later layer removed or
 * replaced is left alone). */
struct deferred_modes;
struct deferred_modes *deferred_modes_new(void); /* NULL when out of memory */
int layer_apply_rootless(int rootfs_fd, struct archive *archive, const char *layer_name,
                         struct deferred_modes *modes, oci_error_t *err);
int deferred_modes_apply(struct deferred_modes *modes, int rootfs_fd, oci_error_t *err);
void deferred_modes_free(struct deferred_modes *modes);

#endif
