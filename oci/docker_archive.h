/* Importing a `docker save` tarball, and parsing its manifest.json (exposed
 * for the fuzzer). */
#ifndef OCI_DOCKER_ARCHIVE_H
#define OCI_DOCKER_ARCHIVE_H

#include <stddef.h>

#include "tarball.h"
#include "error.h"
#include "oci.h"

/* One image of manifest.json, its paths normalized and followed through
 * the tarball's links. */
struct oci_docker_image {
  char *config;  /* path of the config in the tarball */
  char **layers; /* paths of the layer tars, in order */
  size_t n_layers;
  char **tags; /* RepoTags (those matching ref, when given), docker.io/library/ dropped */
  size_t n_tags;
};
/* Picks the image tagged ref (NULL: the only image); links may be NULL. */
int oci_docker_manifest_parse(const char *text, size_t length, const char *ref,
                              const struct oci_archive_links *links, struct oci_docker_image *out,
                              oci_error_t *err);
void oci_docker_image_clear(struct oci_docker_image *image);

/* Stages the chosen image's blobs in staging_fd (verified) and commits it
 * to the store under as_name, or its RepoTags; report as oci_store_commit's. */
int oci_import_docker_archive(struct oci_store *store, int staging_fd, int archive_fd,
                              const char *file, const char *ref, const char *as_name,
                              struct oci_import_report *report, oci_error_t *err);

#endif
