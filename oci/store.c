/* The image store under $OCIRUN_ROOT: root/store is an OCI image layout
 * (so skopeo can copy straight into it), root/tmp the only place temporary
 * files go. Listing, committing an import, removing images and collecting
 * the blobs no image uses any more. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cleanup.h"
#include "digest.h"
#include "layout.h"
#include "manifest.h"
#include "oci.h"
#include "store.h"

int oci_store_lock(struct oci_store *store, oci_error_t *err)
{
  return oci_layout_lock(store->root_fd, "store.lock", err);
}

void oci_store_close(struct oci_store *store)
{
  if (store == NULL)
    return;
  if (store->root_fd >= 0)
    close(store->root_fd);
  if (store->store_fd >= 0)
    close(store->store_fd);
  if (store->tmp_fd >= 0)
    close(store->tmp_fd);
  free(store->root);
  free(store->store_path);
  free(store);
}

const char *oci_store_root(const struct oci_store *store)
{
  return store->root;
}

int oci_store_open(const char *root, struct oci_store **out, oci_error_t *err)
{
  struct oci_store *store = calloc(1, sizeof(*store));
  int cache_fd;

  if (store == NULL)
    return oci_error_set(err, ENOMEM, "open store %s", root);
  store->root_fd = store->store_fd = store->tmp_fd = -1;
  store->root = strdup(root);
  if (store->root == NULL || asprintf(&store->store_path, "%s/store", root) < 0) {
    store->store_path = NULL;
    oci_store_close(store);
    return oci_error_set(err, ENOMEM, "open store %s", root);
  }
  store->root_fd = oci_store_root_open(root, true, err);
  if (store->root_fd < 0)
    goto fail;
  store->store_fd = oci_store_dir_open(store->root_fd, root, "store", true, err);
  if (store->store_fd < 0)
    goto fail;
  store->tmp_fd = oci_store_dir_open(store->root_fd, root, "tmp", true, err);
  if (store->tmp_fd < 0)
    goto fail;
  cache_fd = oci_store_dir_open(store->root_fd, root, "cache", true, err);
  if (cache_fd < 0)
    goto fail;
  close(cache_fd);
  if (faccessat(store->store_fd, "index.json", F_OK, AT_SYMLINK_NOFOLLOW) < 0 ||
      faccessat(store->store_fd, "oci-layout", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
    cleanup_close int lock_fd = oci_store_lock(store, err);
    if (lock_fd < 0 || oci_layout_init(store->store_fd, store->store_path, err) < 0)
      goto fail;
  }
  *out = store;
  return 0;
fail:
  oci_store_close(store);
  return -1;
}

int oci_image_list(struct oci_store *store, struct oci_image_summary **out, size_t *n_out,
                   oci_error_t *err)
{
  struct oci_index_doc index;
  struct oci_image_summary *list;

  if (oci_layout_index_doc(store->store_fd, store->store_path, &index, err) < 0)
    return -1;
  list = calloc(index.n_manifests + 1, sizeof(*list));
  if (list == NULL) {
    oci_index_doc_clear(&index);
    return oci_error_set(err, ENOMEM, "list images");
  }
  for (size_t i = 0; i < index.n_manifests; i++) {
    struct oci_image *image = NULL;
    oci_error_t ignored = NULL;
    list[i].ref_name = index.manifests[i].ref_name;
    index.manifests[i].ref_name = NULL;
    /* A broken image is listed with an empty ID rather than hiding the rest. */
    if (oci_resolve_entry(store->store_fd, store->store_path, &index, i, &image, &ignored) < 0) {
      oci_error_free(&ignored);
      memcpy(list[i].manifest_digest, index.manifests[i].digest, OCI_DIGEST_LEN);
      list[i].size = -1;
      continue;
    }
    memcpy(list[i].image_id, image->image_id, OCI_DIGEST_LEN);
    memcpy(list[i].manifest_digest, image->manifest_digest, OCI_DIGEST_LEN);
    for (size_t k = 0; k < image->n_layers; k++)
      list[i].size += image->layers[k].size;
    oci_image_free(image);
  }
  *n_out = index.n_manifests;
  *out = list;
  oci_index_doc_clear(&index);
  return 0;
}

void oci_image_summaries_free(struct oci_image_summary *list, size_t n)
{
  if (list == NULL)
    return;
  for (size_t i = 0; i < n; i++)
    free(list[i].ref_name);
  free(list);
}

static bool is_blob_name(const char *name)
{
  size_t i;
  for (i = 0; name[i] != '\0'; i++)
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
      return false;
  return i == 64;
}

static cJSON *index_entry_json(const struct oci_descriptor *manifest, const char *name)
{
  cJSON *entry = cJSON_CreateObject();
  if (entry == NULL)
    return NULL;
  cJSON_AddStringToObject(entry, "mediaType", manifest->media_type);
  cJSON_AddStringToObject(entry, "digest", manifest->digest);
  cJSON_AddNumberToObject(entry, "size", (double)manifest->size);
  if (name != NULL) {
    cJSON *annotations = cJSON_AddObjectToObject(entry, "annotations");
    cJSON_AddStringToObject(annotations, OCI_REF_NAME_ANNOTATION, name);
  }
  return entry;
}

static const char *entry_ref_name(const cJSON *entry)
{
  const cJSON *annotations = cJSON_GetObjectItemCaseSensitive(entry, "annotations");
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(annotations, OCI_REF_NAME_ANNOTATION);
  return cJSON_IsString(name) ? name->valuestring : NULL;
}

static const char *entry_digest(const cJSON *entry)
{
  const cJSON *digest = cJSON_GetObjectItemCaseSensitive(entry, "digest");
  return cJSON_IsString(digest) ? digest->valuestring : NULL;
}

/* Moves name between directories unless the target exists (EEXIST).
 * Filesystems without RENAME_NOREPLACE (9p, some NFS) say EINVAL; there a
 * hard link, which cannot replace either, does the job, and the staging
 * name goes with the staging directory. */
static int move_no_replace(int from_fd, const char *name, int to_fd)
{
  if (renameat2(from_fd, name, to_fd, name, RENAME_NOREPLACE) == 0)
    return 0;
  if (errno != EINVAL)
    return -1;
  return linkat(from_fd, name, to_fd, name, 0);
}

/* Moves the staged blobs in; counts those that were new to the store. */
static int move_blobs_into_store(struct oci_store *store, int staging_fd,
                                 struct oci_import_report *report, oci_error_t *err)
{
  cleanup_close int blobs_fd = -1;
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;
  int dup_fd;

  blobs_fd =
      openat(store->store_fd, "blobs/sha256", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (blobs_fd < 0)
    return oci_error_errno(err, "open %s/blobs/sha256", store->store_path);
  dup_fd = fcntl(staging_fd, F_DUPFD_CLOEXEC, 0);
  if (dup_fd < 0 || (dir = fdopendir(dup_fd)) == NULL) {
    if (dup_fd >= 0)
      close(dup_fd);
    return oci_error_errno(err, "read staging directory");
  }
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    struct stat st;

    if (!is_blob_name(entry->d_name))
      continue;
    if (fstatat(staging_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
      return oci_error_errno(err, "stat staged blob sha256:%s", entry->d_name);
    /* A blob already in the store has the same content by its name. */
    if (move_no_replace(staging_fd, entry->d_name, blobs_fd) < 0) {
      if (errno != EEXIST)
        return oci_error_errno(err, "move blob sha256:%s into the store", entry->d_name);
    } else if (report != NULL) {
      report->blobs_new++;
      report->bytes_new += st.st_size;
    }
  }
  if (errno != 0)
    return oci_error_errno(err, "read staging directory");
  if (fsync(blobs_fd) < 0)
    return oci_error_errno(err, "fsync %s/blobs/sha256", store->store_path);
  return 0;
}

/* An import does not stage blobs the store already has; an image removal
 * that ran meanwhile may have collected them. Checked under the lock. */
static int check_blobs_present(struct oci_store *store, const struct oci_descriptor *manifest,
                               struct oci_import_report *report, oci_error_t *err)
{
  struct oci_manifest_doc doc;
  int ret = 0;

  if (oci_manifest_load(store->store_fd, manifest, &doc, NULL, NULL, err) < 0)
    return -1;
  if (report != NULL) {
    size_t total = 2 + doc.n_layers; /* the manifest, the config, the layers */
    snprintf(report->image_id, sizeof(report->image_id), "%s", doc.config.digest);
    snprintf(report->manifest_digest, sizeof(report->manifest_digest), "%s", manifest->digest);
    report->blobs_present = total > report->blobs_new ? total - report->blobs_new : 0;
  }
  if (!oci_layout_has_blob(store->store_fd, doc.config.digest, doc.config.size))
    ret = oci_error_set(err, 0, "config %s left the store during the import: import again",
                        doc.config.digest);
  for (size_t i = 0; ret == 0 && i < doc.n_layers; i++)
    if (!oci_layout_has_blob(store->store_fd, doc.layers[i].digest, doc.layers[i].size))
      ret = oci_error_set(err, 0, "layer %s left the store during the import: import again",
                          doc.layers[i].digest);
  oci_manifest_doc_clear(&doc);
  return ret;
}

/* The names an import records: Docker's familiar form of each
 * ("docker.io/library/busybox" is "busybox:latest"), each once. */
static int recorded_names(char *const *names, size_t n_names, char ***out, oci_error_t *err)
{
  char **list = calloc(n_names + 1, sizeof(*list));
  size_t n = 0;

  if (list == NULL)
    return oci_error_set(err, ENOMEM, "image names");
  *out = list;
  for (size_t i = 0; i < n_names; i++) {
    char familiar[OCI_REF_NAME_MAX + 16];
    const char *name =
        oci_ref_name_familiar(names[i], familiar, sizeof(familiar)) ? familiar : names[i];
    bool seen = false;

    if (!oci_ref_name_valid(name))
      return oci_error_set(err, 0, "'%s' is not a valid image name", names[i]);
    for (size_t k = 0; k < n; k++)
      seen = seen || strcmp(list[k], name) == 0;
    if (!seen && (list[n++] = strdup(name)) == NULL)
      return oci_error_set(err, ENOMEM, "image names");
  }
  return 0;
}

int oci_store_commit(struct oci_store *store, int staging_fd, const struct oci_descriptor *manifest,
                     char *const *given_names, size_t n_given, struct oci_import_report *report,
                     oci_error_t *err)
{
  cleanup_close int lock_fd = -1;
  cleanup_cjson cJSON *index = NULL;
  cleanup_strv char **names = NULL;
  cleanup_free char **replaced = NULL;
  cJSON *manifests, *entry, *next;
  size_t n_names = 0;

  if (recorded_names(given_names, n_given, &names, err) < 0)
    return -1;
  while (names[n_names] != NULL)
    n_names++;
  replaced = calloc(n_names + 1, sizeof(*replaced));
  if (replaced == NULL)
    return oci_error_set(err, ENOMEM, "image names");
  lock_fd = oci_store_lock(store, err);
  if (lock_fd < 0)
    return -1;
  /* Blobs before the index: the index never names a blob that is missing. */
  if (move_blobs_into_store(store, staging_fd, report, err) < 0)
    return -1;
  if (check_blobs_present(store, manifest, report, err) < 0)
    return -1;
  if (oci_layout_read_index(store->store_fd, store->store_path, &index, err) < 0)
    return -1;
  manifests = cJSON_GetObjectItemCaseSensitive(index, "manifests");
  for (entry = manifests->child; entry != NULL; entry = next) {
    const char *name = entry_ref_name(entry), *digest = entry_digest(entry);
    bool drop = false;
    next = entry->next;
    /* A name another tool wrote in another form (skopeo's
     * docker.io/library/busybox:latest) is the same name: it moves too. */
    for (size_t i = 0; name != NULL && i < n_names; i++) {
      if (!oci_ref_names_same(name, names[i]))
        continue;
      drop = true;
      if (replaced[i] == NULL && digest != NULL && (replaced[i] = strdup(digest)) == NULL)
        goto nomem;
    }
    /* Importing an image again without a name does not duplicate it. */
    if (n_names == 0 && name == NULL && digest && strcmp(digest, manifest->digest) == 0)
      drop = true;
    if (drop)
      cJSON_Delete(cJSON_DetachItemViaPointer(manifests, entry));
  }
  for (size_t i = 0; i < (n_names ? n_names : 1); i++) {
    cJSON *new_entry = index_entry_json(manifest, n_names ? names[i] : NULL);
    if (new_entry == NULL)
      goto nomem;
    cJSON_AddItemToArray(manifests, new_entry);
  }
  if (oci_layout_write_index(store->store_fd, store->tmp_fd, index, err) < 0)
    goto fail;
  if (report != NULL) {
    report->names = steal_pointer(&names);
    report->replaced = steal_pointer(&replaced);
  }
  return 0;
nomem:
  oci_error_set(err, ENOMEM, "update index");
fail:
  for (size_t i = 0; i < n_names; i++)
    free(replaced[i]);
  return -1;
}

/* --- removal and garbage collection --- */

struct digest_set {
  char (*digests)[OCI_DIGEST_LEN];
  size_t n, capacity;
};

static int digest_set_add(struct digest_set *set, const char *digest)
{
  for (size_t i = 0; i < set->n; i++)
    if (strcmp(set->digests[i], digest) == 0)
      return 0;
  if (set->n == set->capacity) {
    size_t capacity = set->capacity ? set->capacity * 2 : 64;
    void *grown = realloc(set->digests, capacity * sizeof(*set->digests));
    if (grown == NULL)
      return -1;
    set->digests = grown;
    set->capacity = capacity;
  }
  memcpy(set->digests[set->n++], digest, OCI_DIGEST_LEN);
  return 0;
}

static bool digest_set_has(const struct digest_set *set, const char *digest)
{
  for (size_t i = 0; i < set->n; i++)
    if (strcmp(set->digests[i], digest) == 0)
      return true;
  return false;
}

/* Documents are followed this deep (index, manifest, config, and some
 * room for artifacts that refer to other manifests). */
#define MAX_MARK_DEPTH 8

static int mark_reachable(int layout_fd, const char *digest, int64_t size, const char *media_type,
                          int depth, struct digest_set *set, oci_error_t *err);

/* Every {"digest": ..., "mediaType": ...} inside a JSON document: images,
 * indexes and also artifacts (signatures, SBOMs) skopeo may have stored,
 * whose blobs must not be collected either. */
static int mark_descriptors_in(int layout_fd, const cJSON *json, int depth, struct digest_set *set,
                               oci_error_t *err)
{
  const cJSON *digest = cJSON_GetObjectItemCaseSensitive(json, "digest");
  const cJSON *size = cJSON_GetObjectItemCaseSensitive(json, "size");
  const cJSON *media_type = cJSON_GetObjectItemCaseSensitive(json, "mediaType");
  const cJSON *child;

  if (cJSON_IsObject(json) && cJSON_IsString(digest) && oci_digest_valid(digest->valuestring) &&
      mark_reachable(
          layout_fd, digest->valuestring, cJSON_IsNumber(size) ? (int64_t)size->valuedouble : -1,
          cJSON_IsString(media_type) ? media_type->valuestring : NULL, depth, set, err) < 0)
    return -1;
  cJSON_ArrayForEach(child, json)
  {
    if ((cJSON_IsObject(child) || cJSON_IsArray(child)) &&
        mark_descriptors_in(layout_fd, child, depth, set, err) < 0)
      return -1;
  }
  return 0;
}

/* Marks a blob and, when it is a JSON document, everything it refers to. A
 * blob that is missing keeps nothing alive; one that cannot be read makes
 * collection stop (returns -1) because what it refers to is unknown. */
static int mark_reachable(int layout_fd, const char *digest, int64_t size, const char *media_type,
                          int depth, struct digest_set *set, oci_error_t *err)
{
  cleanup_free char *data = NULL;
  cleanup_cjson cJSON *json = NULL;
  size_t length, media_length = media_type ? strlen(media_type) : 0;
  bool document;

  if (digest_set_has(set, digest))
    return 0;
  if (digest_set_add(set, digest) < 0)
    return oci_error_set(err, ENOMEM, "collect blobs");
  document = media_length > 5 && strcmp(media_type + media_length - 5, "+json") == 0;
  if (!document || !oci_layout_has_blob(layout_fd, digest, -1))
    return 0;
  if (depth >= MAX_MARK_DEPTH)
    return oci_error_set(err, 0, "%s: documents nested deeper than %d", digest, MAX_MARK_DEPTH);
  if (oci_blob_read_verified(layout_fd, digest, size, OCI_JSON_MAX, &data, &length, err) < 0)
    return -1;
  json = cJSON_ParseWithLength(data, length);
  return json == NULL ? 0 : mark_descriptors_in(layout_fd, json, depth + 1, set, err);
}

/* The digests every entry of an index reaches. Fails (and nothing may be
 * collected) when a document cannot be read: what it refers to is unknown. */
static int mark_index(struct oci_store *store, const struct oci_index_doc *index,
                      struct digest_set *set, oci_error_t *err)
{
  for (size_t i = 0; i < index->n_manifests; i++)
    if (mark_reachable(store->store_fd, index->manifests[i].digest, index->manifests[i].size,
                       index->manifests[i].media_type, 0, set, err) < 0)
      return -1;
  return 0;
}

/* Whether a blob no entry of the index reaches now must still be kept.
 * Writers outside ocirun take no lock: skopeo copying into the store puts
 * each blob in place as it arrives and names them all in index.json only
 * at the end of its copy, which may take hours on a slow link. So a blob
 * changed during this collection is kept, and one that no entry named
 * before the removal either (named_before: the removal's own image is
 * collected at once) for OCI_UNNAMED_BLOB_GRACE_SECONDS after it was
 * written: a day, longer than a copy lasts, as long as containerd's
 * default lease on a pull's content. A blob's age is its ctime, which the
 * kernel sets when the file is written or renamed into place and its
 * writer cannot set at all; never its mtime, which the writer sets as it
 * likes: back, a young blob would look old; ahead (`touch -d`, a copy that
 * keeps times from a clock that ran ahead), a blob would look written
 * during every collection, and be kept for ever, its own image's too. */
static bool keep_unnamed(const struct stat *st, bool named_before, const struct timespec *start)
{
  const struct timespec *changed = &st->st_ctim;

  /* start is read from the clock file times come from (the coarse one),
   * so a blob written after it is never older. */
  if (changed->tv_sec > start->tv_sec ||
      (changed->tv_sec == start->tv_sec && changed->tv_nsec >= start->tv_nsec))
    return true;
  return !named_before && changed->tv_sec >= start->tv_sec - OCI_UNNAMED_BLOB_GRACE_SECONDS;
}

/* Deletes the blobs that no entry of the index reaches, but for those
 * keep_unnamed keeps; named_before is what the index reached before the
 * removal (NULL: unknown), start when the removal took the store lock,
 * which the caller holds. */
static int collect_garbage(struct oci_store *store, const struct digest_set *named_before,
                           const struct timespec *start, struct oci_remove_report *report,
                           oci_error_t *err)
{
  struct digest_set set = {0};
  struct oci_index_doc index;
  cleanup_close int blobs_fd = -1;
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;
  int ret, dup_fd;

  if (oci_layout_index_doc(store->store_fd, store->store_path, &index, err) < 0)
    return -1;
  ret = mark_index(store, &index, &set, err);
  oci_index_doc_clear(&index);
  if (ret < 0) {
    free(set.digests);
    return oci_error_wrap(err, "blob collection skipped");
  }
  blobs_fd =
      openat(store->store_fd, "blobs/sha256", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  dup_fd = blobs_fd >= 0 ? fcntl(blobs_fd, F_DUPFD_CLOEXEC, 0) : -1;
  if (dup_fd < 0 || (dir = fdopendir(dup_fd)) == NULL) {
    if (dup_fd >= 0)
      close(dup_fd);
    free(set.digests);
    return oci_error_errno(err, "read %s/blobs/sha256", store->store_path);
  }
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    char digest[OCI_DIGEST_LEN];
    struct stat st;

    if (!is_blob_name(entry->d_name))
      continue;
    snprintf(digest, sizeof(digest), "sha256:%.64s", entry->d_name);
    if (digest_set_has(&set, digest))
      continue;
    if (fstatat(blobs_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
      if (errno == ENOENT)
        continue;
      ret = oci_error_errno(err, "stat blob %s", digest);
      break;
    }
    if (keep_unnamed(&st, named_before != NULL && digest_set_has(named_before, digest), start)) {
      report->blobs_kept_unnamed++;
      continue;
    }
    if (unlinkat(blobs_fd, entry->d_name, 0) < 0) {
      if (errno == ENOENT)
        continue;
      ret = oci_error_errno(err, "remove blob %s", digest);
      break;
    }
    report->blobs_removed++;
    report->bytes_removed += st.st_size;
  }
  if (ret == 0 && errno != 0)
    ret = oci_error_errno(err, "read %s/blobs/sha256", store->store_path);
  free(set.digests);
  return ret;
}

/* Whether an image the removal keeps (drop[i] false) has this layer chain,
 * and so needs its cached rootfs. */
static bool chain_kept(struct oci_store *store, const struct oci_index_doc *index, const bool *drop,
                       const char *chain_id)
{
  for (size_t i = 0; i < index->n_manifests; i++) {
    struct oci_image *other = NULL;
    char other_chain[OCI_DIGEST_LEN];
    oci_error_t ignored = NULL;
    bool same;

    if (drop[i])
      continue;
    if (oci_resolve_entry(store->store_fd, store->store_path, index, i, &other, &ignored) < 0) {
      oci_error_free(&ignored);
      continue;
    }
    cache_chain_id(other, other_chain);
    same = strcmp(other_chain, chain_id) == 0;
    oci_image_free(other);
    if (same)
      return true;
  }
  return false;
}

static bool find_ref_name(const struct oci_index_doc *index, const char *reference, size_t *entry)
{
  for (size_t i = 0; i < index->n_manifests; i++)
    if (oci_ref_name_matches(index->manifests[i].ref_name, reference)) {
      *entry = i;
      return true;
    }
  return false;
}

int oci_image_remove(struct oci_store *store, const char *reference,
                     struct oci_remove_report *report, oci_error_t *err)
{
  struct digest_set named_before = {0};
  bool named_before_known = true;
  oci_error_t mark_err = NULL;
  struct timespec start;
  cleanup_close int lock_fd = -1;
  cleanup_close int rootfs_lock_fd = -1;
  char chain_id[OCI_DIGEST_LEN];
  bool remove_rootfs = false;
  cleanup_cjson cJSON *index_json = NULL;
  cleanup_free char *index_text = NULL;
  size_t index_length;
  struct oci_index_doc index;
  struct oci_image *image = NULL;
  enum oci_match_kind kind;
  size_t entry;
  bool *drop = NULL;
  cJSON *manifests, *item, *next;
  size_t position = 0;
  int ret = -1;

  memset(report, 0, sizeof(*report));
  if (strncmp(reference, "oci:", 4) == 0)
    return oci_error_set(err, 0, "'%s' is outside the store: nothing to remove", reference);
  lock_fd = oci_store_lock(store, err);
  if (lock_fd < 0)
    return -1;
  if (clock_gettime(CLOCK_REALTIME_COARSE, &start) < 0)
    return oci_error_errno(err, "remove %s: the time", reference);
  /* One read for both views, so their entries line up one to one. */
  if (oci_layout_read_index_text(store->store_fd, store->store_path, &index_text, &index_length,
                                 err) < 0)
    return -1;
  index_json = cJSON_ParseWithLength(index_text, index_length);
  if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(index_json, "manifests")))
    return oci_error_set(err, 0, "%s/index.json is not a valid index", store->store_path);
  if (oci_index_parse(index_text, index_length, &index, err) < 0)
    return oci_error_wrap(err, "%s/index.json", store->store_path);
  /* What every entry reaches before the removal, for keep_unnamed. When a
   * document cannot be read (a broken image must still be removable),
   * what it named is unknown: every blob is then judged as unnamed. */
  if (mark_index(store, &index, &named_before, &mark_err) < 0) {
    oci_error_free(&mark_err);
    named_before_known = false;
  }
  /* A name is removed without reading its image: a broken image or an
   * artifact must be removable too. */
  kind = OCI_MATCH_NAME;
  if (!find_ref_name(&index, reference, &entry)) {
    if (oci_resolve_in_index(store->store_fd, store->store_path, &index, reference, true, &image,
                             &entry, &kind, err) < 0) {
      oci_error_wrap(err, "image '%s'", reference);
      goto out;
    }
  } else {
    oci_error_t ignored = NULL;
    if (oci_resolve_entry(store->store_fd, store->store_path, &index, entry, &image, &ignored) < 0)
      oci_error_free(&ignored);
  }
  drop = calloc(index.n_manifests + 1, sizeof(*drop));
  if (drop == NULL) {
    oci_error_set(err, ENOMEM, "remove %s", reference);
    goto out;
  }
  drop[entry] = true;
  /* By ID, every name of that image goes; by name, only that name. */
  for (size_t i = 0; kind == OCI_MATCH_ID && i < index.n_manifests; i++) {
    struct oci_image *other = NULL;
    oci_error_t ignored = NULL;
    if (oci_resolve_entry(store->store_fd, store->store_path, &index, i, &other, &ignored) < 0) {
      oci_error_free(&ignored);
      continue;
    }
    drop[i] = drop[i] || strcmp(other->image_id, image->image_id) == 0;
    oci_image_free(other);
  }
  /* The cached rootfs goes too, unless an image that stays has the same
   * layers. A live run holds it (shared lock): then nothing is removed.
   * Held until the end, so no run starts on it meanwhile. */
  if (image != NULL) {
    cache_chain_id(image, chain_id);
    remove_rootfs = !chain_kept(store, &index, drop, chain_id);
    if (remove_rootfs) {
      rootfs_lock_fd = cache_entry_lock(store->root_fd, chain_id, CACHE_LOCK_REMOVE, err);
      if (rootfs_lock_fd < 0) {
        oci_error_wrap(err, "image '%s': nothing was removed", reference);
        goto out;
      }
    }
  }
  manifests = cJSON_GetObjectItemCaseSensitive(index_json, "manifests");
  for (item = manifests->child; item != NULL; item = next, position++) {
    next = item->next;
    if (position < index.n_manifests && drop[position])
      cJSON_Delete(cJSON_DetachItemViaPointer(manifests, item));
  }
  if (oci_layout_write_index(store->store_fd, store->tmp_fd, index_json, err) < 0)
    goto out;
  /* The image is gone once the index says so; what is left is only space. */
  ret = remove_rootfs ? cache_entry_remove(store->root_fd, chain_id, err) : 0;
  if (ret == 0)
    ret = collect_garbage(store, named_before_known ? &named_before : NULL, &start, report, err);
  if (ret < 0)
    oci_error_wrap(err, "'%s' was removed from the index but its blobs were kept", reference);
out:
  free(drop);
  free(named_before.digests);
  oci_image_free(image);
  oci_index_doc_clear(&index);
  return ret;
}
