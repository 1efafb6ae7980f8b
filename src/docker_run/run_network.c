/* `ocirun run`'s network options (see run_network.h). Every value is read
 * strictly: an address only as inet_pton reads it, a name only of the
 * characters a hosts file can hold, so nothing written into the run's
 * /etc/hosts or /etc/resolv.conf can add a line of its own. */
#include "config.h"

#include "docker_run/run_network.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "oci/cleanup.h"

#define HOST_NAME_MAX_LEN 253
#define UNPRIVILEGED_PORT_START "/proc/sys/net/ipv4/ip_unprivileged_port_start"

const char *run_network_mode_name(enum run_network_mode mode)
{
  return mode == RUN_NETWORK_HOST ? "host" : mode == RUN_NETWORK_PASTA ? "pasta" : "none";
}

int run_network_set_mode(struct run_network *network, const char *text, oci_error_t *err)
{
  static const enum run_network_mode modes[] = {RUN_NETWORK_NONE, RUN_NETWORK_HOST,
                                                RUN_NETWORK_PASTA};

  for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
    if (strcmp(text, run_network_mode_name(modes[i])) == 0) {
      network->mode = modes[i];
      return 0;
    }
  }
  return oci_error_set(err, 0,
                       "--network '%s': unsupported; ocirun knows none (the default: a new "
                       "network namespace with only lo), host (the host's network, shared) and "
                       "pasta (user-mode networking)",
                       text);
}

/* A numeric IPv4 or IPv6 address, nothing else (no name, no scope, no
 * port), in the form inet_ntop writes it. */
static bool parse_address(const char *text, char out[46])
{
  unsigned char bytes[16];

  if (inet_pton(AF_INET, text, bytes) == 1)
    return inet_ntop(AF_INET, bytes, out, 46) != NULL;
  if (inet_pton(AF_INET6, text, bytes) == 1)
    return inet_ntop(AF_INET6, bytes, out, 46) != NULL;
  return false;
}

/* A host name as a hosts file holds it: letters, digits, '-', '.' and
 * '_', not starting with '-' or '.', at most 253 bytes. */
static bool valid_host_name(const char *name, size_t len)
{
  if (len == 0 || len > HOST_NAME_MAX_LEN || name[0] == '-' || name[0] == '.')
    return false;
  for (size_t i = 0; i < len; i++) {
    if (!isalnum((unsigned char)name[i]) && strchr("-._", name[i]) == NULL)
      return false;
  }
  return true;
}

int run_network_add_dns(struct run_network *network, const char *text, oci_error_t *err)
{
  char address[46];
  char *copy;
  char **grown;

  if (!parse_address(text, address))
    return oci_error_set(err, 0, "--dns '%s': a numeric IPv4 or IPv6 address is expected", text);
  grown = reallocarray(network->dns, network->n_dns + 1, sizeof(*grown));
  if (grown == NULL)
    return oci_error_errno(err, "run: allocate --dns");
  network->dns = grown;
  copy = strdup(address);
  if (copy == NULL)
    return oci_error_errno(err, "run: allocate --dns");
  network->dns[network->n_dns++] = copy;
  return 0;
}

/* NAME:IP, split at the first ':' (an IPv6 address has more of them). */
int run_network_add_host(struct run_network *network, const char *text, oci_error_t *err)
{
  const char *colon = strchr(text, ':');
  struct run_host_entry entry = {0};
  struct run_host_entry *grown;

  if (colon == NULL || !valid_host_name(text, (size_t)(colon - text)))
    return oci_error_set(err, 0,
                         "--add-host '%s': NAME:IP is expected, NAME of letters, digits, '-', "
                         "'.' and '_' (at most %d)",
                         text, HOST_NAME_MAX_LEN);
  if (!parse_address(colon + 1, entry.address))
    return oci_error_set(err, 0, "--add-host '%s': '%s' is not a numeric IPv4 or IPv6 address",
                         text, colon + 1);
  grown = reallocarray(network->hosts, network->n_hosts + 1, sizeof(*grown));
  if (grown == NULL)
    return oci_error_errno(err, "run: allocate --add-host");
  network->hosts = grown;
  entry.name = strndup(text, (size_t)(colon - text));
  if (entry.name == NULL)
    return oci_error_errno(err, "run: allocate --add-host");
  network->hosts[network->n_hosts++] = entry;
  return 0;
}

/* 1..65535 in decimal, nothing after it. */
static bool parse_port(const char *text, size_t len, unsigned *out)
{
  unsigned value = 0;

  if (len == 0 || len > 5)
    return false;
  for (size_t i = 0; i < len; i++) {
    if (!isdigit((unsigned char)text[i]))
      return false;
    value = value * 10 + (unsigned)(text[i] - '0');
  }
  if (value < 1 || value > 65535)
    return false;
  *out = value;
  return true;
}

/* [IP:]HOST:CONTAINER[/tcp|udp]; an IPv6 IP in brackets ([::1]:8080:80).
 * A range (8000-8010) or a host port left to choose (-p 80) is refused. */
int run_network_add_port(struct run_network *network, const char *text, oci_error_t *err)
{
  struct run_port port = {0};
  struct run_port *grown;
  const char *slash = strchr(text, '/');
  size_t len = slash != NULL ? (size_t)(slash - text) : strlen(text);
  const char *rest = text;
  const char *colon;

  if (slash != NULL && strcmp(slash, "/tcp") != 0 && strcmp(slash, "/udp") != 0)
    return oci_error_set(err, 0, "--publish '%s': the protocol is tcp or udp", text);
  port.udp = slash != NULL && strcmp(slash, "/udp") == 0;
  /* the address, when there is one: everything before the last two fields */
  if (text[0] == '[') {
    const char *close = memchr(text, ']', len);
    char address[46] = "";

    if (close == NULL || close[1] != ':' || (size_t)(close - text - 1) >= sizeof(address))
      goto refused;
    memcpy(address, text + 1, (size_t)(close - text - 1));
    if (strchr(address, ':') == NULL || !parse_address(address, port.address))
      goto refused;
    rest = close + 2;
  } else {
    const char *first = memchr(text, ':', len);
    const char *second =
        first != NULL ? memchr(first + 1, ':', len - (size_t)(first + 1 - text)) : NULL;
    char address[46] = "";

    if (second != NULL) {
      if ((size_t)(first - text) >= sizeof(address))
        goto refused;
      memcpy(address, text, (size_t)(first - text));
      if (strchr(address, ':') != NULL || !parse_address(address, port.address))
        goto refused;
      rest = first + 1;
    }
  }
  len -= (size_t)(rest - text);
  colon = memchr(rest, ':', len);
  if (colon == NULL || !parse_port(rest, (size_t)(colon - rest), &port.host_port) ||
      !parse_port(colon + 1, len - (size_t)(colon + 1 - rest), &port.container_port))
    goto refused;
  grown = reallocarray(network->ports, network->n_ports + 1, sizeof(*grown));
  if (grown == NULL)
    return oci_error_errno(err, "run: allocate --publish");
  network->ports = grown;
  network->ports[network->n_ports++] = port;
  return 0;
refused:
  return oci_error_set(err, 0,
                       "--publish '%s': [IP:]HOST:CONTAINER[/tcp|udp] is expected (ports 1 to "
                       "65535, an IPv6 IP in brackets; no ranges)",
                       text);
}

/* The host's lowest port an unprivileged process may bind (1024 when the
 * file cannot be read: the kernel's default). */
static unsigned unprivileged_port_start(void)
{
  cleanup_close int fd = open(UNPRIVILEGED_PORT_START, O_RDONLY | O_CLOEXEC);
  char text[32];
  ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
  unsigned long value;
  char *end;

  if (n <= 0)
    return 1024;
  text[n] = '\0';
  value = strtoul(text, &end, 10);
  return end == text || value > 65536 ? 1024 : (unsigned)value;
}

int run_network_check(const struct run_network *network, bool rootless, oci_error_t *err)
{
  if (network->n_ports > 0 && network->mode != RUN_NETWORK_PASTA)
    return oci_error_set(err, 0,
                         "--publish needs --network pasta (with --network %s nothing could "
                         "forward a port)",
                         run_network_mode_name(network->mode));
  /* sysfs is mounted only by the owner of the network namespace it shows */
  if (rootless && network->mode == RUN_NETWORK_HOST)
    return oci_error_set(err, EPERM,
                         "--network host: not without privilege (the run's user namespace "
                         "cannot mount sysfs for the host's network namespace)");
  if (rootless) {
    unsigned start = unprivileged_port_start();

    for (size_t i = 0; i < network->n_ports; i++) {
      if (network->ports[i].host_port < start)
        return oci_error_set(err, EACCES,
                             "--publish: host port %u is privileged (below this host's "
                             "net.ipv4.ip_unprivileged_port_start, %u): rootless, pasta could "
                             "not bind it",
                             network->ports[i].host_port, start);
    }
  }
  /* pasta makes the container's interface from /dev/net/tun as the user */
  if (rootless && network->mode == RUN_NETWORK_PASTA && access("/dev/net/tun", R_OK | W_OK) < 0)
    return oci_error_errno(err,
                           "--network pasta: /dev/net/tun cannot be opened by this user (pasta "
                           "needs it; most hosts make it mode 0666)");
  return 0;
}

int run_network_pasta_options(const struct run_network *network, char ***out, oci_error_t *err)
{
  cleanup_strv char **options = calloc(2 * network->n_ports + 7, sizeof(*options));
  size_t n = 0;

  *out = NULL;
  if (options == NULL)
    return oci_error_errno(err, "run: allocate pasta's options");
  /* the run's /etc/resolv.conf names the forwarder unless --dns is given */
  if (network->n_dns == 0) {
    options[n++] = strdup("--dns-forward");
    options[n++] = strdup(RUN_NETWORK_PASTA_DNS);
    if (options[0] == NULL || options[1] == NULL)
      return oci_error_errno(err, "run: allocate pasta's options");
  }
  for (int udp = 0; udp <= 1; udp++) {
    size_t before = n;

    for (size_t i = 0; i < network->n_ports; i++) {
      const struct run_port *port = &network->ports[i];

      if (port->udp != (udp == 1))
        continue;
      options[n++] = strdup(udp ? "-u" : "-t");
      if (asprintf(&options[n++], "%s%s%u:%u", port->address, port->address[0] != '\0' ? "/" : "",
                   port->host_port, port->container_port) < 0)
        options[n - 1] = NULL;
      if (options[n - 2] == NULL || options[n - 1] == NULL)
        return oci_error_errno(err, "run: allocate pasta's options");
    }
    if (n == before) {
      options[n++] = strdup(udp ? "-u" : "-t");
      options[n++] = strdup("none");
      if (options[n - 2] == NULL || options[n - 1] == NULL)
        return oci_error_errno(err, "run: allocate pasta's options");
    }
  }
  *out = steal_pointer(&options);
  return 0;
}

/* Appends text to *content (reallocated). */
static int append(char **content, const char *text, oci_error_t *err)
{
  size_t had = *content != NULL ? strlen(*content) : 0;
  char *grown = realloc(*content, had + strlen(text) + 1);

  if (grown == NULL)
    return oci_error_errno(err, "run: allocate the network's files");
  memcpy(grown + had, text, strlen(text) + 1);
  *content = grown;
  return 0;
}

int run_network_files_build(const struct run_network *network, const char *etc_hosts,
                            struct run_network_files *files, oci_error_t *err)
{
  char line[HOST_NAME_MAX_LEN + 64];

  *files = (struct run_network_files){0};
  if (network->n_hosts > 0) {
    struct run_network_file *hosts = &files->file[files->n++];

    *hosts = (struct run_network_file){"hosts", "/etc/hosts", "--add-host", NULL};
    if (append(&hosts->content, etc_hosts, err) < 0)
      goto fail;
    for (size_t i = 0; i < network->n_hosts; i++) {
      snprintf(line, sizeof(line), "%s\t%s\n", network->hosts[i].address, network->hosts[i].name);
      if (append(&hosts->content, line, err) < 0)
        goto fail;
    }
  }
  if (network->n_dns > 0 || network->mode == RUN_NETWORK_PASTA) {
    struct run_network_file *resolv = &files->file[files->n++];

    *resolv = (struct run_network_file){"resolv.conf", "/etc/resolv.conf",
                                        network->n_dns > 0 ? "--dns" : "--network pasta", NULL};
    if (append(&resolv->content, "", err) < 0)
      goto fail;
    for (size_t i = 0; i < network->n_dns; i++) {
      snprintf(line, sizeof(line), "nameserver %s\n", network->dns[i]);
      if (append(&resolv->content, line, err) < 0)
        goto fail;
    }
    if (network->n_dns == 0 &&
        append(&resolv->content, "nameserver " RUN_NETWORK_PASTA_DNS "\n", err) < 0)
      goto fail;
  }
  return 0;
fail:
  run_network_files_clear(files);
  return -1;
}

int run_network_files_mount(const struct run_network_files *files, const char *run_dir,
                            cJSON *config, oci_error_t *err)
{
  static const char *const bind_options[] = {"bind", "ro", "nosuid", "nodev", "noexec"};
  cJSON *mounts = cJSON_GetObjectItemCaseSensitive(config, "mounts");

  if (!cJSON_IsArray(mounts))
    return oci_error_set(err, EINVAL, "run: the configuration has no mounts");
  for (size_t i = files->n; i-- > 0;) {
    cleanup_free char *source = NULL;
    cJSON *mount = cJSON_CreateObject();

    if (mount == NULL || !cJSON_InsertItemInArray(mounts, 0, mount)) {
      cJSON_Delete(mount);
      return oci_error_set(err, ENOMEM, "run: the network's binds");
    }
    if (asprintf(&source, "%s/%s", run_dir, files->file[i].name) < 0) {
      source = NULL;
      return oci_error_errno(err, "run: the network's binds");
    }
    if (cJSON_AddStringToObject(mount, "destination", files->file[i].target) == NULL ||
        cJSON_AddStringToObject(mount, "type", "bind") == NULL ||
        cJSON_AddStringToObject(mount, "source", source) == NULL ||
        !cJSON_AddItemToObject(
            mount, "options",
            cJSON_CreateStringArray(bind_options, sizeof(bind_options) / sizeof(bind_options[0]))))
      return oci_error_set(err, ENOMEM, "run: the network's binds");
  }
  return 0;
}

void run_network_files_clear(struct run_network_files *files)
{
  for (size_t i = 0; i < files->n; i++)
    free(files->file[i].content);
  *files = (struct run_network_files){0};
}

void run_network_clear(struct run_network *network)
{
  for (size_t i = 0; i < network->n_dns; i++)
    free(network->dns[i]);
  free(network->dns);
  for (size_t i = 0; i < network->n_hosts; i++)
    free(network->hosts[i].name);
  free(network->hosts);
  free(network->ports);
  *network = (struct run_network){0};
}
