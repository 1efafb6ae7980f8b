/* The plan as a value: everything a run or a create decides before anything
 * exists (clone flags and joined namespaces, the user namespace's maps, the
 * root tree and the mount ops, the slice with its (file, value) pairs and
 * device rules, the capability sets, the seccomp program, rlimits, argv and
 * env), built once from the spec and the runtime options. runtime_run and
 * runtime_create (runtime.h) carry out the plan they are given; --dry-run
 * prints that same object, as text or as JSON. */
#ifndef RUNTIME_PLAN_H
#define RUNTIME_PLAN_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "oci/error.h"
#include "runtime/runtime.h"
#include "runtime/spec/spec.h"

/* Opaque to the callers; src/runtime/launch.h has its fields. */
struct runtime_plan;

/* Decides the plan for mode (runtime.h) from spec and options alone: opens
 * what it must hold (the root tree, namespaces joined by path) and
 * compiles the seccomp program, creates nothing. spec and everything
 * options points to must outlive the plan. On failure *plan is NULL and
 * err says why. */
int runtime_plan_build(const struct spec *spec, const struct runtime_options *options,
                       enum runtime_plan_mode mode, struct runtime_plan **plan, oci_error_t *err);
/* Frees *plan (NULL is fine) and sets it NULL. */
void runtime_plan_clear(struct runtime_plan **plan);
#define cleanup_runtime_plan __attribute__((cleanup(runtime_plan_clear)))

/* The plan as --dry-run prints it (plan_print.c). */
void runtime_plan_print(const struct runtime_plan *plan, FILE *out);
/* The same content as one JSON object of typed values (plan_json.c):
 * capabilities as name lists, mounts as objects, the slice's files as
 * {file, value} pairs, device rules, seccomp's origin and rule groups,
 * argv, env. NULL without memory; the caller deletes it. */
cJSON *runtime_plan_json(const struct runtime_plan *plan);

#endif
