/* What the OCI runtime verbs (runtime-spec runtime.md "Operations") share:
 * exit codes, usage errors, loading a container by id. Exit codes: 0 on
 * success, 1 for every failure (runc's: conmon and containerd's shim only
 * test for non-zero and read the reason from the log), 2 for a usage
 * error (unknown option, missing id). */
#ifndef COMMAND_OCI_H
#define COMMAND_OCI_H

#include <stdbool.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "cli/ocirun.h"
#include "oci/options.h"
#include "container/record.h"

enum { OCI_EXIT_FAILURE = EXIT_FAILURE_GENERIC };

/* Prints "VERB: message" and where the help is; returns EXIT_USAGE. */
int oci_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* options_next's refusal of an option, as a usage error of verb. */
int oci_option_error(const char *verb, oci_error_t *err);
/* Logs the error; returns OCI_EXIT_FAILURE. */
int oci_fail(oci_error_t *err);
/* The one ID operand after the options (argv[optind]); NULL after a usage
 * error has been printed. */
const char *oci_take_id(const char *verb, int argc, char **argv);

/* --pid-file: the pid in decimal, the file replaced whole (conmon and the
 * shim read it as soon as the verb returns); a relative path is the
 * caller's working directory's. */
int oci_write_pid_file(const char *path, pid_t pid, oci_error_t *err);

/* Opens (locked or not) and loads a container. */
int oci_container_load(const char *root, const char *id, bool lock, struct container_handle *handle,
                       struct container *container, oci_error_t *err);

/* After a lookup of container id failed with *err: when the id is no
 * container (ENOENT) but the name of an `ocirun run` of the same root,
 * *err becomes a refusal naming the run and what acts on it (its runner;
 * exec). Returns -1. */
int oci_refuse_run(const char *verb, const char *root, const char *id, oci_error_t *err);
/* oci_container_load for every verb but exec (which joins runs too): a
 * run's name is refused by oci_refuse_run. */
int oci_verb_container_load(const char *verb, const char *root, const char *id, bool lock,
                            struct container_handle *handle, struct container *container,
                            oci_error_t *err);

/* `ocirun spec`'s document: a configuration ocirun runs as is (busybox's
 * sh in DIR/rootfs), as root or, with rootless, in a user namespace that
 * maps uid and gid to 0. */
cJSON *oci_default_config(bool rootless, uid_t uid, gid_t gid);
/* Whether ocirun runs hooks of this kind: createContainer and
 * startContainer belong inside the runtime's child, which does not run
 * them yet; create refuses them and features leaves them out. */
bool oci_hook_kind_supported(enum spec_hook_kind kind);
/* `ocirun features`' document, from the parser's and the runtime's tables. */
cJSON *oci_features(void);

#endif
