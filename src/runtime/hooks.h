/* The OCI hooks (config.md "POSIX-platform Hooks"): each one a program run
 * with the container's state on its stdin, killed at its timeout. Which
 * failures stop the lifecycle and which only warn is the spec's
 * (runtime.md "Lifecycle"), decided here once. */
#ifndef HOOKS_H
#define HOOKS_H

#include <stdbool.h>
#include <stddef.h>

#include "oci/error.h"
#include "oci/events.h"
#include "runtime/spec/spec.h"

/* Hooks report into an event sink (oci/events.h): each line a hook writes
 * is an OCI_EVENT_HOOK_LINE (subject: the hook, "poststop[0]"; detail: the
 * line without its newline), each failure that does not stop the
 * lifecycle an OCI_EVENT_WARNING whose what is "hook". */

/* Runs one hook: path with args (args[0] is argv[0]; none: path) and env
 * (none: empty), state_json on stdin, stdout and stderr line by line to
 * events (NULL: straight to the caller's stderr), in a process group of its own that is
 * SIGKILLed when its timeout expires, with no descriptor of the caller's
 * but 0, 1 and 2. what names it in messages ("poststart[1]"). 0 when it
 * exited with status 0. */
int hook_run(const struct spec_hook *hook, const char *what, const char *state_json,
             const struct oci_event_sink *events, oci_error_t *err);

/* prestart, createRuntime, createContainer, startContainer: a failure
 * stops the lifecycle (the runtime then destroys the container).
 * poststart, poststop: a failure is a warning and the rest still run. */
bool hooks_failure_aborts(enum spec_hook_kind kind);

/* Runs hooks[0..n) of one kind in order (kind_name: the spec's name, for
 * messages). A kind whose failures abort stops at the first and returns
 * -1; otherwise each failure is a warning event and 0 is returned. */
int hooks_run(const struct spec_hook *hooks, size_t n, enum spec_hook_kind kind,
              const char *kind_name, const char *state_json, const struct oci_event_sink *events,
              oci_error_t *err);

/* The hooks the container's own process runs (createContainer before
 * pivot_root, startContainer after it), in the mount namespace it is in:
 * each path opened without a /proc magic link and exec'd through the
 * sealed exec stub (exec_stub.h, whose exec_stub_prepare must have run),
 * never as ocirun's binary; output on the process's stderr; the state
 * (with the pid as the container sees it) on stdin. The first failure
 * stops them and returns -1. */
int hooks_run_in_container(const struct spec_hooks *list, enum spec_hook_kind kind,
                           const char *state_json, oci_error_t *err);

#endif
