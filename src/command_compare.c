/* `ocirun compare`: placeholder until its issue lands. */
#include "config.h"

#include <stdio.h>

#include "ocirun.h"

int command_compare(int argc, char **argv, const struct global_options *global)
{
  fprintf(stderr, "ocirun: compare: not implemented yet\n");
  return EXIT_FAILURE_GENERIC;
}
