/* Reading tarballs for import with libarchive: entry names made canonical
 * (or refused), links followed by name, small entries read into memory and
 * large ones streamed into files named by their sha256. */
#ifndef OCI_TARBALL_H
#define OCI_TARBALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <archive.h>
#include <archive_entry.h>

#include "error.h"
#include "oci.h"

/* Opens the tarball (tar, optionally compressed) from its start. */
struct archive *oci_archive_open(int fd, const char *file, oci_error_t *err);
void oci_archive_freep(struct archive **a);
#define cleanup_archive __attribute__((cleanup(oci_archive_freep)))
/* The next entry: 0, 1 at the end, -1 on error. */
int oci_archive_next(struct archive *a, struct archive_entry **entry, const char *file,
                     oci_error_t *err);

/* Canonical form of an entry name or link target: no "./", no empty
 * components, ".." applied; false for absolute names, names that climb
 * above the top, empty names and names longer than size. */
bool oci_archive_normalize_name(const char *name, char *out, size_t size);

/* The tarball's symlinks and hardlinks, so that names given in a manifest
 * can be followed to the file holding the data. */
struct oci_archive_link {
  char *name, *target; /* both normalized */
};
struct oci_archive_links {
  struct oci_archive_link *links;
  size_t n;
};
/* Records entry (named name, normalized) when it is a link. */
int oci_archive_links_add(struct oci_archive_links *links, const char *name,
                          struct archive_entry *entry, oci_error_t *err);
/* The normalized name of the file holding name's data (links may be NULL);
 * -1 for an unsafe name or a chain of links too long. */
int oci_archive_links_resolve(const struct oci_archive_links *links, const char *name, char *out,
                              size_t size);
void oci_archive_links_clear(struct oci_archive_links *links);

/* Reads the current entry's data (at most max_size bytes), NUL-terminated. */
int oci_archive_read_small(struct archive *a, const char *what, size_t max_size, char **out,
                           size_t *length, oci_error_t *err);

enum oci_compression { OCI_COMPRESSION_NONE, OCI_COMPRESSION_GZIP, OCI_COMPRESSION_ZSTD };
/* Streams the current entry into dir_fd/<hex of its sha256>, returning the
 * digest, size and the compression its first bytes show. */
int oci_archive_entry_to_blob(struct archive *a, int dir_fd, const char *what,
                              char digest[OCI_DIGEST_LEN], int64_t *size,
                              enum oci_compression *compression, oci_error_t *err);

#endif
