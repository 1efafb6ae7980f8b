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
#include "runtime/json_strict.h"

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

/* The most the probe may print: its object is about 1.5 KiB. */
#define PROBE_OUTPUT_ACCEPTED_MAX (64 * 1024)
/* 49 bits (the kernel's capability sets use 41): cJSON prints a number with
 * 15 significant digits whenever that reads back within an epsilon, so a
 * larger integer (2^53 - 1 was the bound) was printed rounded, and the
 * artifact showed a mask the probe never printed. */
#define CAPABILITY_MASK_MAX 562949953421311.0
/* The kernel's PID_MAX_LIMIT. */
#define PID_MAX 4194304.0
/* An interface name is at most IFNAMSIZ - 1 bytes. */
#define INTERFACE_NAME_MAX 15

/* What the probe prints (src/probe/probe.py), key by key. Its output comes
 * from code the image controls, so it is read against these tables and
 * nothing else: an unknown or missing key, a value of another kind, out of
 * range or too long refuses the whole output; the artifact's observations
 * are then built by walking the tables, never copied as they came. */
enum value_kind {
  KIND_INTEGER, /* a whole number from min to max */
  KIND_BOOL,
  KIND_WORD,            /* printable ASCII of at most max bytes: values the kernel prints */
  KIND_TEXT,            /* UTF-8 (the parser checked it) of at most max bytes */
  KIND_INTERFACE_NAMES, /* at most max names of network interfaces */
  KIND_MASK_STATE,      /* "masked", "readable" or "absent" */
  KIND_OBJECT,          /* exactly the keys of members */
};
enum null_rule {
  NULL_REFUSED,
  NULL_KEPT,     /* null is written as null */
  NULL_LEFT_OUT, /* null leaves the key out of the artifact */
};

struct output_key {
  const char *name;
  enum value_kind kind;
  enum null_rule nulls;
  double min, max;
  const struct output_key *members;
  size_t n_members;
};
#define N_OF(table) (sizeof(table) / sizeof(table[0]))

static const struct output_key cgroup_file_keys[] = {
    {.name = "memory.max", .kind = KIND_WORD, .nulls = NULL_KEPT, .max = 32},
    {.name = "pids.max", .kind = KIND_WORD, .nulls = NULL_KEPT, .max = 32},
    {.name = "cpu.max", .kind = KIND_WORD, .nulls = NULL_KEPT, .max = 64},
};

/* Docker's default masked paths, as the probe lists them. */
static const struct output_key masked_path_keys[] = {
    {.name = "/proc/acpi", .kind = KIND_MASK_STATE},
    {.name = "/proc/asound", .kind = KIND_MASK_STATE},
    {.name = "/proc/interrupts", .kind = KIND_MASK_STATE},
    {.name = "/proc/kcore", .kind = KIND_MASK_STATE},
    {.name = "/proc/keys", .kind = KIND_MASK_STATE},
    {.name = "/proc/latency_stats", .kind = KIND_MASK_STATE},
    {.name = "/proc/sched_debug", .kind = KIND_MASK_STATE},
    {.name = "/proc/scsi", .kind = KIND_MASK_STATE},
    {.name = "/proc/timer_list", .kind = KIND_MASK_STATE},
    {.name = "/proc/timer_stats", .kind = KIND_MASK_STATE},
    {.name = "/sys/devices/virtual/powercap", .kind = KIND_MASK_STATE},
    {.name = "/sys/firmware", .kind = KIND_MASK_STATE},
};

/* Extra observations: a key the probe could not observe is left out, except
 * pid1_comm whose null means "no /proc/1 visible". */
static const struct output_key extra_keys[] = {
    {.name = "seccomp_mode", .kind = KIND_INTEGER, .nulls = NULL_LEFT_OUT, .max = 2},
    {.name = "cap_bnd", .kind = KIND_INTEGER, .nulls = NULL_LEFT_OUT, .max = CAPABILITY_MASK_MAX},
    {.name = "hostname", .kind = KIND_TEXT, .nulls = NULL_REFUSED, .max = 64},
    {.name = "pid", .kind = KIND_INTEGER, .nulls = NULL_REFUSED, .min = 1, .max = PID_MAX},
    {.name = "pid1_comm", .kind = KIND_TEXT, .nulls = NULL_KEPT, .max = 64},
    {.name = "masked_paths",
     .kind = KIND_OBJECT,
     .nulls = NULL_REFUSED,
     .members = masked_path_keys,
     .n_members = N_OF(masked_path_keys)},
    /* an overlay root names the directory of every layer: a page or more */
    {.name = "root_mount_options", .kind = KIND_TEXT, .nulls = NULL_LEFT_OUT, .max = 16384},
    {.name = "tmp_mount_options", .kind = KIND_WORD, .nulls = NULL_LEFT_OUT, .max = 4096},
};

/* The probe's own verdicts, one per recipe check: read for their shape and
 * never used (the verdicts are the host's, from recipe_checks). */
static const struct output_key probe_verdict_keys[] = {
    {.name = "uid", .kind = KIND_BOOL},
    {.name = "no_new_privileges", .kind = KIND_BOOL},
    {.name = "capabilities", .kind = KIND_BOOL},
    {.name = "network_interfaces", .kind = KIND_BOOL},
    {.name = "memory.max", .kind = KIND_BOOL},
    {.name = "pids.max", .kind = KIND_BOOL},
    {.name = "cpu.max", .kind = KIND_BOOL},
    {.name = "root_read_only", .kind = KIND_BOOL},
    {.name = "owned_tmp_write", .kind = KIND_BOOL},
    {.name = "tmp_mount_options", .kind = KIND_BOOL},
};

/* The recipe's seven observations first, in its order: the artifact's
 * "observed". */
#define N_OBSERVATIONS 7
static const struct output_key output_keys[] = {
    {.name = "uid", .kind = KIND_INTEGER, .nulls = NULL_REFUSED, .max = 4294967295.0},
    {.name = "cgroup_v2",
     .kind = KIND_OBJECT,
     .nulls = NULL_REFUSED,
     .members = cgroup_file_keys,
     .n_members = N_OF(cgroup_file_keys)},
    {.name = "root_read_only", .kind = KIND_BOOL},
    {.name = "owned_tmp_write", .kind = KIND_BOOL},
    {.name = "network_interfaces", .kind = KIND_INTERFACE_NAMES, .nulls = NULL_REFUSED, .max = 64},
    {.name = "no_new_privileges", .kind = KIND_BOOL},
    {.name = "capabilities", .kind = KIND_INTEGER, .nulls = NULL_KEPT, .max = CAPABILITY_MASK_MAX},
    {.name = "observed_extra",
     .kind = KIND_OBJECT,
     .nulls = NULL_REFUSED,
     .members = extra_keys,
     .n_members = N_OF(extra_keys)},
    {.name = "checks",
     .kind = KIND_OBJECT,
     .nulls = NULL_REFUSED,
     .members = probe_verdict_keys,
     .n_members = N_OF(probe_verdict_keys)},
};

/* A JSON path of the output, for messages: "observed_extra.masked_paths". */
#define OUTPUT_PATH_MAX 256

static bool printable_ascii(const char *text, bool space_allowed)
{
  for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++)
    if (*p < 0x20 || *p >= 0x7f || (*p == ' ' && !space_allowed))
      return false;
  return true;
}

static bool interface_name(const cJSON *item)
{
  size_t length = cJSON_IsString(item) ? strlen(item->valuestring) : 0;
  return length >= 1 && length <= INTERFACE_NAME_MAX && printable_ascii(item->valuestring, false) &&
         strpbrk(item->valuestring, "/:") == NULL;
}

static bool interface_names(const cJSON *value, double max)
{
  const cJSON *item;

  if (!cJSON_IsArray(value) || cJSON_GetArraySize(value) > max)
    return false;
  cJSON_ArrayForEach(item, value) if (!interface_name(item)) return false;
  return true;
}

static bool mask_state(const cJSON *value)
{
  const char *state = cJSON_GetStringValue(value);
  return state != NULL && (strcmp(state, "masked") == 0 || strcmp(state, "readable") == 0 ||
                           strcmp(state, "absent") == 0);
}

static int check_object(const cJSON *object, const char *path, const struct output_key *keys,
                        size_t n_keys, oci_error_t *err);

/* Whether value is of key's kind (and range); the message names path. */
static int check_output_value(const cJSON *value, const char *path, const struct output_key *key,
                              oci_error_t *err)
{
  double number = value->valuedouble;
  size_t length = cJSON_IsString(value) ? strlen(value->valuestring) : 0;

  if (cJSON_IsNull(value) && key->nulls != NULL_REFUSED)
    return 0;
  switch (key->kind) {
  case KIND_INTEGER:
    if (!cJSON_IsNumber(value) || number != floor(number) || number < key->min || number > key->max)
      return oci_error_set(err, 0, "%s: expected an integer from %.0f to %.0f", path, key->min,
                           key->max);
    return 0;
  case KIND_BOOL:
    if (!cJSON_IsBool(value))
      return oci_error_set(err, 0, "%s: expected a boolean", path);
    return 0;
  case KIND_WORD:
    if (!cJSON_IsString(value) || length > key->max || !printable_ascii(value->valuestring, true))
      return oci_error_set(err, 0, "%s: expected printable ASCII of at most %.0f bytes", path,
                           key->max);
    return 0;
  case KIND_TEXT:
    if (!cJSON_IsString(value) || length > key->max)
      return oci_error_set(err, 0, "%s: expected a string of at most %.0f bytes", path, key->max);
    return 0;
  case KIND_INTERFACE_NAMES:
    if (!interface_names(value, key->max))
      return oci_error_set(err, 0,
                           "%s: expected at most %.0f interface names (1 to %d printable ASCII "
                           "bytes, no space, '/' or ':')",
                           path, key->max, INTERFACE_NAME_MAX);
    return 0;
  case KIND_MASK_STATE:
    if (!mask_state(value))
      return oci_error_set(err, 0, "%s: expected \"masked\", \"readable\" or \"absent\"", path);
    return 0;
  case KIND_OBJECT:
    if (!cJSON_IsObject(value))
      return oci_error_set(err, 0, "%s: expected an object", path);
    return check_object(value, path, key->members, key->n_members, err);
  }
  return oci_error_set(err, 0, "%s: an unknown kind of value", path);
}

static const struct output_key *key_named(const struct output_key *keys, size_t n_keys,
                                          const char *name)
{
  for (size_t i = 0; i < n_keys; i++)
    if (strcmp(keys[i].name, name) == 0)
      return &keys[i];
  return NULL;
}

/* Exactly the keys of the table (path "" is the output itself). */
static int check_object(const cJSON *object, const char *path, const struct output_key *keys,
                        size_t n_keys, oci_error_t *err)
{
  char member_path[OUTPUT_PATH_MAX];
  const cJSON *member;

  cJSON_ArrayForEach(member, object)
  {
    if (key_named(keys, n_keys, member->string) == NULL)
      return oci_error_set(err, 0, "an unknown key '%.64s' %s%s", member->string,
                           path[0] != '\0' ? "in " : "at the top level", path);
  }
  for (size_t i = 0; i < n_keys; i++) {
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(object, keys[i].name);
    snprintf(member_path, sizeof(member_path), "%s%s%s", path, path[0] != '\0' ? "." : "",
             keys[i].name);
    if (value == NULL)
      return oci_error_set(err, 0, "%s: missing", member_path);
    if (check_output_value(value, member_path, &keys[i], err) < 0)
      return -1;
  }
  return 0;
}

/* The probe's stdout as one strict JSON object of output_keys (the same
 * parse for both backends); *err says what was refused. */
static int read_probe_output(const struct probe_outcome *outcome, cJSON **out, oci_error_t *err)
{
  cleanup_cjson cJSON *output = NULL;

  if (outcome->probe_stdout_length > PROBE_OUTPUT_ACCEPTED_MAX)
    return oci_error_set(err, 0, "%zu bytes, more than the %d a probe may print",
                         outcome->probe_stdout_length, PROBE_OUTPUT_ACCEPTED_MAX);
  if (json_parse_strict(outcome->probe_stdout, outcome->probe_stdout_length, &output, err) < 0)
    return -1;
  if (!cJSON_IsObject(output))
    return oci_error_set(err, 0, "not a JSON object");
  if (check_object(output, "", output_keys, N_OF(output_keys), err) < 0)
    return -1;
  *out = steal_pointer(&output);
  return 0;
}

static bool add(cJSON *object, const char *key, cJSON *value)
{
  if (value == NULL)
    return false;
  return cJSON_AddItemToObject(object, key, value);
}

static cJSON *copy_interface_names(const cJSON *names)
{
  cleanup_cjson cJSON *copy = cJSON_CreateArray();
  const cJSON *name;

  cJSON_ArrayForEach(name, names)
  {
    if (copy == NULL || !cJSON_AddItemToArray(copy, cJSON_CreateString(name->valuestring)))
      return NULL;
  }
  return steal_pointer(&copy);
}

/* A new object with the table's keys in its order, each value looked up in
 * source (checked by check_object; NULL: nothing observed, every value
 * null). NULL when out of memory. */
static cJSON *copy_object(const cJSON *source, const struct output_key *keys, size_t n_keys)
{
  cleanup_cjson cJSON *copy = cJSON_CreateObject();

  if (copy == NULL)
    return NULL;
  for (size_t i = 0; i < n_keys; i++) {
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(source, keys[i].name);
    bool none = value == NULL || cJSON_IsNull(value);
    cJSON *item;

    if (none && keys[i].nulls == NULL_LEFT_OUT)
      continue;
    if (keys[i].kind == KIND_OBJECT)
      item = copy_object(value, keys[i].members, keys[i].n_members);
    else if (none)
      item = cJSON_CreateNull();
    else if (keys[i].kind == KIND_INTERFACE_NAMES)
      item = copy_interface_names(value);
    else
      item = cJSON_Duplicate(value, false); /* a number, boolean or string */
    if (!add(copy, keys[i].name, item))
      return NULL;
  }
  return steal_pointer(&copy);
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
  for (size_t i = 0; i < N_OF(recipe_checks); i++) {
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

/* The refused output, recorded: why, and how it began (both as escaped
 * ASCII: the bytes are the image's). */
static int add_output_check(struct probe_verdict *verdict, const struct probe_outcome *outcome,
                            const char *refusal, oci_error_t *err)
{
  size_t shown = outcome->probe_stdout_length < 200 ? outcome->probe_stdout_length : 200;
  cleanup_free char *reason = json_escape_bytes(refusal, strlen(refusal));
  cleanup_free char *start = json_escape_bytes(outcome->probe_stdout, shown);
  cJSON *check;

  if (reason == NULL || start == NULL)
    return oci_error_set(err, 0, "build the probe checks: out of memory");
  check = add_check(verdict, "probe_output", false,
                    cJSON_CreateString("one JSON object of the probe's keys and types on stdout"),
                    cJSON_CreateString(reason), err);
  if (check == NULL)
    return -1;
  if (cJSON_AddStringToObject(check, "output_start", start) == NULL)
    return oci_error_set(err, 0, "build the probe checks: out of memory");
  return 0;
}

/* What the run itself must show: the probe ran to completion and exited 0,
 * its output was read, the engine reported no error, teardown was verified,
 * and nothing changed the recipe. */
static int add_run_checks(const struct probe_request *request, const struct probe_outcome *outcome,
                          const char *refusal, struct probe_verdict *verdict, oci_error_t *err)
{
  cJSON *seen;

  if (outcome->probe_ran && !outcome->timed_out && refusal != NULL &&
      add_output_check(verdict, outcome, refusal, err) < 0)
    return -1;
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
  oci_error_t refusal = NULL;
  const char *refused = NULL;
  int ret = -1;

  memset(verdict, 0, sizeof(*verdict));
  verdict->passed = true;
  if (outcome->probe_stdout != NULL && read_probe_output(outcome, &output, &refusal) < 0)
    refused = refusal != NULL ? refusal->message : "out of memory";
  verdict->observed = copy_object(output, output_keys, N_OBSERVATIONS);
  verdict->observed_extra =
      output != NULL ? copy_object(cJSON_GetObjectItemCaseSensitive(output, "observed_extra"),
                                   extra_keys, N_OF(extra_keys))
                     : cJSON_CreateObject();
  verdict->checks = cJSON_CreateArray();
  verdict->failed_checks = cJSON_CreateArray();
  if (verdict->observed == NULL || verdict->observed_extra == NULL || verdict->checks == NULL ||
      verdict->failed_checks == NULL)
    oci_error_set(err, 0, "build the probe observations: out of memory");
  else if (add_recipe_checks(verdict, outcome->host_observed, err) == 0 &&
           add_host_check(verdict, outcome->host_observed, err) == 0 &&
           add_run_checks(request, outcome, refused, verdict, err) == 0)
    ret = 0;
  oci_error_free(&refusal);
  if (ret < 0)
    probe_verdict_clear(verdict);
  return ret;
}

void probe_verdict_clear(struct probe_verdict *verdict)
{
  cJSON_Delete(verdict->observed);
  cJSON_Delete(verdict->observed_extra);
  cJSON_Delete(verdict->checks);
  cJSON_Delete(verdict->failed_checks);
  memset(verdict, 0, sizeof(*verdict));
}
