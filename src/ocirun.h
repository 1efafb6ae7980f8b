/* The program's commands and the options every command shares. */
#ifndef OCIRUN_H
#define OCIRUN_H

#include <stdbool.h>

#include "oci/error.h"

/* Exit codes, following docker run where it has one. */
enum {
  EXIT_OK = 0,
  EXIT_FAILURE_GENERIC = 1,
  EXIT_USAGE = 2,
  EXIT_RUNTIME_ERROR = 125, /* ocirun itself failed; nothing ran */
  EXIT_CANNOT_EXECUTE = 126,
  EXIT_COMMAND_NOT_FOUND = 127,
};

struct global_options {
  const char *root; /* --root, $OCIRUN_ROOT, or /var/lib/ocirun */
  bool quiet;       /* --quiet: no progress output */
};

typedef int (*command_fn)(int argc, char **argv, const struct global_options *global);

int command_image(int argc, char **argv, const struct global_options *global);
int command_run(int argc, char **argv, const struct global_options *global);
int command_probe(int argc, char **argv, const struct global_options *global);
int command_compare(int argc, char **argv, const struct global_options *global);
int command_seccomp_profile(int argc, char **argv, const struct global_options *global);
int command_sweep(int argc, char **argv, const struct global_options *global);

#endif
