/* An OCI image layout on disk: the oci-layout marker, index.json read and
 * atomic replacement, verified blob writes, and the temporary-file helpers
 * that keep a failed step from leaving anything behind. */
#include "config.h"
#include "layout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cleanup.h"
#include "digest.h"
#include "file_read.h"
#include "remove_tree.h"

#define COPY_CHUNK ((size_t)1 << 20)

/* Reads a small file of the layout itself into a NUL-terminated buffer. */
static int read_small_file(int dir_fd, const char *name, const char *path, size_t max_size,
                           char **out, size_t *length, oci_error_t *err)
{
  char what[PATH_MAX];

  snprintf(what, sizeof(what), "%s/%s", path, name);
  return oci_file_read(dir_fd, name, OCI_FILE_BENEATH, what, max_size, out, length, err);
}

int oci_layout_open(const char *path, oci_error_t *err)
{
  cleanup_close int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_free char *text = NULL;
  cleanup_cjson cJSON *marker = NULL;
  const cJSON *version;
  size_t length;

  if (fd < 0)
    return oci_error_errno(err, "open OCI layout %s", path);
  if (read_small_file(fd, "oci-layout", path, 4096, &text, &length, err) < 0)
    return oci_error_wrap(err, "%s is not an OCI image layout", path);
  marker = cJSON_ParseWithLength(text, length);
  version = cJSON_GetObjectItemCaseSensitive(marker, "imageLayoutVersion");
  if (!cJSON_IsString(version) || strncmp(version->valuestring, "1.", 2) != 0)
    return oci_error_set(err, 0, "%s/oci-layout: no supported imageLayoutVersion (want 1.x)", path);
  return steal_fd(&fd);
}

/* Creates dir_fd/name with the given content unless it exists, whole or
 * not at all. */
static int create_file_once(int dir_fd, const char *name, const char *path, const char *content,
                            oci_error_t *err)
{
  struct atomic_file file;
  char what[PATH_MAX];

  if (faccessat(dir_fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
    return 0;
  snprintf(what, sizeof(what), "%s/%s", path, name);
  if (atomic_file_begin(&file, dir_fd, ".init", 0644, what, err) < 0 ||
      atomic_file_write(&file, content, strlen(content), err) < 0 ||
      atomic_file_commit(&file, dir_fd, name, ATOMIC_FILE_NO_REPLACE, err) < 0) {
    /* Another process created it first: theirs is the same. */
    if (*err == NULL || (*err)->errno_value != EEXIST)
      return -1;
    oci_error_free(err);
  }
  return 0;
}

int oci_layout_init(int dir_fd, const char *path, oci_error_t *err)
{
  if (mkdirat(dir_fd, "blobs", 0755) < 0 && errno != EEXIST)
    return oci_error_errno(err, "mkdir %s/blobs", path);
  if (mkdirat(dir_fd, "blobs/sha256", 0755) < 0 && errno != EEXIST)
    return oci_error_errno(err, "mkdir %s/blobs/sha256", path);
  if (create_file_once(dir_fd, "oci-layout", path, "{\"imageLayoutVersion\":\"1.0.0\"}", err) < 0)
    return -1;
  return create_file_once(dir_fd, "index.json", path, "{\"schemaVersion\":2,\"manifests\":[]}",
                          err);
}

int oci_layout_read_index(int layout_fd, const char *path, cJSON **out, oci_error_t *err)
{
  cleanup_free char *text = NULL;
  cJSON *index;
  size_t length;

  if (read_small_file(layout_fd, "index.json", path, OCI_INDEX_MAX, &text, &length, err) < 0)
    return -1;
  index = cJSON_ParseWithLength(text, length);
  if (!cJSON_IsObject(index)) {
    cJSON_Delete(index);
    return oci_error_set(err, 0, "%s/index.json is not a JSON object", path);
  }
  if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(index, "manifests"))) {
    cJSON_Delete(index);
    return oci_error_set(err, 0, "%s/index.json has no \"manifests\" array", path);
  }
  *out = index;
  return 0;
}

int oci_layout_read_index_text(int layout_fd, const char *path, char **out, size_t *length,
                               oci_error_t *err)
{
  return read_small_file(layout_fd, "index.json", path, OCI_INDEX_MAX, out, length, err);
}

int oci_layout_lock(int dir_fd, const char *name, oci_error_t *err)
{
  cleanup_close int fd = openat(dir_fd, name, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return oci_error_errno(err, "open lock file %s", name);
  while (flock(fd, LOCK_EX) < 0) {
    if (errno != EINTR)
      return oci_error_errno(err, "lock %s", name);
  }
  return steal_fd(&fd);
}

static int flock_retry(int fd, int operation)
{
  int r;
  while ((r = flock(fd, operation)) < 0 && errno == EINTR)
    ;
  return r;
}

/* Removes dir_fd/PREFIX-* entries that no live process holds locked (a
 * process that died mid-way) and, when files_too, temporary files with that
 * prefix (only written under a lock the caller holds). Best effort. */
static void sweep_stale(int dir_fd, const char *prefix, bool files_too)
{
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;
  size_t length = strlen(prefix);
  int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0 || (dir = fdopendir(fd)) == NULL) {
    if (fd >= 0)
      close(fd);
    return;
  }
  while ((entry = readdir(dir)) != NULL) {
    cleanup_close int stale_fd = -1;
    oci_error_t ignored = NULL;
    if (strncmp(entry->d_name, prefix, length) != 0 || entry->d_name[length] != '-')
      continue;
    stale_fd = openat(dir_fd, entry->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (stale_fd < 0)
      continue;
    if (flock_retry(stale_fd, LOCK_EX | LOCK_NB) < 0)
      continue;
    if (!files_too && entry->d_type != DT_DIR)
      continue;
    remove_tree_at(dir_fd, entry->d_name, &ignored);
    oci_error_free(&ignored);
  }
}

int oci_layout_write_index(int layout_fd, int tmp_fd, const cJSON *index, oci_error_t *err)
{
  cleanup_free char *text = cJSON_PrintUnformatted(index);
  struct atomic_file file;

  if (text == NULL)
    return oci_error_set(err, ENOMEM, "serialise index.json");
  /* Under the store lock, any other index temporary is a dead writer's. */
  sweep_stale(tmp_fd, "index.json", true);
  /* Written in tmp/, renamed over the store's index.json: readers see the
   * old index or the new one. */
  if (atomic_file_begin(&file, tmp_fd, "index.json", 0644, "index.json", err) < 0 ||
      atomic_file_write(&file, text, strlen(text), err) < 0 ||
      atomic_file_commit(&file, layout_fd, "index.json", ATOMIC_FILE_REPLACE, err) < 0)
    return -1;
  return 0;
}

bool oci_layout_has_blob(int layout_fd, const char *digest, int64_t size)
{
  cleanup_close int fd = -1;
  struct stat st;
  oci_error_t ignored = NULL;

  fd = oci_blob_open(layout_fd, digest, &ignored);
  oci_error_free(&ignored);
  if (fd < 0 || fstat(fd, &st) < 0)
    return false;
  return S_ISREG(st.st_mode) && (size < 0 || st.st_size == size);
}

int oci_blob_copy_verified(int src_fd, const char *digest, int64_t size, int dst_dir_fd,
                           const char *what, oci_error_t *err)
{
  cleanup_free char *buffer = NULL;
  struct oci_sha256 *hash = NULL;
  struct atomic_file file;
  char blob[160], actual[OCI_DIGEST_LEN];
  int64_t total = 0;

  if (!oci_digest_valid(digest))
    return oci_error_set(err, 0, "%s: malformed digest '%.80s'", what, digest);
  snprintf(blob, sizeof(blob), "%.80s %s", what, digest);
  buffer = malloc(COPY_CHUNK);
  hash = oci_sha256_new();
  if (buffer == NULL || hash == NULL) {
    oci_sha256_free(hash);
    return oci_error_set(err, ENOMEM, "copy %s", blob);
  }
  if (atomic_file_begin(&file, dst_dir_fd, ".blob", 0644, blob, err) < 0) {
    oci_sha256_free(hash);
    return -1;
  }
  for (;;) {
    ssize_t n = read(src_fd, buffer, COPY_CHUNK);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      oci_error_errno(err, "read %s", blob);
      goto fail;
    }
    if (n == 0)
      break;
    total += n;
    if (size >= 0 && total > size) {
      oci_error_set(err, 0, "%s: blob is larger than the descriptor size %lld", blob,
                    (long long)size);
      goto fail;
    }
    oci_sha256_update(hash, buffer, (size_t)n);
    if (atomic_file_write(&file, buffer, (size_t)n, err) < 0)
      goto fail;
  }
  if (size >= 0 && total != size) {
    oci_error_set(err, 0, "%s: size %lld does not match descriptor size %lld", blob,
                  (long long)total, (long long)size);
    goto fail;
  }
  oci_sha256_final(hash, actual);
  if (strcmp(actual, digest) != 0) {
    oci_error_set(err, 0, "%s: content digest is %s", blob, actual);
    goto fail;
  }
  /* Only verified content gets the digest as its name. */
  if (atomic_file_commit(&file, dst_dir_fd, digest + strlen("sha256:"), ATOMIC_FILE_REPLACE, err) <
      0)
    goto fail;
  oci_sha256_free(hash);
  return 0;
fail:
  oci_sha256_free(hash);
  atomic_file_discard(&file);
  return -1;
}

int oci_blob_write_buffer(int dst_dir_fd, const void *data, size_t length,
                          char digest[OCI_DIGEST_LEN], oci_error_t *err)
{
  struct atomic_file file;
  char blob[8 + OCI_DIGEST_LEN];

  oci_sha256_buffer(data, length, digest);
  snprintf(blob, sizeof(blob), "blob %s", digest);
  if (atomic_file_begin(&file, dst_dir_fd, ".blob", 0644, blob, err) < 0 ||
      atomic_file_write(&file, data, length, err) < 0 ||
      atomic_file_commit(&file, dst_dir_fd, digest + strlen("sha256:"), ATOMIC_FILE_REPLACE, err) <
          0)
    return -1;
  return 0;
}

int oci_make_temp_dir(int dir_fd, const char *prefix, char **name, oci_error_t *err)
{
  char candidate[96], sweep_name[64];
  cleanup_close int sweep_fd = -1;

  /* Creating holds the sweep lock shared, so a sweeper (exclusive) never
   * sees a new directory before its owner has locked it. */
  snprintf(sweep_name, sizeof(sweep_name), ".%s.lock", prefix);
  sweep_fd = openat(dir_fd, sweep_name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (sweep_fd < 0)
    return oci_error_errno(err, "open %s", sweep_name);
  if (flock_retry(sweep_fd, LOCK_EX | LOCK_NB) == 0)
    sweep_stale(dir_fd, prefix, false);
  if (flock_retry(sweep_fd, LOCK_SH) < 0)
    return oci_error_errno(err, "lock %s", sweep_name);
  for (int attempt = 0; attempt < 16; attempt++) {
    int fd;
    if (oci_temp_name(candidate, sizeof(candidate), prefix) < 0)
      return oci_error_set(err, ENAMETOOLONG, "temporary directory name");
    if (mkdirat(dir_fd, candidate, 0700) < 0) {
      if (errno == EEXIST)
        continue;
      return oci_error_errno(err, "create temporary directory %s", candidate);
    }
    fd = openat(dir_fd, candidate, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || flock_retry(fd, LOCK_EX) < 0 || (*name = strdup(candidate)) == NULL) {
      oci_error_errno(err, "open temporary directory %s", candidate);
      if (fd >= 0)
        close(fd);
      unlinkat(dir_fd, candidate, AT_REMOVEDIR);
      return -1;
    }
    return fd;
  }
  return oci_error_set(err, EEXIST, "create temporary directory %s-*", prefix);
}
