/* Judges a probe run: the probe's output becomes the artifact's "observed"
 * (exactly the recipe's seven keys, typed, null where nothing was observed)
 * and "observed_extra", and every check of the recipe's table is decided
 * here, on the host, from those observations and the run's outcome. */
#ifndef PROBE_CHECKS_H
#define PROBE_CHECKS_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "oci/error.h"
#include "probe/probe_backend.h"

struct probe_verdict {
  cJSON *observed;
  cJSON *observed_extra;
  cJSON *checks;        /* [{"name","passed","expected","seen"}] in table order */
  cJSON *failed_checks; /* names */
  bool passed;          /* every check passed (teardown included) */
};

int probe_checks_evaluate(const struct probe_request *request, const struct probe_outcome *outcome,
                          struct probe_verdict *verdict, oci_error_t *err);
void probe_verdict_clear(struct probe_verdict *verdict);
/* A NULL-terminated string list as a JSON array (NULL list: empty array;
 * NULL on allocation failure). */
cJSON *json_string_array(char **list);

#endif
