/* Judges a probe run on the host. The probe reports what it saw; the
 * expected values live here, as a table a reviewer can read against
 * docs/docker-path.md, and every verdict in the artifact comes from it. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/cleanup.h"
#include "probe/probe_checks.h"

enum check_source { FROM_OBSERVED, FROM_CGROUP, FROM_EXTRA };
enum check_rule {
  RULE_EQUAL,           /* seen equals expected (JSON equality) */
  RULE_HALF_CPU,        /* cpu.max "QUOTA PERIOD" with QUOTA/PERIOD = 0.5 */
  RULE_OPTIONS_INCLUDE, /* a mount option string includes every expected option */
};

/* The recipe's probe table, in its order. */
static const struct {
  const char *name;
  enum check_source source;
  const char *key;
  const char *expected_json;
  enum check_rule rule;
} recipe_checks[] = {
    {"uid", FROM_OBSERVED, "uid", "65534", RULE_EQUAL},
    {"no_new_privileges", FROM_OBSERVED, "no_new_privileges", "true", RULE_EQUAL},
    {"capabilities", FROM_OBSERVED, "capabilities", "0", RULE_EQUAL},
    {"network_interfaces", FROM_OBSERVED, "network_interfaces", "[\"lo\"]", RULE_EQUAL},
    {"memory.max", FROM_CGROUP, "memory.max", "\"134217728\"", RULE_EQUAL},
    {"pids.max", FROM_CGROUP, "pids.max", "\"32\"", RULE_EQUAL},
    {"cpu.max", FROM_CGROUP, "cpu.max", "0.5", RULE_HALF_CPU},
    {"root_read_only", FROM_OBSERVED, "root_read_only", "true", RULE_EQUAL},
    {"owned_tmp_write", FROM_OBSERVED, "owned_tmp_write", "true", RULE_EQUAL},
    {"tmp_mount_options", FROM_EXTRA, "tmp_mount_options", "[\"nosuid\",\"noexec\"]",
     RULE_OPTIONS_INCLUDE},
};

enum value_kind { KIND_INTEGER, KIND_BOOL, KIND_STRING, KIND_STRING_ARRAY };

static bool has_kind(const cJSON *value, enum value_kind kind)
{
  switch (kind) {
  case KIND_INTEGER:
    return cJSON_IsNumber(value) && value->valuedouble == floor(value->valuedouble) &&
           fabs(value->valuedouble) < 9007199254740992.0;
  case KIND_BOOL:
    return cJSON_IsBool(value);
  case KIND_STRING:
    return cJSON_IsString(value);
  case KIND_STRING_ARRAY: {
    const cJSON *item;
    if (!cJSON_IsArray(value))
      return false;
    cJSON_ArrayForEach(item, value) if (!cJSON_IsString(item)) return false;
    return true;
  }
  }
  return false;
}

/* A copy of object[key] when it has the kind, else JSON null: nothing the
 * container prints reaches the artifact with a type the reader won't expect. */
static cJSON *typed_copy(const cJSON *object, const char *key, enum value_kind kind)
{
  const cJSON *value = cJSON_GetObjectItemCaseSensitive(object, key);
  if (value != NULL && has_kind(value, kind))
    return cJSON_Duplicate(value, true);
  return cJSON_CreateNull();
}

static bool add(cJSON *object, const char *key, cJSON *value)
{
  if (value == NULL)
    return false;
  return cJSON_AddItemToObject(object, key, value);
}

static cJSON *build_observed(const cJSON *output)
{
  cleanup_cjson cJSON *observed = cJSON_CreateObject();
  cJSON *cgroup = cJSON_CreateObject();
  const cJSON *probe_cgroup = cJSON_GetObjectItemCaseSensitive(output, "cgroup_v2");

  if (observed == NULL || !add(observed, "uid", typed_copy(output, "uid", KIND_INTEGER)) ||
      !add(observed, "cgroup_v2", cgroup))
    return NULL;
  if (!add(cgroup, "memory.max", typed_copy(probe_cgroup, "memory.max", KIND_STRING)) ||
      !add(cgroup, "pids.max", typed_copy(probe_cgroup, "pids.max", KIND_STRING)) ||
      !add(cgroup, "cpu.max", typed_copy(probe_cgroup, "cpu.max", KIND_STRING)) ||
      !add(observed, "root_read_only", typed_copy(output, "root_read_only", KIND_BOOL)) ||
      !add(observed, "owned_tmp_write", typed_copy(output, "owned_tmp_write", KIND_BOOL)) ||
      !add(observed, "network_interfaces",
           typed_copy(output, "network_interfaces", KIND_STRING_ARRAY)) ||
      !add(observed, "no_new_privileges", typed_copy(output, "no_new_privileges", KIND_BOOL)) ||
      !add(observed, "capabilities", typed_copy(output, "capabilities", KIND_INTEGER)))
    return NULL;
  return steal_pointer(&observed);
}

/* Extra observations: a key the probe could not observe is left out, except
 * pid1_comm whose null means "no /proc/1 visible". */
static cJSON *build_observed_extra(const cJSON *output)
{
  static const struct {
    const char *key;
    enum value_kind kind;
  } extra_keys[] = {
      {"seccomp_mode", KIND_INTEGER},     {"cap_bnd", KIND_INTEGER},
      {"hostname", KIND_STRING},          {"pid", KIND_INTEGER},
      {"pid1_comm", KIND_STRING},         {"root_mount_options", KIND_STRING},
      {"tmp_mount_options", KIND_STRING},
  };
  const cJSON *probe_extra = cJSON_GetObjectItemCaseSensitive(output, "observed_extra");
  const cJSON *probe_masked = cJSON_GetObjectItemCaseSensitive(probe_extra, "masked_paths");
  cleanup_cjson cJSON *extra = cJSON_CreateObject();
  cJSON *masked;
  const cJSON *item;

  if (extra == NULL)
    return NULL;
  for (size_t i = 0; i < sizeof(extra_keys) / sizeof(extra_keys[0]); i++) {
    cJSON *value = typed_copy(probe_extra, extra_keys[i].key, extra_keys[i].kind);
    if (value == NULL)
      return NULL;
    bool keep = !cJSON_IsNull(value) ||
                (probe_extra != NULL && strcmp(extra_keys[i].key, "pid1_comm") == 0);
    if (!keep) {
      cJSON_Delete(value);
      continue;
    }
    if (!add(extra, extra_keys[i].key, value))
      return NULL;
  }
  if (cJSON_IsObject(probe_masked)) {
    if ((masked = cJSON_AddObjectToObject(extra, "masked_paths")) == NULL)
      return NULL;
    cJSON_ArrayForEach(item, probe_masked)
    {
      if (cJSON_IsString(item) &&
          (strcmp(item->valuestring, "masked") == 0 || strcmp(item->valuestring, "readable") == 0 ||
           strcmp(item->valuestring, "absent") == 0))
        if (cJSON_AddStringToObject(masked, item->string, item->valuestring) == NULL)
          return NULL;
    }
  }
  return steal_pointer(&extra);
}

static bool half_cpu(const cJSON *seen)
{
  long long quota, period;
  char tail;

  if (!cJSON_IsString(seen) ||
      sscanf(seen->valuestring, "%lld %lld%c", &quota, &period, &tail) != 2)
    return false;
  return quota > 0 && period > 0 && quota * 2 == period;
}

static bool options_include(const cJSON *seen, const cJSON *expected)
{
  const cJSON *want;

  if (!cJSON_IsString(seen))
    return false;
  cJSON_ArrayForEach(want, expected)
  {
    bool found = false;
    size_t n = strlen(want->valuestring);
    for (const char *p = seen->valuestring; p != NULL;
         p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
      if (strncmp(p, want->valuestring, n) == 0 && (p[n] == ',' || p[n] == '\0'))
        found = true;
    if (!found)
      return false;
  }
  return true;
}

/* Appends one check; takes ownership of expected and seen. Returns the
 * check (owned by verdict->checks) or NULL with *err set. */
static cJSON *add_check(struct probe_verdict *verdict, const char *name, bool passed,
                        cJSON *expected, cJSON *seen, oci_error_t *err)
{
  cJSON *check = cJSON_CreateObject();

  if (check == NULL || expected == NULL || seen == NULL ||
      !cJSON_AddItemToArray(verdict->checks, check)) {
    cJSON_Delete(check);
    cJSON_Delete(expected);
    cJSON_Delete(seen);
    oci_error_set(err, 0, "build the probe checks: out of memory");
    return NULL;
  }
  if (cJSON_AddStringToObject(check, "name", name) == NULL ||
      cJSON_AddBoolToObject(check, "passed", passed) == NULL ||
      !cJSON_AddItemToObject(check, "expected", expected) ||
      !cJSON_AddItemToObject(check, "seen", seen)) {
    oci_error_set(err, 0, "build the probe checks: out of memory");
    return NULL;
  }
  if (!passed) {
    verdict->passed = false;
    if (!cJSON_AddItemToArray(verdict->failed_checks, cJSON_CreateString(name))) {
      oci_error_set(err, 0, "build the probe checks: out of memory");
      return NULL;
    }
  }
  return check;
}

cJSON *json_string_array(char **list)
{
  cJSON *array = cJSON_CreateArray();
  for (size_t i = 0; array != NULL && list != NULL && list[i] != NULL; i++)
    if (!cJSON_AddItemToArray(array, cJSON_CreateString(list[i]))) {
      cJSON_Delete(array);
      return NULL;
    }
  return array;
}

static bool rule_passes(enum check_rule rule, const cJSON *seen, const cJSON *expected)
{
  switch (rule) {
  case RULE_EQUAL:
    return seen != NULL && cJSON_Compare(seen, expected, true);
  case RULE_HALF_CPU:
    return half_cpu(seen);
  case RULE_OPTIONS_INCLUDE:
    return options_include(seen, expected);
  }
  return false;
}

/* Where a check's value lives in an observation object: "observed" and
 * "host_observed" share the recipe's keys, cgroup files under cgroup_v2;
 * the probe's extra keys are in observed_extra, the host's at top level. */
static const cJSON *check_value(const cJSON *observation, const cJSON *extra,
                                enum check_source source, const char *key)
{
  const cJSON *from = source == FROM_OBSERVED ? observation
                      : source == FROM_CGROUP
                          ? cJSON_GetObjectItemCaseSensitive(observation, "cgroup_v2")
                          : extra;
  return cJSON_GetObjectItemCaseSensitive(from, key);
}

/* The second observer: a check needs the host's observation and fails when
 * it is missing or disagrees with the container's, naming both values. The
 * mount options are compared by the rule (the two views print them in
 * different orders); every other value must be equal. */
static int judge_against_host(cJSON *check, const char *name, enum check_rule rule,
                              const cJSON *seen, const cJSON *expected, const cJSON *host,
                              const cJSON *host_seen, bool *passed, oci_error_t *err)
{
  const cJSON *missing = cJSON_GetObjectItemCaseSensitive(host, "missing");
  cleanup_free char *inside_text = seen != NULL ? cJSON_PrintUnformatted(seen) : strdup("null");
  cleanup_free char *host_text =
      host_seen != NULL ? cJSON_PrintUnformatted(host_seen) : strdup("null");
  cleanup_free char *note = NULL;
  bool agree;

  if (!cJSON_AddItemToObject(check, "host_seen",
                             host_seen != NULL ? cJSON_Duplicate(host_seen, true)
                                               : cJSON_CreateNull()) ||
      inside_text == NULL || host_text == NULL)
    return oci_error_set(err, 0, "build the probe checks: out of memory");
  if (!cJSON_IsObject(host) || cJSON_IsString(missing)) {
    if (asprintf(&note, "%s: container says %s, host observation missing: %s", name, inside_text,
                 cJSON_IsString(missing) ? missing->valuestring : "none made") < 0)
      return oci_error_set(err, 0, "build the probe checks: out of memory");
  } else {
    agree = rule == RULE_OPTIONS_INCLUDE
                ? rule_passes(rule, seen, expected) == rule_passes(rule, host_seen, expected)
                : (seen != NULL && host_seen != NULL && cJSON_Compare(seen, host_seen, true));
    if (agree)
      return 0; /* the container's own verdict stands */
    if (asprintf(&note, "%s: container says %s, host saw %s", name, inside_text, host_text) < 0)
      return oci_error_set(err, 0, "build the probe checks: out of memory");
  }
  *passed = false;
  if (cJSON_AddStringToObject(check, "disagreement", note) == NULL)
    return oci_error_set(err, 0, "build the probe checks: out of memory");
  return 0;
}

static int add_recipe_checks(struct probe_verdict *verdict, const cJSON *host, oci_error_t *err)
{
  for (size_t i = 0; i < sizeof(recipe_checks) / sizeof(recipe_checks[0]); i++) {
    const cJSON *seen = check_value(verdict->observed, verdict->observed_extra,
                                    recipe_checks[i].source, recipe_checks[i].key);
    const cJSON *host_seen = check_value(host, host, recipe_checks[i].source, recipe_checks[i].key);
    cJSON *expected = cJSON_Parse(recipe_checks[i].expected_json);
    cJSON *seen_copy = seen != NULL ? cJSON_Duplicate(seen, true) : cJSON_CreateNull();
    bool inside_passes = expected != NULL && rule_passes(recipe_checks[i].rule, seen, expected);
    bool passed = inside_passes;
    cJSON *check = add_check(verdict, recipe_checks[i].name, true, expected, seen_copy, err);

    if (check == NULL || judge_against_host(check, recipe_checks[i].name, recipe_checks[i].rule,
                                            seen, expected, host, host_seen, &passed, err) < 0)
      return -1;
    if (!passed) {
      cJSON_ReplaceItemInObjectCaseSensitive(check, "passed", cJSON_CreateBool(false));
      verdict->passed = false;
      if (!cJSON_AddItemToArray(verdict->failed_checks, cJSON_CreateString(recipe_checks[i].name)))
        return oci_error_set(err, 0, "build the probe checks: out of memory");
    }
  }
  return 0;
}

/* The host observation itself: fails closed when none was made, naming why. */
static int add_host_check(struct probe_verdict *verdict, const cJSON *host, oci_error_t *err)
{
  const cJSON *missing = cJSON_GetObjectItemCaseSensitive(host, "missing");
  bool made = cJSON_IsObject(host) && !cJSON_IsString(missing);
  cJSON *check = add_check(verdict, "host_observed", made, cJSON_CreateBool(true),
                           cJSON_CreateBool(made), err);

  if (check == NULL)
    return -1;
  if (!made) {
    cleanup_free char *note = NULL;
    if (asprintf(&note, "host_observed: the host observation is missing: %s",
                 cJSON_IsString(missing) ? missing->valuestring : "none was made") < 0 ||
        cJSON_AddStringToObject(check, "disagreement", note) == NULL)
      return oci_error_set(err, 0, "build the probe checks: out of memory");
  }
  return 0;
}

/* What the run itself must show: the probe ran to completion and exited 0,
 * the engine reported no error, teardown was verified, and nothing changed
 * the recipe. */
static int add_run_checks(const struct probe_request *request, const struct probe_outcome *outcome,
                          bool output_valid, struct probe_verdict *verdict, oci_error_t *err)
{
  cJSON *seen;

  if (outcome->probe_ran && !outcome->timed_out && !output_valid) {
    char excerpt[201];
    snprintf(excerpt, sizeof(excerpt), "%s", outcome->probe_stdout ? outcome->probe_stdout : "");
    if (add_check(verdict, "probe_output", false, cJSON_CreateString("one JSON object on stdout"),
                  cJSON_CreateString(excerpt), err) == NULL)
      return -1;
  }
  if (!outcome->probe_ran) {
    seen = cJSON_CreateNull();
  } else if (outcome->timed_out) {
    char text[96];
    snprintf(text, sizeof(text), "killed at the %g s deadline", request->timeout_seconds);
    seen = cJSON_CreateString(text);
  } else {
    seen = cJSON_CreateNumber(outcome->probe_exit_code);
  }
  if (add_check(verdict, "probe_exit",
                outcome->probe_ran && !outcome->timed_out && outcome->probe_exit_code == 0,
                cJSON_CreateNumber(0), seen, err) == NULL)
    return -1;
  if (outcome->error != NULL && add_check(verdict, "error", false, cJSON_CreateNull(),
                                          cJSON_CreateString(outcome->error), err) == NULL)
    return -1;
  if (add_check(verdict, "teardown", outcome->teardown_verified, cJSON_CreateBool(true),
                cJSON_CreateBool(outcome->teardown_verified), err) == NULL)
    return -1;
  if (request->unsafe_no_cgroup &&
      add_check(verdict, "unsafe_no_cgroup", false, cJSON_CreateBool(false), cJSON_CreateBool(true),
                err) == NULL)
    return -1;
  /* The flags the engine received must be the recipe's, exactly. */
  struct probe_request plain = {.timeout_seconds = request->timeout_seconds};
  cleanup_strv char **recipe = probe_recipe_flags(
      outcome->container_name ? outcome->container_name : PROBE_NAME_PREFIX, &plain);
  cJSON *expected = json_string_array(recipe), *seen_flags = json_string_array(outcome->flags);
  bool same = expected != NULL && seen_flags != NULL && outcome->flags != NULL &&
              cJSON_Compare(expected, seen_flags, true);
  if (add_check(verdict, "recipe_flags", same, expected, seen_flags, err) == NULL)
    return -1;
  return 0;
}

int probe_checks_evaluate(const struct probe_request *request, const struct probe_outcome *outcome,
                          struct probe_verdict *verdict, oci_error_t *err)
{
  cleanup_cjson cJSON *output = NULL;
  bool output_valid;

  memset(verdict, 0, sizeof(*verdict));
  verdict->passed = true;
  if (outcome->probe_stdout != NULL)
    output = cJSON_Parse(outcome->probe_stdout);
  output_valid = cJSON_IsObject(output);
  if (!output_valid) {
    cJSON_Delete(output);
    output = NULL;
  }
  verdict->observed = build_observed(output);
  verdict->observed_extra = build_observed_extra(output);
  verdict->checks = cJSON_CreateArray();
  verdict->failed_checks = cJSON_CreateArray();
  if (verdict->observed == NULL || verdict->observed_extra == NULL || verdict->checks == NULL ||
      verdict->failed_checks == NULL) {
    probe_verdict_clear(verdict);
    return oci_error_set(err, 0, "build the probe observations: out of memory");
  }
  if (add_recipe_checks(verdict, outcome->host_observed, err) < 0 ||
      add_host_check(verdict, outcome->host_observed, err) < 0 ||
      add_run_checks(request, outcome, output_valid, verdict, err) < 0) {
    probe_verdict_clear(verdict);
    return -1;
  }
  return 0;
}

void probe_verdict_clear(struct probe_verdict *verdict)
{
  cJSON_Delete(verdict->observed);
  cJSON_Delete(verdict->observed_extra);
  cJSON_Delete(verdict->checks);
  cJSON_Delete(verdict->failed_checks);
  memset(verdict, 0, sizeof(*verdict));
}
