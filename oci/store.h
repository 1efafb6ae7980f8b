/* Inside the image library: the store's open directories and the steps that
 * reference resolution, import and removal share. Not for src/. */
#ifndef OCI_STORE_H
#define OCI_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "manifest.h"
#include "oci.h"

struct oci_store {
  char *root;       /* as given: $OCIRUN_ROOT or --root */
  char *store_path; /* root/store, the OCI layout */
  int root_fd;
  int store_fd; /* the layout directory */
  int tmp_fd;   /* root/tmp: every temporary file and staging directory */
};

/* The store lock (flock on root/store.lock) serialises index updates and
 * blob garbage collection. Returns the fd holding it. */
int oci_store_lock(struct oci_store *store, oci_error_t *err);

/* Reads the manifest and config a manifest descriptor points at (both
 * verified) into a new image; the layout is layout_fd, named layout_path. */
int oci_image_load(int layout_fd, const char *layout_path, const struct oci_descriptor *manifest,
                   struct oci_image **out, oci_error_t *err);
/* Fills ref_names and repo_digests from the index entries whose digest is
 * entry_digest (the top-level descriptor the image was reached from). */
int oci_image_set_names(struct oci_image *image, const struct oci_index_doc *index,
                        const char *entry_digest, oci_error_t *err);

/* How a reference matched an entry of the store's index. */
enum oci_match_kind {
  OCI_MATCH_NAME,   /* a ref name (or NAME@digest) */
  OCI_MATCH_ID,     /* an image ID or a prefix of one */
  OCI_MATCH_LAYOUT, /* oci:PATH[:REF] */
};
/* Resolves reference against an index already read; *entry is the index
 * entry it matched (for OCI_MATCH_ID, the first entry with that ID). */
int oci_resolve_in_index(int layout_fd, const char *layout_path, const struct oci_index_doc *index,
                         const char *reference, bool allow_id, struct oci_image **out,
                         size_t *entry, enum oci_match_kind *kind, oci_error_t *err);
/* An image in an OCI layout outside the store (oci:PATH[:REF]). */
struct oci_layout_reference {
  int layout_fd;
  char *path; /* absolute */
  struct oci_index_doc index;
  size_t entry; /* the index entry the image was reached from */
  struct oci_image *image;
};
/* Splits what follows "oci:" into PATH and REF: PATH is taken whole when it
 * is a directory, otherwise it ends at the first colon (as skopeo reads it). */
int oci_split_layout_spec(const char *spec, char **path, char **ref, oci_error_t *err);
/* Opens the layout at path and resolves ref in it (NULL: its only image). */
int oci_layout_reference_open(const char *path, const char *ref, struct oci_layout_reference *out,
                              oci_error_t *err);
void oci_layout_reference_clear(struct oci_layout_reference *reference);
/* The image a top-level index entry stands for (platform chosen). */
int oci_resolve_entry(int layout_fd, const char *layout_path, const struct oci_index_doc *index,
                      size_t entry, struct oci_image **out, oci_error_t *err);

/* The longest ref name the store records. */
#define OCI_REF_NAME_MAX 255
/* Docker's normalisation of an image name, written in the familiar form
 * docker shows: no registry is docker.io, whose one-component names are
 * under library/, no tag is :latest; docker.io/ and library/ are then left
 * out. "busybox", "library/busybox", "docker.io/busybox" and
 * "docker.io/library/busybox:latest" are all "busybox:latest"; a name of
 * another registry keeps it ("quay.io/a/b:latest"). False when name is
 * outside docker's grammar (a capital letter in its repository, '+', an
 * empty component) or out does not hold it. */
bool oci_ref_name_familiar(const char *name, char *out, size_t size);
/* Two names for the same image name: equal, or equal once normalised. */
bool oci_ref_names_same(const char *a, const char *b);
/* True when reference names ref_name: the same name, normalised as docker
 * does ("busybox" finds "docker.io/library/busybox:latest"). */
bool oci_ref_name_matches(const char *ref_name, const char *reference);
/* True when name may be stored as a ref name. */
bool oci_ref_name_valid(const char *name);

/* Moves every blob of staging_fd (files named by 64 hex digits) into the
 * store, then, under the lock, points each of names (in their familiar
 * form, oci_ref_name_familiar; or one untagged entry when names is empty)
 * at the manifest and replaces the index atomically; a name in another
 * form that is the same name moves too. report (NULL: none) says what it
 * did. */
int oci_store_commit(struct oci_store *store, int staging_fd, const struct oci_descriptor *manifest,
                     char *const *names, size_t n_names, struct oci_import_report *report,
                     oci_error_t *err);

#endif
