/* The host observer for the docker backend: what the engine says of the
 * probe's container (`docker inspect`) and, when the engine runs on this
 * host, what the kernel says of its process (/proc/<State.Pid>). */
#ifndef DOCKER_OBSERVER_H
#define DOCKER_OBSERVER_H

#include <cjson/cJSON.h>

/* Observes container `name` while its process waits for the probe program
 * on stdin. Polls `docker inspect` until the container runs (or
 * seconds_left is spent), then reads the host's view. Returns the
 * host_observed object ("missing" says why when nothing could be observed);
 * NULL only when out of memory. */
cJSON *docker_observe_container(const char *name, double seconds_left);

#endif
