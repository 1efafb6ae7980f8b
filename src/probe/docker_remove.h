/* How `ocirun sweep` removes the container of a probe whose runner died:
 * the docker CLI, pointed at the engine the run record names. */
#ifndef DOCKER_REMOVE_H
#define DOCKER_REMOVE_H

#include <stddef.h>

#include "oci/error.h"
#include "runtime/state/run_state.h"

/* The endpoint as messages name it: docker_host, or the CLI's default. */
const char *docker_remove_endpoint(const char *docker_host);

/* `docker rm -f NAME`, then `docker ps -a --filter name=^NAME$` must list
 * nothing; the CLI runs with only PATH, LC_ALL=C and DOCKER_HOST=docker_host
 * (unless NULL) in its environment. Only names `ocirun probe` gives are
 * accepted. Returns 0 when the container is verified gone; -1 with *err
 * naming the container and the endpoint otherwise (engine unreachable, CLI
 * missing or too slow, container still listed). */
int docker_remove_container(const char *name, const char *docker_host, oci_error_t *err);

/* For run_state_sweep: removes a dead probe's container (the name must be
 * the run's own, the container is named as its run) at the recorded
 * engine, and says so in `what`. */
int docker_remove_for_sweep(const char *name, const struct run_record *record, char *what,
                            size_t size, oci_error_t *err);

#endif
