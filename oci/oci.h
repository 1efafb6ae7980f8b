/* The image library's interface to the program: open the store, resolve a
 * reference to an immutable image, inspect, import, remove and unpack it.
 * Nothing here knows about namespaces or running processes. */
#ifndef OCI_OCI_H
#define OCI_OCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "events.h"

/* "sha256:" + 64 lowercase hex digits + NUL */
#define OCI_DIGEST_LEN 72

struct oci_store; /* opaque: $root/store (an OCI layout) and $root/cache */

struct oci_platform {
  char *os;
  char *architecture;
  char *variant; /* may be NULL */
};

struct oci_layer {
  char digest[OCI_DIGEST_LEN];  /* compressed blob, as in the manifest */
  char diff_id[OCI_DIGEST_LEN]; /* uncompressed tar, from config rootfs.diff_ids */
  char *media_type;
  int64_t size;
};

/* What the image config says about running it (OCI config "config" object). */
struct oci_run_defaults {
  char *user;        /* may be NULL */
  char **env;        /* NULL-terminated, may be empty */
  char **entrypoint; /* NULL-terminated or NULL */
  char **cmd;        /* NULL-terminated or NULL */
  char *working_dir; /* may be NULL */
};

/* An image reference resolved to immutable identities. Everything after
 * resolution uses image_id / manifest_digest, never the name the user typed. */
struct oci_image {
  char image_id[OCI_DIGEST_LEN]; /* config digest */
  char manifest_digest[OCI_DIGEST_LEN];
  char *layout_path;   /* OCI layout the blobs are read from */
  char **ref_names;    /* names in that layout pointing at this manifest, NULL-terminated */
  char **repo_digests; /* "NAME@sha256:<manifest digest>", NULL-terminated */
  struct oci_platform platform;
  struct oci_layer *layers;
  size_t n_layers;
  struct oci_run_defaults defaults;
};

struct oci_unpack_options {
  /* where the unpack's progress goes (oci/progress.h); NULL: nowhere */
  const struct oci_event_sink *events;
  /* progress only once the unpack has taken this long (0: from the start):
   * `run` waits about a second, so a quick unpack prints nothing */
  int64_t progress_after_ms;
  int *hold_fd; /* when set: gets an fd that keeps the rootfs in use (and
                   `image rm` refusing to remove it) until it is closed */
};

/* Opens (creating when missing) the store under root: root/store is an OCI
 * image layout, root/cache holds unpacked rootfs trees. */
int oci_store_open(const char *root, struct oci_store **out, oci_error_t *err);
void oci_store_close(struct oci_store *store);
const char *oci_store_root(const struct oci_store *store);

/* Every directory of a store is opened through these two, which refuse
 * one that another user could change: it must be the caller's and not
 * writable by group or others (the message names the path, what was found
 * and the chmod/chown that fixes it), and, for the root, so must be the
 * directories above it (root's or the caller's; group- or world-writable
 * only with the sticky bit).
 * The root (absolute): created 0700 with its missing parents when create
 * is set. Returns an O_RDONLY|O_DIRECTORY fd. */
int oci_store_root_open(const char *root, bool create, oci_error_t *err);
/* dir_fd/name (path names dir_fd in messages; NULL: its name in /proc):
 * created 0700 when create is set, opened without following a symlink. */
int oci_store_dir_open(int dir_fd, const char *path, const char *name, bool create,
                       oci_error_t *err);
/* The complete cache entry of the image's layers (the one this caller's
 * privilege unpacks, see cache.h), its rootfs opened O_PATH from the store
 * root without following any symlink: the tree a run uses as its root. */
int oci_image_rootfs_open(const char *root, const struct oci_image *image, oci_error_t *err);

/* Accepts: a ref name in the store ("python:3.13-slim"), an image ID
 * ("sha256:<hex>" or a unique prefix of >= 12 hex digits, with or without
 * "sha256:"), "NAME@sha256:<manifest digest>", or "oci:PATH[:REF]". */
int oci_image_resolve(struct oci_store *store, const char *reference, struct oci_image **out,
                      oci_error_t *err);
void oci_image_free(struct oci_image *image);

/* JSON for `image inspect`: id, manifest digest, repo digests, platform,
 * layers (digest, size, diff_id, media type) and the run defaults. */
cJSON *oci_image_inspect_json(const struct oci_image *image);

/* One entry per ref name in the store's index. */
struct oci_image_summary {
  char *ref_name; /* may be NULL for an untagged manifest */
  char image_id[OCI_DIGEST_LEN];
  char manifest_digest[OCI_DIGEST_LEN];
  int64_t size; /* sum of layer blob sizes */
};
int oci_image_list(struct oci_store *store, struct oci_image_summary **out, size_t *n_out,
                   oci_error_t *err);
void oci_image_summaries_free(struct oci_image_summary *list, size_t n);

/* What an import did, for its report. */
struct oci_import_report {
  char image_id[OCI_DIGEST_LEN]; /* the config's digest */
  char manifest_digest[OCI_DIGEST_LEN];
  char **names;         /* the names now pointing at it, as stored; empty: untagged */
  char **replaced;      /* for names[i]: the manifest digest it named before, NULL if none */
  size_t blobs_new;     /* copied into the store */
  int64_t bytes_new;    /* their size */
  size_t blobs_present; /* the store had them already */
};
void oci_import_report_clear(struct oci_import_report *report);

/* source: "oci:PATH[:REF]", "oci-archive:FILE[:REF]", "docker-archive:FILE[:REF]",
 * or a plain path to a tarball (format detected). Blobs are verified on the
 * way in; the index is replaced atomically. Names imported as ref_name
 * unless as_name is given, each in docker's familiar form ("busybox:latest"
 * for docker.io/library/busybox). *report (cleared first) says what was
 * done. */
int oci_image_import(struct oci_store *store, const char *source, const char *as_name,
                     struct oci_import_report *report, oci_error_t *err);

/* How long a blob that no index entry names is kept: see store.c. */
#define OCI_UNNAMED_BLOB_GRACE_SECONDS (24 * 60 * 60)
/* What a removal's blob collection did. */
struct oci_remove_report {
  size_t blobs_removed;
  int64_t bytes_removed;
  /* Named by no index entry, before or after the removal, but written
   * within OCI_UNNAMED_BLOB_GRACE_SECONDS (or during the collection):
   * another tool's copy may be about to name them. */
  size_t blobs_kept_unnamed;
};

/* Removes a ref name (or every name of an image ID) and the blobs no longer
 * referenced, and the cached rootfs of images no longer present. *report
 * (cleared first) says what the collection did. */
int oci_image_remove(struct oci_store *store, const char *reference,
                     struct oci_remove_report *report, oci_error_t *err);

/* Applies the image's layers into the cache (verified, content addressed,
 * atomic) and returns the rootfs path in *rootfs (caller frees). A second
 * call is a cache hit. */
int oci_image_unpack(struct oci_store *store, const struct oci_image *image,
                     const struct oci_unpack_options *options, char **rootfs, oci_error_t *err);

#endif
