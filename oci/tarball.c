/* Tarballs read with libarchive for import: canonical entry names, links
 * followed by name, entries read into memory or streamed into hashed files. */
#include "config.h"
#include "tarball.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cleanup.h"
#include "digest.h"
#include "layout.h"

#define ARCHIVE_BLOCK 65536
#define MAX_ARCHIVE_LINKS 10000
#define MAX_LINK_HOPS 8

void oci_archive_freep(struct archive **a)
{
  if (*a != NULL)
    archive_read_free(*a);
}

struct archive *oci_archive_open(int fd, const char *file, oci_error_t *err)
{
  struct archive *a;

  if (lseek(fd, 0, SEEK_SET) < 0) {
    oci_error_errno(err, "rewind %s", file);
    return NULL;
  }
  a = archive_read_new();
  if (a == NULL) {
    oci_error_set(err, ENOMEM, "read %s", file);
    return NULL;
  }
  archive_read_support_format_tar(a);
  archive_read_support_filter_gzip(a);
  archive_read_support_filter_zstd(a);
  archive_read_support_filter_xz(a);
  archive_read_support_filter_bzip2(a);
  if (archive_read_open_fd(a, fd, ARCHIVE_BLOCK) != ARCHIVE_OK) {
    oci_error_set(err, 0, "open tarball %s: %s", file, archive_error_string(a));
    archive_read_free(a);
    return NULL;
  }
  return a;
}

/* The next entry; 1 at the end, -1 on error. */
int oci_archive_next(struct archive *a, struct archive_entry **entry, const char *file,
                     oci_error_t *err)
{
  int r = archive_read_next_header(a, entry);
  if (r == ARCHIVE_EOF)
    return 1;
  if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
    return oci_error_set(err, 0, "read tarball %s: %s", file, archive_error_string(a));
  return 0;
}

/* Canonical form of an entry name or link target: no "./", no empty
 * components; ".." is applied, and climbing above the top is refused. */
bool oci_archive_normalize_name(const char *name, char *out, size_t size)
{
  size_t length = 0;
  const char *p = name;

  if (name == NULL || name[0] == '/')
    return false;
  while (*p != '\0') {
    const char *end = strchrnul(p, '/');
    size_t n = (size_t)(end - p);
    if (n == 0 || (n == 1 && p[0] == '.')) {
      /* skip */
    } else if (n == 2 && p[0] == '.' && p[1] == '.') {
      if (length == 0)
        return false;
      while (length > 0 && out[length - 1] != '/')
        length--;
      if (length > 0)
        length--;
    } else {
      if (length + (length ? 1 : 0) + n + 1 > size)
        return false;
      if (length)
        out[length++] = '/';
      memcpy(out + length, p, n);
      length += n;
    }
    p = *end ? end + 1 : end;
  }
  out[length] = '\0';
  return length > 0;
}

void oci_archive_links_clear(struct oci_archive_links *links)
{
  for (size_t i = 0; i < links->n; i++) {
    free(links->links[i].name);
    free(links->links[i].target);
  }
  free(links->links);
  memset(links, 0, sizeof(*links));
}

/* Records a symlink or hardlink entry so names given in manifest.json can
 * be followed to the file that holds the data (docker save writes repeated
 * layers as symlinks). */
int oci_archive_links_add(struct oci_archive_links *links, const char *name,
                          struct archive_entry *entry, oci_error_t *err)
{
  const char *hardlink = archive_entry_hardlink(entry);
  const char *symlink = archive_entry_symlink(entry);
  char target[4096], joined[8192];
  struct oci_archive_link *grown;

  if (hardlink != NULL) {
    if (!oci_archive_normalize_name(hardlink, target, sizeof(target)))
      return 0;
  } else if (symlink != NULL) {
    const char *slash = strrchr(name, '/');
    if (symlink[0] == '/')
      return 0;
    snprintf(joined, sizeof(joined), "%.*s%s%s", slash ? (int)(slash - name) : 0, name,
             slash ? "/" : "", symlink);
    if (!oci_archive_normalize_name(joined, target, sizeof(target)))
      return 0;
  } else {
    return 0;
  }
  if (links->n >= MAX_ARCHIVE_LINKS)
    return oci_error_set(err, 0, "too many links in the tarball");
  /* Extracted, the last of two links of one name wins: ambiguous. */
  for (size_t i = 0; i < links->n; i++)
    if (strcmp(links->links[i].name, name) == 0)
      return oci_error_set(err, 0, "link %s appears twice in the tarball: refused", name);
  grown = realloc(links->links, (links->n + 1) * sizeof(*grown));
  if (grown == NULL)
    return oci_error_set(err, ENOMEM, "read tarball links");
  links->links = grown;
  links->links[links->n].name = strdup(name);
  links->links[links->n].target = strdup(target);
  if (links->links[links->n].name == NULL || links->links[links->n].target == NULL) {
    free(links->links[links->n].name);
    free(links->links[links->n].target);
    return oci_error_set(err, ENOMEM, "read tarball links");
  }
  links->n++;
  return 0;
}

/* The normalized name of the file that holds the data of name. */
int oci_archive_links_resolve(const struct oci_archive_links *links, const char *name, char *out,
                              size_t size)
{
  if (!oci_archive_normalize_name(name, out, size))
    return -1;
  if (links == NULL)
    return 0;
  for (int hop = 0; hop < MAX_LINK_HOPS; hop++) {
    size_t i;
    for (i = 0; i < links->n; i++)
      if (strcmp(links->links[i].name, out) == 0)
        break;
    if (i == links->n)
      return 0;
    if (strlen(links->links[i].target) >= size)
      return -1;
    strcpy(out, links->links[i].target);
  }
  return -1;
}

/* Reads the current entry's data into memory (at most max_size bytes). */
int oci_archive_read_small(struct archive *a, const char *what, size_t max_size, char **out,
                           size_t *length, oci_error_t *err)
{
  cleanup_free char *buffer = malloc(max_size + 1);
  size_t done = 0;

  if (buffer == NULL)
    return oci_error_set(err, ENOMEM, "read %s", what);
  for (;;) {
    la_ssize_t n = archive_read_data(a, buffer + done, max_size + 1 - done);
    if (n < 0)
      return oci_error_set(err, 0, "read %s: %s", what, archive_error_string(a));
    if (n == 0)
      break;
    done += (size_t)n;
    if (done > max_size)
      return oci_error_set(err, 0, "%s is larger than %zu bytes", what, max_size);
  }
  buffer[done] = '\0';
  *out = steal_pointer(&buffer);
  *length = done;
  return 0;
}

/* Streams the current entry into dir_fd/<hex of its sha256>. */
int oci_archive_entry_to_blob(struct archive *a, int dir_fd, const char *what,
                              char digest[OCI_DIGEST_LEN], int64_t *size,
                              enum oci_compression *compression, oci_error_t *err)
{
  struct atomic_file file;
  struct oci_sha256 *hash = oci_sha256_new();
  unsigned char magic[4] = {0};
  int64_t total = 0;
  const void *block;
  size_t length;
  la_int64_t offset;
  int r;

  if (hash == NULL)
    return oci_error_set(err, ENOMEM, "hash %s", what);
  if (atomic_file_begin(&file, dir_fd, ".entry", 0644, what, err) < 0) {
    oci_sha256_free(hash);
    return -1;
  }
  while ((r = archive_read_data_block(a, &block, &length, &offset)) == ARCHIVE_OK) {
    /* Sparse tar entries leave holes: data must arrive contiguous. */
    if (offset != total) {
      oci_error_set(err, 0, "%s: sparse entries are not supported", what);
      goto fail;
    }
    for (size_t i = 0; i < length && total + (int64_t)i < 4; i++)
      magic[total + (int64_t)i] = ((const unsigned char *)block)[i];
    oci_sha256_update(hash, block, length);
    if (atomic_file_write(&file, block, length, err) < 0)
      goto fail;
    total += (int64_t)length;
  }
  if (r != ARCHIVE_EOF) {
    oci_error_set(err, 0, "read %s: %s", what, archive_error_string(a));
    goto fail;
  }
  oci_sha256_final(hash, digest);
  oci_sha256_free(hash);
  hash = NULL;
  /* The name is the content's digest: an existing blob is the same. */
  if (atomic_file_commit(&file, dir_fd, digest + 7, ATOMIC_FILE_REPLACE, err) < 0)
    goto fail;
  *size = total;
  if (magic[0] == 0x1f && magic[1] == 0x8b)
    *compression = OCI_COMPRESSION_GZIP;
  else if (magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd)
    *compression = OCI_COMPRESSION_ZSTD;
  else
    *compression = OCI_COMPRESSION_NONE;
  return 0;
fail:
  oci_sha256_free(hash);
  atomic_file_discard(&file);
  return -1;
}
