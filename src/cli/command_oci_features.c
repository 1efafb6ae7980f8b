/* `ocirun features`: what this ocirun implements, as the runtime spec's
 * features document (container_features). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/command_oci.h"
#include "oci/cleanup.h"

int command_oci_features(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] =
      "Usage: ocirun features\n"
      "\n"
      "Prints what this ocirun implements as the runtime spec's features document\n"
      "(JSON): the configuration versions, hooks, mount options, namespaces,\n"
      "capabilities, cgroup (v2 only), seccomp actions, operators, architectures and\n"
      "flags; AppArmor, SELinux, Intel RDT and idmapped mounts are not implemented.\n";
  static const struct option options[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  cleanup_cjson cJSON *features = NULL;
  cleanup_free char *text = NULL;
  oci_error_t err = NULL;
  int c;

  (void)global;
  while ((c = options_next(argc, argv, "+h", options, &err)) != -1) {
    if (c != 'h')
      return oci_option_error("features", &err);
    fputs(usage, stdout);
    return EXIT_OK;
  }
  if (optind < argc)
    return oci_usage_error("features", "unexpected operand '%s'", argv[optind]);
  features = container_features();
  text = features != NULL ? cJSON_Print(features) : NULL;
  if (text == NULL) {
    oci_error_set(&err, ENOMEM, "features: build the document");
    return oci_fail(&err);
  }
  printf("%s\n", text);
  return EXIT_OK;
}
