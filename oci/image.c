/* A resolved image: built from its verified manifest and config, named by
 * the index entries that point at it, freed, and shown as inspect JSON. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "digest.h"
#include "manifest.h"
#include "oci.h"
#include "store.h"

void oci_image_free(struct oci_image *image)
{
  if (image == NULL)
    return;
  free(image->layout_path);
  strv_free(image->ref_names);
  strv_free(image->repo_digests);
  oci_platform_clear(&image->platform);
  for (size_t i = 0; i < image->n_layers; i++)
    free(image->layers[i].media_type);
  free(image->layers);
  oci_run_defaults_clear(&image->defaults);
  free(image);
}

int oci_image_load(int layout_fd, const char *layout_path, const struct oci_descriptor *manifest,
                   struct oci_image **out, oci_error_t *err)
{
  struct oci_manifest_doc doc;
  struct oci_config_doc config;
  struct oci_image *image;

  if (oci_manifest_load(layout_fd, manifest, &doc, NULL, NULL, err) < 0)
    return -1;
  if (oci_config_load(layout_fd, &doc.config, &config, NULL, NULL, err) < 0) {
    oci_error_wrap(err, "manifest %s", manifest->digest);
    oci_manifest_doc_clear(&doc);
    return -1;
  }
  if (config.n_diff_ids != doc.n_layers) {
    oci_error_set(err, 0, "manifest %s lists %zu layers but config %s has %zu rootfs.diff_ids",
                  manifest->digest, doc.n_layers, doc.config.digest, config.n_diff_ids);
    goto fail;
  }
  image = calloc(1, sizeof(*image));
  if (image == NULL || (image->layout_path = strdup(layout_path)) == NULL ||
      (image->layers = calloc(doc.n_layers + 1, sizeof(*image->layers))) == NULL) {
    oci_image_free(image);
    oci_error_set(err, ENOMEM, "load image %s", manifest->digest);
    goto fail;
  }
  memcpy(image->image_id, doc.config.digest, OCI_DIGEST_LEN);
  memcpy(image->manifest_digest, manifest->digest, OCI_DIGEST_LEN);
  for (size_t i = 0; i < doc.n_layers; i++) {
    struct oci_layer *layer = &image->layers[i];
    memcpy(layer->digest, doc.layers[i].digest, OCI_DIGEST_LEN);
    memcpy(layer->diff_id, config.diff_ids[i], OCI_DIGEST_LEN);
    layer->size = doc.layers[i].size;
    /* Moved, not copied: doc is cleared below. */
    layer->media_type = doc.layers[i].media_type;
    doc.layers[i].media_type = NULL;
    image->n_layers = i + 1;
  }
  image->platform = config.platform;
  memset(&config.platform, 0, sizeof(config.platform));
  image->defaults = config.defaults;
  memset(&config.defaults, 0, sizeof(config.defaults));
  image->ref_names = calloc(1, sizeof(char *));
  image->repo_digests = calloc(1, sizeof(char *));
  if (image->ref_names == NULL || image->repo_digests == NULL) {
    oci_image_free(image);
    oci_error_set(err, ENOMEM, "load image %s", manifest->digest);
    goto fail;
  }
  oci_manifest_doc_clear(&doc);
  oci_config_doc_clear(&config);
  *out = image;
  return 0;
fail:
  oci_manifest_doc_clear(&doc);
  oci_config_doc_clear(&config);
  return -1;
}

/* "repo:tag" -> "repo"; a name without a tag is its own repository. */
static char *repository_of(const char *name)
{
  const char *slash = strrchr(name, '/');
  const char *colon = strrchr(name, ':');
  if (colon != NULL && (slash == NULL || colon > slash))
    return strndup(name, (size_t)(colon - name));
  return strdup(name);
}

int oci_image_set_names(struct oci_image *image, const struct oci_index_doc *index,
                        const char *entry_digest, oci_error_t *err)
{
  size_t n = 0;
  char **names, **digests;

  for (size_t i = 0; i < index->n_manifests; i++)
    if (index->manifests[i].ref_name && strcmp(index->manifests[i].digest, entry_digest) == 0)
      n++;
  names = calloc(n + 1, sizeof(char *));
  digests = calloc(n + 1, sizeof(char *));
  if (names == NULL || digests == NULL) {
    free(names);
    free(digests);
    return oci_error_set(err, ENOMEM, "image names");
  }
  strv_free(image->ref_names);
  strv_free(image->repo_digests);
  image->ref_names = names;
  image->repo_digests = digests;
  for (size_t i = 0, k = 0; i < index->n_manifests; i++) {
    const struct oci_descriptor *entry = &index->manifests[i];
    cleanup_free char *repository = NULL;
    if (entry->ref_name == NULL || strcmp(entry->digest, entry_digest) != 0)
      continue;
    repository = repository_of(entry->ref_name);
    names[k] = strdup(entry->ref_name);
    if (repository == NULL || names[k] == NULL ||
        asprintf(&digests[k], "%s@%s", repository, entry_digest) < 0) {
      digests[k] = NULL;
      return oci_error_set(err, ENOMEM, "image names");
    }
    k++;
  }
  return 0;
}

static cJSON *string_array_json(char *const *v)
{
  cJSON *array = cJSON_CreateArray();
  for (size_t i = 0; array != NULL && v != NULL && v[i] != NULL; i++)
    cJSON_AddItemToArray(array, cJSON_CreateString(v[i]));
  return array;
}

static cJSON *string_or_null(const char *s)
{
  return s != NULL ? cJSON_CreateString(s) : cJSON_CreateNull();
}

cJSON *oci_image_inspect_json(const struct oci_image *image)
{
  cJSON *json = cJSON_CreateObject(), *layers, *config;

  if (json == NULL)
    return NULL;
  cJSON_AddStringToObject(json, "Id", image->image_id);
  cJSON_AddStringToObject(json, "ManifestDigest", image->manifest_digest);
  cJSON_AddItemToObject(json, "RepoTags", string_array_json(image->ref_names));
  cJSON_AddItemToObject(json, "RepoDigests", string_array_json(image->repo_digests));
  cJSON_AddItemToObject(json, "Os", string_or_null(image->platform.os));
  cJSON_AddItemToObject(json, "Architecture", string_or_null(image->platform.architecture));
  cJSON_AddItemToObject(json, "Variant", string_or_null(image->platform.variant));
  cJSON_AddStringToObject(json, "LayoutPath", image->layout_path);
  layers = cJSON_AddArrayToObject(json, "Layers");
  for (size_t i = 0; layers != NULL && i < image->n_layers; i++) {
    cJSON *layer = cJSON_CreateObject();
    cJSON_AddStringToObject(layer, "Digest", image->layers[i].digest);
    cJSON_AddNumberToObject(layer, "Size", (double)image->layers[i].size);
    cJSON_AddStringToObject(layer, "DiffID", image->layers[i].diff_id);
    cJSON_AddStringToObject(layer, "MediaType", image->layers[i].media_type);
    cJSON_AddItemToArray(layers, layer);
  }
  config = cJSON_AddObjectToObject(json, "Config");
  if (config != NULL) {
    cJSON_AddItemToObject(config, "User", string_or_null(image->defaults.user));
    cJSON_AddItemToObject(config, "Env", string_array_json(image->defaults.env));
    cJSON_AddItemToObject(config, "Entrypoint",
                          image->defaults.entrypoint ? string_array_json(image->defaults.entrypoint)
                                                     : cJSON_CreateNull());
    cJSON_AddItemToObject(config, "Cmd",
                          image->defaults.cmd ? string_array_json(image->defaults.cmd)
                                              : cJSON_CreateNull());
    cJSON_AddItemToObject(config, "WorkingDir", string_or_null(image->defaults.working_dir));
  }
  return json;
}
