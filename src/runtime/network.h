/* The run's network: a new network namespace holding only the loopback
 * interface, brought up (docker's --network none). */
#ifndef NETWORK_H
#define NETWORK_H

#include "oci/error.h"

/* In the child, inside the new network namespace: sets lo UP. */
int network_loopback_up(oci_error_t *err);

#endif
