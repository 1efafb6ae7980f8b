/* Capabilities: the set --cap-drop/--cap-add leave (Docker's default set as
 * the base), and the switch to the run's user with them. */
#ifndef CAPABILITIES_H
#define CAPABILITIES_H

#include <stdint.h>
#include <sys/types.h>

#include "oci/error.h"

/* "CAP_NET_RAW", "net_raw", "ALL" (returns -2 for ALL) -> capability number */
int capability_from_name(const char *name);
/* Docker's default capability set as a bit mask. */
uint64_t capabilities_docker_default(void);
/* In the child: bounding set reduced to keep, setgroups, setgid, setuid
 * (in that order, keeping caps across setuid), then permitted, effective,
 * inheritable and ambient set to keep (effective/permitted empty for a
 * non-root uid, as Docker does). */
int capabilities_switch_user(uid_t uid, gid_t gid, const gid_t *groups, size_t n_groups,
                             uint64_t keep, oci_error_t *err);

#endif
