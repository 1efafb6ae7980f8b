/* The run's network: a new network namespace holding only the loopback
 * interface, brought up (docker's --network none); or (no network
 * namespace in the spec) the host's, shared, which every plan says. */
#ifndef NETWORK_H
#define NETWORK_H

#include <stdbool.h>

#include "oci/error.h"
#include "runtime/spec/spec.h"

/* In the child, inside the new network namespace: sets lo UP. */
int network_loopback_up(oci_error_t *err);

/* What the plan says of the run's network: its mode ("none", "pasta",
 * "joined", "host") and a line that explains it; the host's network
 * shared is said in capitals. pasta: runtime_options.pasta_options set. */
const char *network_plan_mode(const struct spec *spec, bool pasta);
const char *network_plan_text(const struct spec *spec, bool pasta);

#endif
