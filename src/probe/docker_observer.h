/* The host observer for the docker backend: what the engine says of the
 * probe's container (`docker inspect`) and, when the engine runs on this
 * host, what the kernel says of its process (/proc/<State.Pid>). */
#ifndef DOCKER_OBSERVER_H
#define DOCKER_OBSERVER_H

#include <sys/types.h>

#include <cjson/cJSON.h>

/* Observes container `name` while its process waits for the probe program
 * on stdin. Polls `docker inspect` until the container runs; gives up when
 * seconds_left is spent, the docker CLI that starts it (starter) has exited,
 * or interrupt_fd (or -1) is readable. Then reads the host's view. Returns
 * the host_observed object ("missing" says why when nothing could be
 * observed); NULL only when out of memory. */
cJSON *docker_observe_container(const char *name, pid_t starter, int interrupt_fd,
                                double seconds_left);

#endif
