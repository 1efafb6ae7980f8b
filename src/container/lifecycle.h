/* What the lifecycle library's own files share (not its face): a container
 * loaded by ID, the one destroyer, the post hooks and where hook output
 * goes. */
#ifndef CONTAINER_LIFECYCLE_H
#define CONTAINER_LIFECYCLE_H

#include <stdbool.h>

#include "container/record.h"
#include "oci/error.h"
#include "oci/events.h"
#include "runtime/hooks.h"
#include "runtime/spec/spec.h"

/* Opens (locked or not) and loads container id, checked where it entered
 * (state_name_take). A directory without a record yet is an error saying
 * so (a create still running, or one that died). */
int container_load_by_id(const char *root, const struct state_name *id, bool lock,
                         struct container_handle *handle, struct container *container,
                         oci_error_t *err);
/* After a lookup of container id failed with *err: when the id is no
 * container (ENOENT) but the name of an `ocirun run` of the same root,
 * *err becomes a refusal naming the run and what acts on it (its runner;
 * exec). Returns -1. */
int container_refuse_run(const char *verb, const char *root, const char *id, oci_error_t *err);
/* container_load_by_id for every verb but exec (which joins runs too): a
 * run's name is refused by container_refuse_run. */
int container_load_for_verb(const char *verb, const char *root, const char *id, bool lock,
                            struct container_handle *handle, struct container *container,
                            oci_error_t *err);

/* The spec's steps 12 and 13, the one way a container ends (delete, a
 * failed create, a failed start): every process of it killed (its cgroup's,
 * then its pid 1 through a checked pidfd) and waited for, its cgroup
 * removed (checked to be a cgroup2 directory under /sys/fs/cgroup), its
 * directory removed; then its poststop hooks, with the state "stopped"
 * (their failures are warnings). The caller holds the container's lock.
 * The first step that fails stops it there and is returned: the record
 * stays, so that `delete` can finish the work, and the poststop hooks run
 * once, when the container is gone. */
int container_destroy(struct container_handle *handle, const struct container *container,
                      const struct oci_event_sink *events, oci_error_t *err);
/* container_destroy after verb (create, start) failed: the verb's own
 * error is what the caller returns, so the destroyer's is a warning event
 * ("VERB: clean up: ..."). */
void container_destroy_failed(struct container_handle *handle, const struct container *container,
                              const char *verb, const struct oci_event_sink *events);
/* Runs the recorded poststart or poststop hooks with the container's state
 * in status; failures are warnings. */
void container_run_post_hooks(const struct container *container, enum spec_hook_kind kind,
                              enum container_status status, const struct oci_event_sink *events);

/* Whether ocirun runs hooks of this kind (every kind of the spec, each at
 * its place): what `ocirun features` lists. */
bool container_hook_kind_supported(enum spec_hook_kind kind);

#endif
