/* libFuzzer target for how the probe's output is read (src/probe/probe_checks.c
 * and src/runtime/json_strict.c): the input is the probe's stdout. Whatever
 * it holds, what ocirun keeps of it (observed, observed_extra, checks) must
 * print as JSON the strict reader takes back unchanged, and a refused output
 * must keep nothing. Built and run by tests/probe-output-fuzz.sh. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe_checks.h"
#include "runtime/json_strict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Equal, numbers to the bit: cJSON_Compare calls two numbers equal within an
 * epsilon, and would not see a number the artifact prints rounded. */
static bool same(const cJSON *a, const cJSON *b)
{
  const cJSON *x, *y;

  if ((a->type & 0xff) != (b->type & 0xff))
    return false;
  if (cJSON_IsNumber(a))
    return a->valuedouble == b->valuedouble;
  if (cJSON_IsString(a))
    return strcmp(a->valuestring, b->valuestring) == 0;
  if (!cJSON_IsArray(a) && !cJSON_IsObject(a))
    return true;
  for (x = a->child, y = b->child; x != NULL && y != NULL; x = x->next, y = y->next)
    if ((cJSON_IsObject(a) && strcmp(x->string, y->string) != 0) || !same(x, y))
      return false;
  return x == NULL && y == NULL;
}

/* The printed value read back strictly, and equal to it. */
static void reads_back(const cJSON *value)
{
  char *text = cJSON_PrintUnformatted(value);
  cJSON *again = NULL;
  oci_error_t err = NULL;

  if (text == NULL)
    abort();
  if (json_parse_strict(text, strlen(text), &again, &err) < 0 || !same(value, again))
    abort();
  cJSON_Delete(again);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char *flags[] = {"--name", "ocirun-probe-000000000000", NULL};
  struct probe_request request = {.timeout_seconds = 30};
  char *output = malloc(size + 1);
  struct probe_outcome outcome = {.probe_ran = true,
                                  .teardown_verified = true,
                                  .probe_stdout = output,
                                  .probe_stdout_length = size,
                                  .container_name = flags[1],
                                  .flags = flags};
  struct probe_verdict verdict;
  oci_error_t err = NULL;
  const cJSON *check;
  bool refused = false;

  if (output == NULL)
    return 0;
  memcpy(output, data, size);
  output[size] = '\0';
  if (probe_checks_evaluate(&request, &outcome, &verdict, &err) < 0)
    abort(); /* only out of memory */
  cJSON_ArrayForEach(check, verdict.checks)
  {
    if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(check, "name")), "probe_output") == 0)
      refused = true;
  }
  if (refused && (cJSON_GetArraySize(verdict.observed_extra) != 0 ||
                  !cJSON_IsNull(cJSON_GetObjectItem(verdict.observed, "uid"))))
    abort();
  reads_back(verdict.observed);
  reads_back(verdict.observed_extra);
  reads_back(verdict.checks);
  probe_verdict_clear(&verdict);
  free(output);
  return 0;
}
