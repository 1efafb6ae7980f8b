/* Bringing images into the store from an OCI layout, an oci-archive tarball
 * or a `docker save` tarball (docker_archive.c). Everything is staged under
 * root/tmp and verified (size and sha256) before the store sees it; the
 * index changes in one atomic step at the end, and a failure leaves nothing
 * behind. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tarball.h"
#include "cleanup.h"
#include "digest.h"
#include "docker_archive.h"
#include "file_read.h"
#include "layout.h"
#include "manifest.h"
#include "oci.h"
#include "remove_tree.h"
#include "store.h"

/* --- from an OCI layout --- */

static int import_layout(struct oci_store *store, int staging_fd, const char *path, const char *ref,
                         const char *as_name, struct oci_import_report *report, oci_error_t *err)
{
  struct oci_layout_reference source;
  struct oci_descriptor manifest_descriptor = {0};
  struct oci_manifest_doc manifest = {0};
  cleanup_free char *manifest_raw = NULL;
  size_t manifest_length;
  char written[OCI_DIGEST_LEN];
  const char *name;
  int ret = -1;

  if (oci_layout_reference_open(path, ref, &source, err) < 0)
    return -1;
  if (oci_select_manifest(source.layout_fd, &source.index.manifests[source.entry],
                          &manifest_descriptor, err) < 0 ||
      oci_manifest_load(source.layout_fd, &manifest_descriptor, &manifest, &manifest_raw,
                        &manifest_length, err) < 0)
    goto out;
  /* The manifest and config were verified when the image was resolved;
   * the layers are verified while they are copied. */
  if (oci_blob_write_buffer(staging_fd, manifest_raw, manifest_length, written, err) < 0)
    goto out;
  if (!oci_layout_has_blob(store->store_fd, manifest.config.digest, manifest.config.size)) {
    cleanup_free char *config_raw = NULL;
    size_t config_length;
    if (oci_blob_read_verified(source.layout_fd, manifest.config.digest, manifest.config.size,
                               OCI_JSON_MAX, &config_raw, &config_length, err) < 0 ||
        oci_blob_write_buffer(staging_fd, config_raw, config_length, written, err) < 0) {
      oci_error_wrap(err, "config");
      goto out;
    }
  }
  for (size_t i = 0; i < manifest.n_layers; i++) {
    const struct oci_descriptor *layer = &manifest.layers[i];
    cleanup_close int blob_fd = -1;
    char what[32];
    if (oci_layout_has_blob(store->store_fd, layer->digest, layer->size))
      continue;
    snprintf(what, sizeof(what), "layer %zu", i);
    blob_fd = oci_blob_open(source.layout_fd, layer->digest, err);
    if (blob_fd < 0) {
      oci_error_wrap(err, "%s", what);
      goto out;
    }
    if (oci_blob_copy_verified(blob_fd, layer->digest, layer->size, staging_fd, what, err) < 0)
      goto out;
  }
  name = as_name ? as_name : source.index.manifests[source.entry].ref_name;
  if (name != NULL && !oci_ref_name_valid(name)) {
    oci_error_set(err, 0, "'%s' is not a valid image name (give one with --name)", name);
    goto out;
  }
  ret = oci_store_commit(store, staging_fd, &manifest_descriptor, (char *const *)&name,
                         name ? 1 : 0, report, err);
out:
  if (ret < 0)
    oci_error_wrap(err, "image %s in %s",
                   manifest_descriptor.digest[0] ? manifest_descriptor.digest : "(unresolved)",
                   source.path);
  oci_manifest_doc_clear(&manifest);
  oci_descriptor_clear(&manifest_descriptor);
  oci_layout_reference_clear(&source);
  return ret;
}

/* --- oci-archive: a tarball of an OCI layout --- */

static bool is_layout_member(const char *name)
{
  size_t i;
  if (strcmp(name, "oci-layout") == 0 || strcmp(name, "index.json") == 0)
    return true;
  if (strncmp(name, "blobs/sha256/", 13) != 0)
    return false;
  for (i = 13; name[i] != '\0'; i++)
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
      return false;
  return i == 13 + 64;
}

/* Unpacks only the layout's own files (names checked above, so they cannot
 * point anywhere else) into staging/layout; blobs are verified later, when
 * they are copied out of it like any other layout's. */
static int extract_layout(int archive_fd, const char *file, int staging_fd, oci_error_t *err)
{
  cleanup_archive struct archive *a = oci_archive_open(archive_fd, file, err);
  cleanup_close int layout_fd = -1;
  struct archive_entry *entry;
  int r;

  if (a == NULL)
    return -1;
  if (mkdirat(staging_fd, "layout", 0700) < 0 || mkdirat(staging_fd, "layout/blobs", 0700) < 0 ||
      mkdirat(staging_fd, "layout/blobs/sha256", 0700) < 0)
    return oci_error_errno(err, "create staging layout");
  layout_fd = openat(staging_fd, "layout", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (layout_fd < 0)
    return oci_error_errno(err, "open staging layout");
  while ((r = oci_archive_next(a, &entry, file, err)) == 0) {
    char name[4096];
    cleanup_close int fd = -1;
    const void *block;
    size_t length;
    la_int64_t offset;
    int64_t total = 0;

    if (!oci_archive_normalize_name(archive_entry_pathname(entry), name, sizeof(name)) ||
        !is_layout_member(name))
      continue;
    if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) != NULL)
      return oci_error_set(err, 0, "%s: %s is not a regular file (%s): refused", file, name,
                           archive_entry_hardlink(entry) != NULL
                               ? "a hard link"
                               : oci_file_type_name(archive_entry_filetype(entry)));
    /* The reader would refuse them later; not worth a disk's worth first. */
    if (strncmp(name, "blobs/", 6) != 0 && archive_entry_size(entry) > (la_int64_t)OCI_INDEX_MAX)
      return oci_error_set(err, 0, "%s: %s is larger than %zu bytes", file, name, OCI_INDEX_MAX);
    fd = openat(layout_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
      return oci_error_errno(err, "%s: extract %s", file, name);
    while ((r = archive_read_data_block(a, &block, &length, &offset)) == ARCHIVE_OK) {
      if (offset != total)
        return oci_error_set(err, 0, "%s: %s: sparse entries are not supported", file, name);
      for (size_t done = 0; done < length;) {
        ssize_t n = write(fd, (const char *)block + done, length - done);
        if (n < 0 && errno == EINTR)
          continue;
        if (n < 0)
          return oci_error_errno(err, "%s: extract %s", file, name);
        done += (size_t)n;
      }
      total += (int64_t)length;
    }
    if (r != ARCHIVE_EOF)
      return oci_error_set(err, 0, "%s: read %s: %s", file, name, archive_error_string(a));
  }
  return r < 0 ? -1 : 0;
}

static int import_oci_archive(struct oci_store *store, int staging_fd, const char *staging_name,
                              int archive_fd, const char *file, const char *ref,
                              const char *as_name, struct oci_import_report *report,
                              oci_error_t *err)
{
  cleanup_free char *layout_path = NULL;

  if (extract_layout(archive_fd, file, staging_fd, err) < 0)
    return -1;
  if (asprintf(&layout_path, "%s/tmp/%s/layout", store->root, staging_name) < 0) {
    layout_path = NULL;
    return oci_error_set(err, ENOMEM, "staging path");
  }
  return import_layout(store, staging_fd, layout_path, ref, as_name, report, err);
}

/* --- which kind of tarball --- */

enum tarball_kind { TARBALL_UNKNOWN, TARBALL_OCI, TARBALL_DOCKER };

static int detect_tarball(int archive_fd, const char *file, enum tarball_kind *kind,
                          oci_error_t *err)
{
  cleanup_archive struct archive *a = oci_archive_open(archive_fd, file, err);
  struct archive_entry *entry;
  bool has_index = false, has_layout = false, has_manifest = false;
  int r;

  if (a == NULL)
    return -1;
  while ((r = oci_archive_next(a, &entry, file, err)) == 0) {
    char name[4096];
    if (!oci_archive_normalize_name(archive_entry_pathname(entry), name, sizeof(name)))
      continue;
    has_index = has_index || strcmp(name, "index.json") == 0;
    has_layout = has_layout || strcmp(name, "oci-layout") == 0;
    has_manifest = has_manifest || strcmp(name, "manifest.json") == 0;
  }
  if (r < 0)
    return -1;
  /* docker save (even the OCI-shaped one of Docker 25) has manifest.json,
   * whose RepoTags are the names users expect. */
  *kind = has_manifest ? TARBALL_DOCKER : (has_index && has_layout) ? TARBALL_OCI : TARBALL_UNKNOWN;
  return 0;
}

/* FILE[:REF] of an archive: FILE is taken whole when it exists. */
static int split_archive_spec(const char *spec, char **file, char **ref, oci_error_t *err)
{
  struct stat st;
  const char *colon = strchr(spec, ':');

  *ref = NULL;
  if (stat(spec, &st) == 0 || colon == NULL) {
    *file = strdup(spec);
  } else {
    *file = strndup(spec, (size_t)(colon - spec));
    if (colon[1] != '\0')
      *ref = strdup(colon + 1);
  }
  if (*file == NULL)
    return oci_error_set(err, ENOMEM, "parse %s", spec);
  return 0;
}

static int import_source(struct oci_store *store, int staging_fd, const char *staging_name,
                         const char *source, const char *as_name, struct oci_import_report *report,
                         oci_error_t *err)
{
  cleanup_free char *path = NULL, *ref = NULL;
  cleanup_close int archive_fd = -1;
  enum tarball_kind kind = TARBALL_UNKNOWN;
  struct stat st;

  if (strncmp(source, "oci:", 4) == 0) {
    if (oci_split_layout_spec(source + 4, &path, &ref, err) < 0)
      return -1;
    return import_layout(store, staging_fd, path, ref, as_name, report, err);
  }
  if (strncmp(source, "oci-archive:", 12) == 0) {
    kind = TARBALL_OCI;
    if (split_archive_spec(source + 12, &path, &ref, err) < 0)
      return -1;
  } else if (strncmp(source, "docker-archive:", 15) == 0) {
    kind = TARBALL_DOCKER;
    if (split_archive_spec(source + 15, &path, &ref, err) < 0)
      return -1;
  } else {
    if (stat(source, &st) < 0)
      return oci_error_errno(err, "%s", source);
    if (S_ISDIR(st.st_mode))
      return import_layout(store, staging_fd, source, NULL, as_name, report, err);
    if ((path = strdup(source)) == NULL)
      return oci_error_set(err, ENOMEM, "import");
  }
  archive_fd = oci_file_open_regular(AT_FDCWD, path, OCI_FILE_NAMED, path, &st, err);
  if (archive_fd < 0)
    return -1;
  if (kind == TARBALL_UNKNOWN) {
    if (detect_tarball(archive_fd, path, &kind, err) < 0)
      return -1;
    if (kind == TARBALL_UNKNOWN)
      return oci_error_set(err, 0,
                           "%s is neither an OCI layout tarball (index.json, oci-layout) nor a "
                           "docker save tarball (manifest.json)",
                           path);
  }
  if (kind == TARBALL_OCI)
    return import_oci_archive(store, staging_fd, staging_name, archive_fd, path, ref, as_name,
                              report, err);
  return oci_import_docker_archive(store, staging_fd, archive_fd, path, ref, as_name, report, err);
}

void oci_import_report_clear(struct oci_import_report *report)
{
  cleanup_strv char **names = report->names;

  for (size_t i = 0; names != NULL && names[i] != NULL; i++)
    free(report->replaced[i]);
  free(report->replaced);

  memset(report, 0, sizeof(*report));
}

int oci_image_import(struct oci_store *store, const char *source, const char *as_name,
                     struct oci_import_report *report, oci_error_t *err)
{
  cleanup_free char *staging_name = NULL;
  int staging_fd, ret;

  memset(report, 0, sizeof(*report));
  if (as_name != NULL && !oci_ref_name_valid(as_name))
    return oci_error_set(err, 0, "'%s' is not a valid image name", as_name);
  staging_fd = oci_make_temp_dir(store->tmp_fd, "import", &staging_name, err);
  if (staging_fd < 0)
    return -1;
  ret = import_source(store, staging_fd, staging_name, source, as_name, report, err);
  /* Whatever happened, the staging area goes (committed blobs were moved
   * out of it); removed while still locked so no sweeper races us. */
  if (remove_tree_at(store->tmp_fd, staging_name, ret < 0 ? NULL : err) < 0)
    ret = -1;
  close(staging_fd);
  if (ret < 0) {
    oci_import_report_clear(report);
    return oci_error_wrap(err, "import %s", source);
  }
  return 0;
}
