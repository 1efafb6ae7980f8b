/* linux.seccomp.listenerPath: the filter's notify listener, sent with the
 * container process state to the caller's seccomp agent (the agent itself
 * is the caller's; ocirun only hands over the listener). */
#ifndef SECCOMP_LISTENER_H
#define SECCOMP_LISTENER_H

#include <sys/types.h>

#include "oci/error.h"
#include "runtime/spec/spec.h"

/* The parent, before clone3: connects to the agent's socket (O_CLOEXEC). */
int seccomp_listener_connect(const char *path, oci_error_t *err);

/* The child, before its mounts (allocation before the filter): the
 * spec's "container process state" for pid (as the host sees it), with
 * "fds": ["seccompFd"] and listenerMetadata. Caller frees. */
char *seccomp_listener_state(const struct spec *spec, const char *id, const char *bundle, pid_t pid,
                             oci_error_t *err);

/* The child, right after the filter is loaded: one sendmsg, the listener
 * in SCM_RIGHTS and state as its payload, then both descriptors closed,
 * so the workload never holds either. */
int seccomp_listener_send(int socket_fd, int listener, const char *state, oci_error_t *err);

#endif
