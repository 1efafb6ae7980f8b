/* Content digests: validating "sha256:<hex>" strings before they are ever
 * used in a path, hashing with OpenSSL (SHA-NI where the CPU has it), and
 * opening a blob of a layout by its digest. */
#ifndef OCI_DIGEST_H
#define OCI_DIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "oci.h"

/* True only for "sha256:" followed by exactly 64 lowercase hex digits. */
bool oci_digest_valid(const char *digest);

struct oci_sha256; /* streaming hash */
struct oci_sha256 *oci_sha256_new(void);
void oci_sha256_update(struct oci_sha256 *hash, const void *data, size_t length);
/* Writes "sha256:<hex>" into out and resets nothing: call once. */
void oci_sha256_final(struct oci_sha256 *hash, char out[OCI_DIGEST_LEN]);
void oci_sha256_free(struct oci_sha256 *hash);
/* Whole buffer at once. */
void oci_sha256_buffer(const void *data, size_t length, char out[OCI_DIGEST_LEN]);

/* Opens layout_dir_fd/blobs/sha256/<hex> read-only (O_CLOEXEC, never
 * following a symlink out of the layout). Fails on an invalid digest. */
int oci_blob_open(int layout_dir_fd, const char *digest, oci_error_t *err);
/* Reads a whole blob (at most max_size bytes), checking its size against
 * expected_size (when >= 0) and its content against digest, before
 * returning it NUL-terminated in *out. */
int oci_blob_read_verified(int layout_dir_fd, const char *digest, int64_t expected_size,
                           size_t max_size, char **out, size_t *length, oci_error_t *err);

#endif
