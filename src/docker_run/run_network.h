/* `ocirun run`'s network options (docker run's names): --network, --dns,
 * --add-host and -p/--publish, each checked strictly as it is read, kept
 * apart from the other options so that a run asks exactly for what it
 * names. */
#ifndef RUN_NETWORK_H
#define RUN_NETWORK_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "oci/error.h"

enum run_network_mode {
  RUN_NETWORK_NONE,  /* the default: a new network namespace with lo only */
  RUN_NETWORK_HOST,  /* no network namespace of its own: the host's is shared */
  RUN_NETWORK_PASTA, /* a new network namespace that pasta connects (user-mode) */
};

/* -p [IP:]HOST:CONTAINER[/tcp|udp] */
struct run_port {
  char address[46];   /* the host address to listen on (IPv4 or IPv6), "" for any */
  unsigned host_port; /* 1..65535 */
  unsigned container_port;
  bool udp;
};

/* --add-host NAME:IP */
struct run_host_entry {
  char *name;
  char address[46]; /* IPv4 or IPv6, as inet_pton read and inet_ntop wrote it */
};

struct run_network {
  enum run_network_mode mode;
  char **dns; /* --dns, in order, each a numeric IPv4 or IPv6 address */
  size_t n_dns;
  struct run_host_entry *hosts;
  size_t n_hosts;
  struct run_port *ports;
  size_t n_ports;
};

/* The options, one by one; option names the flag as typed for messages
 * ("--network", "--dns", "--add-host", "--publish"). */
int run_network_set_mode(struct run_network *network, const char *text, oci_error_t *err);
int run_network_add_dns(struct run_network *network, const char *text, oci_error_t *err);
int run_network_add_host(struct run_network *network, const char *text, oci_error_t *err);
int run_network_add_port(struct run_network *network, const char *text, oci_error_t *err);
/* Once every option is read: -p needs --network pasta; rootless, a port
 * below the host's unprivileged port start is refused. */
int run_network_check(const struct run_network *network, bool rootless, oci_error_t *err);
void run_network_clear(struct run_network *network);

/* --network pasta: pasta's port options for the ports of -p, in order
 * ("-t", "[IP/]HOST:CONTAINER", "-u", ...), "-t none" and "-u none" for a
 * protocol without one (pasta's default would forward every port the
 * container binds); *out NULL-terminated, the caller frees it. */
int run_network_pasta_options(const struct run_network *network, char ***out, oci_error_t *err);

/* The files the network options generate, written by ocirun into the run
 * dir and bound read-only over the image's: /etc/hosts with --add-host
 * (the localhost lines first), /etc/resolv.conf with --dns (those
 * nameservers) or --network pasta (pasta's DNS forwarder, which passes
 * queries to the host's resolver). None without those options: the run
 * then keeps what it had (/etc/hosts written into the root, the image's
 * /etc/resolv.conf). */
struct run_network_file {
  const char *name;   /* in the run dir: "hosts", "resolv.conf" */
  const char *target; /* in the container: "/etc/hosts", "/etc/resolv.conf" */
  const char *option; /* what asked for it, for messages: "--add-host", ... */
  char *content;
};
struct run_network_files {
  struct run_network_file file[2];
  size_t n;
};
/* The address pasta answers DNS on (--dns-forward), link-local: never a
 * host of the networks the container reaches. */
#define RUN_NETWORK_PASTA_DNS "169.254.1.1"
int run_network_files_build(const struct run_network *network, const char *etc_hosts,
                            struct run_network_files *files, oci_error_t *err);
void run_network_files_clear(struct run_network_files *files);
/* Their binds, first in the configuration's mounts (the --tmpfs entries
 * stay last): each file of run_dir bound read-only, nosuid, nodev and
 * noexec onto its target. */
int run_network_files_mount(const struct run_network_files *files, const char *run_dir,
                            cJSON *config, oci_error_t *err);

/* The name of a mode, as --network takes it. */
const char *run_network_mode_name(enum run_network_mode mode);

#endif
