/* An OCI container's state on disk ($ROOT/containers/<id>/state.json) and
 * the live questions about it: which status it is in, signalling its
 * process without ever hitting a reused pid, freezing and listing its
 * cgroup. The lifecycle library's verbs (container.h) are built on this
 * file; it is the library's own, not its face. */
#ifndef CONTAINER_RECORD_H
#define CONTAINER_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "container/container.h"
#include "oci/error.h"
#include "runtime/container_state.h"
#include "runtime/spec/spec.h"
#include "runtime/state/root.h"

/* What create records; everything else (the status) is computed live. */
struct container {
  char *id;
  char *oci_version;
  char *bundle; /* absolute */
  pid_t pid;    /* the container's process, in ocirun's pid namespace; 0: none yet */
  unsigned long long pid_start_time; /* /proc/PID/stat field 22: pid and start time
                                        name the process, even after the pid is reused */
  char *cgroup_path; /* absolute, under /sys/fs/cgroup; NULL: the container has none */
  char *created;     /* RFC 3339, UTC */
  uid_t owner;       /* the euid that created it */
  struct spec_key_value *annotations;
  size_t n_annotations;
  /* The hooks the command line runs after create (config.json may change
   * after create; the spec says that must not affect the container). */
  struct spec_hook *poststart;
  size_t n_poststart;
  struct spec_hook *poststop;
  size_t n_poststop;
};

/* A container directory held under its lock (flock on the directory). */
struct container_handle {
  char *root; /* the state root, for messages */
  char *id;
  int containers_fd; /* $ROOT/containers */
  int dir_fd;        /* $ROOT/containers/<id> */
  bool locked;       /* this process holds the container's lock */
};

/* Creates $ROOT/containers/<id> (0700, the store's ownership rules) and
 * takes its lock; fails with EEXIST when the id is taken. */
int container_new(const char *root, const char *id, struct container_handle *handle,
                  oci_error_t *err);
/* Opens an existing container and takes its lock (waits for a create, a
 * start or a delete in progress). A missing id fails with ENOENT and the
 * message "container 'ID' does not exist". */
int container_open(const char *root, const char *id, struct container_handle *handle,
                   oci_error_t *err);
/* The same without the lock, for readers (state, ps, kill): state.json is
 * replaced atomically, so they always read a whole record. */
int container_open_unlocked(const char *root, const char *id, struct container_handle *handle,
                            oci_error_t *err);
/* Either, for an id checked where it entered (state_name_take): exec's
 * ID|NAME, checked once for the run and the container it may name. */
int container_open_checked(const char *root, const struct state_name *id, bool lock,
                           struct container_handle *handle, oci_error_t *err);
/* Lets go of the lock and the directory. */
void container_close(struct container_handle *handle);

/* state.json: written atomically (replaced whole), read whole. A missing
 * record (a create that is still running, or that died) fails with ENOENT. */
/* The configuration create parsed, byte for byte, kept as config.json
 * (0600) beside the record: what exec reads, never the bundle's again (a
 * bundle's config.json may be changed after create, even by the container
 * whose root is in its bundle). */
int container_save_config(const struct container_handle *handle, const char *text, size_t length,
                          oci_error_t *err);
int container_save(const struct container_handle *handle, const struct container *container,
                   oci_error_t *err);
int container_load(const struct container_handle *handle, struct container *container,
                   oci_error_t *err);
void container_clear(struct container *container);

/* The marker of "created": the exec FIFO the container's process waits on
 * until `start`; its path (caller frees), and its creation. */
char *container_exec_fifo_path(const struct container_handle *handle);
int container_exec_fifo_create(const struct container_handle *handle, oci_error_t *err);
bool container_exec_fifo_exists(const struct container_handle *handle);

/* Status computed now: the recorded process alive (same start time, not a
 * zombie) -> created while the exec FIFO is there, paused when its cgroup
 * is frozen, else running; otherwise stopped. No record: creating when a
 * create holds the lock, else stopped (a create that died). */
enum container_status container_status(const struct container_handle *handle,
                                       const struct container *container);

/* The spec's state document of the container (container_state.h), JSON
 * (caller frees): `state` prints it and hooks read it on stdin. */
char *container_state_json(const struct container *container, enum container_status status,
                           bool pretty, oci_error_t *err);

/* A pidfd of the recorded process, opened and then checked to be that
 * process (its start time): ESRCH when it is gone or the pid was reused. */
int container_pidfd(const struct container *container, oci_error_t *err);
/* Sends sig to the recorded process through a pidfd, after checking that
 * the pidfd's process started when the record says (a reused pid is never
 * signalled). ESRCH when it is gone. */
int container_signal(const struct container *container, int sig, oci_error_t *err);
/* The same for every process of the container's cgroup (recursive). */
int container_signal_all(const struct container *container, int sig, oci_error_t *err);
/* Waits until the recorded process is gone (or timeout_ms passes: ETIMEDOUT). */
int container_wait_gone(const struct container *container, int timeout_ms, oci_error_t *err);

/* The pids in the container's cgroup and below (cgroup.procs). */
int container_cgroup_pids(const struct container *container, pid_t **pids, size_t *n,
                          oci_error_t *err);
/* Writes cgroup.freeze and waits for cgroup.events to say so. */
int container_cgroup_freeze(const struct container *container, bool frozen, oci_error_t *err);
/* Opens the recorded cgroup directory (O_PATH), checked to be a cgroup2
 * directory under /sys/fs/cgroup reached without a symlink; ENOENT when
 * gone. */
int container_cgroup_open(const struct container *container, oci_error_t *err);

/* Removes $ROOT/containers/<id> (the caller holds the lock). */
int container_remove(struct container_handle *handle, oci_error_t *err);

#endif
