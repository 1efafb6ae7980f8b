/* docker-archive: what `docker save` writes (manifest.json naming a config
 * and layer tars, older versions with symlinks for repeated layers), turned
 * into an OCI manifest in the store. The config digest stays the image ID,
 * and an uncompressed layer must hash to its diff_id before it is kept. */
#include "config.h"
#include "docker_archive.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tarball.h"
#include "cleanup.h"
#include "digest.h"
#include "file_read.h"
#include "layout.h"
#include "manifest.h"
#include "store.h"

void oci_docker_image_clear(struct oci_docker_image *image)
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

/* Picks the image of manifest.json (by ref when given, else the only one)
 * and resolves its file names through the tarball's links. */
int oci_docker_manifest_parse(const char *text, size_t length, const char *ref,
                              const struct oci_archive_links *links, struct oci_docker_image *out,
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
      if (cJSON_IsString(tag) && oci_ref_names_same(tag->valuestring, ref) && chosen == NULL)
        chosen = item;
    }
  }
  if (chosen == NULL)
    return oci_error_set(err, 0, "no image tagged '%s' in the tarball", ref);
  config = cJSON_GetObjectItemCaseSensitive(chosen, "Config");
  layers = cJSON_GetObjectItemCaseSensitive(chosen, "Layers");
  tags = cJSON_GetObjectItemCaseSensitive(chosen, "RepoTags");
  if (!cJSON_IsString(config) ||
      oci_archive_links_resolve(links, config->valuestring, resolved, sizeof(resolved)) < 0)
    return oci_error_set(err, 0, "manifest.json: \"Config\" is missing or not a safe path");
  if ((out->config = strdup(resolved)) == NULL)
    return oci_error_set(err, ENOMEM, "manifest.json");
  if (!cJSON_IsArray(layers) || cJSON_GetArraySize(layers) > OCI_MAX_LAYERS) {
    oci_docker_image_clear(out);
    return oci_error_set(err, 0, "manifest.json: \"Layers\" is missing or too long");
  }
  out->layers = calloc((size_t)cJSON_GetArraySize(layers) + 1, sizeof(char *));
  if (out->layers == NULL) {
    oci_docker_image_clear(out);
    return oci_error_set(err, ENOMEM, "manifest.json");
  }
  cJSON_ArrayForEach(item, layers)
  {
    if (!cJSON_IsString(item) ||
        oci_archive_links_resolve(links, item->valuestring, resolved, sizeof(resolved)) < 0) {
      oci_docker_image_clear(out);
      return oci_error_set(err, 0, "manifest.json: layer %zu is not a safe path", i);
    }
    if ((out->layers[i] = strdup(resolved)) == NULL) {
      oci_docker_image_clear(out);
      return oci_error_set(err, ENOMEM, "manifest.json");
    }
    out->n_layers = ++i;
  }
  if (cJSON_IsArray(tags)) {
    out->tags = calloc((size_t)cJSON_GetArraySize(tags) + 1, sizeof(char *));
    if (out->tags == NULL) {
      oci_docker_image_clear(out);
      return oci_error_set(err, ENOMEM, "manifest.json");
    }
    cJSON_ArrayForEach(item, tags)
    {
      /* FILE:REF imports the image under the name asked for, not every
       * name the tarball gives it (which may be another image's). */
      if (!cJSON_IsString(item) || (ref != NULL && !oci_ref_names_same(item->valuestring, ref)))
        continue;
      /* Stored in docker's familiar form (oci_store_commit). */
      if ((out->tags[out->n_tags] = strdup(item->valuestring)) == NULL) {
        oci_docker_image_clear(out);
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
  enum oci_compression compression;
};

/* What the two passes over the tarball gather. */
struct docker_import {
  const char *file;
  struct oci_archive_links links;
  struct oci_docker_image image;
  char *config_text;
  size_t config_length;
  struct layer_result *layers;
};

static void docker_import_clear(struct docker_import *import)
{
  oci_archive_links_clear(&import->links);
  oci_docker_image_clear(&import->image);
  free(import->config_text);
  free(import->layers);
}

/* Pass 1: manifest.json (usually the last entry) and every link. */
static int read_manifest(struct docker_import *import, int archive_fd, const char *ref,
                         oci_error_t *err)
{
  cleanup_archive struct archive *a = oci_archive_open(archive_fd, import->file, err);
  cleanup_free char *text = NULL;
  struct archive_entry *entry;
  size_t length = 0;
  int r;

  if (a == NULL)
    return -1;
  while ((r = oci_archive_next(a, &entry, import->file, err)) == 0) {
    char name[4096];
    if (!oci_archive_normalize_name(archive_entry_pathname(entry), name, sizeof(name)))
      continue;
    /* docker load extracts the tarball, so of a name given twice the
     * last copy wins there: whichever copy ocirun took, the two would not
     * be the same image. Every name the import uses must appear once. */
    if (strcmp(name, "manifest.json") == 0 && text != NULL)
      return oci_error_set(err, 0, "%s: manifest.json appears twice: refused", import->file);
    if (strcmp(name, "manifest.json") == 0 && archive_entry_filetype(entry) == AE_IFREG) {
      if (oci_archive_read_small(a, "manifest.json", OCI_JSON_MAX, &text, &length, err) < 0)
        return -1;
    } else if (oci_archive_links_add(&import->links, name, entry, err) < 0) {
      return -1;
    }
  }
  if (r < 0)
    return -1;
  if (text == NULL)
    return oci_error_set(err, 0, "no manifest.json: not a docker-archive tarball");
  if (oci_docker_manifest_parse(text, length, ref, &import->links, &import->image, err) < 0)
    return -1;
  import->layers = calloc(import->image.n_layers + 1, sizeof(*import->layers));
  if (import->layers == NULL)
    return oci_error_set(err, ENOMEM, "import");
  return 0;
}

static bool names_a_blob(const struct oci_docker_image *image, const char *name)
{
  if (strcmp(name, image->config) == 0)
    return true;
  for (size_t i = 0; i < image->n_layers; i++)
    if (strcmp(image->layers[i], name) == 0)
      return true;
  return false;
}

/* Whether this file entry's name is no link's, and, when the import uses
 * it, the first entry of that name pass 2 meets (see read_manifest on
 * names given twice). */
static bool blob_entry_first(const struct docker_import *import, const char *name)
{
  for (size_t i = 0; i < import->links.n; i++)
    if (strcmp(import->links.links[i].name, name) == 0)
      return false;
  if (strcmp(name, import->image.config) == 0)
    return import->config_text == NULL;
  for (size_t i = 0; i < import->image.n_layers; i++)
    if (strcmp(import->image.layers[i], name) == 0)
      return !import->layers[i].found;
  return true;
}

/* Pass 2: the config into memory, each layer streamed into a staged blob. */
static int stage_blobs(struct docker_import *import, int archive_fd, int staging_fd,
                       oci_error_t *err)
{
  cleanup_archive struct archive *a = oci_archive_open(archive_fd, import->file, err);
  const struct oci_docker_image *image = &import->image;
  struct archive_entry *entry;
  int r;

  if (a == NULL)
    return -1;
  while ((r = oci_archive_next(a, &entry, import->file, err)) == 0) {
    char name[4096];
    size_t first;
    if (archive_entry_hardlink(entry) != NULL || archive_entry_filetype(entry) == AE_IFLNK ||
        !oci_archive_normalize_name(archive_entry_pathname(entry), name, sizeof(name)))
      continue; /* links were resolved in pass 1 */
    if (!blob_entry_first(import, name))
      return oci_error_set(err, 0, "%s: %s appears twice (or also as a link): refused",
                           import->file, name);
    if (archive_entry_filetype(entry) != AE_IFREG) {
      if (names_a_blob(image, name))
        return oci_error_set(err, 0, "%s: %s is %s, not a regular file: refused", import->file,
                             name, oci_file_type_name(archive_entry_filetype(entry)));
      continue;
    }
    if (strcmp(name, image->config) == 0 && import->config_text == NULL) {
      if (oci_archive_read_small(a, "config", OCI_JSON_MAX, &import->config_text,
                                 &import->config_length, err) < 0)
        return -1;
      continue;
    }
    for (first = 0; first < image->n_layers; first++)
      if (strcmp(image->layers[first], name) == 0 && !import->layers[first].found)
        break;
    if (first == image->n_layers)
      continue;
    if (oci_archive_entry_to_blob(a, staging_fd, name, import->layers[first].digest,
                                  &import->layers[first].size, &import->layers[first].compression,
                                  err) < 0)
      return -1;
    /* A layer listed twice is the same file. */
    for (size_t k = first; k < image->n_layers; k++) {
      if (strcmp(image->layers[k], name) != 0)
        continue;
      import->layers[k] = import->layers[first];
      import->layers[k].found = true;
    }
  }
  if (r < 0)
    return -1;
  if (import->config_text == NULL)
    return oci_error_set(err, 0, "config %s is not in the tarball", image->config);
  return 0;
}

/* Checks the config against its file name and the layers against the
 * config's diff_ids (uncompressed layers; compressed ones are checked when
 * unpacked), then builds the OCI manifest that stands for the image. */
static int build_manifest(struct docker_import *import, const char *config_digest, char **out,
                          oci_error_t *err)
{
  cleanup_cjson cJSON *manifest = cJSON_CreateObject();
  struct oci_config_doc config;
  char expected[OCI_DIGEST_LEN];
  cJSON *config_descriptor, *layers;
  int ret = -1;

  if (digest_from_path(import->image.config, expected) && strcmp(expected, config_digest) != 0)
    return oci_error_set(err, 0, "config %s: content digest is %s", import->image.config,
                         config_digest);
  if (oci_config_parse(import->config_text, import->config_length, &config, err) < 0)
    return oci_error_wrap(err, "config %s", import->image.config);
  if (config.n_diff_ids != import->image.n_layers) {
    oci_error_set(err, 0, "manifest.json lists %zu layers but config %s has %zu rootfs.diff_ids",
                  import->image.n_layers, config_digest, config.n_diff_ids);
    goto out;
  }
  cJSON_AddNumberToObject(manifest, "schemaVersion", 2);
  cJSON_AddStringToObject(manifest, "mediaType", OCI_MEDIA_MANIFEST);
  config_descriptor = cJSON_AddObjectToObject(manifest, "config");
  layers = cJSON_AddArrayToObject(manifest, "layers");
  if (config_descriptor == NULL || layers == NULL)
    goto nomem;
  cJSON_AddStringToObject(config_descriptor, "mediaType", OCI_MEDIA_CONFIG);
  cJSON_AddStringToObject(config_descriptor, "digest", config_digest);
  cJSON_AddNumberToObject(config_descriptor, "size", (double)import->config_length);
  for (size_t i = 0; i < import->image.n_layers; i++) {
    const struct layer_result *result = &import->layers[i];
    const char *media_type = OCI_MEDIA_LAYER_TAR;
    cJSON *layer;
    if (!result->found) {
      oci_error_set(err, 0, "layer %zu (%s) is not in the tarball", i, import->image.layers[i]);
      goto out;
    }
    if (result->compression == OCI_COMPRESSION_NONE &&
        strcmp(result->digest, config.diff_ids[i]) != 0) {
      oci_error_set(err, 0, "layer %zu (%s): content digest %s does not match diff_id %s", i,
                    import->image.layers[i], result->digest, config.diff_ids[i]);
      goto out;
    }
    if (result->compression == OCI_COMPRESSION_GZIP)
      media_type = OCI_MEDIA_LAYER_GZIP;
    else if (result->compression == OCI_COMPRESSION_ZSTD)
      media_type = OCI_MEDIA_LAYER_ZSTD;
    layer = cJSON_CreateObject();
    if (layer == NULL)
      goto nomem;
    cJSON_AddStringToObject(layer, "mediaType", media_type);
    cJSON_AddStringToObject(layer, "digest", result->digest);
    cJSON_AddNumberToObject(layer, "size", (double)result->size);
    cJSON_AddItemToArray(layers, layer);
  }
  *out = cJSON_PrintUnformatted(manifest);
  if (*out == NULL)
    goto nomem;
  ret = 0;
  goto out;
nomem:
  oci_error_set(err, ENOMEM, "build the OCI manifest");
out:
  oci_config_doc_clear(&config);
  return ret;
}

int oci_import_docker_archive(struct oci_store *store, int staging_fd, int archive_fd,
                              const char *file, const char *ref, const char *as_name,
                              struct oci_import_report *report, oci_error_t *err)
{
  struct docker_import import = {.file = file};
  struct oci_descriptor descriptor = {0};
  cleanup_free char *manifest = NULL;
  char config_digest[OCI_DIGEST_LEN], written[OCI_DIGEST_LEN];
  int ret = -1;

  if (read_manifest(&import, archive_fd, ref, err) < 0 ||
      stage_blobs(&import, archive_fd, staging_fd, err) < 0)
    goto out;
  /* The config's digest is the image ID, as docker has it. */
  oci_sha256_buffer(import.config_text, import.config_length, config_digest);
  if (build_manifest(&import, config_digest, &manifest, err) < 0)
    goto out;
  if (oci_blob_write_buffer(staging_fd, import.config_text, import.config_length, written, err) <
          0 ||
      oci_blob_write_buffer(staging_fd, manifest, strlen(manifest), descriptor.digest, err) < 0)
    goto out;
  descriptor.media_type = strdup(OCI_MEDIA_MANIFEST);
  if (descriptor.media_type == NULL) {
    oci_error_set(err, ENOMEM, "import");
    goto out;
  }
  descriptor.size = (int64_t)strlen(manifest);
  if (as_name != NULL) {
    ret = oci_store_commit(store, staging_fd, &descriptor, (char *const *)&as_name, 1, report, err);
    goto out;
  }
  for (size_t i = 0; i < import.image.n_tags; i++)
    if (!oci_ref_name_valid(import.image.tags[i])) {
      oci_error_set(err, 0, "'%s' is not a valid image name (give one with --name)",
                    import.image.tags[i]);
      goto out;
    }
  ret = oci_store_commit(store, staging_fd, &descriptor, import.image.tags, import.image.n_tags,
                         report, err);
out:
  oci_descriptor_clear(&descriptor);
  docker_import_clear(&import);
  return ret;
}
