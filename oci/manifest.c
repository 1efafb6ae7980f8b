/* The JSON documents of an image: index, manifest and config, parsed into
 * plain structs with every digest validated and every media type checked
 * on the way, and the host-platform choice in a multi-platform index. */
#include "config.h"
#include "manifest.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <cjson/cJSON.h>

#include "cleanup.h"
#include "digest.h"
#include "layout.h"

/* Far more than any real image; keeps hostile JSON from costing much. */
#define MAX_INDEX_ENTRIES 10000
#define MAX_STRINGS 10000

static const struct {
  const char *media_type;
  enum oci_media_kind kind;
} media_types[] = {
    {OCI_MEDIA_INDEX, OCI_KIND_INDEX},       {DOCKER_MEDIA_LIST, OCI_KIND_INDEX},
    {OCI_MEDIA_MANIFEST, OCI_KIND_MANIFEST}, {DOCKER_MEDIA_MANIFEST, OCI_KIND_MANIFEST},
    {OCI_MEDIA_CONFIG, OCI_KIND_CONFIG},     {DOCKER_MEDIA_CONFIG, OCI_KIND_CONFIG},
    {OCI_MEDIA_LAYER_TAR, OCI_KIND_LAYER},   {OCI_MEDIA_LAYER_GZIP, OCI_KIND_LAYER},
    {OCI_MEDIA_LAYER_ZSTD, OCI_KIND_LAYER},  {DOCKER_MEDIA_LAYER_GZIP, OCI_KIND_LAYER},
};

enum oci_media_kind oci_media_kind(const char *media_type)
{
  if (media_type == NULL)
    return OCI_KIND_UNKNOWN;
  for (size_t i = 0; i < sizeof(media_types) / sizeof(media_types[0]); i++)
    if (strcmp(media_type, media_types[i].media_type) == 0)
      return media_types[i].kind;
  return OCI_KIND_UNKNOWN;
}

void oci_platform_clear(struct oci_platform *platform)
{
  free(platform->os);
  free(platform->architecture);
  free(platform->variant);
  memset(platform, 0, sizeof(*platform));
}

void oci_descriptor_clear(struct oci_descriptor *descriptor)
{
  free(descriptor->media_type);
  free(descriptor->ref_name);
  oci_platform_clear(&descriptor->platform);
  memset(descriptor, 0, sizeof(*descriptor));
}

static char *strdup_or_null(const char *s)
{
  return s == NULL ? NULL : strdup(s);
}

int oci_descriptor_copy(struct oci_descriptor *dst, const struct oci_descriptor *src)
{
  memset(dst, 0, sizeof(*dst));
  memcpy(dst->digest, src->digest, sizeof(dst->digest));
  dst->size = src->size;
  dst->has_platform = src->has_platform;
  dst->media_type = strdup_or_null(src->media_type);
  dst->ref_name = strdup_or_null(src->ref_name);
  dst->platform.os = strdup_or_null(src->platform.os);
  dst->platform.architecture = strdup_or_null(src->platform.architecture);
  dst->platform.variant = strdup_or_null(src->platform.variant);
  if ((src->media_type && !dst->media_type) || (src->ref_name && !dst->ref_name) ||
      (src->platform.os && !dst->platform.os) ||
      (src->platform.architecture && !dst->platform.architecture) ||
      (src->platform.variant && !dst->platform.variant)) {
    oci_descriptor_clear(dst);
    return -1;
  }
  return 0;
}

void oci_index_doc_clear(struct oci_index_doc *doc)
{
  for (size_t i = 0; i < doc->n_manifests; i++)
    oci_descriptor_clear(&doc->manifests[i]);
  free(doc->manifests);
  memset(doc, 0, sizeof(*doc));
}

void oci_manifest_doc_clear(struct oci_manifest_doc *doc)
{
  oci_descriptor_clear(&doc->config);
  for (size_t i = 0; i < doc->n_layers; i++)
    oci_descriptor_clear(&doc->layers[i]);
  free(doc->layers);
  memset(doc, 0, sizeof(*doc));
}

void oci_run_defaults_clear(struct oci_run_defaults *defaults)
{
  free(defaults->user);
  strv_free(defaults->env);
  strv_free(defaults->entrypoint);
  strv_free(defaults->cmd);
  free(defaults->working_dir);
  memset(defaults, 0, sizeof(*defaults));
}

void oci_config_doc_clear(struct oci_config_doc *doc)
{
  oci_platform_clear(&doc->platform);
  oci_run_defaults_clear(&doc->defaults);
  free(doc->diff_ids);
  memset(doc, 0, sizeof(*doc));
}

/* A string member, copied; absent or null gives NULL, another type fails. */
static int optional_string(const cJSON *object, const char *key, const char *where, char **out,
                           oci_error_t *err)
{
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
  *out = NULL;
  if (item == NULL || cJSON_IsNull(item))
    return 0;
  if (!cJSON_IsString(item))
    return oci_error_set(err, 0, "%s: \"%s\" is not a string", where, key);
  *out = strdup(item->valuestring);
  if (*out == NULL)
    return oci_error_set(err, ENOMEM, "%s: copy \"%s\"", where, key);
  return 0;
}

static int required_string(const cJSON *object, const char *key, const char *where, char **out,
                           oci_error_t *err)
{
  if (optional_string(object, key, where, out, err) < 0)
    return -1;
  if (*out == NULL)
    return oci_error_set(err, 0, "%s: \"%s\" is missing", where, key);
  return 0;
}

/* A JSON array of strings as a NULL-terminated vector; absent/null -> NULL
 * unless empty_for_absent. */
static int string_array(const cJSON *object, const char *key, const char *where,
                        bool empty_for_absent, char ***out, oci_error_t *err)
{
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
  cleanup_strv char **v = NULL;
  size_t n, i = 0;
  const cJSON *element;

  *out = NULL;
  if (item == NULL || cJSON_IsNull(item)) {
    if (!empty_for_absent)
      return 0;
    *out = calloc(1, sizeof(char *));
    return *out == NULL ? oci_error_set(err, ENOMEM, "%s: \"%s\"", where, key) : 0;
  }
  if (!cJSON_IsArray(item))
    return oci_error_set(err, 0, "%s: \"%s\" is not an array", where, key);
  n = (size_t)cJSON_GetArraySize(item);
  if (n > MAX_STRINGS)
    return oci_error_set(err, 0, "%s: \"%s\" has too many entries (%zu)", where, key, n);
  v = calloc(n + 1, sizeof(char *));
  if (v == NULL)
    return oci_error_set(err, ENOMEM, "%s: \"%s\"", where, key);
  cJSON_ArrayForEach(element, item)
  {
    if (!cJSON_IsString(element))
      return oci_error_set(err, 0, "%s: \"%s\"[%zu] is not a string", where, key, i);
    if (i >= n)
      break;
    v[i] = strdup(element->valuestring);
    if (v[i] == NULL)
      return oci_error_set(err, ENOMEM, "%s: \"%s\"", where, key);
    i++;
  }
  *out = steal_pointer(&v);
  return 0;
}

static int parse_digest(const cJSON *object, const char *where, char out[OCI_DIGEST_LEN],
                        oci_error_t *err)
{
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, "digest");
  if (!cJSON_IsString(item))
    return oci_error_set(err, 0, "%s: \"digest\" is missing or not a string", where);
  if (!oci_digest_valid(item->valuestring))
    return oci_error_set(err, 0, "%s: malformed digest '%.80s' (want sha256:<64 hex digits>)",
                         where, item->valuestring);
  memcpy(out, item->valuestring, OCI_DIGEST_LEN);
  return 0;
}

static int parse_platform(const cJSON *json, const char *where, struct oci_platform *out,
                          oci_error_t *err)
{
  if (!cJSON_IsObject(json))
    return oci_error_set(err, 0, "%s: \"platform\" is not an object", where);
  if (required_string(json, "os", where, &out->os, err) < 0 ||
      required_string(json, "architecture", where, &out->architecture, err) < 0 ||
      optional_string(json, "variant", where, &out->variant, err) < 0) {
    oci_platform_clear(out);
    return -1;
  }
  return 0;
}

static int parse_descriptor(const cJSON *json, const char *where, struct oci_descriptor *out,
                            oci_error_t *err)
{
  const cJSON *size, *annotations, *platform;

  memset(out, 0, sizeof(*out));
  if (!cJSON_IsObject(json))
    return oci_error_set(err, 0, "%s: not a JSON object", where);
  if (required_string(json, "mediaType", where, &out->media_type, err) < 0)
    goto fail;
  if (parse_digest(json, where, out->digest, err) < 0)
    goto fail;
  size = cJSON_GetObjectItemCaseSensitive(json, "size");
  /* Sizes are exact integers; 2^53 is where doubles stop being exact. */
  if (!cJSON_IsNumber(size) || !(size->valuedouble >= 0) ||
      size->valuedouble > 9007199254740992.0 || floor(size->valuedouble) != size->valuedouble) {
    oci_error_set(err, 0, "%s %s: \"size\" is missing or not a non-negative integer", where,
                  out->digest);
    goto fail;
  }
  out->size = (int64_t)size->valuedouble;
  annotations = cJSON_GetObjectItemCaseSensitive(json, "annotations");
  if (annotations != NULL && !cJSON_IsNull(annotations)) {
    if (!cJSON_IsObject(annotations)) {
      oci_error_set(err, 0, "%s: \"annotations\" is not an object", where);
      goto fail;
    }
    if (optional_string(annotations, OCI_REF_NAME_ANNOTATION, where, &out->ref_name, err) < 0)
      goto fail;
  }
  platform = cJSON_GetObjectItemCaseSensitive(json, "platform");
  if (platform != NULL && !cJSON_IsNull(platform)) {
    if (parse_platform(platform, where, &out->platform, err) < 0)
      goto fail;
    out->has_platform = true;
  }
  return 0;
fail:
  oci_descriptor_clear(out);
  return -1;
}

static cJSON *parse_object(const char *data, size_t length, const char *what, oci_error_t *err)
{
  cJSON *json = cJSON_ParseWithLength(data, length);
  if (!cJSON_IsObject(json)) {
    cJSON_Delete(json);
    oci_error_set(err, 0, "%s: not a valid JSON object", what);
    return NULL;
  }
  return json;
}

static int check_schema_version(const cJSON *json, const char *what, oci_error_t *err)
{
  const cJSON *version = cJSON_GetObjectItemCaseSensitive(json, "schemaVersion");
  if (!cJSON_IsNumber(version) || version->valuedouble != 2)
    return oci_error_set(err, 0, "%s: \"schemaVersion\" is not 2", what);
  return 0;
}

/* CVE-2021-41190: one blob must not read as an index under one descriptor
 * and as a manifest under another (two images, one digest). As
 * containerd, umoci and containers/image do: a document carrying the other
 * kind's fields is refused, whatever its mediaType says, and its own
 * mediaType, when present, must be of its kind and equal the descriptor's. */
static int check_unambiguous(const cJSON *json, enum oci_media_kind kind,
                             const char *descriptor_type, const char *what, oci_error_t *err)
{
  const cJSON *own_type = cJSON_GetObjectItemCaseSensitive(json, "mediaType");
  bool has_manifests = cJSON_GetObjectItemCaseSensitive(json, "manifests") != NULL;
  bool has_config = cJSON_GetObjectItemCaseSensitive(json, "config") != NULL;
  bool has_layers = cJSON_GetObjectItemCaseSensitive(json, "layers") != NULL;

  if (has_manifests && (has_config || has_layers))
    return oci_error_set(err, 0,
                         "%s: has both an index's \"manifests\" and a manifest's \"%s\": an "
                         "ambiguous document is refused (CVE-2021-41190)",
                         what, has_config ? "config" : "layers");
  if (kind == OCI_KIND_INDEX && (has_config || has_layers))
    return oci_error_set(err, 0, "%s: an index with a manifest's \"%s\" is refused", what,
                         has_config ? "config" : "layers");
  if (kind == OCI_KIND_MANIFEST && has_manifests)
    return oci_error_set(err, 0, "%s: a manifest with an index's \"manifests\" is refused", what);
  if (own_type == NULL || cJSON_IsNull(own_type))
    return 0;
  if (!cJSON_IsString(own_type) || oci_media_kind(own_type->valuestring) != kind)
    return oci_error_set(err, 0, "%s: \"mediaType\" is not an image %s type", what,
                         kind == OCI_KIND_INDEX ? "index" : "manifest");
  /* The document must agree with the descriptor that led to it. */
  if (descriptor_type != NULL && strcmp(own_type->valuestring, descriptor_type) != 0)
    return oci_error_set(err, 0, "%s: mediaType '%.200s' differs from its descriptor's '%.200s'",
                         what, own_type->valuestring, descriptor_type);
  return 0;
}

static int parse_index(const char *data, size_t length, const char *descriptor_type,
                       struct oci_index_doc *out, oci_error_t *err)
{
  cleanup_cjson cJSON *json = parse_object(data, length, "index", err);
  const cJSON *manifests, *entry;
  size_t n, i = 0;

  memset(out, 0, sizeof(*out));
  if (json == NULL || check_schema_version(json, "index", err) < 0 ||
      check_unambiguous(json, OCI_KIND_INDEX, descriptor_type, "index", err) < 0)
    return -1;
  manifests = cJSON_GetObjectItemCaseSensitive(json, "manifests");
  if (!cJSON_IsArray(manifests))
    return oci_error_set(err, 0, "index: \"manifests\" is missing or not an array");
  n = (size_t)cJSON_GetArraySize(manifests);
  if (n > MAX_INDEX_ENTRIES)
    return oci_error_set(err, 0, "index: too many manifests (%zu)", n);
  out->manifests = calloc(n + 1, sizeof(*out->manifests));
  if (out->manifests == NULL)
    return oci_error_set(err, ENOMEM, "index");
  cJSON_ArrayForEach(entry, manifests)
  {
    char where[48];
    if (i >= n)
      break;
    snprintf(where, sizeof(where), "index entry %zu", i);
    if (parse_descriptor(entry, where, &out->manifests[i], err) < 0) {
      oci_index_doc_clear(out);
      return -1;
    }
    out->n_manifests = ++i;
  }
  return 0;
}

int oci_index_parse(const char *data, size_t length, struct oci_index_doc *out, oci_error_t *err)
{
  return parse_index(data, length, NULL, out, err);
}

int oci_manifest_parse(const char *data, size_t length, const char *media_type,
                       struct oci_manifest_doc *out, oci_error_t *err)
{
  cleanup_cjson cJSON *json = parse_object(data, length, "manifest", err);
  const cJSON *layers, *entry;
  size_t n, i = 0;

  memset(out, 0, sizeof(*out));
  if (json == NULL || check_schema_version(json, "manifest", err) < 0 ||
      check_unambiguous(json, OCI_KIND_MANIFEST, media_type, "manifest", err) < 0)
    return -1;
  if (parse_descriptor(cJSON_GetObjectItemCaseSensitive(json, "config"), "manifest config",
                       &out->config, err) < 0)
    return -1;
  if (oci_media_kind(out->config.media_type) != OCI_KIND_CONFIG) {
    oci_error_set(err, 0,
                  "manifest config %s: unsupported media type '%.200s' (not an image config)",
                  out->config.digest, out->config.media_type);
    goto fail;
  }
  layers = cJSON_GetObjectItemCaseSensitive(json, "layers");
  if (!cJSON_IsArray(layers)) {
    oci_error_set(err, 0, "manifest: \"layers\" is missing or not an array");
    goto fail;
  }
  n = (size_t)cJSON_GetArraySize(layers);
  if (n > OCI_MAX_LAYERS) {
    oci_error_set(err, 0, "manifest: too many layers (%zu, limit %d)", n, OCI_MAX_LAYERS);
    goto fail;
  }
  out->layers = calloc(n + 1, sizeof(*out->layers));
  if (out->layers == NULL) {
    oci_error_set(err, ENOMEM, "manifest layers");
    goto fail;
  }
  cJSON_ArrayForEach(entry, layers)
  {
    char where[48];
    if (i >= n)
      break;
    snprintf(where, sizeof(where), "manifest layer %zu", i);
    if (parse_descriptor(entry, where, &out->layers[i], err) < 0)
      goto fail;
    out->n_layers = ++i;
    if (oci_media_kind(out->layers[i - 1].media_type) != OCI_KIND_LAYER) {
      oci_error_set(err, 0, "manifest layer %zu %s: unsupported media type '%.200s'", i - 1,
                    out->layers[i - 1].digest, out->layers[i - 1].media_type);
      goto fail;
    }
  }
  return 0;
fail:
  oci_manifest_doc_clear(out);
  return -1;
}

int oci_config_parse(const char *data, size_t length, struct oci_config_doc *out, oci_error_t *err)
{
  cleanup_cjson cJSON *json = parse_object(data, length, "config", err);
  const cJSON *run, *rootfs, *type, *diff_ids, *entry;
  size_t n, i = 0;

  memset(out, 0, sizeof(*out));
  if (json == NULL)
    return -1;
  if (required_string(json, "os", "config", &out->platform.os, err) < 0 ||
      required_string(json, "architecture", "config", &out->platform.architecture, err) < 0 ||
      optional_string(json, "variant", "config", &out->platform.variant, err) < 0)
    goto fail;
  run = cJSON_GetObjectItemCaseSensitive(json, "config");
  if (run != NULL && !cJSON_IsNull(run) && !cJSON_IsObject(run)) {
    oci_error_set(err, 0, "config: \"config\" is not an object");
    goto fail;
  }
  if (optional_string(run, "User", "config", &out->defaults.user, err) < 0 ||
      optional_string(run, "WorkingDir", "config", &out->defaults.working_dir, err) < 0 ||
      string_array(run, "Env", "config", true, &out->defaults.env, err) < 0 ||
      string_array(run, "Entrypoint", "config", false, &out->defaults.entrypoint, err) < 0 ||
      string_array(run, "Cmd", "config", false, &out->defaults.cmd, err) < 0)
    goto fail;
  rootfs = cJSON_GetObjectItemCaseSensitive(json, "rootfs");
  type = cJSON_GetObjectItemCaseSensitive(rootfs, "type");
  if (!cJSON_IsObject(rootfs) || !cJSON_IsString(type) ||
      strcmp(type->valuestring, "layers") != 0) {
    oci_error_set(err, 0, "config: \"rootfs\" is missing or its type is not \"layers\"");
    goto fail;
  }
  diff_ids = cJSON_GetObjectItemCaseSensitive(rootfs, "diff_ids");
  if (!cJSON_IsArray(diff_ids)) {
    oci_error_set(err, 0, "config: \"rootfs.diff_ids\" is missing or not an array");
    goto fail;
  }
  n = (size_t)cJSON_GetArraySize(diff_ids);
  if (n > OCI_MAX_LAYERS) {
    oci_error_set(err, 0, "config: too many diff_ids (%zu)", n);
    goto fail;
  }
  out->diff_ids = calloc(n + 1, sizeof(*out->diff_ids));
  if (out->diff_ids == NULL) {
    oci_error_set(err, ENOMEM, "config diff_ids");
    goto fail;
  }
  cJSON_ArrayForEach(entry, diff_ids)
  {
    if (i >= n)
      break;
    if (!cJSON_IsString(entry) || !oci_digest_valid(entry->valuestring)) {
      oci_error_set(err, 0, "config: rootfs.diff_ids[%zu] is not a valid sha256 digest", i);
      goto fail;
    }
    memcpy(out->diff_ids[i], entry->valuestring, OCI_DIGEST_LEN);
    out->n_diff_ids = ++i;
  }
  return 0;
fail:
  oci_config_doc_clear(out);
  return -1;
}

void oci_host_platform(struct oci_platform *out)
{
  static const struct {
    const char *machine, *architecture, *variant;
  } names[] = {
      {"x86_64", "amd64", NULL},    {"aarch64", "arm64", "v8"}, {"armv7l", "arm", "v7"},
      {"armv6l", "arm", "v6"},      {"i686", "386", NULL},      {"i386", "386", NULL},
      {"ppc64le", "ppc64le", NULL}, {"s390x", "s390x", NULL},   {"riscv64", "riscv64", NULL},
  };
  struct utsname uts;
  const char *architecture = NULL, *variant = NULL;

  memset(out, 0, sizeof(*out));
  if (uname(&uts) == 0) {
    architecture = uts.machine;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
      if (strcmp(uts.machine, names[i].machine) == 0) {
        architecture = names[i].architecture;
        variant = names[i].variant;
        break;
      }
  }
  out->os = strdup("linux");
  out->architecture = strdup(architecture ? architecture : "unknown");
  out->variant = strdup_or_null(variant);
}

static int load_json_blob(int layout_fd, const struct oci_descriptor *descriptor, const char *what,
                          char **data, size_t *length, oci_error_t *err)
{
  if (!oci_digest_valid(descriptor->digest))
    return oci_error_set(err, 0, "%s: malformed digest", what);
  if (descriptor->size > (int64_t)OCI_JSON_MAX)
    return oci_error_set(err, 0, "%s %s: size %lld exceeds the limit of %zu bytes", what,
                         descriptor->digest, (long long)descriptor->size, OCI_JSON_MAX);
  if (oci_blob_read_verified(layout_fd, descriptor->digest, descriptor->size, OCI_JSON_MAX, data,
                             length, err) < 0)
    return oci_error_wrap(err, "%s", what);
  return 0;
}

int oci_layout_index_doc(int layout_fd, const char *path, struct oci_index_doc *out,
                         oci_error_t *err)
{
  cleanup_free char *text = NULL;
  size_t length;

  if (oci_layout_read_index_text(layout_fd, path, &text, &length, err) < 0)
    return -1;
  if (oci_index_parse(text, length, out, err) < 0)
    return oci_error_wrap(err, "%s/index.json", path);
  return 0;
}

int oci_index_load(int layout_fd, const struct oci_descriptor *descriptor,
                   struct oci_index_doc *out, oci_error_t *err)
{
  cleanup_free char *data = NULL;
  size_t length;

  if (load_json_blob(layout_fd, descriptor, "index", &data, &length, err) < 0)
    return -1;
  if (parse_index(data, length, descriptor->media_type, out, err) < 0)
    return oci_error_wrap(err, "index %s", descriptor->digest);
  return 0;
}

int oci_manifest_load(int layout_fd, const struct oci_descriptor *descriptor,
                      struct oci_manifest_doc *out, char **raw, size_t *raw_length,
                      oci_error_t *err)
{
  cleanup_free char *data = NULL;
  size_t length;

  if (load_json_blob(layout_fd, descriptor, "manifest", &data, &length, err) < 0)
    return -1;
  if (oci_manifest_parse(data, length, descriptor->media_type, out, err) < 0)
    return oci_error_wrap(err, "manifest %s", descriptor->digest);
  if (raw != NULL) {
    *raw = steal_pointer(&data);
    *raw_length = length;
  }
  return 0;
}

int oci_config_load(int layout_fd, const struct oci_descriptor *descriptor,
                    struct oci_config_doc *out, char **raw, size_t *raw_length, oci_error_t *err)
{
  cleanup_free char *data = NULL;
  size_t length;

  if (load_json_blob(layout_fd, descriptor, "config", &data, &length, err) < 0)
    return -1;
  if (oci_config_parse(data, length, out, err) < 0)
    return oci_error_wrap(err, "config %s", descriptor->digest);
  if (raw != NULL) {
    *raw = steal_pointer(&data);
    *raw_length = length;
  }
  return 0;
}

/* Higher is better; negative means "not for this machine". */
static int platform_score(const struct oci_descriptor *entry, const struct oci_platform *host)
{
  enum oci_media_kind kind = oci_media_kind(entry->media_type);
  if (kind != OCI_KIND_MANIFEST && kind != OCI_KIND_INDEX)
    return -1;
  if (!entry->has_platform)
    return 0; /* only used when nothing names the host's platform */
  if (strcmp(entry->platform.os, host->os) != 0 ||
      strcmp(entry->platform.architecture, host->architecture) != 0)
    return -1;
  if (entry->platform.variant == NULL || host->variant == NULL)
    return entry->platform.variant == host->variant ? 3 : 2;
  return strcmp(entry->platform.variant, host->variant) == 0 ? 3 : -1;
}

static int choose_from_index(const struct oci_index_doc *index, const char *index_digest,
                             const struct oci_platform *host, struct oci_descriptor *out,
                             oci_error_t *err)
{
  int best = -1;
  size_t chosen = 0;
  char seen[512] = "";

  for (size_t i = 0; i < index->n_manifests; i++) {
    const struct oci_descriptor *entry = &index->manifests[i];
    int score = platform_score(entry, host);
    if (score > best) {
      best = score;
      chosen = i;
    }
    if (entry->has_platform && strlen(seen) < sizeof(seen) - 80)
      snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%.20s/%.20s%s%.10s",
               seen[0] ? ", " : "", entry->platform.os, entry->platform.architecture,
               entry->platform.variant ? "/" : "",
               entry->platform.variant ? entry->platform.variant : "");
  }
  if (best < 0)
    return oci_error_set(err, 0, "index %s has no manifest for %s/%s%s%s (it has: %s)",
                         index_digest, host->os, host->architecture, host->variant ? "/" : "",
                         host->variant ? host->variant : "", seen[0] ? seen : "none");
  if (oci_descriptor_copy(out, &index->manifests[chosen]) < 0)
    return oci_error_set(err, ENOMEM, "index %s", index_digest);
  return 0;
}

int oci_select_manifest(int layout_fd, const struct oci_descriptor *top, struct oci_descriptor *out,
                        oci_error_t *err)
{
  struct oci_descriptor current;
  struct oci_platform host;
  int ret = -1;

  oci_host_platform(&host);
  if (oci_descriptor_copy(&current, top) < 0) {
    oci_platform_clear(&host);
    return oci_error_set(err, ENOMEM, "copy descriptor");
  }
  for (int depth = 0;; depth++) {
    struct oci_index_doc index;
    struct oci_descriptor next;
    enum oci_media_kind kind = oci_media_kind(current.media_type);

    if (kind == OCI_KIND_MANIFEST) {
      *out = current;
      memset(&current, 0, sizeof(current));
      ret = 0;
      break;
    }
    if (kind != OCI_KIND_INDEX) {
      oci_error_set(
          err, 0, "descriptor %s: unsupported media type '%.200s' (not an image manifest or index)",
          current.digest, current.media_type ? current.media_type : "(none)");
      break;
    }
    if (depth >= OCI_INDEX_MAX_DEPTH) {
      oci_error_set(err, 0, "index %s: indexes nested deeper than %d", current.digest,
                    OCI_INDEX_MAX_DEPTH);
      break;
    }
    if (oci_index_load(layout_fd, &current, &index, err) < 0)
      break;
    ret = choose_from_index(&index, current.digest, &host, &next, err);
    oci_index_doc_clear(&index);
    if (ret < 0)
      break;
    ret = -1;
    /* The name stays with the top-level entry that carried it. */
    free(next.ref_name);
    next.ref_name = current.ref_name;
    current.ref_name = NULL;
    oci_descriptor_clear(&current);
    current = next;
  }
  oci_descriptor_clear(&current);
  oci_platform_clear(&host);
  return ret;
}
