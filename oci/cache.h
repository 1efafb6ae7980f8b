/* The unpacked-rootfs cache under $ROOT/cache, addressed by the layer chain
 * ID (OCI image spec: chain(L1) = diff_id(L1), chain(Ln) = sha256 of
 * "chain(Ln-1) diff_id(Ln)"). An entry is $ROOT/cache/<name>/rootfs plus the
 * marker $ROOT/cache/<name>/complete; entries are built in
 * $ROOT/tmp/unpack-XXXXXX and renamed into place whole, under the lock
 * $ROOT/cache/<hex>.lock, so an entry with its marker is always complete.
 * To remove an entry, unlink its marker first.
 *
 * A chain has two possible entries, under the one lock: <name> is <hex> for
 * a tree unpacked with privilege (the image's owners) and <hex>-rootless for
 * one unpacked without (every file the caller's, see apply.h). Neither is
 * ever used in place of the other, even in one store. */
#ifndef OCI_CACHE_H
#define OCI_CACHE_H

#include <stdbool.h>

#include "error.h"
#include "oci.h"

/* The chain ID of the image's whole layer stack, as "sha256:<hex>".
 * diff_ids must already be valid digests. */
void cache_chain_id(const struct oci_image *image, char chain_id[OCI_DIGEST_LEN]);

/* The entry's directory name under $ROOT/cache (see above). */
#define CACHE_ENTRY_NAME_LEN 80
void cache_entry_name(const char *chain_id, bool rootless, char name[CACHE_ENTRY_NAME_LEN]);

/* True when a complete entry exists for chain_id. */
bool cache_entry_present(int root_fd, const char *chain_id, bool rootless);

/* The lock of both of chain_id's entries, one flock per open file:
 * exclusive while an entry is built or removed, shared while a run uses
 * it as its root. */
enum cache_lock_mode {
  CACHE_LOCK_BUILD,  /* exclusive, waits for users and builders */
  CACHE_LOCK_USE,    /* shared, waits for a builder or a removal */
  CACHE_LOCK_REMOVE, /* exclusive, fails at once with EBUSY while in use */
};
/* Takes the lock; returns the lock fd. */
int cache_entry_lock(int root_fd, const char *chain_id, enum cache_lock_mode mode,
                     oci_error_t *err);

/* A fresh private build directory $ROOT/tmp/unpack-<pid>-<random> holding
 * an empty "rootfs" directory, locked for as long as *dir_fd stays open
 * (oci_make_temp_dir). Build directories left by a crashed run (unlocked)
 * are removed first. */
struct cache_build {
  int dir_fd;    /* the build directory, flock held */
  int rootfs_fd; /* its rootfs */
  char name[64]; /* "unpack-<pid>-<random>", under $ROOT/tmp */
};
int cache_build_begin(int root_fd, struct cache_build *build, oci_error_t *err);
/* Writes the marker and renames the build directory into the cache (call
 * with the entry's lock held). */
int cache_build_commit(int root_fd, struct cache_build *build, const char *chain_id, bool rootless,
                       oci_error_t *err);
/* Removes an uncommitted build directory and closes its fds. */
void cache_build_discard(int root_fd, struct cache_build *build);

/* Removes both entries of chain_id (call with its lock held): marker first,
 * so a half-removed entry is never used. Missing is not an error; a caller
 * without privilege cannot remove an entry unpacked with privilege. */
int cache_entry_remove(int root_fd, const char *chain_id, oci_error_t *err);

#endif
