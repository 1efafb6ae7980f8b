/* What the OCI runtime verbs (runtime-spec runtime.md "Operations") share:
 * exit codes, usage errors, where the lifecycle library's events go. The
 * verbs are options and messages around the library (container/container.h).
 * Exit codes: 0 on success, 1 for every failure (runc's: conmon and
 * containerd's shim only test for non-zero and read the reason from the
 * log), 2 for a usage error (unknown option, missing id). */
#ifndef COMMAND_OCI_H
#define COMMAND_OCI_H

#include "cli/ocirun.h"
#include "container/container.h"
#include "oci/events.h"
#include "oci/options.h"

enum { OCI_EXIT_FAILURE = EXIT_FAILURE_GENERIC };

/* Prints "VERB: message" and where the help is; returns EXIT_USAGE. */
int oci_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* options_next's refusal of an option, as a usage error of verb. */
int oci_option_error(const char *verb, oci_error_t *err);
/* Logs the error; returns OCI_EXIT_FAILURE. */
int oci_fail(oci_error_t *err);
/* The one ID operand after the options (argv[optind]); NULL after a usage
 * error has been printed. */
const char *oci_take_id(const char *verb, int argc, char **argv);

#endif
