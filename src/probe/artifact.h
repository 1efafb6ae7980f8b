/* The evidence artifact of `ocirun probe`: the recipe's keys first (same
 * names and types as docs/docker-path.md), then ocirun's own; written
 * atomically (temporary file in the same directory, fsync, rename). */
#ifndef ARTIFACT_H
#define ARTIFACT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "oci/error.h"
#include "probe/probe_backend.h"
#include "probe/probe_checks.h"

/* backend: "direct" or "docker". Takes the verdict's JSON (the verdict is
 * left empty). */
int artifact_build(const char *backend, const struct probe_request *request,
                   const struct probe_outcome *outcome, struct probe_verdict *verdict, cJSON **out,
                   oci_error_t *err);
/* path NULL or "-": to out_fd, the command line's (its stdout). Otherwise
 * written to a temporary file beside path, fsynced, renamed over path, and
 * the directory fsynced. */
int artifact_write(const cJSON *artifact, const char *path, int out_fd, oci_error_t *err);
/* A table of every check (expected, seen, pass/fail) for people. */
void artifact_print_summary(const cJSON *artifact, FILE *out);

#endif
