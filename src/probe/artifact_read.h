/* Reading an evidence artifact (docs/artifact.md) from a file: the bytes, the
 * JSON, and the keys every artifact has, including one written by the original
 * Python recipe. Readers start from a document these checks have passed. */
#ifndef ARTIFACT_READ_H
#define ARTIFACT_READ_H

#include <cjson/cJSON.h>

#include "oci/error.h"

/* A key a reader requires, with the JSON types its value may have. */
struct artifact_key {
  const char *name;
  int types; /* mask of cJSON type bits */
  const char *type_name;
};

/* The recipe's seven observations (keys of "observed"), in the recipe's order. */
extern const struct artifact_key artifact_observations[7];
/* The files the probe reads under /sys/fs/cgroup (keys of observed.cgroup_v2). */
extern const struct artifact_key artifact_cgroup_files[3];

/* Reads PATH and checks that it is a JSON object with every top-level key of
 * the recipe's artifact and the seven observations, of the types a reader
 * walks. On failure the message names PATH and the offending key. Values of
 * observations may be null (an observation that could not be made); the
 * schema (docs/artifact.schema.json) is stricter. */
int artifact_read(const char *path, cJSON **out, oci_error_t *err);

#endif
