/* pasta (Debian's passt package): user-mode networking for the run's new
 * network namespace, started by the parent between clone3 and the go
 * byte, and stopped, and checked gone, when the run ends. */
#ifndef RUNTIME_PASTA_H
#define RUNTIME_PASTA_H

#include <stdbool.h>
#include <sys/types.h>

#include "oci/error.h"

/* Where pasta is looked for (never the caller's PATH). */
#define PASTA_PATHS                                                                                \
  {                                                                                                \
    "/usr/bin/pasta", "/usr/local/bin/pasta"                                                       \
  }

struct pasta {
  pid_t pid; /* ocirun's child (pasta --foreground); -1 */
  int pidfd; /* of pid; -1 */
};

#define PASTA_NONE ((struct pasta){.pid = -1, .pidfd = -1})

/* Starts pasta for the network namespace (and, user_ns, the user
 * namespace) of the process pid: its interface configured (--config-net),
 * the ports of port_options forwarded in ("-t", "[IP/]HOST:CONTAINER",
 * "-u", ...; "none" for a protocol without one), nothing of the host's
 * forwarded out (-T none -U none, --no-map-gw: the host's loopback is not
 * the container's). pasta stays ocirun's child (--foreground), killed
 * with ocirun (its parent-death signal); it is ready once it has written
 * its pid into pid_file. As root pasta keeps uid 0 (--runas 0: as nobody
 * it could not enter the namespace); it drops to the capabilities it
 * needs and filters itself. */
int pasta_start(pid_t pid, bool user_ns, const char *const *port_options, const char *pid_file,
                struct pasta *pasta, oci_error_t *err);

/* SIGKILL, reaped, and checked gone (the pidfd then signals ESRCH). */
int pasta_stop(struct pasta *pasta, oci_error_t *err);

#endif
