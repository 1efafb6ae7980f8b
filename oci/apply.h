/* The layer applier: one tar stream (already opened as a libarchive reader)
 * applied to a rootfs directory. Every path is resolved inside the rootfs
 * (openat2 RESOLVE_IN_ROOT on the parent, then *at() on the last component
 * without following it), so a hostile layer cannot reach outside it. */
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

/* Copies raw (an entry name, a libarchive message: image-controlled text)
 * into out with control characters and backslashes as \xNN, so an error
 * message stays one line and cannot drive the terminal. Returns out. */
const char *text_printable(const char *raw, char *out, size_t size);

#endif
