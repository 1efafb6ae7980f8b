/* process: what the container's process is (args, env, cwd, user,
 * capabilities, rlimits, terminal, no-new-privileges, OOM score). */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "oci/cleanup.h"
#include "runtime/capabilities.h"
#include "runtime/spec/parse.h"

static const struct spec_unsupported process_unsupported[] = {
    {"apparmorProfile", REFUSE_NONEMPTY, "no AppArmor support"},
    {"selinuxLabel", REFUSE_NONEMPTY, "no SELinux support"},
    {"ioPriority", REFUSE_PRESENT, "I/O priorities are not implemented"},
    {"scheduler", REFUSE_PRESENT, "scheduling policies are not implemented"},
    {"execCPUAffinity", REFUSE_NONEMPTY, "CPU affinity is not implemented"},
};

/* --- process -------------------------------------------------------------- */

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

static int parse_rlimits(const cJSON *process, struct spec_process *out, oci_error_t *err)
{
  const cJSON *array = spec_member(process, "rlimits"), *item;
  char path[SPEC_PATH_MAX], type_path[SPEC_PATH_MAX];

  if (array == NULL)
    return 0;
  if (spec_expect_array(array, "process.rlimits", err) < 0)
    return -1;
  out->rlimits = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(*out->rlimits));
  if (out->rlimits == NULL)
    return spec_out_of_memory(err, "process.rlimits");
  cJSON_ArrayForEach(item, array)
  {
    struct spec_rlimit *limit = &out->rlimits[out->n_rlimits];
    cleanup_free char *type = NULL;
    const cJSON *soft, *hard;

    spec_join_index(path, "process.rlimits", out->n_rlimits);
    if (spec_expect_object(item, path, err) < 0 ||
        spec_get_string(item, path, "type", true, &type, err) < 0)
      return -1;
    limit->resource = rlimit_from_name(type);
    if (limit->resource < 0)
      return spec_fail(err, spec_join_key(type_path, path, "type"), "unknown rlimit '%s'", type);
    for (size_t i = 0; i < out->n_rlimits; i++)
      if (out->rlimits[i].resource == limit->resource)
        return spec_fail(err, spec_join_key(type_path, path, "type"),
                         "%s is given twice (also in process.rlimits[%zu])", type, i);
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

static int parse_capability_set(const cJSON *capabilities, const char *key, uint64_t *mask,
                                oci_error_t *err)
{
  char path[SPEC_PATH_MAX], item_path[SPEC_PATH_MAX];
  const cJSON *array = spec_member(capabilities, key), *item;
  size_t index = 0;

  spec_join_key(path, "process.capabilities", key);
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
    *mask |= UINT64_C(1) << cap;
  }
  return 0;
}

static int parse_capabilities(const cJSON *process, struct spec_process *out, oci_error_t *err)
{
  const cJSON *capabilities = spec_member(process, "capabilities");
  if (capabilities == NULL)
    return 0;
  if (spec_expect_object(capabilities, "process.capabilities", err) < 0)
    return -1;
  return parse_capability_set(capabilities, "bounding", &out->cap_bounding, err) < 0 ||
                 parse_capability_set(capabilities, "effective", &out->cap_effective, err) < 0 ||
                 parse_capability_set(capabilities, "inheritable", &out->cap_inheritable, err) <
                     0 ||
                 parse_capability_set(capabilities, "permitted", &out->cap_permitted, err) < 0 ||
                 parse_capability_set(capabilities, "ambient", &out->cap_ambient, err) < 0
             ? -1
             : 0;
}

static int parse_user(const cJSON *process, struct spec_process *out, oci_error_t *err)
{
  const cJSON *user, *gids, *item;
  char path[SPEC_PATH_MAX];
  uint32_t id, umask;

  /* uid and gid are REQUIRED in a POSIX user; without the object there
   * is no user to run as, and root is not assumed. */
  if (spec_required(process, "process", "user", &user, err) < 0 ||
      spec_expect_object(user, "process.user", err) < 0)
    return -1;
  /* 4294967295 is (uid_t)-1, which setresuid/setresgid read as "leave
   * it": the process would stay root. */
  if (spec_get_u32(user, "process.user", "uid", true, &id, NULL, err) < 0)
    return -1;
  if (id == UINT32_MAX)
    return spec_fail(err, "process.user.uid",
                     "4294967295 is not a user id ((uid_t)-1 means no change)");
  out->uid = id;
  if (spec_get_u32(user, "process.user", "gid", true, &id, NULL, err) < 0)
    return -1;
  if (id == UINT32_MAX)
    return spec_fail(err, "process.user.gid",
                     "4294967295 is not a group id ((gid_t)-1 means no change)");
  out->gid = id;
  if (spec_get_u32(user, "process.user", "umask", false, &umask, &out->umask_set, err) < 0)
    return -1;
  if (out->umask_set && umask > 0777)
    return spec_fail(err, "process.user.umask", "%#o is not a umask (above 0777)", umask);
  out->umask = umask;
  gids = spec_member(user, "additionalGids");
  if (gids == NULL)
    return 0;
  if (spec_expect_array(gids, "process.user.additionalGids", err) < 0)
    return -1;
  out->additional_gids = calloc((size_t)cJSON_GetArraySize(gids) + 1, sizeof(gid_t));
  if (out->additional_gids == NULL)
    return spec_out_of_memory(err, "process.user.additionalGids");
  cJSON_ArrayForEach(item, gids)
  {
    spec_join_index(path, "process.user.additionalGids", out->n_additional_gids);
    if (spec_number_u32(item, path, &id, err) < 0)
      return -1;
    out->additional_gids[out->n_additional_gids++] = id;
  }
  return 0;
}

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

static int parse_console_size(const cJSON *process, struct spec_process *out, oci_error_t *err)
{
  const cJSON *size = spec_member(process, "consoleSize");
  uint64_t v;

  /* The spec: ignored unless terminal is true. */
  if (size == NULL || !out->terminal)
    return 0;
  if (spec_expect_object(size, "process.consoleSize", err) < 0)
    return -1;
  /* struct winsize holds unsigned shorts */
  if (spec_get_u64(size, "process.consoleSize", "height", USHRT_MAX, &v, NULL, err) < 0)
    return -1;
  if (spec_member(size, "height") == NULL)
    return spec_fail(err, "process.consoleSize.height", "required");
  out->console_height = (unsigned)v;
  if (spec_get_u64(size, "process.consoleSize", "width", USHRT_MAX, &v, NULL, err) < 0)
    return -1;
  if (spec_member(size, "width") == NULL)
    return spec_fail(err, "process.consoleSize.width", "required");
  out->console_width = (unsigned)v;
  return 0;
}

int spec_parse_process(const cJSON *config, struct spec *spec, oci_error_t *err)
{
  const cJSON *process = spec_member(config, "process");
  struct spec_process *out = &spec->process;
  int64_t oom;

  if (process == NULL)
    return 0;
  spec->has_process = true;
  if (spec_expect_object(process, "process", err) < 0 ||
      SPEC_REFUSE_TABLE(process, "process", process_unsupported, err) < 0)
    return -1;
  if (spec_get_bool(process, "process", "terminal", &out->terminal, err) < 0 ||
      parse_console_size(process, out, err) < 0 || parse_user(process, out, err) < 0)
    return -1;
  if (spec_get_strv(process, "process", "args", &out->args, err) < 0)
    return -1;
  if (out->args == NULL || out->args[0] == NULL)
    return spec_fail(err, "process.args", "at least one entry is required");
  if (out->args[0][0] == '\0')
    return spec_fail(err, "process.args[0]", "empty");
  if (spec_get_strv(process, "process", "env", &out->env, err) < 0 ||
      spec_check_env(out->env, "process.env", err) < 0)
    return -1;
  if (out->env == NULL) {
    out->env = calloc(1, sizeof(char *));
    if (out->env == NULL)
      return spec_out_of_memory(err, "process.env");
  }
  if (spec_get_string(process, "process", "cwd", true, &out->cwd, err) < 0)
    return -1;
  if (out->cwd[0] != '/')
    return spec_fail(err, "process.cwd", "'%s' is not an absolute path", out->cwd);
  if (parse_capabilities(process, out, err) < 0 || parse_rlimits(process, out, err) < 0 ||
      spec_get_bool(process, "process", "noNewPrivileges", &out->no_new_privileges, err) < 0)
    return -1;
  if (spec_get_i64(process, "process", "oomScoreAdj", -1000, 1000, &oom, &out->oom_score_adj_set,
                   err) < 0)
    return -1;
  out->oom_score_adj = out->oom_score_adj_set ? (int)oom : 0;
  return 0;
}
