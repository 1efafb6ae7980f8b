/* How the parser reads a value of the document: its type and range checked,
 * every error naming its JSON path ("process.rlimits[2].type: ..."), and
 * the refusal of a property the spec defines and ocirun does not implement
 * (spec/parse.h). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/cleanup.h"
#include "runtime/spec/parse.h"

/* --- errors that name the JSON path ------------------------------------ */

int spec_fail(oci_error_t *err, const char *path, const char *fmt, ...)
{
  cleanup_free char *message = NULL;
  va_list ap;
  int ret;

  va_start(ap, fmt);
  ret = vasprintf(&message, fmt, ap);
  va_end(ap);
  if (ret < 0)
    return oci_error_set(err, ENOMEM, "%s", path);
  return oci_error_set(err, 0, "%s: %s", path, message);
}

int spec_out_of_memory(oci_error_t *err, const char *path)
{
  return oci_error_set(err, ENOMEM, "%s", path);
}

/* A path too long for the buffer (a long map key) ends in "...". */
static const char *mark_truncated(char *buf, int length)
{
  if (length >= SPEC_PATH_MAX)
    memcpy(buf + SPEC_PATH_MAX - 4, "...", 4);
  return buf;
}

/* "process" + "user" -> "process.user"; "" + "linux" -> "linux". */
const char *spec_join_key(char *buf, const char *parent, const char *key)
{
  return mark_truncated(
      buf, snprintf(buf, SPEC_PATH_MAX, "%s%s%s", parent, parent[0] != '\0' ? "." : "", key));
}

const char *spec_join_index(char *buf, const char *parent, size_t index)
{
  return mark_truncated(buf, snprintf(buf, SPEC_PATH_MAX, "%s[%zu]", parent, index));
}

/* --- typed access --------------------------------------------------------- */

/* A member; JSON null counts as absent, as it does for every Go runtime. */
const cJSON *spec_member(const cJSON *object, const char *key)
{
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
  return item == NULL || cJSON_IsNull(item) ? NULL : item;
}

const char *spec_type_name(const cJSON *item)
{
  if (cJSON_IsBool(item))
    return "a boolean";
  if (cJSON_IsNumber(item))
    return "a number";
  if (cJSON_IsString(item))
    return "a string";
  if (cJSON_IsArray(item))
    return "an array";
  if (cJSON_IsObject(item))
    return "an object";
  return "null";
}

int spec_expect_type(const cJSON *item, const char *path, int type, const char *want,
                     oci_error_t *err)
{
  if ((item->type & 0xff) != type)
    return spec_fail(err, path, "expected %s, got %s", want, spec_type_name(item));
  return 0;
}

int spec_expect_object(const cJSON *item, const char *path, oci_error_t *err)
{
  return spec_expect_type(item, path, cJSON_Object, "an object", err);
}

int spec_expect_array(const cJSON *item, const char *path, oci_error_t *err)
{
  return spec_expect_type(item, path, cJSON_Array, "an array", err);
}

int spec_required(const cJSON *object, const char *parent, const char *key, const cJSON **item,
                  oci_error_t *err)
{
  char path[SPEC_PATH_MAX];
  *item = spec_member(object, key);
  if (*item == NULL)
    return spec_fail(err, spec_join_key(path, parent, key), "required");
  return 0;
}

/* JSON numbers arrive as doubles: integers are exact up to 2^53, and the
 * largest 64-bit values (2^63 - 1, 2^64 - 1, which Go writes for
 * "unlimited") round to 2^63 and 2^64; those are read as the maximum. */
int spec_number_i64(const cJSON *item, const char *path, int64_t min, int64_t max, int64_t *out,
                    oci_error_t *err)
{
  double v;
  if (spec_expect_type(item, path, cJSON_Number, "an integer", err) < 0)
    return -1;
  v = item->valuedouble;
  if (!isfinite(v) || v != trunc(v))
    return spec_fail(err, path, "not an integer");
  if (v == 9223372036854775808.0 && max == INT64_MAX)
    *out = INT64_MAX;
  else if (v >= 9223372036854775808.0 || v < -9223372036854775808.0)
    return spec_fail(err, path, "%.0f is out of range", v);
  else
    *out = (int64_t)v;
  if (*out < min || *out > max)
    return spec_fail(err, path, "%" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", *out, min,
                     max);
  return 0;
}

int spec_number_u64(const cJSON *item, const char *path, uint64_t max, uint64_t *out,
                    oci_error_t *err)
{
  double v;
  if (spec_expect_type(item, path, cJSON_Number, "an integer", err) < 0)
    return -1;
  v = item->valuedouble;
  if (!isfinite(v) || v != trunc(v))
    return spec_fail(err, path, "not an integer");
  if (v < 0)
    return spec_fail(err, path, "%.0f is negative", v);
  if (v == 18446744073709551616.0 && max == UINT64_MAX)
    *out = UINT64_MAX;
  else if (v >= 18446744073709551616.0)
    return spec_fail(err, path, "%.0f is out of range", v);
  else
    *out = (uint64_t)v;
  if (*out > max)
    return spec_fail(err, path, "%" PRIu64 " is above %" PRIu64, *out, max);
  return 0;
}

int spec_number_u32(const cJSON *item, const char *path, uint32_t *out, oci_error_t *err)
{
  uint64_t v;
  if (spec_number_u64(item, path, UINT32_MAX, &v, err) < 0)
    return -1;
  *out = (uint32_t)v;
  return 0;
}

int spec_array_start(const cJSON *array, const char *path, size_t entry_size, void **entries,
                     oci_error_t *err)
{
  *entries = NULL;
  if (array == NULL)
    return 0;
  if (spec_expect_array(array, path, err) < 0)
    return -1;
  *entries = calloc((size_t)cJSON_GetArraySize(array) + 1, entry_size);
  if (*entries == NULL)
    return spec_out_of_memory(err, path);
  return 1;
}

int spec_string_dup(const cJSON *item, const char *path, char **out, oci_error_t *err)
{
  if (spec_expect_type(item, path, cJSON_String, "a string", err) < 0)
    return -1;
  *out = strdup(item->valuestring);
  if (*out == NULL)
    return spec_out_of_memory(err, path);
  return 0;
}

/* --- a member's value into a field (NULL: absent, the field left alone) --- */

int spec_field_bool(const cJSON *value, const char *path, void *field, oci_error_t *err)
{
  if (value == NULL)
    return 0;
  if (!cJSON_IsBool(value))
    return spec_fail(err, path, "expected a boolean, got %s", spec_type_name(value));
  *(bool *)field = cJSON_IsTrue(value);
  return 0;
}

int spec_field_string(const cJSON *value, const char *path, void *field, oci_error_t *err)
{
  return value == NULL ? 0 : spec_string_dup(value, path, field, err);
}

/* An array of strings as a NULL-terminated vector (an empty one when the
 * array is empty). */
int spec_field_strv(const cJSON *value, const char *path, void *field, oci_error_t *err)
{
  char item_path[SPEC_PATH_MAX];
  cleanup_strv char **v = NULL;
  const cJSON *item;
  size_t n = 0;

  if (value == NULL)
    return 0;
  if (spec_expect_array(value, path, err) < 0)
    return -1;
  v = calloc((size_t)cJSON_GetArraySize(value) + 1, sizeof(*v));
  if (v == NULL)
    return spec_out_of_memory(err, path);
  cJSON_ArrayForEach(item, value)
  {
    if (spec_string_dup(item, spec_join_index(item_path, path, n), &v[n], err) < 0)
      return -1;
    n++;
  }
  *(char ***)field = steal_pointer(&v);
  return 0;
}

/* An object of strings ("annotations", "sysctl", "unified") as pairs;
 * *n_out counts each pair as it is made, so a half-read map is freed. */
int spec_string_map(const cJSON *value, const char *path, struct spec_key_value **out,
                    size_t *n_out, oci_error_t *err)
{
  char item_path[SPEC_PATH_MAX];
  struct spec_key_value *pairs;
  const cJSON *item;

  if (value == NULL)
    return 0;
  if (spec_expect_object(value, path, err) < 0)
    return -1;
  pairs = calloc((size_t)cJSON_GetArraySize(value) + 1, sizeof(*pairs));
  if (pairs == NULL)
    return spec_out_of_memory(err, path);
  *out = pairs;
  cJSON_ArrayForEach(item, value)
  {
    spec_join_key(item_path, path, item->string);
    if (item->string[0] == '\0')
      return spec_fail(err, path, "an empty key");
    if (spec_string_dup(item, item_path, &pairs[*n_out].value, err) < 0)
      return -1;
    (*n_out)++;
    pairs[*n_out - 1].key = strdup(item->string);
    if (pairs[*n_out - 1].key == NULL)
      return spec_out_of_memory(err, item_path);
  }
  return 0;
}

/* --- a member of an object, for parsers that read members in turn --------- */

/* Optional members: *set (when given) says whether the member was there. */
int spec_get_string(const cJSON *object, const char *parent, const char *key, bool is_required,
                    char **out, oci_error_t *err)
{
  char path[SPEC_PATH_MAX];
  const cJSON *item = spec_member(object, key);
  spec_join_key(path, parent, key);
  if (item == NULL)
    return is_required ? spec_fail(err, path, "required") : 0;
  return spec_string_dup(item, path, out, err);
}

int spec_get_i64(const cJSON *object, const char *parent, const char *key, int64_t min, int64_t max,
                 int64_t *out, bool *set, oci_error_t *err)
{
  char path[SPEC_PATH_MAX];
  const cJSON *item = spec_member(object, key);
  if (set != NULL)
    *set = item != NULL;
  if (item == NULL)
    return 0;
  return spec_number_i64(item, spec_join_key(path, parent, key), min, max, out, err);
}

int spec_get_u32(const cJSON *object, const char *parent, const char *key, bool is_required,
                 uint32_t *out, bool *set, oci_error_t *err)
{
  char path[SPEC_PATH_MAX];
  const cJSON *item = spec_member(object, key);
  spec_join_key(path, parent, key);
  if (set != NULL)
    *set = item != NULL;
  if (item == NULL)
    return is_required ? spec_fail(err, path, "required") : 0;
  return spec_number_u32(item, path, out, err);
}

int spec_get_strv(const cJSON *object, const char *parent, const char *key, char ***out,
                  oci_error_t *err)
{
  char path[SPEC_PATH_MAX];

  return spec_field_strv(spec_member(object, key), spec_join_key(path, parent, key), out, err);
}

int spec_container_path(const char *given, unsigned rules, const char *path, char **out,
                        oci_error_t *err)
{
  size_t size = strlen(given) + 2;
  cleanup_free char *normal = malloc(size);

  if (normal == NULL)
    return spec_out_of_memory(err, path);
  switch (in_root_path_normalize(given, rules, normal, size)) {
  case IN_ROOT_PATH_NORMAL:
    *out = steal_pointer(&normal);
    return 0;
  case IN_ROOT_PATH_EMPTY:
    /* where a relative path is taken from "/", "" is still none */
    if (rules & IN_ROOT_ALLOW_RELATIVE)
      return spec_fail(err, path, "empty");
    __attribute__((fallthrough));
  case IN_ROOT_PATH_NOT_ABSOLUTE:
    return spec_fail(err, path, "'%s' is not an absolute path", given);
  case IN_ROOT_PATH_DOT_DOT:
    return spec_fail(err, path, "'%s' contains '..'", given);
  case IN_ROOT_PATH_IS_ROOT:
    return spec_fail(err, path, "'%s' is the root itself", given);
  case IN_ROOT_PATH_TOO_LONG:
    break;
  }
  return spec_fail(err, path, "'%s' is too long", given);
}

/* --- properties the spec defines and ocirun does not implement ------------ */

static bool asks_for_something(const cJSON *item, enum spec_refusal when)
{
  switch (when) {
  case REFUSE_PRESENT:
    return true;
  case REFUSE_NONEMPTY:
    if (cJSON_IsString(item))
      return item->valuestring[0] != '\0';
    if (cJSON_IsArray(item) || cJSON_IsObject(item))
      return item->child != NULL;
    return true;
  case REFUSE_TRUE:
    return !cJSON_IsFalse(item);
  case REFUSE_NONZERO:
    return !cJSON_IsNumber(item) || item->valuedouble != 0;
  }
  return true;
}

int spec_dispatch(const cJSON *object, const char *path, const struct spec_field *fields, size_t n,
                  void *target, oci_error_t *err)
{
  char member_path[SPEC_PATH_MAX];

  for (size_t i = 0; i < n; i++) {
    const struct spec_field *field = &fields[i];
    const cJSON *value = field->key != NULL ? spec_member(object, field->key) : object;
    const char *at = field->key != NULL ? spec_join_key(member_path, path, field->key) : path;

    if (field->parse != NULL) {
      if (field->parse(value, at, (char *)target + field->offset, err) < 0)
        return -1;
    } else if (field->fields != NULL) {
      if (value != NULL &&
          (spec_expect_object(value, at, err) < 0 ||
           spec_dispatch(value, at, field->fields, field->n_fields, target, err) < 0))
        return -1;
    } else if (value != NULL && asks_for_something(value, field->refuse)) {
      return oci_error_set(err, 0, "%s is not supported by ocirun (%s)", at, field->why);
    }
  }
  return 0;
}
