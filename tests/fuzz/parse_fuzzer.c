/* libFuzzer target for the image JSON parsers: every input is read as an
 * index, a manifest (OCI and Docker media types), a config and a docker
 * save manifest.json. The parsers must refuse bad input with an error,
 * never crash, leak or read past it. */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "oci/docker_archive.h"
#include "oci/error.h"
#include "oci/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Not absolute, and no component that is empty, "." or "..". */
static bool canonical(const char *path)
{
  const char *p = path;
  if (*p == '/' || *p == '\0')
    return false;
  while (*p != '\0') {
    size_t n = strcspn(p, "/");
    if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
      return false;
    p += n;
    if (*p == '/')
      p++;
    if (*p == '\0' && p[-1] == '/')
      return false;
  }
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *text = (const char *)data;
  struct oci_index_doc index;
  struct oci_manifest_doc manifest;
  struct oci_config_doc config;
  struct oci_docker_image docker;
  oci_error_t err = NULL;

  if (oci_index_parse(text, size, &index, &err) == 0) {
    /* A parsed index's digests are valid: they may become paths. */
    for (size_t i = 0; i < index.n_manifests; i++)
      if (strlen(index.manifests[i].digest) != 71)
        __builtin_trap();
    oci_index_doc_clear(&index);
  }
  oci_error_free(&err);
  if (oci_manifest_parse(text, size, OCI_MEDIA_MANIFEST, &manifest, &err) == 0) {
    for (size_t i = 0; i < manifest.n_layers; i++)
      if (oci_media_kind(manifest.layers[i].media_type) != OCI_KIND_LAYER)
        __builtin_trap();
    oci_manifest_doc_clear(&manifest);
  }
  oci_error_free(&err);
  if (oci_manifest_parse(text, size, NULL, &manifest, &err) == 0)
    oci_manifest_doc_clear(&manifest);
  oci_error_free(&err);
  if (oci_config_parse(text, size, &config, &err) == 0) {
    if (config.defaults.env == NULL)
      __builtin_trap();
    oci_config_doc_clear(&config);
  }
  oci_error_free(&err);
  if (oci_docker_manifest_parse(text, size, NULL, NULL, &docker, &err) == 0) {
    /* Paths that survive are canonical: never absolute, never "..". */
    for (size_t i = 0; i < docker.n_layers; i++)
      if (!canonical(docker.layers[i]))
        __builtin_trap();
    oci_docker_image_clear(&docker);
  }
  oci_error_free(&err);
  if (oci_docker_manifest_parse(text, size, "busybox:latest", NULL, &docker, &err) == 0)
    oci_docker_image_clear(&docker);
  oci_error_free(&err);
  return 0;
}
