/* Command-line options, matched exactly. getopt_long alone takes any
 * unique prefix of a long option ("--pid 5" as --pids-limit 5, where
 * docker's --pid means a pid namespace), so a command line could mean
 * something other than what it says. Every parser of the program
 * (src/cli/, src/docker_run/) reads its options through options_next. */
#ifndef OCI_OPTIONS_H
#define OCI_OPTIONS_H

#include <getopt.h>

#include "error.h"

/* getopt_long(argc, argv, short_options, long_options, NULL), except that
 * a long option must be typed in full and getopt prints nothing. Returns
 * the option's value, -1 after the last option, or '?' with *err naming
 * what was typed and what is wrong with it: an unknown option (with "did
 * you mean --X?" when it begins exactly one option's name), a missing
 * value, or a value given to an option that takes none. */
int options_next(int argc, char **argv, const char *short_options,
                 const struct option *long_options, oci_error_t *err);

#endif
