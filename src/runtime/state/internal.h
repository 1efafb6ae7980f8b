/* What the files of runtime/state/ share and nobody else uses: the names
 * of the files in $ROOT/run, a record read whole, the name's lock, and the
 * removal of a dead run's leftovers (record.c, leftovers.c, sweep.c,
 * join.c). */
#ifndef STATE_INTERNAL_H
#define STATE_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "oci/error.h"
#include "runtime/state/run_state.h"

#define RECORD_SUFFIX ".json"
/* Temporary records are TEMP_PREFIX-<pid>-<random> (oci/atomic_file.h). */
#define TEMP_PREFIX ".tmp"
/* The lock of a name: $ROOT/run/.lock-<name> (a name never starts with '.'). */
#define LOCK_PREFIX ".lock-"
/* The configuration a run was built from: $ROOT/run/<name>/config.json. */
#define RUN_CONFIG "config.json"

/* What a record was when it was judged: the file and its bytes. */
struct record_seen {
  dev_t dev;
  ino_t ino;
  uid_t uid;
  mode_t mode;
  char text[8192];
};

/* record.c: the record and its name */
/* A live owner: the pid exists, started when the record says, not a zombie. */
bool state_owner_alive(int pid, unsigned long long start_time);
/* Takes the name's lock (exclusive, waiting); returns its fd. */
int state_lock_name(int run_fd, const char *root, const char *name, oci_error_t *err);
/* Lets go of the name; its lock file goes too when no record holds the name. */
void state_unlock_name(int run_fd, const char *name, int lock_fd);
/* Reads root/run/<file> (a regular file, never through a symlink); returns
 * -1 with errno (ENOENT, EINVAL for garbage). seen may be NULL. */
int state_read_record(int run_fd, const char *file, struct run_record *record,
                      struct record_seen *seen);
/* True when root/run/<file> is still the file, with the bytes, judged. */
bool state_record_unchanged(int run_fd, const char *file, const struct record_seen *judged);

/* leftovers.c: what a run leaves on the host */
/* The recorded cgroup, used only in the shape of the run's slice: its
 * checked fd, or -1 with *err (errno_value ENOENT: it is gone). */
int state_recorded_cgroup(const char *path, const char *name, oci_error_t *err);
/* Cleans up one dead run, the caller holding its name's lock: what its
 * front end created outside, its pid 1, its cgroup, its run dir, then its
 * record (kept when any of them could not be removed). */
int state_remove_dead_run(int run_fd, const char *root, const char *name,
                          const struct run_record *record, run_external_remove_fn remove_external,
                          const struct oci_event_sink *sink, oci_error_t *err);

#endif
