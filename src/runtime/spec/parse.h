/* What the files of runtime/spec/ share (not for anyone else): typed access
 * to the document whose errors name the JSON path (values.c), the refusal of
 * what the spec defines and ocirun does not implement, and each object's
 * parser. Members whose value is JSON null count as absent. */
#ifndef RUNTIME_SPEC_PARSE_H
#define RUNTIME_SPEC_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "oci/error.h"
#include "oci/in_root.h"
#include "runtime/spec/spec.h"

/* A JSON path ("linux.resources.devices[3].access") fits here; a longer one
 * (a long map key) ends in "...". */
enum { SPEC_PATH_MAX = 512 };

/* "PATH: MESSAGE" into *err; -1. */
int spec_fail(oci_error_t *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int spec_out_of_memory(oci_error_t *err, const char *path);
/* "process" + "user" -> "process.user"; "" + "linux" -> "linux". */
const char *spec_join_key(char *buf, const char *parent, const char *key);
/* "mounts" + 2 -> "mounts[2]". */
const char *spec_join_index(char *buf, const char *parent, size_t index);

const cJSON *spec_member(const cJSON *object, const char *key);
/* "a boolean", "a number", "a string", "an array", "an object", "null". */
const char *spec_type_name(const cJSON *item);
int spec_expect_type(const cJSON *item, const char *path, int type, const char *want,
                     oci_error_t *err);
int spec_expect_object(const cJSON *item, const char *path, oci_error_t *err);
int spec_expect_array(const cJSON *item, const char *path, oci_error_t *err);
int spec_required(const cJSON *object, const char *parent, const char *key, const cJSON **item,
                  oci_error_t *err);
int spec_number_i64(const cJSON *item, const char *path, int64_t min, int64_t max, int64_t *out,
                    oci_error_t *err);
int spec_number_u64(const cJSON *item, const char *path, uint64_t max, uint64_t *out,
                    oci_error_t *err);
int spec_number_u32(const cJSON *item, const char *path, uint32_t *out, oci_error_t *err);
int spec_string_dup(const cJSON *item, const char *path, char **out, oci_error_t *err);
/* An optional array member: 0 when absent (*entries NULL), -1 when it is
 * not an array or memory runs out, else 1 with *entries zeroed room for
 * each entry and one more. */
int spec_array_start(const cJSON *array, const char *path, size_t entry_size, void **entries,
                     oci_error_t *err);

/* A member's value (NULL when absent: the field is left alone) into the
 * field it fills: bool *, char **, char *** (a NULL-terminated vector). */
int spec_field_bool(const cJSON *value, const char *path, void *field, oci_error_t *err);
int spec_field_string(const cJSON *value, const char *path, void *field, oci_error_t *err);
int spec_field_strv(const cJSON *value, const char *path, void *field, oci_error_t *err);
int spec_string_map(const cJSON *value, const char *path, struct spec_key_value **out,
                    size_t *n_out, oci_error_t *err);

/* A member of object, for the parsers of an array's entries, which read
 * members in turn. *set (when given) says whether the member was there. */
int spec_get_string(const cJSON *object, const char *parent, const char *key, bool is_required,
                    char **out, oci_error_t *err);
int spec_get_i64(const cJSON *object, const char *parent, const char *key, int64_t min, int64_t max,
                 int64_t *out, bool *set, oci_error_t *err);
int spec_get_u32(const cJSON *object, const char *parent, const char *key, bool is_required,
                 uint32_t *out, bool *set, oci_error_t *err);
int spec_get_strv(const cJSON *object, const char *parent, const char *key, char ***out,
                  oci_error_t *err);

/* An object's members as a table, in the order they are checked (which
 * says which error a document with several gets): each member the spec
 * defines is parsed into the target, or refused by name when ocirun does
 * not implement it and the value asks for something; a member the spec
 * does not define is never looked at (the spec's extensibility rule). */
enum spec_refusal {
  REFUSE_PRESENT,  /* any value */
  REFUSE_NONEMPTY, /* accepted: "", [], {} (they ask for nothing) */
  REFUSE_TRUE,     /* accepted: false */
  REFUSE_NONZERO,  /* accepted: 0 */
};

struct spec_field {
  const char *key; /* NULL: a check over what the members above read, given the object */
  /* value: the member (NULL when absent), path: its JSON path, field: the
   * target + offset */
  int (*parse)(const cJSON *value, const char *path, void *field, oci_error_t *err);
  size_t offset;
  /* or an optional object whose members are a table of their own, into the
   * same target */
  const struct spec_field *fields;
  size_t n_fields;
  /* or, with neither, a member ocirun refuses when its value asks for something */
  enum spec_refusal refuse;
  const char *why;
};

/* parse fills member of the target (a struct type) */
#define SPEC_FIELD(name, function, type, member)                                                   \
  {                                                                                                \
    .key = (name), .parse = (function), .offset = offsetof(type, member)                           \
  }
/* parse gets the whole target */
#define SPEC_MEMBER(name, function)                                                                \
  {                                                                                                \
    .key = (name), .parse = (function)                                                             \
  }
#define SPEC_OBJECT(name, table)                                                                   \
  {                                                                                                \
    .key = (name), .fields = (table), .n_fields = sizeof(table) / sizeof(table[0])                 \
  }
#define SPEC_REFUSED(name, when, reason)                                                           \
  {                                                                                                \
    .key = (name), .refuse = (when), .why = (reason)                                               \
  }
#define SPEC_CHECK(function)                                                                       \
  {                                                                                                \
    .parse = (function)                                                                            \
  }

/* object's members by fields into target; path is the object's. The
 * caller has checked that object is one. */
int spec_dispatch(const cJSON *object, const char *path, const struct spec_field *fields, size_t n,
                  void *target, oci_error_t *err);
#define SPEC_DISPATCH(object, path, fields, target, err)                                           \
  spec_dispatch(object, path, fields, sizeof(fields) / sizeof(fields[0]), target, err)

/* "NAME=VALUE" with a non-empty NAME, as environ(7) has them (process.c). */
int spec_check_env(char **env, const char *path, oci_error_t *err);
/* given as a path inside the container in its one normal form
 * (in_root_path_normalize under rules: the spec allows a relative mount
 * destination, taken from "/", deprecated); ".." is refused rather than
 * resolved against a tree not yet built. The refusal names path. */
int spec_container_path(const char *given, unsigned rules, const char *path, char **out,
                        oci_error_t *err);
/* A propagation option by name ("rslave": MS_SLAVE | MS_REC); -1 for any
 * other name (mounts.c). */
int spec_propagation_from_name(const char *name, unsigned long *propagation);

/* The document's objects, each a member parser of struct spec (value:
 * the object, NULL when absent). */
int spec_parse_process(const cJSON *value, const char *path, void *spec, oci_error_t *err);
int spec_parse_mounts(const cJSON *value, const char *path, void *spec, oci_error_t *err);
int spec_parse_linux(const cJSON *value, const char *path, void *spec, oci_error_t *err);
/* An array of LinuxIDMapping (linux.uidMappings, a mount's uidMappings). */
int spec_parse_id_mappings(const cJSON *array, const char *path, struct spec_id_mapping **out,
                           size_t *n_out, oci_error_t *err);
int spec_parse_resources(const cJSON *value, const char *path, void *spec, oci_error_t *err);
void spec_resources_init(struct spec_resources *resources);
/* Frees what spec_parse_resources allocated (spec.c's spec_clear). */
void spec_resources_free(struct spec_resources *resources);
void spec_key_values_free(struct spec_key_value *pairs, size_t n);
/* process_attrs.c: process.scheduler, process.ioPriority and
 * process.execCPUAffinity (into their struct), linux.personality (into struct spec),
 * linux.memoryPolicy (into its struct). */
int spec_parse_cpu_affinity(const cJSON *value, const char *path, void *affinity, oci_error_t *err);
int spec_parse_scheduler(const cJSON *value, const char *path, void *scheduler, oci_error_t *err);
int spec_parse_io_priority(const cJSON *value, const char *path, void *io_priority,
                           oci_error_t *err);
int spec_parse_personality(const cJSON *value, const char *path, void *spec, oci_error_t *err);
int spec_parse_memory_policy(const cJSON *value, const char *path, void *policy, oci_error_t *err);

#endif
