/* The run's device policy: linux.resources.devices (the spec's rules, in
 * order) compiled to a cgroup v2 device program (BPF_PROG_TYPE_CGROUP_DEVICE)
 * attached to the slice before the container's first process is cloned
 * into it, and the same decision as a pure function. */
#ifndef CGROUP_DEVICES_H
#define CGROUP_DEVICES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "oci/error.h"
#include "runtime/spec/spec.h"

/* More rules than this are refused (the program must stay within the
 * verifier's limits of every kernel ocirun runs on). */
#define CGROUP_DEVICES_MAX_RULES 256

/* Docker's default device rules (moby's default spec plus the rules runc
 * adds): deny everything, allow mknod of any node, and read, write and
 * mknod of the few harmless devices a container's /dev holds. */
extern const struct spec_device_rule cgroup_devices_docker_default[];
extern const size_t cgroup_devices_docker_default_n;

/* The rules a container's program is built from: the spec's, then read,
 * write and mknod of the devices the runtime puts in every container's /dev
 * (the spec's default devices: null, zero, full, random, urandom, tty, ptmx,
 * and 136:* for its pseudo-terminals and console). Last, so that a
 * configuration's deny-all (runc's `spec` writes one) cannot make /dev/null
 * unusable, as runc also appends them. *out is allocated. */
int cgroup_devices_with_defaults(const struct spec_device_rule *rules, size_t n,
                                 struct spec_device_rule **out, size_t *n_out, oci_error_t *err);
/* Whether the rules allow `access` (a non-empty subset of "rwm") on the
 * device type ('c' or 'b') major:minor. Default deny; each access bit is
 * decided by the last rule that matches the device and names that bit, and
 * the request is allowed only if every bit it asks for is. */
bool cgroup_devices_allowed(const struct spec_device_rule *rules, size_t n, char type,
                            int64_t major, int64_t minor, const char *access);
/* Loads the program built from the rules and attaches it to the cgroup
 * directory `dir_fd` (path names it in messages). The attachment holds the
 * program: it lives exactly as long as the cgroup, and no fd of it stays
 * open here. */
int cgroup_devices_attach(int dir_fd, const char *path, const struct spec_device_rule *rules,
                          size_t n, oci_error_t *err);
/* The rules, one a line in order ("allow c 1:3       rwm  /dev/null"), and
 * the default, for --dry-run. */
void cgroup_devices_print(const struct spec_device_rule *rules, size_t n, FILE *out,
                          const char *indent);
/* The node a rule names, as the printed rules show it ("/dev/null", "any
 * device"); "" for one without a known name. */
const char *cgroup_device_name(const struct spec_device_rule *rule);

#endif
