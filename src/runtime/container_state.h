/* The runtime spec's state of a container (runtime.md "State"): its
 * statuses and the JSON document a hook reads on stdin and `ocirun state`
 * prints. Here, in the runtime, because the runtime runs hooks of its own
 * (prestart, createRuntime, createContainer, startContainer) before any
 * record of the container exists. */
#ifndef CONTAINER_STATE_H
#define CONTAINER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "oci/error.h"
#include "runtime/spec/spec.h"

/* The spec's statuses, plus paused (runc's, which podman and containerd
 * expect from `state` after `pause`). */
enum container_status {
  CONTAINER_CREATING,
  CONTAINER_CREATED,
  CONTAINER_RUNNING,
  CONTAINER_PAUSED,
  CONTAINER_STOPPED,
};
const char *container_status_name(enum container_status status);

/* What the document says of one container. */
struct container_state {
  const char *oci_version;
  const char *id;
  enum container_status status;
  pid_t pid; /* <= 0: none */
  const char *bundle;
  const struct spec_key_value *annotations;
  size_t n_annotations;
};

/* The document (ociVersion, id, status, pid while the process exists,
 * bundle, annotations), pretty or unformatted (caller frees). */
char *container_state_document(const struct container_state *state, bool pretty, oci_error_t *err);
/* The annotations as one JSON object (NULL: out of memory). */
cJSON *container_annotations_json(const struct spec_key_value *annotations, size_t n);
/* The document for a container that has no record yet: what the runtime
 * hands its own hooks from the spec it was given. */
char *container_state_json_for_spec(const struct spec *spec, const char *id, const char *bundle,
                                    pid_t pid, enum container_status status, oci_error_t *err);

#endif
