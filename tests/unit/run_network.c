/* Unit tests of the network options (src/docker_run/run_network.c): -p in
 * each of docker's spellings and the ones refused, pasta's options for
 * them, --add-host and --dns read strictly, and the generated files. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "docker_run/run_network.h"
#include "oci/cleanup.h"
#include "unit.h"

/* One -p into a fresh network: 0 or -1, and the port read. */
static int port(const char *text, struct run_port *out)
{
  struct run_network network = {.mode = RUN_NETWORK_PASTA};
  oci_error_t err = NULL;
  int ret = run_network_add_port(&network, text, &err);

  if (ret == 0)
    *out = network.ports[0];
  oci_error_free(&err);
  run_network_clear(&network);
  return ret;
}

/* pasta's options for the ports given, joined by spaces. */
static void pasta_options_of(const char *const *ports, char *out, size_t size)
{
  struct run_network network = {.mode = RUN_NETWORK_PASTA};
  cleanup_strv char **options = NULL;
  oci_error_t err = NULL;

  out[0] = '\0';
  for (size_t i = 0; ports[i] != NULL; i++)
    run_network_add_port(&network, ports[i], &err);
  if (run_network_pasta_options(&network, &options, &err) == 0) {
    for (size_t i = 0; options[i] != NULL; i++)
      snprintf(out + strlen(out), size - strlen(out), "%s%s", i > 0 ? " " : "", options[i]);
  }
  oci_error_free(&err);
  run_network_clear(&network);
}

int main(void)
{
  static const char *const refused[] = {
      "80",
      "8080",
      ":80",
      "8080:",
      "0:80",
      "8080:0",
      "65536:80",
      "8080:65536",
      "8000-8001:80",
      "8080:80/sctp",
      "8080:80/",
      "localhost:1:2",
      "::1:80:80",
      "[::1]80:80",
      "[127.0.0.1]:1:2",
      "1.2.3.4:5:6:7",
      "1.2.3.4 :5:6",
      "8080:80\n",
      "+80:80",
      "8080:80/tcp/udp",
  };
  struct run_port p;
  struct run_network network = {0};
  struct run_network_files files;
  oci_error_t err = NULL;
  char text[512];

  is_int(port("8080:80", &p), 0, "-p 8080:80");
  ok(p.host_port == 8080 && p.container_port == 80 && !p.udp && p.address[0] == '\0',
     "8080:80: tcp, any address");
  is_int(port("127.0.0.1:8080:80/udp", &p), 0, "-p 127.0.0.1:8080:80/udp");
  ok(strcmp(p.address, "127.0.0.1") == 0 && p.udp, "its address and udp");
  is_int(port("[::1]:8080:80/tcp", &p), 0, "-p [::1]:8080:80/tcp");
  is_str(p.address, "::1", "the IPv6 address, without brackets");
  is_int(port("[0:0::1]:1:65535", &p), 0, "-p [0:0::1]:1:65535");
  is_str(p.address, "::1", "written as inet_ntop writes it");
  for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
    is_int(port(refused[i], &p), -1, "-p '%s' refused", refused[i]);

  pasta_options_of((const char *const[]){NULL}, text, sizeof(text));
  is_str(text, "--dns-forward 169.254.1.1 -t none -u none",
         "no -p: pasta forwards nothing (its default would be every bound port)");
  pasta_options_of((const char *const[]){"127.0.0.1:8080:80", "53:53/udp", "[::1]:9:9", NULL}, text,
                   sizeof(text));
  is_str(text, "--dns-forward 169.254.1.1 -t 127.0.0.1/8080:80 -t ::1/9:9 -u 53:53",
         "each -p as pasta's ADDRESS/HOST:CONTAINER, by protocol");

  is_int(run_network_add_host(&network, "db.local:10.1.2.3", &err), 0,
         "--add-host db.local:10.1.2.3");
  is_int(run_network_add_host(&network, "v6_host:fd00::5", &err), 0,
         "--add-host v6_host:fd00::5 (the first ':' splits)");
  is_int(run_network_add_host(&network, "-x:10.0.0.1", &err), -1,
         "a name starting with '-' refused");
  oci_error_free(&err);
  is_int(run_network_add_host(&network, "a\tb:10.0.0.1", &err), -1, "a name with a tab refused");
  oci_error_free(&err);
  is_int(run_network_add_host(&network, "a:10.0.0.1 ", &err), -1, "an IP with a space refused");
  oci_error_free(&err);
  is_int(run_network_add_dns(&network, "192.0.2.53", &err), 0, "--dns 192.0.2.53");
  is_int(run_network_add_dns(&network, "010.0.0.1", &err), -1,
         "--dns 010.0.0.1 refused (inet_pton's strict IPv4)");
  oci_error_free(&err);
  is_int(run_network_files_build(&network, "127.0.0.1\tlocalhost\n", &files, &err), 0,
         "the generated files");
  is_int((int)files.n, 2, "two files: hosts and resolv.conf");
  is_str(files.file[0].content, "127.0.0.1\tlocalhost\n10.1.2.3\tdb.local\nfd00::5\tv6_host\n",
         "/etc/hosts: localhost, then each --add-host");
  is_str(files.file[1].content, "nameserver 192.0.2.53\n", "/etc/resolv.conf: the --dns");
  run_network_files_clear(&files);
  run_network_clear(&network);
  is_int(run_network_files_build(&network, "x", &files, &err), 0, "no options: no files");
  is_int((int)files.n, 0, "nothing generated when nothing is asked");
  network.mode = RUN_NETWORK_PASTA;
  is_int(run_network_files_build(&network, "x", &files, &err), 0, "pasta, no --dns");
  ok(files.n == 1 && strcmp(files.file[0].content, "nameserver 169.254.1.1\n") == 0,
     "pasta without --dns: resolv.conf names pasta's forwarder");
  run_network_files_clear(&files);
  return unit_done();
}
