/* Image references to immutable identities: a ref name, NAME@sha256:...,
 * an image ID or a unique prefix of one, or oci:PATH[:REF]. Whatever the
 * user typed, what comes out is the image ID and manifest digest. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "digest.h"
#include "layout.h"
#include "manifest.h"
#include "oci.h"
#include "store.h"

#define MIN_ID_PREFIX 12

/* A tag is a colon after the last slash ("host:5000/repo" has none). */
static bool has_tag(const char *name)
{
  const char *slash = strrchr(name, '/');
  const char *colon = strrchr(name, ':');
  return colon != NULL && (slash == NULL || colon > slash);
}

/* A registry host ("quay.io", "localhost:5000"), as docker tells one from
 * the first component of a path: a dot, a colon, "localhost", or a
 * capital letter (a repository has none). */
static bool is_domain(const char *component, size_t length)
{
  bool upper = false;

  if (length == 9 && strncmp(component, "localhost", 9) == 0)
    return true;
  for (size_t i = 0; i < length; i++)
    upper = upper || (component[i] >= 'A' && component[i] <= 'Z');
  return upper || memchr(component, '.', length) != NULL || memchr(component, ':', length) != NULL;
}

/* Path components of a repository: lower-case letters and digits, with
 * '.', '_' and '-' only between them. */
static bool valid_path(const char *path, size_t length)
{
  bool at_start = true;

  if (length == 0)
    return false;
  for (size_t i = 0; i < length; i++) {
    char c = path[i];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (c == '/') {
      if (at_start || i + 1 == length)
        return false;
      at_start = true;
      continue;
    }
    if (!alnum && (at_start || !strchr("._-", c) || i + 1 == length || path[i + 1] == '/'))
      return false;
    at_start = false;
  }
  return true;
}

static bool valid_tag(const char *tag)
{
  size_t length = strlen(tag);

  if (length == 0 || length > 128 || tag[0] == '.' || tag[0] == '-')
    return false;
  for (size_t i = 0; i < length; i++)
    if (!isalnum((unsigned char)tag[i]) && !strchr("_.-", tag[i]))
      return false;
  return true;
}

bool oci_ref_name_familiar(const char *name, char *out, size_t size)
{
  const char *colon = has_tag(name) ? strrchr(name, ':') : NULL;
  const char *tag = colon != NULL ? colon + 1 : "latest";
  size_t repository_length = colon != NULL ? (size_t)(colon - name) : strlen(name);
  const char *slash = memchr(name, '/', repository_length);
  const char *domain = "docker.io", *path = name;
  size_t domain_length = 9, path_length = repository_length;
  int n;

  if (repository_length == 0 || repository_length > OCI_REF_NAME_MAX || !valid_tag(tag))
    return false;
  if (slash != NULL && is_domain(name, (size_t)(slash - name))) {
    domain = name;
    domain_length = (size_t)(slash - name);
    path = slash + 1;
    path_length = repository_length - domain_length - 1;
    for (size_t i = 0; i < domain_length; i++)
      if (!isalnum((unsigned char)domain[i]) && !strchr(".-:", domain[i]))
        return false;
  }
  if (!valid_path(path, path_length))
    return false;
  /* Docker Hub's names, with or without its host (index.docker.io is its
   * old one): shown without the host, and without library/ for its
   * one-component official images. */
  if ((domain_length == 9 && strncmp(domain, "docker.io", 9) == 0) ||
      (domain_length == 15 && strncmp(domain, "index.docker.io", 15) == 0)) {
    if (path_length > 8 && strncmp(path, "library/", 8) == 0 &&
        memchr(path + 8, '/', path_length - 8) == NULL) {
      path += 8;
      path_length -= 8;
    }
    n = snprintf(out, size, "%.*s:%s", (int)path_length, path, tag);
  } else {
    n = snprintf(out, size, "%.*s/%.*s:%s", (int)domain_length, domain, (int)path_length, path,
                 tag);
  }
  return n > 0 && (size_t)n < size;
}

bool oci_ref_names_same(const char *a, const char *b)
{
  char familiar_a[OCI_REF_NAME_MAX + 160], familiar_b[OCI_REF_NAME_MAX + 160];

  if (strcmp(a, b) == 0)
    return true;
  return oci_ref_name_familiar(a, familiar_a, sizeof(familiar_a)) &&
         oci_ref_name_familiar(b, familiar_b, sizeof(familiar_b)) &&
         strcmp(familiar_a, familiar_b) == 0;
}

bool oci_ref_name_matches(const char *ref_name, const char *reference)
{
  size_t length = strlen(reference);
  if (ref_name == NULL)
    return false;
  if (oci_ref_names_same(ref_name, reference))
    return true;
  /* A name outside docker's grammar (another tool's): "Name" still finds
   * "Name:latest". */
  return !has_tag(reference) && strncmp(ref_name, reference, length) == 0 &&
         strcmp(ref_name + length, ":latest") == 0;
}

/* The repository part of a ref name equals repository (NAME@digest's NAME,
 * normalised as names are). */
static bool repository_matches(const char *ref_name, const char *repository)
{
  char familiar_ref[OCI_REF_NAME_MAX + 160], familiar_repository[OCI_REF_NAME_MAX + 160];
  size_t length = strlen(repository);

  if (ref_name == NULL)
    return false;
  if (strcmp(ref_name, repository) == 0)
    return true;
  if (!has_tag(repository) && oci_ref_name_familiar(ref_name, familiar_ref, sizeof(familiar_ref)) &&
      oci_ref_name_familiar(repository, familiar_repository, sizeof(familiar_repository))) {
    /* Both end in ":TAG" (repository's is the default one): compare before it. */
    *strrchr(familiar_ref, ':') = '\0';
    *strrchr(familiar_repository, ':') = '\0';
    return strcmp(familiar_ref, familiar_repository) == 0;
  }
  return strncmp(ref_name, repository, length) == 0 && ref_name[length] == ':' &&
         strchr(ref_name + length + 1, '/') == NULL;
}

/* The hex digits of an image ID prefix, or NULL when reference is not one. */
static const char *id_prefix(const char *reference)
{
  const char *hex = strncmp(reference, "sha256:", 7) == 0 ? reference + 7 : reference;
  size_t length = strlen(hex);
  if (length < MIN_ID_PREFIX || length > 64)
    return NULL;
  for (size_t i = 0; i < length; i++)
    if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f')))
      return NULL;
  return hex;
}

/* The repository part of name (before a tag) reads as an image ID prefix. */
static bool names_an_id(const char *name)
{
  cleanup_free char *repository = NULL;
  const char *colon = has_tag(name) ? strrchr(name, ':') : NULL;

  if (colon == NULL)
    return id_prefix(name) != NULL;
  repository = strndup(name, (size_t)(colon - name));
  /* Out of memory: refuse rather than risk a shadowing name. */
  return repository == NULL || id_prefix(repository) != NULL;
}

/* All hex but shorter than an ID prefix may be: worth a specific message. */
static bool is_short_hex(const char *reference)
{
  size_t length = strspn(reference, "0123456789abcdef");
  return length == strlen(reference) && length >= 4 && length < MIN_ID_PREFIX;
}

bool oci_ref_name_valid(const char *name)
{
  size_t length = strlen(name);
  if (length == 0 || length > 255 || strncmp(name, "oci:", 4) == 0 ||
      strncmp(name, "sha256:", 7) == 0 || strchr(name, '@'))
    return false;
  for (size_t i = 0; i < length; i++) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          strchr("._-:/+", c)))
      return false;
  }
  /* A name whose repository looks like an image ID (or a prefix that
   * `image ls` shows) would shadow that ID: "busybox" finds
   * "busybox:latest", so the repository part is what a user types. */
  return !names_an_id(name);
}

int oci_resolve_entry(int layout_fd, const char *layout_path, const struct oci_index_doc *index,
                      size_t entry, struct oci_image **out, oci_error_t *err)
{
  struct oci_descriptor manifest;
  struct oci_image *image = NULL;

  if (oci_select_manifest(layout_fd, &index->manifests[entry], &manifest, err) < 0)
    return -1;
  if (oci_image_load(layout_fd, layout_path, &manifest, &image, err) < 0) {
    oci_descriptor_clear(&manifest);
    return -1;
  }
  oci_descriptor_clear(&manifest);
  if (oci_image_set_names(image, index, index->manifests[entry].digest, err) < 0) {
    oci_image_free(image);
    return -1;
  }
  *out = image;
  return 0;
}

/* NAME@sha256:<digest>: the name must be one of the entry's, and the digest
 * the entry's own or that of the platform manifest chosen from it. */
static int resolve_by_digest(int layout_fd, const char *layout_path,
                             const struct oci_index_doc *index, const char *reference,
                             struct oci_image **out, size_t *entry, oci_error_t *err)
{
  const char *at = strchr(reference, '@');
  cleanup_free char *name = strndup(reference, (size_t)(at - reference));
  const char *digest = at + 1;

  if (name == NULL)
    return oci_error_set(err, ENOMEM, "resolve %s", reference);
  if (!oci_digest_valid(digest))
    return oci_error_set(err, 0, "'%s': malformed digest (want NAME@sha256:<64 hex digits>)",
                         reference);
  for (size_t i = 0; i < index->n_manifests; i++) {
    const struct oci_descriptor *candidate = &index->manifests[i];
    struct oci_image *image = NULL;
    if (!repository_matches(candidate->ref_name, name) &&
        !oci_ref_name_matches(candidate->ref_name, name))
      continue;
    if (strcmp(candidate->digest, digest) != 0 &&
        oci_media_kind(candidate->media_type) != OCI_KIND_INDEX)
      continue;
    if (oci_resolve_entry(layout_fd, layout_path, index, i, &image, err) < 0)
      return -1;
    if (strcmp(candidate->digest, digest) == 0 || strcmp(image->manifest_digest, digest) == 0) {
      *out = image;
      *entry = i;
      return 0;
    }
    oci_image_free(image);
  }
  return oci_error_set(err, 0, "no image named '%s' with manifest digest %s in %s", name, digest,
                       layout_path);
}

/* An image ID or a prefix of one; an ambiguous prefix is an error. */
static int resolve_by_id(int layout_fd, const char *layout_path, const struct oci_index_doc *index,
                         const char *reference, const char *prefix, struct oci_image **out,
                         size_t *entry, oci_error_t *err)
{
  struct oci_image *found = NULL;
  size_t found_entry = 0;

  for (size_t i = 0; i < index->n_manifests; i++) {
    struct oci_image *image = NULL;
    oci_error_t ignored = NULL;
    /* A broken entry cannot be the one asked for by ID: skip it. */
    if (oci_resolve_entry(layout_fd, layout_path, index, i, &image, &ignored) < 0) {
      oci_error_free(&ignored);
      continue;
    }
    if (strncmp(image->image_id + 7, prefix, strlen(prefix)) != 0) {
      oci_image_free(image);
      continue;
    }
    if (found != NULL && strcmp(found->image_id, image->image_id) != 0) {
      oci_error_set(err, 0, "image ID prefix '%s' is ambiguous: it matches %s and %s", reference,
                    found->image_id, image->image_id);
      oci_image_free(found);
      oci_image_free(image);
      return -1;
    }
    if (found == NULL) {
      found = image;
      found_entry = i;
    } else {
      oci_image_free(image);
    }
  }
  if (found == NULL)
    return oci_error_set(err, 0, "no image with ID %s in %s", reference, layout_path);
  *out = found;
  *entry = found_entry;
  return 0;
}

/* Whether an image other than named has an ID starting with prefix. */
static bool id_shadowed(int layout_fd, const char *layout_path, const struct oci_index_doc *index,
                        const struct oci_image *named, const char *prefix)
{
  for (size_t i = 0; i < index->n_manifests; i++) {
    struct oci_image *image = NULL;
    oci_error_t ignored = NULL;
    bool other;

    if (oci_resolve_entry(layout_fd, layout_path, index, i, &image, &ignored) < 0) {
      oci_error_free(&ignored);
      continue;
    }
    other = strncmp(image->image_id + 7, prefix, strlen(prefix)) == 0 &&
            strcmp(image->image_id, named->image_id) != 0;
    oci_image_free(image);
    if (other)
      return true;
  }
  return false;
}

int oci_resolve_in_index(int layout_fd, const char *layout_path, const struct oci_index_doc *index,
                         const char *reference, bool allow_id, struct oci_image **out,
                         size_t *entry, enum oci_match_kind *kind, oci_error_t *err)
{
  const char *prefix;

  if (strchr(reference, '@') != NULL) {
    *kind = OCI_MATCH_NAME;
    return resolve_by_digest(layout_fd, layout_path, index, reference, out, entry, err);
  }
  prefix = id_prefix(reference);
  /* Names first: a tag that happens to look like hex still means the tag.
   * But a name that reads as an ID prefix (one put in the index by another
   * tool: import refuses them) must not silently stand for another image
   * than the ID it spells. */
  for (size_t i = 0; i < index->n_manifests; i++) {
    if (!oci_ref_name_matches(index->manifests[i].ref_name, reference))
      continue;
    *kind = OCI_MATCH_NAME;
    *entry = i;
    if (oci_resolve_entry(layout_fd, layout_path, index, i, out, err) < 0)
      return -1;
    if (allow_id && prefix != NULL && id_shadowed(layout_fd, layout_path, index, *out, prefix)) {
      oci_error_set(err, 0,
                    "'%s' is ambiguous: it is the name of image %s and a prefix of the ID of "
                    "another image (use sha256:%s or the image's full name)",
                    reference, (*out)->image_id, prefix);
      oci_image_free(*out);
      *out = NULL;
      return -1;
    }
    return 0;
  }
  /* Within a layout, oci:PATH:sha256:... names an entry by its digest. */
  if (!allow_id && oci_digest_valid(reference)) {
    for (size_t i = 0; i < index->n_manifests; i++) {
      if (strcmp(index->manifests[i].digest, reference) != 0)
        continue;
      *kind = OCI_MATCH_NAME;
      *entry = i;
      return oci_resolve_entry(layout_fd, layout_path, index, i, out, err);
    }
  }
  if (allow_id && prefix != NULL) {
    *kind = OCI_MATCH_ID;
    return resolve_by_id(layout_fd, layout_path, index, reference, prefix, out, entry, err);
  }
  if (allow_id && (strncmp(reference, "sha256:", 7) == 0 || is_short_hex(reference)))
    return oci_error_set(err, 0,
                         "'%s' is not an image ID (want sha256: and at least %d hex digits)",
                         reference, MIN_ID_PREFIX);
  return oci_error_set(err, 0, "no image named '%s' in %s", reference, layout_path);
}

int oci_split_layout_spec(const char *spec, char **path, char **ref, oci_error_t *err)
{
  struct stat st;
  const char *colon;

  *ref = NULL;
  if (stat(spec, &st) == 0 && S_ISDIR(st.st_mode)) {
    *path = strdup(spec);
  } else if ((colon = strchr(spec, ':')) != NULL) {
    *path = strndup(spec, (size_t)(colon - spec));
    if (colon[1] != '\0' && (*ref = strdup(colon + 1)) == NULL) {
      free(*path);
      *path = NULL;
    }
  } else {
    *path = strdup(spec);
  }
  if (*path == NULL)
    return oci_error_set(err, ENOMEM, "parse oci:%s", spec);
  return 0;
}

void oci_layout_reference_clear(struct oci_layout_reference *reference)
{
  if (reference->layout_fd >= 0)
    close(reference->layout_fd);
  free(reference->path);
  oci_index_doc_clear(&reference->index);
  oci_image_free(reference->image);
  memset(reference, 0, sizeof(*reference));
  reference->layout_fd = -1;
}

int oci_layout_reference_open(const char *path, const char *ref, struct oci_layout_reference *out,
                              oci_error_t *err)
{
  enum oci_match_kind kind;
  int ret;

  memset(out, 0, sizeof(*out));
  out->layout_fd = -1;
  out->path = realpath(path, NULL);
  if (out->path == NULL)
    return oci_error_errno(err, "OCI layout %s", path);
  out->layout_fd = oci_layout_open(out->path, err);
  if (out->layout_fd < 0 || oci_layout_index_doc(out->layout_fd, out->path, &out->index, err) < 0)
    goto fail;
  if (ref != NULL)
    ret = oci_resolve_in_index(out->layout_fd, out->path, &out->index, ref, false, &out->image,
                               &out->entry, &kind, err);
  else if (out->index.n_manifests == 1)
    ret = oci_resolve_entry(out->layout_fd, out->path, &out->index, 0, &out->image, err);
  else
    ret = oci_error_set(err, 0, "%s holds %zu images: name one as oci:%s:REF", out->path,
                        out->index.n_manifests, path);
  if (ret < 0)
    goto fail;
  return 0;
fail:
  oci_layout_reference_clear(out);
  return -1;
}

int oci_image_resolve(struct oci_store *store, const char *reference, struct oci_image **out,
                      oci_error_t *err)
{
  struct oci_index_doc index;
  enum oci_match_kind kind;
  size_t entry;
  int ret;

  if (reference == NULL || reference[0] == '\0')
    return oci_error_set(err, 0, "empty image reference");
  if (strncmp(reference, "oci:", 4) == 0) {
    cleanup_free char *path = NULL, *ref = NULL;
    struct oci_layout_reference layout;
    if (oci_split_layout_spec(reference + 4, &path, &ref, err) < 0 ||
        oci_layout_reference_open(path, ref, &layout, err) < 0)
      return oci_error_wrap(err, "image '%s'", reference);
    *out = steal_pointer(&layout.image);
    oci_layout_reference_clear(&layout);
    return 0;
  }
  if (oci_layout_index_doc(store->store_fd, store->store_path, &index, err) < 0)
    return -1;
  ret = oci_resolve_in_index(store->store_fd, store->store_path, &index, reference, true, out,
                             &entry, &kind, err);
  oci_index_doc_clear(&index);
  if (ret < 0)
    return oci_error_wrap(err, "image '%s'", reference);
  return 0;
}
