/* Bringing images into the store from an OCI layout, an oci-archive tarball
 * or a `docker save` tarball. Everything is staged under root/tmp and
 * verified (size and sha256) before the store sees it; the index changes in
 * one atomic step at the end, and a failure leaves nothing behind. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "cleanup.h"
#include "digest.h"
#include "layout.h"
#include "manifest.h"
#include "oci.h"
#include "remove_tree.h"
#include "store.h"

#define ARCHIVE_BLOCK 65536
#define MAX_ARCHIVE_LINKS 10000
#define MAX_LINK_HOPS 8

/* --- from an OCI layout --- */

static int import_layout(struct oci_store *store, int staging_fd, const char *path, const char *ref,
                         const char *as_name, oci_error_t *err)
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
                         name ? 1 : 0, err);
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

/* --- tarballs, read with libarchive --- */

static void archive_freep(struct archive **a)
{
  if (*a != NULL)
    archive_read_free(*a);
}
#define cleanup_archive __attribute__((cleanup(archive_freep)))

static struct archive *archive_open(int fd, const char *file, oci_error_t *err)
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
static int archive_next(struct archive *a, struct archive_entry **entry, const char *file,
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
static bool normalize_name(const char *name, char *out, size_t size)
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

struct archive_link {
  char *name, *target; /* both normalized */
};

struct archive_links {
  struct archive_link *links;
  size_t n;
};

static void archive_links_clear(struct archive_links *links)
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
static int archive_links_add(struct archive_links *links, const char *name,
                             struct archive_entry *entry, oci_error_t *err)
{
  const char *hardlink = archive_entry_hardlink(entry);
  const char *symlink = archive_entry_symlink(entry);
  char target[4096], joined[8192];
  struct archive_link *grown;

  if (hardlink != NULL) {
    if (!normalize_name(hardlink, target, sizeof(target)))
      return 0;
  } else if (symlink != NULL) {
    const char *slash = strrchr(name, '/');
    if (symlink[0] == '/')
      return 0;
    snprintf(joined, sizeof(joined), "%.*s%s%s", slash ? (int)(slash - name) : 0, name,
             slash ? "/" : "", symlink);
    if (!normalize_name(joined, target, sizeof(target)))
      return 0;
  } else {
    return 0;
  }
  if (links->n >= MAX_ARCHIVE_LINKS)
    return oci_error_set(err, 0, "too many links in the tarball");
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
static int archive_links_resolve(const struct archive_links *links, const char *name, char *out,
                                 size_t size)
{
  if (!normalize_name(name, out, size))
    return -1;
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
static int archive_read_small(struct archive *a, const char *what, size_t max_size, char **out,
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

enum compression { COMPRESSION_NONE, COMPRESSION_GZIP, COMPRESSION_ZSTD };

/* Streams the current entry into dir_fd/<hex of its sha256>. */
static int archive_entry_to_blob(struct archive *a, int dir_fd, const char *what,
                                 char digest[OCI_DIGEST_LEN], int64_t *size,
                                 enum compression *compression, oci_error_t *err)
{
  cleanup_close int fd = -1;
  struct oci_sha256 *hash = oci_sha256_new();
  char temp[64];
  unsigned char magic[4] = {0};
  int64_t total = 0;
  const void *block;
  size_t length;
  la_int64_t offset;
  int r;

  if (hash == NULL)
    return oci_error_set(err, ENOMEM, "hash %s", what);
  if (oci_temp_name(temp, sizeof(temp), ".entry") < 0 ||
      (fd = openat(dir_fd, temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
    oci_sha256_free(hash);
    return oci_error_errno(err, "create staging file for %s", what);
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
    for (size_t done = 0; done < length;) {
      ssize_t n = write(fd, (const char *)block + done, length - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0) {
        oci_error_errno(err, "write %s", what);
        goto fail;
      }
      done += (size_t)n;
    }
    total += (int64_t)length;
  }
  if (r != ARCHIVE_EOF) {
    oci_error_set(err, 0, "read %s: %s", what, archive_error_string(a));
    goto fail;
  }
  oci_sha256_final(hash, digest);
  oci_sha256_free(hash);
  hash = NULL;
  if (fsync(fd) < 0 || renameat(dir_fd, temp, dir_fd, digest + 7) < 0) {
    oci_error_errno(err, "store %s", what);
    goto fail;
  }
  *size = total;
  if (magic[0] == 0x1f && magic[1] == 0x8b)
    *compression = COMPRESSION_GZIP;
  else if (magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd)
    *compression = COMPRESSION_ZSTD;
  else
    *compression = COMPRESSION_NONE;
  return 0;
fail:
  oci_sha256_free(hash);
  unlinkat(dir_fd, temp, 0);
  return -1;
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
  cleanup_archive struct archive *a = archive_open(archive_fd, file, err);
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
  while ((r = archive_next(a, &entry, file, err)) == 0) {
    char name[4096];
    cleanup_close int fd = -1;
    const void *block;
    size_t length;
    la_int64_t offset;
    int64_t total = 0;

    if (!normalize_name(archive_entry_pathname(entry), name, sizeof(name)) ||
        !is_layout_member(name))
      continue;
    if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) != NULL)
      return oci_error_set(err, 0, "%s: %s is not a regular file", file, name);
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
                              const char *as_name, oci_error_t *err)
{
  cleanup_free char *layout_path = NULL;

  if (extract_layout(archive_fd, file, staging_fd, err) < 0)
    return -1;
  if (asprintf(&layout_path, "%s/tmp/%s/layout", store->root, staging_name) < 0) {
    layout_path = NULL;
    return oci_error_set(err, ENOMEM, "staging path");
  }
  return import_layout(store, staging_fd, layout_path, ref, as_name, err);
}

/* --- docker-archive: what `docker save` writes --- */

struct docker_image {
  char *config;  /* normalized path of the config in the tarball */
  char **layers; /* normalized paths of the layer tars */
  size_t n_layers;
  char **tags; /* RepoTags */
  size_t n_tags;
};

static void docker_image_clear(struct docker_image *image)
{
  free(image->config);
  for (size_t i = 0; i < image->n_layers; i++)
    free(image->layers[i]);
  free(image->layers);
  for (size_t i = 0; i < image->n_tags; i++)
    free(image->tags[i]);
  free(image->tags);
  memset(image, 0, sizeof(*image));
}

static bool tag_matches(const char *tag, const char *ref)
{
  static const char *const prefixes[] = {"", "docker.io/", "docker.io/library/"};
  for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
    size_t n = strlen(prefixes[i]);
    if (strncmp(tag, prefixes[i], n) == 0 && strcmp(tag + n, ref) == 0)
      return true;
  }
  return false;
}

static const char *familiar_name(const char *tag)
{
  if (strncmp(tag, "docker.io/library/", 18) == 0)
    return tag + 18;
  return tag;
}

/* Picks the image of manifest.json (by ref when given, else the only one)
 * and resolves its file names through the tarball's links. */
static int docker_manifest_parse(const char *text, size_t length, const char *ref,
                                 const struct archive_links *links, struct docker_image *out,
                                 oci_error_t *err)
{
  cleanup_cjson cJSON *json = cJSON_ParseWithLength(text, length);
  const cJSON *chosen = NULL, *item, *config, *layers, *tags;
  char resolved[4096];
  size_t i = 0;

  memset(out, 0, sizeof(*out));
  if (!cJSON_IsArray(json) || cJSON_GetArraySize(json) == 0)
    return oci_error_set(err, 0, "manifest.json is not a non-empty JSON array");
  cJSON_ArrayForEach(item, json)
  {
    const cJSON *tag;
    if (ref == NULL) {
      if (chosen != NULL)
        return oci_error_set(err, 0, "the tarball holds %d images: name one as FILE:REF",
                             cJSON_GetArraySize(json));
      chosen = item;
      continue;
    }
    cJSON_ArrayForEach(tag, cJSON_GetObjectItemCaseSensitive(item, "RepoTags"))
    {
      if (cJSON_IsString(tag) && tag_matches(tag->valuestring, ref) && chosen == NULL)
        chosen = item;
    }
  }
  if (chosen == NULL)
    return oci_error_set(err, 0, "no image tagged '%s' in the tarball", ref);
  config = cJSON_GetObjectItemCaseSensitive(chosen, "Config");
  layers = cJSON_GetObjectItemCaseSensitive(chosen, "Layers");
  tags = cJSON_GetObjectItemCaseSensitive(chosen, "RepoTags");
  if (!cJSON_IsString(config) ||
      archive_links_resolve(links, config->valuestring, resolved, sizeof(resolved)) < 0)
    return oci_error_set(err, 0, "manifest.json: \"Config\" is missing or not a safe path");
  if ((out->config = strdup(resolved)) == NULL)
    return oci_error_set(err, ENOMEM, "manifest.json");
  if (!cJSON_IsArray(layers) || cJSON_GetArraySize(layers) > OCI_MAX_LAYERS) {
    docker_image_clear(out);
    return oci_error_set(err, 0, "manifest.json: \"Layers\" is missing or too long");
  }
  out->layers = calloc((size_t)cJSON_GetArraySize(layers) + 1, sizeof(char *));
  if (out->layers == NULL) {
    docker_image_clear(out);
    return oci_error_set(err, ENOMEM, "manifest.json");
  }
  cJSON_ArrayForEach(item, layers)
  {
    if (!cJSON_IsString(item) ||
        archive_links_resolve(links, item->valuestring, resolved, sizeof(resolved)) < 0) {
      docker_image_clear(out);
      return oci_error_set(err, 0, "manifest.json: layer %zu is not a safe path", i);
    }
    if ((out->layers[i] = strdup(resolved)) == NULL) {
      docker_image_clear(out);
      return oci_error_set(err, ENOMEM, "manifest.json");
    }
    out->n_layers = ++i;
  }
  if (cJSON_IsArray(tags)) {
    out->tags = calloc((size_t)cJSON_GetArraySize(tags) + 1, sizeof(char *));
    if (out->tags == NULL) {
      docker_image_clear(out);
      return oci_error_set(err, ENOMEM, "manifest.json");
    }
    cJSON_ArrayForEach(item, tags)
    {
      if (!cJSON_IsString(item))
        continue;
      /* docker shows library images by their short name: store that one. */
      if ((out->tags[out->n_tags] = strdup(familiar_name(item->valuestring))) == NULL) {
        docker_image_clear(out);
        return oci_error_set(err, ENOMEM, "manifest.json");
      }
      out->n_tags++;
    }
  }
  return 0;
}

/* A digest written into the config's file name ("<hex>.json" or
 * "blobs/sha256/<hex>") that the content must match, or NULL. */
static bool digest_from_path(const char *path, char digest[OCI_DIGEST_LEN])
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(digest, OCI_DIGEST_LEN, "sha256:%.64s", base);
  if (!oci_digest_valid(digest))
    return false;
  return base[64] == '\0' || strcmp(base + 64, ".json") == 0;
}

struct layer_result {
  bool found;
  char digest[OCI_DIGEST_LEN];
  int64_t size;
  enum compression compression;
};

static int import_docker_archive(struct oci_store *store, int staging_fd, int archive_fd,
                                 const char *file, const char *ref, const char *as_name,
                                 oci_error_t *err)
{
  struct archive_links links = {0};
  struct docker_image image = {0};
  struct oci_config_doc config = {0};
  struct layer_result *results = NULL;
  cleanup_free char *manifest_text = NULL, *config_text = NULL, *oci_manifest = NULL;
  cleanup_cjson cJSON *manifest_json = NULL;
  size_t manifest_length = 0, config_length = 0;
  struct oci_descriptor descriptor = {0};
  struct archive_entry *entry;
  char config_digest[OCI_DIGEST_LEN], expected[OCI_DIGEST_LEN];
  int ret = -1, r;

  /* Pass 1: manifest.json (it is usually last) and the links. */
  {
    cleanup_archive struct archive *a = archive_open(archive_fd, file, err);
    if (a == NULL)
      goto out;
    while ((r = archive_next(a, &entry, file, err)) == 0) {
      char name[4096];
      if (!normalize_name(archive_entry_pathname(entry), name, sizeof(name)))
        continue;
      if (strcmp(name, "manifest.json") == 0 && archive_entry_filetype(entry) == AE_IFREG &&
          manifest_text == NULL) {
        if (archive_read_small(a, "manifest.json", OCI_JSON_MAX, &manifest_text, &manifest_length,
                               err) < 0)
          goto out;
      } else if (archive_links_add(&links, name, entry, err) < 0) {
        goto out;
      }
    }
    if (r < 0)
      goto out;
  }
  if (manifest_text == NULL) {
    oci_error_set(err, 0, "no manifest.json: not a docker-archive tarball");
    goto out;
  }
  if (docker_manifest_parse(manifest_text, manifest_length, ref, &links, &image, err) < 0)
    goto out;
  results = calloc(image.n_layers + 1, sizeof(*results));
  if (results == NULL) {
    oci_error_set(err, ENOMEM, "import");
    goto out;
  }

  /* Pass 2: the config into memory, each layer into a staged blob. */
  {
    cleanup_archive struct archive *a = archive_open(archive_fd, file, err);
    if (a == NULL)
      goto out;
    while ((r = archive_next(a, &entry, file, err)) == 0) {
      char name[4096];
      size_t first;
      if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) != NULL ||
          !normalize_name(archive_entry_pathname(entry), name, sizeof(name)))
        continue;
      if (strcmp(name, image.config) == 0 && config_text == NULL) {
        if (archive_read_small(a, "config", OCI_JSON_MAX, &config_text, &config_length, err) < 0)
          goto out;
        continue;
      }
      for (first = 0; first < image.n_layers; first++)
        if (strcmp(image.layers[first], name) == 0 && !results[first].found)
          break;
      if (first == image.n_layers)
        continue;
      if (archive_entry_to_blob(a, staging_fd, name, results[first].digest, &results[first].size,
                                &results[first].compression, err) < 0)
        goto out;
      /* A layer listed twice is the same file. */
      for (size_t k = first; k < image.n_layers; k++)
        if (strcmp(image.layers[k], name) == 0)
          results[k] = results[first], results[k].found = true;
    }
    if (r < 0)
      goto out;
  }
  if (config_text == NULL) {
    oci_error_set(err, 0, "config %s is not in the tarball", image.config);
    goto out;
  }
  oci_sha256_buffer(config_text, config_length, config_digest);
  if (digest_from_path(image.config, expected) && strcmp(expected, config_digest) != 0) {
    oci_error_set(err, 0, "config %s: content digest is %s", image.config, config_digest);
    goto out;
  }
  if (oci_config_parse(config_text, config_length, &config, err) < 0) {
    oci_error_wrap(err, "config %s", image.config);
    goto out;
  }
  if (config.n_diff_ids != image.n_layers) {
    oci_error_set(err, 0, "manifest.json lists %zu layers but config %s has %zu rootfs.diff_ids",
                  image.n_layers, config_digest, config.n_diff_ids);
    goto out;
  }
  manifest_json = cJSON_CreateObject();
  if (manifest_json == NULL)
    goto nomem;
  cJSON_AddNumberToObject(manifest_json, "schemaVersion", 2);
  cJSON_AddStringToObject(manifest_json, "mediaType", OCI_MEDIA_MANIFEST);
  {
    cJSON *config_descriptor = cJSON_AddObjectToObject(manifest_json, "config");
    cJSON *layers = cJSON_AddArrayToObject(manifest_json, "layers");
    if (config_descriptor == NULL || layers == NULL)
      goto nomem;
    cJSON_AddStringToObject(config_descriptor, "mediaType", OCI_MEDIA_CONFIG);
    cJSON_AddStringToObject(config_descriptor, "digest", config_digest);
    cJSON_AddNumberToObject(config_descriptor, "size", (double)config_length);
    for (size_t i = 0; i < image.n_layers; i++) {
      cJSON *layer;
      const char *media_type = OCI_MEDIA_LAYER_TAR;
      if (!results[i].found) {
        oci_error_set(err, 0, "layer %zu (%s) is not in the tarball", i, image.layers[i]);
        goto out;
      }
      /* An uncompressed layer's digest is its diff_id: check it now. */
      if (results[i].compression == COMPRESSION_NONE &&
          strcmp(results[i].digest, config.diff_ids[i]) != 0) {
        oci_error_set(err, 0, "layer %zu (%s): content digest %s does not match diff_id %s", i,
                      image.layers[i], results[i].digest, config.diff_ids[i]);
        goto out;
      }
      if (results[i].compression == COMPRESSION_GZIP)
        media_type = OCI_MEDIA_LAYER_GZIP;
      else if (results[i].compression == COMPRESSION_ZSTD)
        media_type = OCI_MEDIA_LAYER_ZSTD;
      layer = cJSON_CreateObject();
      if (layer == NULL)
        goto nomem;
      cJSON_AddStringToObject(layer, "mediaType", media_type);
      cJSON_AddStringToObject(layer, "digest", results[i].digest);
      cJSON_AddNumberToObject(layer, "size", (double)results[i].size);
      cJSON_AddItemToArray(layers, layer);
    }
  }
  oci_manifest = cJSON_PrintUnformatted(manifest_json);
  if (oci_manifest == NULL)
    goto nomem;
  {
    char written[OCI_DIGEST_LEN];
    if (oci_blob_write_buffer(staging_fd, config_text, config_length, written, err) < 0 ||
        oci_blob_write_buffer(staging_fd, oci_manifest, strlen(oci_manifest), descriptor.digest,
                              err) < 0)
      goto out;
  }
  descriptor.media_type = strdup(OCI_MEDIA_MANIFEST);
  if (descriptor.media_type == NULL)
    goto nomem;
  descriptor.size = (int64_t)strlen(oci_manifest);
  if (as_name != NULL) {
    ret = oci_store_commit(store, staging_fd, &descriptor, (char *const *)&as_name, 1, err);
  } else {
    for (size_t i = 0; i < image.n_tags; i++)
      if (!oci_ref_name_valid(image.tags[i])) {
        oci_error_set(err, 0, "'%s' is not a valid image name (give one with --name)",
                      image.tags[i]);
        goto out;
      }
    ret = oci_store_commit(store, staging_fd, &descriptor, image.tags, image.n_tags, err);
  }
  goto out;
nomem:
  oci_error_set(err, ENOMEM, "build the OCI manifest");
out:
  oci_descriptor_clear(&descriptor);
  oci_config_doc_clear(&config);
  free(results);
  docker_image_clear(&image);
  archive_links_clear(&links);
  return ret;
}

/* --- which kind of tarball --- */

enum tarball_kind { TARBALL_UNKNOWN, TARBALL_OCI, TARBALL_DOCKER };

static int detect_tarball(int archive_fd, const char *file, enum tarball_kind *kind,
                          oci_error_t *err)
{
  cleanup_archive struct archive *a = archive_open(archive_fd, file, err);
  struct archive_entry *entry;
  bool has_index = false, has_layout = false, has_manifest = false;
  int r;

  if (a == NULL)
    return -1;
  while ((r = archive_next(a, &entry, file, err)) == 0) {
    char name[4096];
    if (!normalize_name(archive_entry_pathname(entry), name, sizeof(name)))
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
                         const char *source, const char *as_name, oci_error_t *err)
{
  cleanup_free char *path = NULL, *ref = NULL;
  cleanup_close int archive_fd = -1;
  enum tarball_kind kind = TARBALL_UNKNOWN;
  struct stat st;

  if (strncmp(source, "oci:", 4) == 0) {
    if (oci_split_layout_spec(source + 4, &path, &ref, err) < 0)
      return -1;
    return import_layout(store, staging_fd, path, ref, as_name, err);
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
      return import_layout(store, staging_fd, source, NULL, as_name, err);
    if ((path = strdup(source)) == NULL)
      return oci_error_set(err, ENOMEM, "import");
  }
  archive_fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (archive_fd < 0)
    return oci_error_errno(err, "open %s", path);
  if (fstat(archive_fd, &st) < 0)
    return oci_error_errno(err, "stat %s", path);
  if (!S_ISREG(st.st_mode))
    return oci_error_set(err, 0, "%s is not a regular file", path);
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
    return import_oci_archive(store, staging_fd, staging_name, archive_fd, path, ref, as_name, err);
  return import_docker_archive(store, staging_fd, archive_fd, path, ref, as_name, err);
}

int oci_image_import(struct oci_store *store, const char *source, const char *as_name,
                     oci_error_t *err)
{
  cleanup_free char *staging_name = NULL;
  int staging_fd, ret;

  if (as_name != NULL && !oci_ref_name_valid(as_name))
    return oci_error_set(err, 0, "'%s' is not a valid image name", as_name);
  staging_fd = oci_make_temp_dir(store->tmp_fd, "import", &staging_name, err);
  if (staging_fd < 0)
    return -1;
  ret = import_source(store, staging_fd, staging_name, source, as_name, err);
  /* Whatever happened, the staging area goes (committed blobs were moved
   * out of it); removed while still locked so no sweeper races us. */
  if (remove_tree_at(store->tmp_fd, staging_name, ret < 0 ? NULL : err) < 0)
    ret = -1;
  close(staging_fd);
  if (ret < 0)
    return oci_error_wrap(err, "import %s", source);
  return 0;
}
