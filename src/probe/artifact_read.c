/* Reading an evidence artifact: load the file, parse it, and check the keys the
 * recipe's artifact always has, so a reader never walks a half-shaped document.
 * The full contract, with types of every field, is docs/artifact.schema.json. */
#include "config.h"
#include "probe/artifact_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/file_read.h"
#include "runtime/json_strict.h"

/* An artifact is a few kilobytes; refuse anything absurd before reading it. */
#define ARTIFACT_MAX_BYTES (16 * 1024 * 1024)

#define JSON_BOOL (cJSON_True | cJSON_False)

static const struct artifact_key top_level_keys[] = {
    {"observed", cJSON_Object, "an object"},
    {"image_id", cJSON_String, "a string"},
    {"repo_digests", cJSON_Array, "an array"},
    {"docker_server", cJSON_String | cJSON_NULL, "a string or null"},
    {"flags", cJSON_Array, "an array"},
    {"provenance", cJSON_Object, "an object"},
    {"teardown_verified", JSON_BOOL, "a boolean"},
};

const struct artifact_key artifact_observations[7] = {
    {"uid", cJSON_Number | cJSON_NULL, "a number or null"},
    {"cgroup_v2", cJSON_Object, "an object"},
    {"root_read_only", JSON_BOOL | cJSON_NULL, "a boolean or null"},
    {"owned_tmp_write", JSON_BOOL | cJSON_NULL, "a boolean or null"},
    {"network_interfaces", cJSON_Array | cJSON_NULL, "an array or null"},
    {"no_new_privileges", JSON_BOOL | cJSON_NULL, "a boolean or null"},
    {"capabilities", cJSON_Number | cJSON_NULL, "a number or null"},
};

const struct artifact_key artifact_cgroup_files[3] = {
    {"memory.max", cJSON_String | cJSON_NULL, "a string or null"},
    {"pids.max", cJSON_String | cJSON_NULL, "a string or null"},
    {"cpu.max", cJSON_String | cJSON_NULL, "a string or null"},
};

/* PREFIX names the enclosing object in messages ("" at top level). */
static int check_keys(const char *path, const cJSON *object, const char *prefix,
                      const struct artifact_key *keys, size_t n_keys, oci_error_t *err)
{
  for (size_t i = 0; i < n_keys; i++) {
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(object, keys[i].name);
    if (value == NULL)
      return oci_error_set(err, 0, "%s: missing required key \"%s%s\"", path, prefix, keys[i].name);
    if ((value->type & 0xff & keys[i].types) == 0)
      return oci_error_set(err, 0, "%s: key \"%s%s\" must be %s", path, prefix, keys[i].name,
                           keys[i].type_name);
  }
  return 0;
}

int artifact_read(const char *path, cJSON **out, oci_error_t *err)
{
  cleanup_free char *text = NULL;
  cleanup_cjson cJSON *doc = NULL;
  const cJSON *observed;
  size_t len = 0;

  if (oci_file_read(AT_FDCWD, path, OCI_FILE_NAMED, path, ARTIFACT_MAX_BYTES, &text, &len, err) < 0)
    return -1;
  /* As strictly as the probe's output: a key twice, invalid UTF-8 or a
   * NUL (where cJSON would end a string) could make ocirun read another
   * artifact than the next reader does. */
  if (json_parse_strict(text, len, &doc, err) < 0)
    return oci_error_wrap(err, "%s", path);
  if (!cJSON_IsObject(doc))
    return oci_error_set(err, 0, "%s: not a JSON object", path);
  if (check_keys(path, doc, "", top_level_keys, sizeof(top_level_keys) / sizeof(top_level_keys[0]),
                 err) < 0)
    return -1;
  observed = cJSON_GetObjectItemCaseSensitive(doc, "observed");
  if (check_keys(path, observed, "observed.", artifact_observations,
                 sizeof(artifact_observations) / sizeof(artifact_observations[0]), err) < 0)
    return -1;
  if (check_keys(path, cJSON_GetObjectItemCaseSensitive(observed, "cgroup_v2"),
                 "observed.cgroup_v2.", artifact_cgroup_files,
                 sizeof(artifact_cgroup_files) / sizeof(artifact_cgroup_files[0]), err) < 0)
    return -1;
  *out = steal_pointer(&doc);
  return 0;
}
