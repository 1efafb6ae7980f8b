/* --network none: the new network namespace starts with lo down; a process
 * expects 127.0.0.1 to work, so lo is brought up and nothing else exists.
 * A spec without a network namespace shares the host's: the plan says so. */
#include "config.h"

#include "runtime/network.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "oci/cleanup.h"

int network_loopback_up(oci_error_t *err)
{
  cleanup_close int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq request;

  if (sock < 0)
    return oci_error_errno(err, "network: socket for lo");
  memset(&request, 0, sizeof(request));
  strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl(sock, SIOCGIFFLAGS, &request) < 0)
    return oci_error_errno(err, "network: SIOCGIFFLAGS lo");
  request.ifr_flags |= IFF_UP;
  if (ioctl(sock, SIOCSIFFLAGS, &request) < 0)
    return oci_error_errno(err, "network: SIOCSIFFLAGS lo up");
  return 0;
}

const char *network_plan_mode(const struct spec *spec, bool pasta)
{
  const struct spec_namespace *net = &spec->namespaces[SPEC_NS_NETWORK];

  return !net->present ? "host" : net->path != NULL ? "joined" : pasta ? "pasta" : "none";
}

const char *network_plan_text(const struct spec *spec, bool pasta)
{
  const struct spec_namespace *net = &spec->namespaces[SPEC_NS_NETWORK];

  if (!net->present)
    return "HOST: no network namespace of its own, the host's network is shared (every "
           "interface, every listening port, the host's loopback services)";
  if (net->path != NULL)
    return "the network namespace of linux.namespaces, joined";
  if (pasta)
    return "a new network namespace, connected by pasta (user-mode: the container's connections "
           "leave through pasta's sockets on the host; only the ports of -p come in; the host's "
           "loopback is not reachable)";
  return "a new network namespace, lo only";
}
