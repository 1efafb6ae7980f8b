/* Named volumes: directories ocirun keeps under $ROOT/volumes (the checked
 * state folder, runtime/state/root.h), one per name, each
 * $ROOT/volumes/NAME/_data, bound into a run by `-v NAME:/path` or
 * `--mount type=volume,source=NAME,...`. A run holds a shared flock on
 * $ROOT/volumes/NAME for as long as it lives; `rm` and `prune` take it
 * exclusive without waiting, so a volume in use is never removed. A name
 * follows the rule of every name under $ROOT (state_name_check): no '/',
 * no "..", nothing that could become another path. */
#ifndef VOLUMES_H
#define VOLUMES_H

#include <stdbool.h>
#include <stddef.h>

#include "oci/error.h"
#include "runtime/state/root.h"

/* What a run holds of a volume: the directory's lock (shared) and its
 * _data opened O_PATH, the source the runtime binds; path for messages
 * and the document. */
struct volume_use {
  int lock_fd;
  int data_fd;
  char *path;
  bool fresh; /* created for this run: nothing in it yet */
};
#define VOLUME_USE_NONE                                                                            \
  {                                                                                                \
    .lock_fd = -1, .data_fd = -1                                                                   \
  }

/* state: opened on STATE_VOLUMES. *created: it did not exist. */
int volume_create(struct state_root *state, const char *name, bool *created, oci_error_t *err);
/* Opened for a run (created when missing, as docker does on first use). */
int volume_use(struct state_root *state, const char *name, struct volume_use *use,
               oci_error_t *err);
void volume_use_release(struct volume_use *use);
/* The names, sorted; *names is NULL-terminated (free with cleanup_strv). */
int volume_list(struct state_root *state, char ***names, oci_error_t *err);
/* Refused while a run uses it (its lock is held). */
int volume_remove(struct state_root *state, const char *name, oci_error_t *err);
/* Every volume no run uses removed; *removed counts them. */
int volume_prune(struct state_root *state, size_t *removed, oci_error_t *err);

#endif
