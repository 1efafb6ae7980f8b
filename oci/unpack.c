/* oci_image_unpack: turns a resolved image into a cached rootfs. Every layer
 * is decoded on its own thread (decompress.c), applied by the tar-reading
 * thread (apply.c), and both its blob digest and its diff_id must match
 * before the rootfs is committed to the cache (cache.c). A caller whose
 * effective uid is not 0 unpacks rootless: no owners, directory modes set
 * after the last layer (apply.h), and its own cache entries (cache.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>

#include "apply.h"
#include "cache.h"
#include "cleanup.h"
#include "decompress.h"
#include "digest.h"
#include "escape.h"
#include "oci.h"
#include "progress.h"

struct layer_reader {
  struct decompress_stream *stream;
  bool failed; /* decoding failed: its error explains more than libarchive's */
};

static la_ssize_t layer_read(struct archive *archive, void *data, const void **buffer)
{
  struct layer_reader *reader = data;
  ssize_t length = decompress_stream_next(reader->stream, buffer);

  if (length < 0) {
    reader->failed = true;
    archive_set_error(archive, EIO, "layer decoding failed");
    return -1;
  }
  return length;
}

static int layer_verify(const struct oci_layer *layer, const char *blob_digest, const char *diff_id,
                        int64_t blob_size, oci_error_t *err)
{
  if (blob_size != layer->size)
    return oci_error_set(err, 0, "layer %s: blob is %lld bytes, the manifest says %lld",
                         layer->digest, (long long)blob_size, (long long)layer->size);
  if (strcmp(blob_digest, layer->digest) != 0)
    return oci_error_set(err, 0, "layer %s: blob content digest is %s", layer->digest, blob_digest);
  if (strcmp(diff_id, layer->diff_id) != 0)
    return oci_error_set(err, 0,
                         "layer %s: uncompressed content digest is %s, the config's diff_id is %s",
                         layer->digest, diff_id, layer->diff_id);
  return 0;
}

/* rootless_modes: NULL when privileged. */
static int layer_unpack(int layout_fd, const struct oci_layer *layer, int rootfs_fd,
                        struct deferred_modes *rootless_modes, struct progress *progress,
                        oci_error_t *err)
{
  struct layer_reader reader = {0};
  enum layer_compression compression;
  char shown[512];
  char blob_digest[OCI_DIGEST_LEN], diff_id[OCI_DIGEST_LEN];
  int64_t blob_size = 0;
  struct archive *archive;
  struct stat st;
  int blob_fd, status;

  if (layer_compression_from_media_type(layer->media_type, &compression, err) < 0)
    return oci_error_wrap(err, "layer %s", layer->digest);
  blob_fd = oci_blob_open(layout_fd, layer->digest, err);
  if (blob_fd < 0)
    return -1;
  /* Refuse a wrong size before spending time on the content. */
  if (fstat(blob_fd, &st) < 0) {
    oci_error_errno(err, "layer %s: stat blob", layer->digest);
    close(blob_fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode) || st.st_size != layer->size) {
    close(blob_fd);
    if (!S_ISREG(st.st_mode))
      return oci_error_set(err, 0, "layer %s: blob is not a regular file", layer->digest);
    return oci_error_set(err, 0, "layer %s: blob is %lld bytes, the manifest says %lld",
                         layer->digest, (long long)st.st_size, (long long)layer->size);
  }
  /* Advice only: a failure changes nothing but read-ahead. */
  (void)posix_fadvise(blob_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  if (decompress_stream_start(blob_fd, compression, progress, &reader.stream, err) < 0)
    return oci_error_wrap(err, "layer %s", layer->digest);

  archive = archive_read_new();
  if (archive == NULL) {
    decompress_stream_abort(reader.stream);
    return oci_error_set(err, ENOMEM, "layer %s: create tar reader", layer->digest);
  }
  /* Only the tar format and no libarchive filters: decoding is ours. */
  archive_read_support_format_tar(archive);
  if (archive_read_open(archive, &reader, NULL, layer_read, NULL) != ARCHIVE_OK)
    status = oci_error_set(
        err, 0, "layer %s: read tar: %s", layer->digest,
        oci_escape_into(archive_error_string(archive), OCI_ESCAPE_BACKSLASH, shown, sizeof(shown)));
  else if (rootless_modes != NULL)
    status = layer_apply_rootless(rootfs_fd, archive, layer->digest, rootless_modes, err);
  else
    status = layer_apply(rootfs_fd, archive, layer->digest, err);
  archive_read_free(archive);

  if (status < 0 && !reader.failed) {
    decompress_stream_abort(reader.stream);
    return -1;
  }
  if (status < 0)
    oci_error_free(err);
  if (decompress_stream_finish(reader.stream, blob_digest, diff_id, &blob_size, err) < 0)
    return oci_error_wrap(err, "layer %s", layer->digest);
  if (status < 0)
    return oci_error_set(err, 0, "layer %s: tar stream ended early", layer->digest);
  return layer_verify(layer, blob_digest, diff_id, blob_size, err);
}

static int image_check_layers(const struct oci_image *image, oci_error_t *err)
{
  for (size_t i = 0; i < image->n_layers; i++) {
    const struct oci_layer *layer = &image->layers[i];
    enum layer_compression compression;

    if (!oci_digest_valid(layer->digest))
      return oci_error_set(err, 0, "layer %zu: malformed digest '%.80s'", i + 1, layer->digest);
    if (!oci_digest_valid(layer->diff_id))
      return oci_error_set(err, 0, "layer %s: malformed diff_id '%.80s'", layer->digest,
                           layer->diff_id);
    if (layer_compression_from_media_type(layer->media_type, &compression, err) < 0)
      return oci_error_wrap(err, "layer %s", layer->digest);
  }
  return 0;
}

static int image_build_rootfs(int root_fd, const struct oci_image *image, const char *chain_id,
                              bool rootless, const struct oci_unpack_options *options,
                              oci_error_t *err)
{
  struct cache_build build;
  struct progress progress;
  struct deferred_modes *rootless_modes = NULL;
  cleanup_close int layout_fd = -1;

  layout_fd = open(image->layout_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (layout_fd < 0)
    return oci_error_errno(err, "open image layout %s", image->layout_path);
  if (rootless && (rootless_modes = deferred_modes_new()) == NULL)
    return oci_error_set(err, ENOMEM, "allocate directory modes");
  if (cache_build_begin(root_fd, &build, err) < 0) {
    deferred_modes_free(rootless_modes);
    return -1;
  }
  progress_init(&progress, options != NULL ? options->events : NULL,
                options != NULL ? options->progress_after_ms : 0);
  for (size_t i = 0; i < image->n_layers; i++) {
    int status;

    progress_layer_begin(&progress, i, image->n_layers, image->layers[i].digest,
                         image->layers[i].size);
    status =
        layer_unpack(layout_fd, &image->layers[i], build.rootfs_fd, rootless_modes, &progress, err);
    progress_layer_end(&progress);
    if (status < 0)
      goto fail;
  }
  /* Rootless: directories got u+rwx for the later layers' sake; their
   * image modes now, once every layer had its say. */
  if (rootless_modes != NULL && deferred_modes_apply(rootless_modes, build.rootfs_fd, err) < 0)
    goto fail;
  if (cache_build_commit(root_fd, &build, chain_id, rootless, err) < 0)
    goto fail;
  deferred_modes_free(rootless_modes);
  return 0;
fail:
  cache_build_discard(root_fd, &build);
  deferred_modes_free(rootless_modes);
  return -1;
}

int oci_image_unpack(struct oci_store *store, const struct oci_image *image,
                     const struct oci_unpack_options *options, char **rootfs, oci_error_t *err)
{
  const char *root = oci_store_root(store);
  /* Without privilege, owners cannot be applied: a tree of another kind,
   * built and cached apart (see cache.h). */
  bool rootless = geteuid() != 0;
  char chain_id[OCI_DIGEST_LEN];
  char entry_name[CACHE_ENTRY_NAME_LEN];
  cleanup_close int root_fd = -1;
  cleanup_close int lock_fd = -1;
  cleanup_free char *path = NULL;

  if (image_check_layers(image, err) < 0)
    return oci_error_wrap(err, "unpack %s", image->image_id);
  cache_chain_id(image, chain_id);
  cache_entry_name(chain_id, rootless, entry_name);
  if (asprintf(&path, "%s/cache/%s/rootfs", root, entry_name) < 0)
    return oci_error_errno(err, "unpack %s", image->image_id);
  root_fd = oci_store_root_open(root, false, err);
  if (root_fd < 0)
    return -1;

  /* A hit takes the lock shared, so a removal cannot take the tree away
   * while it is used; a miss builds under the exclusive lock. A marker only
   * exists in a complete entry; it is checked again once the lock is held,
   * since a build or a removal may have finished meanwhile. */
  if (cache_entry_present(root_fd, chain_id, rootless)) {
    lock_fd = cache_entry_lock(root_fd, chain_id, CACHE_LOCK_USE, err);
    if (lock_fd < 0)
      return oci_error_wrap(err, "unpack %s", image->image_id);
  }
  if (!cache_entry_present(root_fd, chain_id, rootless)) {
    if (lock_fd >= 0)
      close(steal_fd(&lock_fd));
    lock_fd = cache_entry_lock(root_fd, chain_id, CACHE_LOCK_BUILD, err);
    if (lock_fd < 0)
      return oci_error_wrap(err, "unpack %s", image->image_id);
    if (!cache_entry_present(root_fd, chain_id, rootless) &&
        image_build_rootfs(root_fd, image, chain_id, rootless, options, err) < 0)
      return oci_error_wrap(err, "unpack %s", image->image_id);
    /* Built: from exclusive down to shared. flock converts by letting go
     * first, so a removal could slip in between: look once more. */
    if (flock(lock_fd, LOCK_SH) < 0)
      return oci_error_errno(err, "unpack %s: lock the cache entry shared", image->image_id);
    if (!cache_entry_present(root_fd, chain_id, rootless))
      return oci_error_set(err, 0, "unpack %s: the rootfs was removed as it was built (image rm?)",
                           image->image_id);
  }
  if (options != NULL && options->hold_fd != NULL)
    *options->hold_fd = steal_fd(&lock_fd);
  *rootfs = steal_pointer(&path);
  return 0;
}
