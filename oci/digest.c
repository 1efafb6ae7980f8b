/* Digest validation, SHA-256 hashing and verified blob reads. */
#include "config.h"
/* See struct oci_sha256 below. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "digest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/sha.h>

#include "cleanup.h"
#include "file_read.h"

bool oci_digest_valid(const char *digest)
{
  static const char prefix[] = "sha256:";
  size_t i;

  if (digest == NULL || strncmp(digest, prefix, sizeof(prefix) - 1) != 0)
    return false;
  digest += sizeof(prefix) - 1;
  for (i = 0; digest[i] != '\0'; i++) {
    char c = digest[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  }
  return i == 64;
}

/* SHA-256 through OpenSSL's one-algorithm interface (SHA256_Init and
 * friends, deprecated in OpenSSL 3 in favour of EVP but kept by every 3.x).
 * It runs the same SHA-NI code as EVP without the provider machinery: EVP's
 * first use reads the host's openssl.cnf (which could swap the provider every
 * verification depends on) and costs 1.4 MiB of RSS, more than the rest of a
 * run; statically linked, this interface is 40 KiB. */
struct oci_sha256 {
  SHA256_CTX context;
};

struct oci_sha256 *oci_sha256_new(void)
{
  struct oci_sha256 *hash = calloc(1, sizeof(*hash));
  if (hash == NULL)
    return NULL;
  SHA256_Init(&hash->context);
  return hash;
}

void oci_sha256_update(struct oci_sha256 *hash, const void *data, size_t length)
{
  SHA256_Update(&hash->context, data, length);
}

static void digest_format(const unsigned char *raw, char out[OCI_DIGEST_LEN])
{
  static const char hex[] = "0123456789abcdef";
  memcpy(out, "sha256:", 7);
  for (int i = 0; i < 32; i++) {
    out[7 + 2 * i] = hex[raw[i] >> 4];
    out[8 + 2 * i] = hex[raw[i] & 15];
  }
  out[71] = '\0';
}

void oci_sha256_final(struct oci_sha256 *hash, char out[OCI_DIGEST_LEN])
{
  unsigned char raw[SHA256_DIGEST_LENGTH];
  SHA256_Final(raw, &hash->context);
  digest_format(raw, out);
}

void oci_sha256_free(struct oci_sha256 *hash)
{
  free(hash);
}

void oci_sha256_buffer(const void *data, size_t length, char out[OCI_DIGEST_LEN])
{
  /* Not SHA256(): in OpenSSL 3 that one goes through EVP. */
  unsigned char raw[SHA256_DIGEST_LENGTH];
  SHA256_CTX context;
  SHA256_Init(&context);
  SHA256_Update(&context, data, length);
  SHA256_Final(raw, &context);
  digest_format(raw, out);
}

int oci_blob_open(int layout_dir_fd, const char *digest, oci_error_t *err)
{
  char path[128], what[96];
  struct stat st;

  /* The digest is validated before it becomes part of a path. */
  if (!oci_digest_valid(digest))
    return oci_error_set(err, 0, "malformed digest '%.80s' (want sha256:<64 hex digits>)",
                         digest ? digest : "(null)");
  snprintf(path, sizeof(path), "blobs/sha256/%s", digest + 7);
  snprintf(what, sizeof(what), "blob %s", digest);
  return oci_file_open_regular(layout_dir_fd, path, OCI_FILE_BENEATH, what, &st, err);
}

int oci_blob_read_verified(int layout_dir_fd, const char *digest, int64_t expected_size,
                           size_t max_size, char **out, size_t *length, oci_error_t *err)
{
  cleanup_close int fd = -1;
  cleanup_free char *buffer = NULL;
  char actual[OCI_DIGEST_LEN], what[96];
  struct stat st;
  size_t done = 0;

  fd = oci_blob_open(layout_dir_fd, digest, err);
  if (fd < 0)
    return -1;
  if (fstat(fd, &st) < 0)
    return oci_error_errno(err, "stat blob %s", digest);
  if (expected_size >= 0 && st.st_size != expected_size)
    return oci_error_set(err, 0, "blob %s: size %lld does not match descriptor size %lld", digest,
                         (long long)st.st_size, (long long)expected_size);
  snprintf(what, sizeof(what), "blob %s", digest);
  if (oci_file_read_fd(fd, what, max_size, &buffer, &done, err) < 0)
    return -1;
  if (expected_size >= 0 && done != (size_t)expected_size)
    return oci_error_set(err, 0, "blob %s: changed size while being read", digest);
  oci_sha256_buffer(buffer, done, actual);
  if (strcmp(actual, digest) != 0)
    return oci_error_set(err, 0, "blob %s: content digest is %s", digest, actual);
  *out = steal_pointer(&buffer);
  if (length != NULL)
    *length = done;
  return 0;
}
