/* An OCI image layout on disk (oci-layout, index.json, blobs/sha256): opening
 * one, reading its index, replacing the index atomically under a lock, and
 * writing blobs that are verified before they get their final name. */
#ifndef OCI_LAYOUT_H
#define OCI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "oci.h"

/* JSON documents (manifests, configs, indexes) larger than this are refused. */
#define OCI_JSON_MAX ((size_t)4 << 20)
/* The layout's own index.json grows with the store, so it gets more room. */
#define OCI_INDEX_MAX ((size_t)16 << 20)
#define OCI_REF_NAME_ANNOTATION "org.opencontainers.image.ref.name"

/* Opens an existing layout directory read-only and checks its oci-layout
 * file. Returns the directory fd. */
int oci_layout_open(const char *path, oci_error_t *err);
/* Creates oci-layout, an empty index.json and blobs/sha256 under dir_fd
 * where they are missing (path is for messages). */
int oci_layout_init(int dir_fd, const char *path, oci_error_t *err);
/* Reads and parses index.json (at most OCI_INDEX_MAX bytes). */
int oci_layout_read_index(int layout_fd, const char *path, cJSON **out, oci_error_t *err);
/* The same, as NUL-terminated text. */
int oci_layout_read_index_text(int layout_fd, const char *path, char **out, size_t *length,
                               oci_error_t *err);
/* Takes an exclusive flock on dir_fd/name (created when missing); the lock
 * is released when the returned fd is closed. */
int oci_layout_lock(int dir_fd, const char *name, oci_error_t *err);
/* Writes index to a temporary file in tmp_fd, fsyncs it and renames it over
 * layout_fd/index.json. The caller holds the store lock. */
int oci_layout_write_index(int layout_fd, int tmp_fd, const cJSON *index, oci_error_t *err);

/* True when layout_fd/blobs/sha256/<hex> is a regular file of this size. */
bool oci_layout_has_blob(int layout_fd, const char *digest, int64_t size);

/* Copies from src_fd into dst_dir_fd/<hex of digest>, hashing on the way:
 * the data must be exactly size bytes with that sha256, or nothing is left
 * behind. what names the blob's role in messages. */
int oci_blob_copy_verified(int src_fd, const char *digest, int64_t size, int dst_dir_fd,
                           const char *what, oci_error_t *err);
/* Writes a buffer as dst_dir_fd/<hex of its sha256>, digest returned. */
int oci_blob_write_buffer(int dst_dir_fd, const void *data, size_t length,
                          char digest[OCI_DIGEST_LEN], oci_error_t *err);

/* A fresh private directory dir_fd/PREFIX-<pid>-<random>; name in *name
 * (caller frees) and an O_DIRECTORY fd as the result, flocked for as long
 * as it stays open: directories of dead processes (unlocked) are removed
 * by the next call. Remove the directory before closing the fd. */
int oci_make_temp_dir(int dir_fd, const char *prefix, char **name, oci_error_t *err);

#endif
