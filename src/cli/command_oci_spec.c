/* `ocirun spec`: writes the default config.json (container_default_config)
 * into a bundle, never over an existing one. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/command_oci.h"
#include "oci/atomic_file.h"
#include "oci/cleanup.h"

int command_oci_spec(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] =
      "Usage: ocirun spec [--rootless] [--bundle DIR]\n"
      "\n"
      "Writes DIR/config.json (default: the current directory), a configuration that\n"
      "runs 'sh' from DIR/rootfs (e.g. busybox) with runc's defaults, except\n"
      "process.terminal false, so 'ocirun create' needs no console socket. An\n"
      "existing config.json is left alone (an error).\n"
      "\n"
      "  --rootless         for a user without privilege: a user namespace mapping\n"
      "                     the caller's uid and gid to 0, no network namespace, no\n"
      "                     device rules, /sys bound from the host\n"
      "  -b, --bundle DIR   where to write config.json\n";
  static const struct option options[] = {{"rootless", no_argument, NULL, 'R'},
                                          {"bundle", required_argument, NULL, 'b'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
  const char *bundle = ".";
  bool rootless = false;
  cleanup_cjson cJSON *config = NULL;
  cleanup_free char *text = NULL;
  cleanup_close int dir_fd = -1;
  struct atomic_file file;
  oci_error_t err = NULL;
  char what[4200];
  int c;

  (void)global;
  while ((c = options_next(argc, argv, "+b:h", options, &err)) != -1) {
    switch (c) {
    case 'R':
      rootless = true;
      break;
    case 'b':
      bundle = optarg;
      break;
    case 'h':
      fputs(usage, stdout);
      return EXIT_OK;
    default:
      return oci_option_error("spec", &err);
    }
  }
  if (optind < argc)
    return oci_usage_error("spec", "unexpected operand '%s'", argv[optind]);
  config = container_default_config(rootless, geteuid(), getegid());
  text = config != NULL ? cJSON_Print(config) : NULL;
  if (text == NULL) {
    oci_error_set(&err, ENOMEM, "spec: build the configuration");
    return oci_fail(&err);
  }
  snprintf(what, sizeof(what), "'%s/config.json'", bundle);
  dir_fd = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) {
    oci_error_errno(&err, "spec: bundle '%s'", bundle);
    return oci_fail(&err);
  }
  /* Linked, not renamed, into place: an existing config.json is kept. */
  if (atomic_file_begin(&file, dir_fd, ".config.json", 0644, what, &err) < 0 ||
      atomic_file_write(&file, text, strlen(text), &err) < 0 ||
      atomic_file_write(&file, "\n", 1, &err) < 0 ||
      atomic_file_commit(&file, dir_fd, "config.json", ATOMIC_FILE_NO_REPLACE, &err) < 0) {
    if (err != NULL && err->errno_value == EEXIST) {
      oci_error_free(&err);
      oci_error_set(&err, 0, "spec: %s exists; remove it first", what);
    }
    return oci_fail(&err);
  }
  return EXIT_OK;
}
