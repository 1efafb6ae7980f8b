/* The OCI runtime-spec configuration parser: config.json (runtime-spec 1.x)
 * into struct spec. Every value is checked here, once, so the runtime builds
 * only from values it understands; docs/spec-coverage.md lists what each
 * property becomes. This file reads the document as a whole (ociVersion,
 * root, hostname, hooks, annotations) and hands its objects to process.c,
 * mounts.c and linux.c. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/cleanup.h"
#include "oci/file_read.h"
#include "runtime/json_strict.h"
#include "runtime/spec/parse.h"
#include "runtime/spec/spec.h"

/* config.json is a few kilobytes; a seccomp profile makes it some tens. */
enum { SPEC_FILE_MAX_BYTES = 8 << 20 };

/* SemVer 2.0.0 with major version 1: "1.2.0", "1.0.2-dev", "1.1.0+build". */
static int parse_oci_version(const cJSON *value, const char *path, void *target, oci_error_t *err)
{
  struct spec *spec = target;
  const char *p;
  unsigned long parts[3];
  char *end;

  if (value == NULL)
    return spec_fail(err, path, "required");
  if (spec_string_dup(value, path, &spec->oci_version, err) < 0)
    return -1;
  p = spec->oci_version;
  for (int i = 0; i < 3; i++) {
    if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
      return spec_fail(err, "ociVersion", "'%s' is not a SemVer version", spec->oci_version);
    errno = 0;
    parts[i] = strtoul(p, &end, 10);
    if (errno != 0 || (i < 2 && *end != '.'))
      return spec_fail(err, "ociVersion", "'%s' is not a SemVer version", spec->oci_version);
    p = i < 2 ? end + 1 : end;
  }
  if (*p != '\0' && *p != '-' && *p != '+')
    return spec_fail(err, "ociVersion", "'%s' is not a SemVer version", spec->oci_version);
  if (parts[0] != 1)
    return spec_fail(err, "ociVersion",
                     "version %lu is not supported: ocirun implements runtime-spec 1.x (%s)",
                     parts[0], SPEC_OCI_VERSION);
  return 0;
}

/* As given: relative to the bundle when not absolute. */
static int parse_root_path(const cJSON *value, const char *path, void *root_path, oci_error_t *err)
{
  char **out = root_path;

  if (value == NULL)
    return spec_fail(err, path, "required");
  if (spec_string_dup(value, path, out, err) < 0)
    return -1;
  if ((*out)[0] == '\0')
    return spec_fail(err, path, "empty");
  return 0;
}

static const struct spec_field root_fields[] = {
    SPEC_FIELD("path", parse_root_path, struct spec, root_path),
    SPEC_FIELD("readonly", spec_field_bool, struct spec, root_readonly),
};

static int parse_root(const cJSON *value, const char *path, void *spec, oci_error_t *err)
{
  if (value == NULL)
    return spec_fail(err, path, "required");
  if (spec_expect_object(value, path, err) < 0)
    return -1;
  return SPEC_DISPATCH(value, path, root_fields, spec, err);
}

/* --- hostname, hooks, annotations ------------------------------------------ */

/* hostname and domainname, once both are read: sethostname and
 * setdomainname take at most 64 bytes */
static int check_names(const cJSON *config, const char *path, void *target, oci_error_t *err)
{
  const struct spec *spec = target;

  (void)config, (void)path;
  if (spec->hostname != NULL && strlen(spec->hostname) > 64)
    return spec_fail(err, "hostname", "longer than 64 bytes");
  if (spec->domainname != NULL && strlen(spec->domainname) > 64)
    return spec_fail(err, "domainname", "longer than 64 bytes");
  return 0;
}

/* The sysctl spelled either way ("kernel.hostname", "kernel/hostname"). */
static bool is_sysctl(const char *key, const char *dotted)
{
  size_t n = strlen(dotted);

  if (strlen(key) != n)
    return false;
  for (size_t i = 0; i < n; i++) {
    if (key[i] != dotted[i] && !(dotted[i] == '.' && key[i] == '/'))
      return false;
  }
  return true;
}

/* kernel.hostname and kernel.domainname are what the hostname and
 * domainname fields set: beside a field, a sysctl with another value would
 * silently win (applied after it), so the conflict is refused by name. */
static int check_uts_sysctl(const cJSON *config, const char *path, void *target, oci_error_t *err)
{
  static const char *const sysctls[] = {"kernel.hostname", "kernel.domainname"};
  static const char *const fields[] = {"hostname", "domainname"};
  const struct spec *spec = target;
  const char *const values[] = {spec->hostname, spec->domainname};
  char where[SPEC_PATH_MAX];

  (void)config, (void)path;
  for (size_t i = 0; i < spec->n_sysctl; i++) {
    for (size_t k = 0; k < 2; k++) {
      if (values[k] == NULL || !is_sysctl(spec->sysctl[i].key, sysctls[k]) ||
          strcmp(spec->sysctl[i].value, values[k]) == 0)
        continue;
      return spec_fail(err, spec_join_key(where, "linux.sysctl", spec->sysctl[i].key),
                       "'%s' conflicts with %s '%s' (the field sets it): refused",
                       spec->sysctl[i].value, fields[k], values[k]);
    }
  }
  return 0;
}

static const char *const hook_kind_names[SPEC_HOOK_KIND_COUNT] = {
    [SPEC_HOOK_PRESTART] = "prestart",
    [SPEC_HOOK_CREATE_RUNTIME] = "createRuntime",
    [SPEC_HOOK_CREATE_CONTAINER] = "createContainer",
    [SPEC_HOOK_START_CONTAINER] = "startContainer",
    [SPEC_HOOK_POSTSTART] = "poststart",
    [SPEC_HOOK_POSTSTOP] = "poststop",
};

const char *spec_hook_kind_name(enum spec_hook_kind kind)
{
  return (unsigned)kind < SPEC_HOOK_KIND_COUNT ? hook_kind_names[kind] : NULL;
}

static int parse_hook(const cJSON *item, const char *path, struct spec_hook *hook, oci_error_t *err)
{
  char field_path[SPEC_PATH_MAX];
  int64_t timeout;
  bool timeout_set;

  if (spec_expect_object(item, path, err) < 0 ||
      spec_get_string(item, path, "path", true, &hook->path, err) < 0)
    return -1;
  if (hook->path[0] != '/')
    return spec_fail(err, spec_join_key(field_path, path, "path"), "'%s' is not an absolute path",
                     hook->path);
  if (spec_get_strv(item, path, "args", &hook->args, err) < 0 ||
      spec_get_strv(item, path, "env", &hook->env, err) < 0 ||
      spec_check_env(hook->env, spec_join_key(field_path, path, "env"), err) < 0)
    return -1;
  if (spec_get_i64(item, path, "timeout", INT64_MIN, INT64_MAX, &timeout, &timeout_set, err) < 0)
    return -1;
  if (timeout_set && (timeout <= 0 || timeout > INT_MAX))
    return spec_fail(err, spec_join_key(field_path, path, "timeout"),
                     "%" PRId64 " is not above zero", timeout);
  hook->timeout = timeout_set ? (int)timeout : 0;
  return 0;
}

/* The six lists, by the names above. */
static int parse_hooks(const cJSON *hooks, const char *hooks_path, void *target, oci_error_t *err)
{
  struct spec *spec = target;
  char path[SPEC_PATH_MAX], item_path[SPEC_PATH_MAX];

  if (hooks == NULL)
    return 0;
  if (spec_expect_object(hooks, hooks_path, err) < 0)
    return -1;
  for (int kind = 0; kind < SPEC_HOOK_KIND_COUNT; kind++) {
    const cJSON *array = spec_member(hooks, hook_kind_names[kind]), *item;
    struct spec_hooks *list = &spec->hooks[kind];

    spec_join_key(path, hooks_path, hook_kind_names[kind]);
    if (array == NULL)
      continue;
    if (spec_expect_array(array, path, err) < 0)
      return -1;
    list->hooks = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(*list->hooks));
    if (list->hooks == NULL)
      return spec_out_of_memory(err, path);
    cJSON_ArrayForEach(item, array)
    {
      list->n_hooks++;
      if (parse_hook(item, spec_join_index(item_path, path, list->n_hooks - 1),
                     &list->hooks[list->n_hooks - 1], err) < 0)
        return -1;
    }
  }
  return 0;
}

static int parse_annotations(const cJSON *value, const char *path, void *target, oci_error_t *err)
{
  struct spec *spec = target;

  return spec_string_map(value, path, &spec->annotations, &spec->n_annotations, err);
}

/* --- the document as a table ---------------------------------------------- */

static const struct spec_field document_fields[] = {
    SPEC_MEMBER("ociVersion", parse_oci_version),
    SPEC_REFUSED("windows", REFUSE_PRESENT, "a configuration for Windows"),
    SPEC_REFUSED("solaris", REFUSE_PRESENT, "a configuration for Solaris"),
    SPEC_REFUSED("zos", REFUSE_PRESENT, "a configuration for z/OS"),
    SPEC_REFUSED("freebsd", REFUSE_PRESENT, "a configuration for FreeBSD"),
    SPEC_REFUSED("vm", REFUSE_PRESENT, "ocirun runs containers, not virtual machines"),
    SPEC_MEMBER("root", parse_root),
    SPEC_MEMBER("process", spec_parse_process),
    SPEC_MEMBER("mounts", spec_parse_mounts),
    SPEC_FIELD("hostname", spec_field_string, struct spec, hostname),
    SPEC_FIELD("domainname", spec_field_string, struct spec, domainname),
    SPEC_CHECK(check_names),
    SPEC_MEMBER("hooks", parse_hooks),
    SPEC_MEMBER("annotations", parse_annotations),
    SPEC_MEMBER("linux", spec_parse_linux),
    SPEC_CHECK(check_uts_sysctl),
};

/* --- entry points -------------------------------------------------------- */

int spec_parse(const cJSON *config, struct spec *spec, oci_error_t *err)
{
  memset(spec, 0, sizeof(*spec));
  spec_resources_init(&spec->resources);
  if (config == NULL || !cJSON_IsObject(config))
    return oci_error_set(err, 0, "the configuration is not a JSON object");
  if (json_refuse_duplicate_keys(config, "config.json", err) < 0 ||
      SPEC_DISPATCH(config, "", document_fields, spec, err) < 0) {
    spec_clear(spec);
    return -1;
  }
  return 0;
}

int spec_load_bundle(int bundle_fd, const char *bundle_path, struct spec *spec, oci_error_t *err)
{
  cleanup_free char *text = NULL;
  size_t length;

  return spec_load_bundle_text(bundle_fd, bundle_path, spec, &text, &length, err);
}

int spec_load_bundle_text(int bundle_fd, const char *bundle_path, struct spec *spec, char **out,
                          size_t *out_length, oci_error_t *err)
{
  cleanup_free char *what = NULL;
  cleanup_free char *text = NULL;
  cleanup_cjson cJSON *config = NULL;
  const char *end = NULL;
  size_t length = 0;

  memset(spec, 0, sizeof(*spec));
  spec_resources_init(&spec->resources);
  if (asprintf(&what, "%s/config.json", bundle_path) < 0)
    return oci_error_set(err, ENOMEM, "%s/config.json", bundle_path);
  /* inside the bundle, no link followed: a config.json that is a symlink
   * or a FIFO is refused, never followed or waited on */
  if (oci_file_read(bundle_fd, "config.json", OCI_FILE_BENEATH, what, SPEC_FILE_MAX_BYTES, &text,
                    &length, err) < 0)
    return -1;
  if (strlen(text) != length)
    return oci_error_set(err, 0, "%s: not JSON (a NUL byte at offset %zu)", what, strlen(text));
  /* require_null_terminated: nothing may follow the document */
  config = cJSON_ParseWithOpts(text, &end, true);
  if (config == NULL)
    return oci_error_set(err, 0, "%s: not valid JSON (at offset %td)", what,
                         end != NULL && end >= text ? end - text : (ptrdiff_t)0);
  if (spec_parse(config, spec, err) < 0)
    return oci_error_wrap(err, "%s", what);
  *out = text;
  text = NULL;
  *out_length = length;
  return 0;
}

static void spec_process_clear(struct spec_process *process)
{
  free(process->additional_gids);
  strv_free(process->args);
  strv_free(process->env);
  free(process->cwd);
  free(process->rlimits);
}

void spec_key_values_free(struct spec_key_value *pairs, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    free(pairs[i].key);
    free(pairs[i].value);
  }
  free(pairs);
}

void spec_clear(struct spec *spec)
{
  free(spec->oci_version);
  free(spec->root_path);
  spec_process_clear(&spec->process);
  free(spec->hostname);
  free(spec->domainname);
  for (size_t i = 0; i < spec->n_mounts; i++) {
    free(spec->mounts[i].destination);
    free(spec->mounts[i].type);
    free(spec->mounts[i].source);
    free(spec->mounts[i].data);
    free(spec->mounts[i].uid_mappings);
    free(spec->mounts[i].gid_mappings);
  }
  free(spec->mounts);
  for (int kind = 0; kind < SPEC_HOOK_KIND_COUNT; kind++) {
    for (size_t i = 0; i < spec->hooks[kind].n_hooks; i++) {
      free(spec->hooks[kind].hooks[i].path);
      strv_free(spec->hooks[kind].hooks[i].args);
      strv_free(spec->hooks[kind].hooks[i].env);
    }
    free(spec->hooks[kind].hooks);
  }
  spec_key_values_free(spec->annotations, spec->n_annotations);
  for (int t = 0; t < SPEC_NS_COUNT; t++)
    free(spec->namespaces[t].path);
  free(spec->uid_mappings);
  free(spec->gid_mappings);
  for (size_t i = 0; i < spec->n_devices; i++)
    free(spec->devices[i].path);
  free(spec->devices);
  free(spec->cgroups_path);
  spec_resources_free(&spec->resources);
  cJSON_Delete(spec->seccomp);
  free(spec->seccomp_listener_path);
  free(spec->seccomp_listener_metadata);
  strv_free(spec->masked_paths);
  strv_free(spec->readonly_paths);
  spec_key_values_free(spec->sysctl, spec->n_sysctl);
  memset(spec, 0, sizeof(*spec));
  spec_resources_init(&spec->resources);
}
