/* The seccomp filter: Docker's default profile as a data table (or a
 * Docker/OCI JSON profile from a file), compiled with libseccomp for every
 * architecture the host can execute. */
#ifndef OCIRUN_SECCOMP_FILTER_H
#define OCIRUN_SECCOMP_FILTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "oci/error.h"

struct seccomp_filter; /* opaque compiled filter, built before clone */

/* Builds the filter of a Docker/OCI JSON profile file (NULL: the built-in
 * default, docker's). effective_caps decides Docker's capability-
 * conditional rules. */
int seccomp_filter_build(const char *profile_path, uint64_t effective_caps,
                         struct seccomp_filter **out, oci_error_t *err);
/* The same, keeping compiled programs under STATE_ROOT/seccomp-cache (the
 * --root directory) so later runs skip libseccomp's compilation, which costs
 * 20-30 ms for three architectures. state_root NULL: no cache. */
int seccomp_filter_build_cached(const char *profile_path, uint64_t effective_caps,
                                const char *state_root, struct seccomp_filter **out,
                                oci_error_t *err);
/* The filter for a configuration's linux.seccomp (OCI's format, which
 * seccomp_profile_parse reads; NULL: unconfined, *out NULL), cached like
 * the above: the key is the profile's text as resolved for effective_caps
 * and this host, so a document that says the same compiles once. */
int seccomp_filter_build_oci(const cJSON *seccomp, uint64_t effective_caps, const char *state_root,
                             struct seccomp_filter **out, oci_error_t *err);
/* In the child, last step before execve, after no-new-privileges (or,
 * without it, before the user switch drops CAP_SYS_ADMIN). One prctl: no
 * allocation, no library state. */
int seccomp_filter_load(struct seccomp_filter *filter, oci_error_t *err);
/* The same; when the filter notifies (an SCMP_ACT_NOTIFY action) it is
 * loaded with a new listener, *listener (O_CLOEXEC, the caller's to send
 * and close), else *listener is -1. Without a listener a notified call
 * fails with ENOSYS (exec's processes: only pid 1's filter has an agent). */
int seccomp_filter_load_listener(struct seccomp_filter *filter, int *listener, oci_error_t *err);
bool seccomp_filter_notifies(const struct seccomp_filter *filter);
void seccomp_filter_free(struct seccomp_filter *filter);
/* The profile applied, in Docker/OCI JSON form (caller frees): for the
 * artifact's identities and `ocirun seccomp-profile`. */
char *seccomp_filter_profile_json(const struct seccomp_filter *filter);
/* linux.seccomp for a run (see seccomp_profile_resolve_oci): the profile
 * at profile_path, or Docker's default when NULL, resolved for
 * effective_caps and this host. */
int seccomp_resolve_oci(const char *profile_path, uint64_t effective_caps, cJSON **out,
                        oci_error_t *err);
/* `ocirun seccomp-profile`: the default profile in Docker's JSON format. */
int seccomp_print_default_profile(FILE *out, oci_error_t *err);

#endif
