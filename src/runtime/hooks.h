/* The OCI hooks (config.md "POSIX-platform Hooks"): each one a program run
 * with the container's state on its stdin, killed at its timeout. Which
 * failures stop the lifecycle and which only warn is the spec's
 * (runtime.md "Lifecycle"), decided here once. */
#ifndef HOOKS_H
#define HOOKS_H

#include <stdbool.h>
#include <stddef.h>

#include "oci/error.h"
#include "runtime/spec.h"

/* Where hook output and warnings go. message is one line without its
 * newline; warning is set for a failure that does not stop the lifecycle. */
struct hook_log {
  void (*line)(void *context, bool warning, const char *message);
  void *context;
};

/* Runs one hook: path with args (args[0] is argv[0]; none: path) and env
 * (none: empty), state_json on stdin, stdout and stderr line by line to
 * log (NULL: the caller's stderr, for a caller with no log, e.g. the
 * container's child), SIGKILLed when its timeout expires. what names it in
 * messages ("poststart[1]"). 0 when it exited with status 0. */
int hook_run(const struct spec_hook *hook, const char *what, const char *state_json,
             const struct hook_log *log, oci_error_t *err);

/* prestart, createRuntime, createContainer, startContainer: a failure
 * stops the lifecycle (the runtime then destroys the container).
 * poststart, poststop: a failure is a warning and the rest still run. */
bool hooks_failure_aborts(enum spec_hook_kind kind);

/* Runs hooks[0..n) of one kind in order (kind_name: the spec's name, for
 * messages). A kind whose failures abort stops at the first and returns
 * -1; otherwise each failure goes to log as a warning and 0 is returned. */
int hooks_run(const struct spec_hook *hooks, size_t n, enum spec_hook_kind kind,
              const char *kind_name, const char *state_json, const struct hook_log *log,
              oci_error_t *err);

#endif
