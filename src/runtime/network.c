/* --network none: the new network namespace starts with lo down; a process
 * expects 127.0.0.1 to work, so lo is brought up and nothing else exists. */
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
