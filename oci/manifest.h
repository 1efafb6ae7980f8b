/* Parsing the JSON documents of an image (index, manifest, config) into
 * plain structs, checking media types and digests as they are read, and
 * choosing the host's platform from a multi-platform index. The parse
 * functions take a buffer so the fuzzer can call them without files. */
#ifndef OCI_MANIFEST_H
#define OCI_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "oci.h"

#define OCI_MEDIA_INDEX "application/vnd.oci.image.index.v1+json"
#define OCI_MEDIA_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define OCI_MEDIA_CONFIG "application/vnd.oci.image.config.v1+json"
#define OCI_MEDIA_LAYER_TAR "application/vnd.oci.image.layer.v1.tar"
#define OCI_MEDIA_LAYER_GZIP "application/vnd.oci.image.layer.v1.tar+gzip"
#define OCI_MEDIA_LAYER_ZSTD "application/vnd.oci.image.layer.v1.tar+zstd"
#define DOCKER_MEDIA_LIST "application/vnd.docker.distribution.manifest.list.v2+json"
#define DOCKER_MEDIA_MANIFEST "application/vnd.docker.distribution.manifest.v2+json"
#define DOCKER_MEDIA_CONFIG "application/vnd.docker.container.image.v1+json"
#define DOCKER_MEDIA_LAYER_GZIP "application/vnd.docker.image.rootfs.diff.tar.gzip"

/* Nested indexes are followed at most this deep. */
#define OCI_INDEX_MAX_DEPTH 4
/* More layers than this is not an image anyone builds. */
#define OCI_MAX_LAYERS 1000

enum oci_media_kind {
  OCI_KIND_UNKNOWN,
  OCI_KIND_INDEX,
  OCI_KIND_MANIFEST,
  OCI_KIND_CONFIG,
  OCI_KIND_LAYER,
};
enum oci_media_kind oci_media_kind(const char *media_type);

struct oci_descriptor {
  char *media_type;
  char digest[OCI_DIGEST_LEN];
  int64_t size;
  char *ref_name; /* org.opencontainers.image.ref.name, may be NULL */
  bool has_platform;
  struct oci_platform platform;
};

struct oci_index_doc {
  struct oci_descriptor *manifests;
  size_t n_manifests;
};

struct oci_manifest_doc {
  struct oci_descriptor config;
  struct oci_descriptor *layers;
  size_t n_layers;
};

struct oci_config_doc {
  struct oci_platform platform;
  struct oci_run_defaults defaults;
  char (*diff_ids)[OCI_DIGEST_LEN];
  size_t n_diff_ids;
};

/* Index (OCI index, Docker manifest list, or a layout's index.json). */
int oci_index_parse(const char *data, size_t length, struct oci_index_doc *out, oci_error_t *err);
/* Image manifest; media_type is the descriptor's (OCI or Docker v2). Checks
 * the config and every layer descriptor's media type and digest. */
int oci_manifest_parse(const char *data, size_t length, const char *media_type,
                       struct oci_manifest_doc *out, oci_error_t *err);
/* Image config: platform, run defaults, rootfs.diff_ids. */
int oci_config_parse(const char *data, size_t length, struct oci_config_doc *out, oci_error_t *err);

void oci_descriptor_clear(struct oci_descriptor *descriptor);
void oci_index_doc_clear(struct oci_index_doc *doc);
void oci_manifest_doc_clear(struct oci_manifest_doc *doc);
void oci_config_doc_clear(struct oci_config_doc *doc);
void oci_platform_clear(struct oci_platform *platform);
void oci_run_defaults_clear(struct oci_run_defaults *defaults);
int oci_descriptor_copy(struct oci_descriptor *dst, const struct oci_descriptor *src);

/* The platform this machine runs: linux, GOARCH name, variant. */
void oci_host_platform(struct oci_platform *out);

/* Verified loads from a layout (size and sha256 checked before parsing). */
/* A layout's own index.json (not a blob, so not verified). */
int oci_layout_index_doc(int layout_fd, const char *path, struct oci_index_doc *out,
                         oci_error_t *err);
int oci_index_load(int layout_fd, const struct oci_descriptor *descriptor,
                   struct oci_index_doc *out, oci_error_t *err);
int oci_manifest_load(int layout_fd, const struct oci_descriptor *descriptor,
                      struct oci_manifest_doc *out, char **raw, size_t *raw_length,
                      oci_error_t *err);
int oci_config_load(int layout_fd, const struct oci_descriptor *descriptor,
                    struct oci_config_doc *out, char **raw, size_t *raw_length, oci_error_t *err);

/* From a descriptor that is a manifest or an index, the image manifest for
 * the host platform (following nested indexes to OCI_INDEX_MAX_DEPTH). */
int oci_select_manifest(int layout_fd, const struct oci_descriptor *top, struct oci_descriptor *out,
                        oci_error_t *err);

#endif
