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
      if (!cJSON_IsString(item))
        continue;
      /* docker shows library images by their short name: store that one. */
      if ((out->tags[out->n_tags] = strdup(familiar_name(item->valuestring))) == NULL) {
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

int oci_import_docker_archive(struct oci_store *store, int staging_fd, int archive_fd,
                              const char *file, const char *ref, const char *as_name,
                              oci_error_t *err)
{
  struct oci_archive_links links = {0};
  struct oci_docker_image image = {0};
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
    cleanup_archive struct archive *a = oci_archive_open(archive_fd, file, err);
    if (a == NULL)
      goto out;
    while ((r = oci_archive_next(a, &entry, file, err)) == 0) {
      char name[4096];
      if (!oci_archive_normalize_name(archive_entry_pathname(entry), name, sizeof(name)))
        continue;
      if (strcmp(name, "manifest.json") == 0 && archive_entry_filetype(entry) == AE_IFREG &&
          manifest_text == NULL) {
        if (oci_archive_read_small(a, "manifest.json", OCI_JSON_MAX, &manifest_text,
                                   &manifest_length, err) < 0)
          goto out;
      } else if (oci_archive_links_add(&links, name, entry, err) < 0) {
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
  if (oci_docker_manifest_parse(manifest_text, manifest_length, ref, &links, &image, err) < 0)
    goto out;
  results = calloc(image.n_layers + 1, sizeof(*results));
  if (results == NULL) {
    oci_error_set(err, ENOMEM, "import");
    goto out;
  }

  /* Pass 2: the config into memory, each layer into a staged blob. */
  {
    cleanup_archive struct archive *a = oci_archive_open(archive_fd, file, err);
    if (a == NULL)
      goto out;
    while ((r = oci_archive_next(a, &entry, file, err)) == 0) {
      char name[4096];
      size_t first;
      if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) != NULL ||
          !oci_archive_normalize_name(archive_entry_pathname(entry), name, sizeof(name)))
        continue;
      if (strcmp(name, image.config) == 0 && config_text == NULL) {
        if (oci_archive_read_small(a, "config", OCI_JSON_MAX, &config_text, &config_length, err) <
            0)
          goto out;
        continue;
      }
      for (first = 0; first < image.n_layers; first++)
        if (strcmp(image.layers[first], name) == 0 && !results[first].found)
          break;
      if (first == image.n_layers)
        continue;
      if (oci_archive_entry_to_blob(a, staging_fd, name, results[first].digest,
                                    &results[first].size, &results[first].compression, err) < 0)
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
      if (results[i].compression == OCI_COMPRESSION_NONE &&
          strcmp(results[i].digest, config.diff_ids[i]) != 0) {
        oci_error_set(err, 0, "layer %zu (%s): content digest %s does not match diff_id %s", i,
                      image.layers[i], results[i].digest, config.diff_ids[i]);
        goto out;
      }
      if (results[i].compression == OCI_COMPRESSION_GZIP)
        media_type = OCI_MEDIA_LAYER_GZIP;
      else if (results[i].compression == OCI_COMPRESSION_ZSTD)
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
  oci_docker_image_clear(&image);
  oci_archive_links_clear(&links);
  return ret;
}
