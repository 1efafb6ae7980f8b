/* What `ocirun probe` asks of a backend (direct: ocirun's own runtime;
 * docker: a Docker engine through its CLI) and what a backend reports back.
 * Both run the same embedded probe with the same recipe flag list. */
#ifndef PROBE_BACKEND_H
#define PROBE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "oci/oci.h"

/* The container name prefix; 12 random hex digits follow. */
#define PROBE_NAME_PREFIX "ocirun-probe-"

struct probe_request {
  const char *image; /* as typed: resolved to its ID before anything is created */
  double timeout_seconds;
  bool unsafe_no_cgroup; /* direct only: loud development opt-out, never passes */
  /* Test options: they change the recipe, so the artifact records them and
   * fails its "recipe_flags" check. */
  char **debug_drop_flags;             /* recipe flags left out, NULL-terminated or NULL */
  char **debug_env;                    /* NAME=VALUE passed as --env, NULL-terminated or NULL */
  const char *root;                    /* the store (--root) */
  bool quiet;                          /* no progress output */
  const struct oci_event_sink *events; /* where the run and the unpack report */
  bool rootless;                       /* the caller's one decision: ocirun runs unprivileged */
};

struct probe_outcome {
  /* Set when the host cannot run the recipe at all: nothing was created and
   * no artifact is written. */
  char *unsupported;
  /* A runtime or engine failure after the image was resolved (the artifact
   * records it and fails). */
  char *error;
  char image_id[OCI_DIGEST_LEN];
  char *manifest_digest; /* NULL when the engine does not know it */
  char **repo_digests;   /* NULL-terminated */
  char *container_name;
  char **flags;        /* the recipe flag list as the engine received it */
  char **engine_argv;  /* the whole command line the engine received */
  char *docker_server; /* docker: the engine's version; direct: NULL */
  char *engine_name;
  char *engine_version;
  char *kernel;
  int cgroup_version;           /* 2, 1, or 0 when unknown */
  char *seccomp_profile_sha256; /* hex; NULL when the engine's own default applies */
  bool probe_ran;
  int probe_exit_code;
  bool timed_out;
  char *probe_stdout;         /* NUL-terminated, but may hold NUL bytes: */
  size_t probe_stdout_length; /* its length */
  char *probe_stderr;
  bool teardown_verified;
  /* The host's own observation of the probe's process (src/probe/host_observer.h):
   * always an object once a backend returned 0 with no `unsupported`; its
   * "missing" says why when nothing could be observed. */
  cJSON *host_observed;
};

/* Both return 0 when outcome says what happened (unsupported, error, or a
 * probe run), -1 with *err set when nothing could be attempted. */
int probe_backend_direct(const struct probe_request *request, struct probe_outcome *outcome,
                         oci_error_t *err);
int probe_backend_docker(const struct probe_request *request, struct probe_outcome *outcome,
                         oci_error_t *err);
void probe_outcome_clear(struct probe_outcome *outcome);

/* The recipe's flag list for container `name` (docs/docker-path.md, in its
 * order, one element per token), with the request's test changes applied
 * (and, under --unsafe-no-cgroup, without the cgroup limits).
 * NULL-terminated; NULL on allocation failure. */
char **probe_recipe_flags(const char *name, const struct probe_request *request);
/* PROBE_NAME_PREFIX + 12 hex digits from getrandom. */
int probe_container_name(char **out, oci_error_t *err);

/* The embedded probe program (src/probe/probe.py) and its sha256 hex. */
const unsigned char *probe_program_bytes(size_t *length);
const char *probe_program_sha256_hex(void);

#endif
