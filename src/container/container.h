/* The OCI lifecycle as a library (runtime-spec runtime.md "Operations" and
 * "Lifecycle"): create, start, state, kill, delete, pause, resume, update
 * and ps of the containers of a state root ($ROOT/containers/<id>), each by
 * its ID. Whatever ends a container ends in one destroyer: a delete, and a
 * create or a start that fails once the container exists, kill every
 * process of it, remove its cgroup and its state, then run its poststop
 * hooks. The OCI verbs of the command line are options and messages around
 * these calls; what happens on the way (hook output, warnings, what was
 * made and removed) goes to the event sink they give. */
#ifndef CONTAINER_H
#define CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "oci/error.h"
#include "oci/events.h"

/* The one rule of every name under $ROOT (state_name_valid): a letter or
 * a digit, then letters, digits, '_', '.', '-'; at most 128 bytes (it
 * names a directory and a cgroup). */
bool container_id_valid(const char *id);
/* "TERM", "SIGTERM", "sigterm", "15" -> 15; -1 when unknown. */
int container_signal_from_name(const char *name);

struct container_create_options {
  const char *bundle;         /* the bundle's directory (relative: the caller's cwd's) */
  const char *pid_file;       /* NULL: none; relative: the caller's cwd's */
  const char *console_socket; /* required with process.terminal, refused without it */
  /* no cgroup at all (hosts without cgroup v2): refused when config.json
   * sets linux.resources or has no new pid namespace */
  bool unsafe_no_cgroup;
};

/* The bundle's config.json parsed, the runtime asked to build everything up
 * to the user program (runtime_create, which runs the prestart,
 * createRuntime and createContainer hooks at their places), the container
 * recorded, its pid written to the pid file; *pid is its process, waiting
 * for start. Works from the bundle's directory (the process's working
 * directory changes), as runc does. A failure at any step once the id is
 * taken ends in the destroyer: no container is left behind. */
int container_create(const char *root, const char *id,
                     const struct container_create_options *options,
                     const struct oci_event_sink *events, pid_t *pid, oci_error_t *err);
/* Lets a created container's process exec the user program (it runs the
 * startContainer hooks first), then runs the poststart hooks (a failure
 * is a warning). When the process fails instead (a startContainer hook),
 * start fails and the container is destroyed. *pid: its process. */
int container_start(const char *root, const char *id, const struct oci_event_sink *events,
                    pid_t *pid, oci_error_t *err);
/* The spec's state document of container id, its status read now, as
 * indented JSON (caller frees). */
char *container_state_now(const char *root, const char *id, oci_error_t *err);
/* Sends sig to a created, running or paused container's process (through a
 * pidfd checked to be that process), or with all to every process of its
 * cgroup. */
int container_kill(const char *root, const char *id, int sig, bool all, oci_error_t *err);
/* Destroys a stopped container, or with force one in any status (killed
 * first); force also succeeds for an id that does not exist (runc's "make
 * sure it is gone"). A created, running or paused one without force is an
 * error with no effect on it. */
int container_delete(const char *root, const char *id, bool force,
                     const struct oci_event_sink *events, oci_error_t *err);
/* Freezes a running container's cgroup, or thaws a paused one's. */
int container_pause(const char *root, const char *id, oci_error_t *err);
int container_resume(const char *root, const char *id, oci_error_t *err);
/* Writes new limits into a created, running or paused container's cgroup:
 * resources is a linux.resources object, checked by the configuration's
 * own parser and turned into cgroup files by the runtime's builder (device
 * rules are refused: they are fixed at create); *n_files: how many files
 * were written. */
int container_update(const char *root, const char *id, cJSON *resources, size_t *n_files,
                     oci_error_t *err);
/* The pids of the container's cgroup and its descendants (*pids
 * allocated, NULL when *n is 0). */
int container_ps(const char *root, const char *id, pid_t **pids, size_t *n, oci_error_t *err);

/* A caller's --pid-file: the pid in decimal, the file replaced whole
 * (conmon and the shim read it as soon as the verb returns). */
int container_write_pid_file(const char *path, pid_t pid, oci_error_t *err);

/* `ocirun features`' document, from the parser's and the runtime's tables. */
cJSON *container_features(void);
/* `ocirun spec`'s document: a configuration ocirun runs as is (busybox's
 * sh in DIR/rootfs), as root or, with rootless, in a user namespace that
 * maps uid and gid to 0. */
cJSON *container_default_config(bool rootless, uid_t uid, gid_t gid);

#endif
