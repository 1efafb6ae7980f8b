/* `ocirun create`: its options and messages; the library creates the
 * container (container_create), and a failure at any step leaves no
 * container behind. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "cli/command_oci.h"
#include "cli/log.h"

int command_oci_create(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] =
      "Usage: ocirun create [OPTIONS] ID\n"
      "\n"
      "Creates container ID from the bundle's config.json: namespaces, cgroup,\n"
      "mounts, root, user, capabilities and seccomp, everything up to the user\n"
      "program, which runs at 'ocirun start ID'; the prestart, createRuntime and\n"
      "createContainer hooks run before pivot_root. stdio: ocirun's own 0, 1 and 2,\n"
      "or with process.terminal a pty\n"
      "whose master is sent to --console-socket.\n"
      "\n"
      "  -b, --bundle DIR         the bundle (default: the current directory)\n"
      "  --pid-file FILE          write the container's pid (host's pid namespace)\n"
      "  --console-socket SOCKET  a unix socket the pty's master is sent to\n"
      "                           (SCM_RIGHTS) when process.terminal is true\n"
      "  --unsafe-no-cgroup       no cgroup at all (hosts without cgroup v2): refused\n"
      "                           when config.json sets linux.resources; no pause,\n"
      "                           ps or kill --all\n"
      "  --no-pivot               refused: ocirun always pivot_roots\n"
      "  --no-new-keyring         refused: ocirun always gives the container a new\n"
      "                           session keyring\n"
      "  --preserve-fds N         only 0: ocirun passes no extra fds\n";
  static const struct option options[] = {
      {"bundle", required_argument, NULL, 'b'},
      {"pid-file", required_argument, NULL, 'p'},
      {"console-socket", required_argument, NULL, 'c'},
      {"unsafe-no-cgroup", no_argument, NULL, 'U'},
      {"no-pivot", no_argument, NULL, 'P'},
      {"no-new-keyring", no_argument, NULL, 'K'},
      {"preserve-fds", required_argument, NULL, 'F'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  struct container_create_options create_options = {.bundle = "."};
  oci_error_t err = NULL;
  const char *id;
  pid_t pid;
  int c;

  while ((c = options_next(argc, argv, "+b:h", options, &err)) != -1) {
    switch (c) {
    case 'b':
      create_options.bundle = optarg;
      break;
    case 'p':
      create_options.pid_file = optarg;
      break;
    case 'c':
      create_options.console_socket = optarg;
      break;
    case 'U':
      create_options.unsafe_no_cgroup = true;
      break;
    case 'P':
      return oci_usage_error("create", "--no-pivot is not supported: ocirun always uses "
                                       "pivot_root (a ramdisk root cannot be run)");
    case 'K':
      return oci_usage_error("create", "--no-new-keyring is not supported: ocirun always gives "
                                       "the container a session keyring of its own");
    case 'F':
      if (strcmp(optarg, "0") != 0)
        return oci_usage_error("create",
                               "--preserve-fds %s: ocirun passes no extra fds to the "
                               "container (only 0 is accepted)",
                               optarg);
      break;
    case 'h':
      fputs(usage, stdout);
      return EXIT_OK;
    default:
      return oci_option_error("create", &err);
    }
  }
  id = oci_take_id("create", argc, argv);
  if (id == NULL)
    return EXIT_USAGE;
  if (!container_id_valid(id))
    return oci_usage_error("create", "invalid container id '%s'", id);
  if (container_create(global->root, id, &create_options, log_event_sink(), &pid, &err) < 0)
    return oci_fail(&err);
  return EXIT_OK;
}
