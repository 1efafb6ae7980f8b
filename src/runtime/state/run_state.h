/* A small on-disk record of each live run (owner pid and its start time,
 * cgroup path, or the Docker container a probe created), so `ocirun sweep`
 * can clean up after a crashed runner, and its pid 1 and configuration, so
 * `ocirun exec NAME` can join it. */
#ifndef RUN_STATE_H
#define RUN_STATE_H

#include <stddef.h>
#include <sys/types.h>

#include "oci/error.h"
#include "runtime/state/root.h"

struct run_record {
  char *name;
  int owner_pid;
  unsigned long long owner_start_time; /* /proc/PID/stat field 22 */
  /* The slice; sweep uses it only in the shape ocirun gives a run's slice
   * (under /sys/fs/cgroup, last component the name). May be NULL. */
  char *cgroup_path;
  /* For the reader only: sweep derives the run dir from the name. */
  char *run_dir;
  /* The docker probe's container (PROBE_NAME_PREFIX + hex) and the engine
   * endpoint its CLI calls used (DOCKER_HOST's form); both may be NULL. A
   * record without docker_host means the CLI's default endpoint. */
  char *docker_container;
  char *docker_host;
  /* The run's pid 1 once it has exec'd (0 before) and its start time:
   * what `ocirun exec NAME` joins. */
  int container_pid;
  unsigned long long container_start_time;
};

/* Every function below works in the run folder of the state root the
 * command opened (state/root.h), never by a path of its own. */

/* run/<name>.json, written atomically under the name's lock; fails if the
 * name is taken by a live run (a dead run's record of the same name is
 * swept first). owner_pid <= 0 means the calling process; owner_start_time
 * 0 means read it from /proc. The run folder is made when missing. A dead
 * run's record swept here is reported as run_state_sweep reports it. */
int run_state_write(struct state_root *state, const struct run_record *record, oci_error_t *err);
/* Removes the record (not the cgroup or run dir); a missing record is fine. */
int run_state_remove(const struct state_root *state, const char *name, oci_error_t *err);
/* What a front end created for a run outside the runtime (the docker
 * probe's container) is removed by the front end through this callback:
 * 0 when it is verified gone, with what was removed written into `what`
 * for the report; -1 with *err to keep the record for a later sweep. */
typedef int (*run_external_remove_fn)(const char *name, const struct run_record *record, char *what,
                                      size_t size, oci_error_t *err);

/* Removes records whose owner is gone, killing their cgroups and run dirs
 * and removing what remove_external removes (a record naming a container
 * is kept, and reported as a failure, when remove_external is NULL). Each
 * under the name's lock and only if the record is still the one judged;
 * what is removed is derived from the name, not read from the record.
 * Reports into state->events (names and paths as they are: the sink
 * escapes them):
 *   OCI_EVENT_RESULT "swept", subject the run's name, detail what went
 *     ("(owner pid P gone): killed pid 1 N, <external>, cgroup C, run dir D");
 *   OCI_EVENT_REFUSED what "skipping" or "skipping unreadable record",
 *     subject the record's path, detail why (a record left alone);
 *   OCI_EVENT_WARNING what "sweep", detail the message of a failure after
 *     the first (which is *err: the sweep goes on past a stuck run). */
int run_state_sweep(const struct state_root *state, run_external_remove_fn remove_external,
                    int *n_swept, oci_error_t *err);

/* Completes the caller's own record (its owner is this process) with the
 * run's pid 1, which has exec'd: from then on `ocirun exec NAME` can join
 * it. Replaced atomically under the name's lock. */
int run_state_set_container(const struct state_root *state, const char *name, int pid,
                            oci_error_t *err);
/* Keeps the configuration the run was built from as
 * run/<name>/config.json (0600; the run dir must exist), before its
 * process starts: what exec gets its seccomp filter and process from. */
int run_state_write_config(const struct state_root *state, const char *name, const char *text,
                           oci_error_t *err);
/* Another file of the run in run/<name>/ (file a plain name, mode its
 * mode; the run dir must exist, the file must not): what a mounts[] entry
 * of the run binds from there (the generated /etc/hosts, say). */
int run_state_write_file(const struct state_root *state, const char *name, const char *file,
                         mode_t mode, const char *text, oci_error_t *err);

/* A live run by name, for `ocirun exec NAME`: the name as checked where it
 * entered (state_name_take). Returns 0 when no record has
 * the name; 1 with *record and *config (the config.json text, caller
 * frees) when its runner and its pid 1 are alive; -1 with *err otherwise:
 * the run is not running (its runner dead, its process ended or not
 * started yet), or its record or configuration is refused. Trusted only
 * from a store that passes oci_store_root_open, as files of the caller's
 * own (mode 0600, run dir 0700, never through a symlink), and only when
 * pid 1 is the recorded runner's child, started when recorded, in the
 * recorded slice. */
int run_state_find_live(const struct state_root *state, const struct state_name *name,
                        struct run_record *record, char **config, oci_error_t *err);
/* The checks on pid 1 again, for a caller about to join it: right before,
 * so that a pid reused meanwhile is never joined. */
int run_state_check_container(const struct run_record *record, oci_error_t *err);
void run_record_clear(struct run_record *record);

#endif
