/* `ocirun seccomp-profile`: prints the default seccomp profile as Docker/OCI
 * JSON, for diffing against Docker's; with --cap-add/--cap-drop, the filter
 * exactly as a run with those options would apply it on this host. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/capabilities.h"
#include "cli/log.h"
#include "cli/ocirun.h"
#include "oci/options.h"
#include "oci/cleanup.h"
#include "runtime/seccomp/filter.h"

static void usage(FILE *out)
{
  fprintf(out, "Usage: ocirun seccomp-profile [--cap-add CAP]... [--cap-drop CAP]...\n"
               "                              [--profile FILE]\n"
               "\n"
               "Prints the default seccomp profile in Docker's JSON format. With\n"
               "--cap-add/--cap-drop (docker run's meanings) or --profile (a Docker/OCI\n"
               "profile, as --security-opt seccomp=FILE), prints instead the rules that\n"
               "apply to a run with those options on this host.\n");
}

static int add_capability(const char *name, uint64_t *mask, bool *all)
{
  int cap = capability_from_name(name);
  if (cap == CAPABILITY_ALL) {
    *all = true;
    return 0;
  }
  if (cap < 0) {
    fprintf(stderr, "ocirun: seccomp-profile: unknown capability '%s'\n", name);
    return -1;
  }
  *mask |= UINT64_C(1) << cap;
  return 0;
}

int command_seccomp_profile(int argc, char **argv, const struct global_options *global)
{
  static const struct option options[] = {
      {"cap-add", required_argument, NULL, 'a'},
      {"cap-drop", required_argument, NULL, 'd'},
      {"profile", required_argument, NULL, 'p'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  uint64_t add = 0, drop = 0, caps;
  bool add_all = false, drop_all = false, resolved = false;
  struct seccomp_filter *filter = NULL;
  oci_error_t err = NULL;
  const char *profile_path = NULL;
  int c;

  while ((c = options_next(argc, argv, "+h", options, &err)) != -1) {
    switch (c) {
    case 'a':
      if (add_capability(optarg, &add, &add_all) < 0)
        return EXIT_USAGE;
      resolved = true;
      break;
    case 'd':
      if (add_capability(optarg, &drop, &drop_all) < 0)
        return EXIT_USAGE;
      resolved = true;
      break;
    case 'p':
      profile_path = optarg;
      resolved = true;
      break;
    case 'h':
      usage(stdout);
      return EXIT_OK;
    default:
      oci_error_wrap(&err, "seccomp-profile");
      log_error(&err);
      usage(stderr);
      return EXIT_USAGE;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "ocirun: seccomp-profile: unexpected argument '%s'\n", argv[optind]);
    return EXIT_USAGE;
  }
  if (!resolved) {
    if (seccomp_print_default_profile(stdout, &err) < 0) {
      log_error(&err);
      return EXIT_FAILURE_GENERIC;
    }
    return EXIT_OK;
  }
  /* docker run's order: drop first (ALL clears the base), then add. */
  caps = drop_all ? 0 : capabilities_docker_default() & ~drop;
  caps |= add_all ? ~UINT64_C(0) : add;
  if (seccomp_filter_build(profile_path, caps, &filter, &err) < 0) {
    log_error(&err);
    return EXIT_FAILURE_GENERIC;
  }
  cleanup_free char *json = seccomp_filter_profile_json(filter);
  seccomp_filter_free(filter);
  if (json == NULL || printf("%s\n", json) < 0 || fflush(stdout) != 0) {
    fprintf(stderr, "ocirun: seccomp-profile: write failed\n");
    return EXIT_FAILURE_GENERIC;
  }
  return EXIT_OK;
}
