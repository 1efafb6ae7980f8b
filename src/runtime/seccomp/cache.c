/* The cache of compiled seccomp programs: STATE_ROOT/seccomp-cache/<key>,
 * each file the SHA-256 of the program in hex, a newline, then the BPF
 * instructions. The digest catches a torn or truncated file, which could
 * otherwise still be a loadable but different filter. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/atomic_file.h"
#include "oci/cleanup.h"
#include "oci/digest.h"
#include "oci/oci.h"
#include "runtime/seccomp/rules.h"

enum { HEADER_LEN = 64 + 1 }; /* hex digest and newline */

/* "sha256:<hex>" -> "<hex>": only validated digests become file names. */
static const char *key_file_name(const char *key)
{
  return oci_digest_valid(key) ? key + strlen("sha256:") : NULL;
}

/* Only a store and a directory nobody else could have written into are
 * trusted (oci_store_root_open); anything else is a cache miss. */
static int cache_dir_open(const char *state_root, bool create)
{
  oci_error_t ignored = NULL;
  cleanup_close int root = oci_store_root_open(state_root, false, &ignored);
  int dir = root < 0 ? -1 : oci_store_dir_open(root, state_root, "seccomp-cache", create, &ignored);

  oci_error_free(&ignored);
  return dir;
}

static bool read_all(int fd, void *buf, size_t size)
{
  size_t done = 0;
  while (done < size) {
    ssize_t n = read(fd, (char *)buf + done, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += (size_t)n;
  }
  return true;
}

static void program_digest_hex(const struct seccomp_program *program, char hex[HEADER_LEN])
{
  char digest[OCI_DIGEST_LEN];
  oci_sha256_buffer(program->insns, program->n_insns * sizeof(struct sock_filter), digest);
  memcpy(hex, digest + strlen("sha256:"), 64);
  hex[64] = '\n';
}

int seccomp_cache_lookup(const char *state_root, const char *key, struct seccomp_program *out)
{
  const char *name = key_file_name(key);
  cleanup_close int dir = name != NULL ? cache_dir_open(state_root, false) : -1;
  cleanup_close int fd = -1;
  char header[HEADER_LEN], expected[HEADER_LEN];
  struct seccomp_program program = {NULL, 0};
  struct stat st;
  size_t bytes;

  if (dir < 0)
    return 0;
  fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= HEADER_LEN)
    return 0;
  bytes = (size_t)st.st_size - HEADER_LEN;
  if (bytes % sizeof(struct sock_filter) != 0 ||
      bytes > SECCOMP_PROGRAM_MAX_INSNS * sizeof(struct sock_filter))
    return 0;
  program.insns = malloc(bytes);
  program.n_insns = bytes / sizeof(struct sock_filter);
  if (program.insns == NULL || !read_all(fd, header, HEADER_LEN) ||
      !read_all(fd, program.insns, bytes)) {
    free(program.insns);
    return 0;
  }
  program_digest_hex(&program, expected);
  if (memcmp(header, expected, HEADER_LEN) != 0) {
    free(program.insns);
    return 0;
  }
  *out = program;
  return 1;
}

void seccomp_cache_store(const char *state_root, const char *key,
                         const struct seccomp_program *program)
{
  const char *name = key_file_name(key);
  cleanup_close int dir = name != NULL ? cache_dir_open(state_root, true) : -1;
  struct atomic_file file;
  oci_error_t ignored = NULL;
  char header[HEADER_LEN];

  if (dir < 0)
    return;
  program_digest_hex(program, header);
  /* Readers see a whole entry or none, and concurrent runs each rename a
   * complete copy. A failure only costs a later run a compilation. */
  if (atomic_file_begin(&file, dir, ".tmp", 0600, name, &ignored) < 0 ||
      atomic_file_write(&file, header, HEADER_LEN, &ignored) < 0 ||
      atomic_file_write(&file, program->insns, program->n_insns * sizeof(struct sock_filter),
                        &ignored) < 0 ||
      atomic_file_commit(&file, dir, name, ATOMIC_FILE_REPLACE, &ignored) < 0)
    oci_error_free(&ignored);
}
