/* process: what the container's process is (args, env, cwd, user,
 * capabilities, rlimits, terminal, no-new-privileges, OOM score), each
 * object of it a table of its members. */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "oci/cleanup.h"
#include "runtime/capabilities.h"
#include "runtime/spec/parse.h"

/* "NAME=VALUE" with a non-empty NAME, as environ(7) has them. */
int spec_check_env(char **env, const char *path, oci_error_t *err)
{
  char item_path[SPEC_PATH_MAX];
  for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
    const char *equals = strchr(env[i], '=');
    if (equals == NULL || equals == env[i])
      return spec_fail(err, spec_join_index(item_path, path, i), "'%s' is not NAME=VALUE", env[i]);
  }
  return 0;
}

static const struct {
  const char *name;
  int resource;
} rlimit_names[] = {
    {"RLIMIT_AS", RLIMIT_AS},
    {"RLIMIT_CORE", RLIMIT_CORE},
    {"RLIMIT_CPU", RLIMIT_CPU},
    {"RLIMIT_DATA", RLIMIT_DATA},
    {"RLIMIT_FSIZE", RLIMIT_FSIZE},
    {"RLIMIT_LOCKS", RLIMIT_LOCKS},
    {"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
    {"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
    {"RLIMIT_NICE", RLIMIT_NICE},
    {"RLIMIT_NOFILE", RLIMIT_NOFILE},
    {"RLIMIT_NPROC", RLIMIT_NPROC},
    {"RLIMIT_RSS", RLIMIT_RSS},
    {"RLIMIT_RTPRIO", RLIMIT_RTPRIO},
    {"RLIMIT_RTTIME", RLIMIT_RTTIME},
    {"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
    {"RLIMIT_STACK", RLIMIT_STACK},
};

static int rlimit_from_name(const char *name)
{
  for (size_t i = 0; i < sizeof(rlimit_names) / sizeof(rlimit_names[0]); i++)
    if (strcmp(rlimit_names[i].name, name) == 0)
      return rlimit_names[i].resource;
  return -1;
}

static const char *rlimit_name(int resource)
{
  for (size_t i = 0; i < sizeof(rlimit_names) / sizeof(rlimit_names[0]); i++)
    if (rlimit_names[i].resource == resource)
      return rlimit_names[i].name;
  return "?";
}

static int parse_rlimits(const cJSON *array, const char *array_path, void *process,
                         oci_error_t *err)
{
  struct spec_process *out = process;
  char path[SPEC_PATH_MAX], type_path[SPEC_PATH_MAX];
  const cJSON *item;

  if (array == NULL)
    return 0;
  if (spec_expect_array(array, array_path, err) < 0)
    return -1;
  out->rlimits = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(*out->rlimits));
  if (out->rlimits == NULL)
    return spec_out_of_memory(err, array_path);
  cJSON_ArrayForEach(item, array)
  {
    struct spec_rlimit *limit = &out->rlimits[out->n_rlimits];
    cleanup_free char *type = NULL;
    const cJSON *soft, *hard;

    spec_join_index(path, array_path, out->n_rlimits);
    if (spec_expect_object(item, path, err) < 0 ||
        spec_get_string(item, path, "type", true, &type, err) < 0)
      return -1;
    limit->resource = rlimit_from_name(type);
    if (limit->resource < 0)
      return spec_fail(err, spec_join_key(type_path, path, "type"), "unknown rlimit '%s'", type);
    for (size_t i = 0; i < out->n_rlimits; i++)
      if (out->rlimits[i].resource == limit->resource)
        return spec_fail(err, spec_join_key(type_path, path, "type"),
                         "%s is given twice (also in %s[%zu])", type, array_path, i);
    if (spec_required(item, path, "soft", &soft, err) < 0 ||
        spec_required(item, path, "hard", &hard, err) < 0 ||
        spec_number_u64(soft, spec_join_key(type_path, path, "soft"), UINT64_MAX, &limit->soft,
                        err) < 0 ||
        spec_number_u64(hard, spec_join_key(type_path, path, "hard"), UINT64_MAX, &limit->hard,
                        err) < 0)
      return -1;
    if (limit->soft > limit->hard)
      return spec_fail(err, path, "%s: soft limit %" PRIu64 " is above the hard limit %" PRIu64,
                       rlimit_name(limit->resource), limit->soft, limit->hard);
    out->n_rlimits++;
  }
  return 0;
}

/* One of the five sets: names into a bit mask. */
static int parse_capability_set(const cJSON *array, const char *path, void *mask, oci_error_t *err)
{
  char item_path[SPEC_PATH_MAX];
  const cJSON *item;
  size_t index = 0;

  if (array == NULL)
    return 0;
  if (spec_expect_array(array, path, err) < 0)
    return -1;
  cJSON_ArrayForEach(item, array)
  {
    int cap;
    spec_join_index(item_path, path, index++);
    if (spec_expect_type(item, item_path, cJSON_String, "a string", err) < 0)
      return -1;
    /* A name ocirun cannot map is refused rather than dropped with a
     * warning (which the spec would allow): the parser has no channel
     * for warnings, and a set that silently differs from the one asked
     * for is worse than an error. "ALL" is docker's, not the spec's. */
    cap = capability_from_name(item->valuestring);
    if (cap < 0 || cap >= 64)
      return spec_fail(err, item_path, "unknown capability '%s'", item->valuestring);
    *(uint64_t *)mask |= UINT64_C(1) << cap;
  }
  return 0;
}

static const struct spec_field capabilities_fields[] = {
    SPEC_FIELD("bounding", parse_capability_set, struct spec_process, cap_bounding),
    SPEC_FIELD("effective", parse_capability_set, struct spec_process, cap_effective),
    SPEC_FIELD("inheritable", parse_capability_set, struct spec_process, cap_inheritable),
    SPEC_FIELD("permitted", parse_capability_set, struct spec_process, cap_permitted),
    SPEC_FIELD("ambient", parse_capability_set, struct spec_process, cap_ambient),
};

/* uid and gid are REQUIRED in a POSIX user. 4294967295 is (uid_t)-1, which
 * setresuid/setresgid read as "leave it": the process would stay root. */
static int parse_id(const cJSON *value, const char *path, uint32_t *id, oci_error_t *err)
{
  if (value == NULL)
    return spec_fail(err, path, "required");
  return spec_number_u32(value, path, id, err);
}

static int parse_uid(const cJSON *value, const char *path, void *uid, oci_error_t *err)
{
  uint32_t id;

  if (parse_id(value, path, &id, err) < 0)
    return -1;
  if (id == UINT32_MAX)
    return spec_fail(err, path, "4294967295 is not a user id ((uid_t)-1 means no change)");
  *(uid_t *)uid = id;
  return 0;
}

static int parse_gid(const cJSON *value, const char *path, void *gid, oci_error_t *err)
{
  uint32_t id;

  if (parse_id(value, path, &id, err) < 0)
    return -1;
  if (id == UINT32_MAX)
    return spec_fail(err, path, "4294967295 is not a group id ((gid_t)-1 means no change)");
  *(gid_t *)gid = id;
  return 0;
}

static int parse_umask(const cJSON *value, const char *path, void *process, oci_error_t *err)
{
  struct spec_process *out = process;
  uint32_t umask;

  if (value == NULL)
    return 0;
  if (spec_number_u32(value, path, &umask, err) < 0)
    return -1;
  if (umask > 0777)
    return spec_fail(err, path, "%#o is not a umask (above 0777)", umask);
  out->umask_set = true;
  out->umask = umask;
  return 0;
}

static int parse_additional_gids(const cJSON *gids, const char *path, void *process,
                                 oci_error_t *err)
{
  struct spec_process *out = process;
  char item_path[SPEC_PATH_MAX];
  const cJSON *item;
  uint32_t id;

  if (gids == NULL)
    return 0;
  if (spec_expect_array(gids, path, err) < 0)
    return -1;
  out->additional_gids = calloc((size_t)cJSON_GetArraySize(gids) + 1, sizeof(gid_t));
  if (out->additional_gids == NULL)
    return spec_out_of_memory(err, path);
  cJSON_ArrayForEach(item, gids)
  {
    spec_join_index(item_path, path, out->n_additional_gids);
    if (spec_number_u32(item, item_path, &id, err) < 0)
      return -1;
    out->additional_gids[out->n_additional_gids++] = id;
  }
  return 0;
}

static const struct spec_field user_fields[] = {
    SPEC_FIELD("uid", parse_uid, struct spec_process, uid),
    SPEC_FIELD("gid", parse_gid, struct spec_process, gid),
    SPEC_MEMBER("umask", parse_umask),
    SPEC_MEMBER("additionalGids", parse_additional_gids),
};

/* Without a user there is no one to run as, and root is not assumed. */
static int parse_user(const cJSON *value, const char *path, void *process, oci_error_t *err)
{
  if (value == NULL)
    return spec_fail(err, path, "required");
  if (spec_expect_object(value, path, err) < 0)
    return -1;
  return SPEC_DISPATCH(value, path, user_fields, process, err);
}

/* struct winsize holds unsigned shorts */
static int parse_console_dimension(const cJSON *value, const char *path, void *dimension,
                                   oci_error_t *err)
{
  uint64_t v;

  if (value == NULL)
    return spec_fail(err, path, "required");
  if (spec_number_u64(value, path, USHRT_MAX, &v, err) < 0)
    return -1;
  *(unsigned *)dimension = (unsigned)v;
  return 0;
}

static const struct spec_field console_size_fields[] = {
    SPEC_FIELD("height", parse_console_dimension, struct spec_process, console_height),
    SPEC_FIELD("width", parse_console_dimension, struct spec_process, console_width),
};

/* The spec: ignored unless terminal is true (read before it). */
static int parse_console_size(const cJSON *value, const char *path, void *process, oci_error_t *err)
{
  if (value == NULL || !((struct spec_process *)process)->terminal)
    return 0;
  if (spec_expect_object(value, path, err) < 0)
    return -1;
  return SPEC_DISPATCH(value, path, console_size_fields, process, err);
}

static int parse_args(const cJSON *value, const char *path, void *args, oci_error_t *err)
{
  char first_path[SPEC_PATH_MAX];
  char **v;

  if (spec_field_strv(value, path, args, err) < 0)
    return -1;
  v = *(char ***)args;
  if (v == NULL || v[0] == NULL)
    return spec_fail(err, path, "at least one entry is required");
  if (v[0][0] == '\0')
    return spec_fail(err, spec_join_index(first_path, path, 0), "empty");
  return 0;
}

/* Never NULL once parsed: empty when not given. */
static int parse_env(const cJSON *value, const char *path, void *env, oci_error_t *err)
{
  char ***out = env;

  if (spec_field_strv(value, path, out, err) < 0 || spec_check_env(*out, path, err) < 0)
    return -1;
  if (*out == NULL) {
    *out = calloc(1, sizeof(char *));
    if (*out == NULL)
      return spec_out_of_memory(err, path);
  }
  return 0;
}

static int parse_cwd(const cJSON *value, const char *path, void *cwd, oci_error_t *err)
{
  char **out = cwd;

  if (value == NULL)
    return spec_fail(err, path, "required");
  if (spec_string_dup(value, path, out, err) < 0)
    return -1;
  if ((*out)[0] != '/')
    return spec_fail(err, path, "'%s' is not an absolute path", *out);
  return 0;
}

static int parse_oom_score_adj(const cJSON *value, const char *path, void *process,
                               oci_error_t *err)
{
  struct spec_process *out = process;
  int64_t oom;

  if (value == NULL)
    return 0;
  if (spec_number_i64(value, path, -1000, 1000, &oom, err) < 0)
    return -1;
  out->oom_score_adj_set = true;
  out->oom_score_adj = (int)oom;
  return 0;
}

static const struct spec_field process_fields[] = {
    SPEC_REFUSED("apparmorProfile", REFUSE_NONEMPTY, "no AppArmor support"),
    SPEC_REFUSED("selinuxLabel", REFUSE_NONEMPTY, "no SELinux support"),
    SPEC_FIELD("ioPriority", spec_parse_io_priority, struct spec_process, io_priority),
    SPEC_FIELD("scheduler", spec_parse_scheduler, struct spec_process, scheduler),
    SPEC_FIELD("execCPUAffinity", spec_parse_cpu_affinity, struct spec_process, exec_cpu_affinity),
    SPEC_FIELD("terminal", spec_field_bool, struct spec_process, terminal),
    SPEC_MEMBER("consoleSize", parse_console_size),
    SPEC_MEMBER("user", parse_user),
    SPEC_FIELD("args", parse_args, struct spec_process, args),
    SPEC_FIELD("env", parse_env, struct spec_process, env),
    SPEC_FIELD("cwd", parse_cwd, struct spec_process, cwd),
    SPEC_OBJECT("capabilities", capabilities_fields),
    SPEC_MEMBER("rlimits", parse_rlimits),
    SPEC_FIELD("noNewPrivileges", spec_field_bool, struct spec_process, no_new_privileges),
    SPEC_MEMBER("oomScoreAdj", parse_oom_score_adj),
};

/* Optional for create, required for start. */
int spec_parse_process(const cJSON *value, const char *path, void *spec, oci_error_t *err)
{
  struct spec *out = spec;

  if (value == NULL)
    return 0;
  out->has_process = true;
  if (spec_expect_object(value, path, err) < 0)
    return -1;
  return SPEC_DISPATCH(value, path, process_fields, &out->process, err);
}
