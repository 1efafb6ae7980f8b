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
/* Optional members: *set (when given) says whether the member was there. */
int spec_get_bool(const cJSON *object, const char *parent, const char *key, bool *out,
                  oci_error_t *err);
int spec_get_string(const cJSON *object, const char *parent, const char *key, bool is_required,
                    char **out, oci_error_t *err);
int spec_get_i64(const cJSON *object, const char *parent, const char *key, int64_t min, int64_t max,
                 int64_t *out, bool *set, oci_error_t *err);
int spec_get_u64(const cJSON *object, const char *parent, const char *key, uint64_t max,
                 uint64_t *out, bool *set, oci_error_t *err);
int spec_get_u32(const cJSON *object, const char *parent, const char *key, bool is_required,
                 uint32_t *out, bool *set, oci_error_t *err);
int spec_get_strv(const cJSON *object, const char *parent, const char *key, char ***out,
                  oci_error_t *err);
int spec_get_string_map(const cJSON *object, const char *parent, const char *key,
                        struct spec_key_value **out, size_t *n_out, oci_error_t *err);

enum spec_refusal {
  REFUSE_PRESENT,  /* any value */
  REFUSE_NONEMPTY, /* accepted: "", [], {} (they ask for nothing) */
  REFUSE_TRUE,     /* accepted: false */
  REFUSE_NONZERO,  /* accepted: 0 */
};

struct spec_unsupported {
  const char *key;
  enum spec_refusal when;
  const char *why;
};

int spec_refuse_unsupported(const cJSON *object, const char *parent,
                            const struct spec_unsupported *table, size_t n, oci_error_t *err);
#define SPEC_REFUSE_TABLE(object, parent, table, err)                                              \
  spec_refuse_unsupported(object, parent, table, sizeof(table) / sizeof(table[0]), err)

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

/* The objects of the document, each into spec. */
int spec_parse_process(const cJSON *config, struct spec *spec, oci_error_t *err);
int spec_parse_mounts(const cJSON *config, struct spec *spec, oci_error_t *err);
int spec_parse_linux(const cJSON *config, struct spec *spec, oci_error_t *err);
int spec_parse_resources(const cJSON *linux_section, struct spec *spec, oci_error_t *err);
void spec_resources_init(struct spec_resources *resources);

#endif
