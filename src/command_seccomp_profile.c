/* `ocirun seccomp-profile`: placeholder until its issue lands. */
#include "config.h"

#include <stdio.h>

#include "ocirun.h"

int command_seccomp_profile(int argc, char **argv, const struct global_options *global)
{
  fprintf(stderr, "ocirun: seccomp-profile: not implemented yet\n");
  return EXIT_FAILURE_GENERIC;
}
