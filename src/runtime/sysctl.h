/* linux.sysctl: only the keys that belong to a namespace the container has
 * of its own (IPC, network, UTS), checked before anything is created and
 * written by the child through /proc/sys, which shows the writer's own
 * namespaces. A key that would change the host is refused. */
#ifndef SYSCTL_H
#define SYSCTL_H

#include "oci/error.h"
#include "runtime/spec/spec.h"

/* In the parent: every key is namespaced, and its namespace is the
 * container's own (new, or joined by path), else an error naming it. */
int sysctl_check(const struct spec *spec, oci_error_t *err);
/* In the child, in its namespaces, before its mounts: writes each value. */
int sysctl_apply(const struct spec *spec, oci_error_t *err);

#endif
