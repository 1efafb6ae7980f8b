/* Capabilities: the set --cap-drop/--cap-add leave (Docker's default set as
 * the base), and the switch to the run's user with them. */
#ifndef CAPABILITIES_H
#define CAPABILITIES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "oci/error.h"

enum { CAPABILITY_ALL = -2 };
/* "CAP_NET_RAW", "net_raw" (case-insensitive) -> capability number;
 * "ALL" -> CAPABILITY_ALL (-2); unknown -> -1. */
int capability_from_name(const char *name);
/* 13 -> "NET_RAW" (without "CAP_"), NULL when unknown. */
const char *capability_name(int cap);
/* Docker's default capability set as a bit mask. */
uint64_t capabilities_docker_default(void);
/* docker's ALL: every capability ocirun has a name for that the caller's
 * bounding set holds (no process can give more). */
uint64_t capabilities_all_held(void);
/* The five sets of a process, as bit masks (1 << CAP_*). */
struct capability_sets {
  uint64_t bounding, effective, permitted, inheritable, ambient;
};

/* In the child: bounding set reduced to sets->bounding, setgroups, setgid,
 * setuid (in that order, keeping caps across setuid; setgroups only when
 * set_groups: a rootless run without a subordinate range may not), then
 * permitted, effective and inheritable set exactly, ambient cleared and the
 * asked ones raised. Uses only prctl, setgroups, setresgid, setresuid and
 * capset, which the default seccomp filter allows, so it may run before or
 * after the load. */
int capabilities_switch_user(uid_t uid, gid_t gid, bool set_groups, const gid_t *groups,
                             size_t n_groups, const struct capability_sets *sets, oci_error_t *err);

/* Sets the effective set to effective & the permitted set (the permitted
 * and inheritable sets unchanged); *previous (when not NULL) gets the
 * effective set it replaced. For a check made now with the capabilities a
 * later credential switch gives (the command lookup). */
int capabilities_set_effective(uint64_t effective, uint64_t *previous, oci_error_t *err);

#endif
