/* Reads a Docker/OCI JSON seccomp profile (--security-opt seccomp=FILE)
 * into the in-memory model of seccomp/rules.h. Anything it does not
 * understand is an error naming it: a profile is never half applied. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "runtime/capabilities.h"
#include "oci/cleanup.h"
#include "oci/file_read.h"
#include "runtime/seccomp/rules.h"

enum { PROFILE_MAX_BYTES = 4 << 20 };

struct parse {
  const char *origin; /* file name, for messages */
  const struct seccomp_arch_info *native;
  oci_error_t *err;
  char where[96];    /* "syscalls[3] (getcwd): " while in a rule */
  bool allow_notify; /* a configuration with linux.seccomp.listenerPath */
};

static int fail(struct parse *p, const char *fmt, const char *what)
{
  return oci_error_set(p->err, 0, "seccomp profile %s: %s%s%s", p->origin, p->where, fmt, what);
}

static bool key_in(const char *key, const char *const *allowed)
{
  for (; *allowed != NULL; allowed++)
    if (strcmp(key, *allowed) == 0)
      return true;
  return false;
}

static int check_keys(struct parse *p, const cJSON *object, const char *const *allowed,
                      const char *where)
{
  const cJSON *item;
  cJSON_ArrayForEach(item, object)
  {
    if (!key_in(item->string, allowed))
      return oci_error_set(p->err, 0,
                           "seccomp profile %s: %sunknown or unsupported field '%s' in %s",
                           p->origin, p->where, item->string, where);
  }
  return 0;
}

/* Non-negative integers exactly representable in a double (cJSON's type). */
static int parse_u64(struct parse *p, const cJSON *item, const char *what, uint64_t *out)
{
  double v;
  if (!cJSON_IsNumber(item))
    return fail(p, "expected a number for ", what);
  v = item->valuedouble;
  if (v < 0 || v > 9007199254740992.0 || v != (double)(uint64_t)v)
    return fail(p, "not a non-negative integer below 2^53: ", what);
  *out = (uint64_t)v;
  return 0;
}

static int parse_action(struct parse *p, const cJSON *item, uint32_t *action)
{
  if (!cJSON_IsString(item))
    return fail(p, "action must be a string", "");
  if (strcmp(item->valuestring, "SCMP_ACT_NOTIFY") == 0 && !p->allow_notify)
    return fail(p, "unsupported action (no notify listener: linux.seccomp.listenerPath): ",
                item->valuestring);
  if (seccomp_action_from_name(item->valuestring, action) < 0)
    return fail(p, "unknown action ", item->valuestring);
  return 0;
}

static int parse_errno(struct parse *p, const cJSON *item, int *errno_ret)
{
  uint64_t v;
  *errno_ret = -1;
  if (item == NULL)
    return 0;
  if (parse_u64(p, item, "errnoRet", &v) < 0)
    return -1;
  if (v > 4095)
    return fail(p, "errnoRet above 4095", "");
  *errno_ret = (int)v;
  return 0;
}

static int parse_arch_scmp(struct parse *p, const cJSON *item, uint32_t *bit)
{
  const struct seccomp_arch_info *arch;
  if (!cJSON_IsString(item))
    return fail(p, "architecture must be a string", "");
  arch = seccomp_arch_info_by_scmp_name(item->valuestring);
  if (arch == NULL)
    return fail(p, "unknown architecture ", item->valuestring);
  *bit = arch->bit;
  return 0;
}

static int parse_arch_list(struct parse *p, const cJSON *array, uint32_t *mask)
{
  const cJSON *item;
  if (!cJSON_IsArray(array))
    return fail(p, "expected an array of architectures", "");
  cJSON_ArrayForEach(item, array)
  {
    uint32_t bit;
    if (parse_arch_scmp(p, item, &bit) < 0)
      return -1;
    *mask |= bit;
  }
  return 0;
}

/* Docker uses only the archMap entry of the architecture it runs on. */
static int parse_arch_map(struct parse *p, const cJSON *array, uint32_t *mask)
{
  static const char *const keys[] = {"architecture", "subArchitectures", NULL};
  const cJSON *entry;
  if (!cJSON_IsArray(array))
    return fail(p, "archMap must be an array", "");
  cJSON_ArrayForEach(entry, array)
  {
    uint32_t arch = 0, subs = 0;
    const cJSON *subs_item = cJSON_GetObjectItemCaseSensitive(entry, "subArchitectures");
    if (!cJSON_IsObject(entry) || check_keys(p, entry, keys, "archMap") < 0)
      return fail(p, "archMap entries must be objects", "");
    if (parse_arch_scmp(p, cJSON_GetObjectItemCaseSensitive(entry, "architecture"), &arch) < 0)
      return -1;
    /* null, as moby's default writes for riscv64: none (Go reads it so) */
    if (subs_item != NULL && !cJSON_IsNull(subs_item) && parse_arch_list(p, subs_item, &subs) < 0)
      return -1;
    if (p->native != NULL && arch == p->native->bit)
      *mask |= arch | subs;
  }
  return 0;
}

static int parse_condition(struct parse *p, const cJSON *object, struct seccomp_condition *out)
{
  static const char *const keys[] = {"caps", "arches", "minKernel", NULL};
  const cJSON *caps, *arches, *kernel, *item;

  if (object == NULL)
    return 0;
  if (!cJSON_IsObject(object))
    return fail(p, "includes/excludes must be objects", "");
  if (check_keys(p, object, keys, "includes/excludes") < 0)
    return -1;
  caps = cJSON_GetObjectItemCaseSensitive(object, "caps");
  arches = cJSON_GetObjectItemCaseSensitive(object, "arches");
  kernel = cJSON_GetObjectItemCaseSensitive(object, "minKernel");
  if ((caps != NULL && !cJSON_IsArray(caps)) || (arches != NULL && !cJSON_IsArray(arches)))
    return fail(p, "includes/excludes caps and arches must be arrays", "");
  cJSON_ArrayForEach(item, caps)
  {
    int cap = cJSON_IsString(item) ? capability_from_name(item->valuestring) : -1;
    if (cap < 0)
      return fail(p, "unknown capability ", cJSON_IsString(item) ? item->valuestring : "?");
    out->caps |= UINT64_C(1) << cap;
  }
  cJSON_ArrayForEach(item, arches)
  {
    const struct seccomp_arch_info *arch =
        cJSON_IsString(item) ? seccomp_arch_info_by_go_name(item->valuestring) : NULL;
    if (arch == NULL)
      return fail(p, "unknown architecture ", cJSON_IsString(item) ? item->valuestring : "?");
    out->arches |= arch->bit;
  }
  if (kernel != NULL) {
    unsigned major, minor;
    char extra;
    if (!cJSON_IsString(kernel) ||
        sscanf(kernel->valuestring, "%u.%u%c", &major, &minor, &extra) != 2 || minor > 0xffff)
      return fail(p, "minKernel must be \"MAJOR.MINOR\"", "");
    out->min_kernel = (major << 16) | minor;
  }
  return 0;
}

static int parse_args(struct parse *p, const cJSON *array, struct seccomp_rule *rule)
{
  static const char *const keys[] = {"index", "value", "valueTwo", "op", NULL};
  const cJSON *item;

  if (array == NULL || cJSON_IsNull(array))
    return 0;
  if (!cJSON_IsArray(array))
    return fail(p, "args must be an array", "");
  if (cJSON_GetArraySize(array) > SECCOMP_RULE_MAX_ARGS)
    return fail(p, "more than 6 args in one rule", "");
  cJSON_ArrayForEach(item, array)
  {
    struct seccomp_arg *arg = &rule->args[rule->n_args];
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(item, "op");
    const cJSON *two = cJSON_GetObjectItemCaseSensitive(item, "valueTwo");
    uint64_t index;
    if (!cJSON_IsObject(item) || check_keys(p, item, keys, "args") < 0)
      return fail(p, "args entries must be objects", "");
    if (parse_u64(p, cJSON_GetObjectItemCaseSensitive(item, "index"), "index", &index) < 0 ||
        parse_u64(p, cJSON_GetObjectItemCaseSensitive(item, "value"), "value", &arg->value) < 0)
      return -1;
    if (index > 5)
      return fail(p, "argument index above 5", "");
    arg->index = (unsigned)index;
    if (two != NULL && parse_u64(p, two, "valueTwo", &arg->value_two) < 0)
      return -1;
    if (!cJSON_IsString(op))
      return fail(p, "args entry without op", "");
    if (seccomp_op_from_name(op->valuestring, &arg->op) < 0)
      return fail(p, "unknown op ", op->valuestring);
    rule->n_args++;
  }
  return 0;
}

static int parse_names(struct parse *p, const cJSON *rule_json, struct seccomp_rule *rule)
{
  const cJSON *names = cJSON_GetObjectItemCaseSensitive(rule_json, "names");
  const cJSON *single = cJSON_GetObjectItemCaseSensitive(rule_json, "name");
  size_t n = 0, count = (size_t)cJSON_GetArraySize(names) + (single != NULL);
  const cJSON *item;
  char **out = calloc(count + 1, sizeof(*out));

  if (out == NULL)
    return oci_error_errno(p->err, "seccomp profile %s: allocate names", p->origin);
  rule->names = (const char *const *)out;
  if (count == 0 || (names != NULL && !cJSON_IsArray(names)))
    return fail(p, "a syscalls entry needs a non-empty \"names\" array", "");
  if (single != NULL) {
    if (!cJSON_IsString(single) || (out[n++] = strdup(single->valuestring)) == NULL)
      return fail(p, "\"name\" must be a string", "");
  }
  cJSON_ArrayForEach(item, names)
  {
    if (!cJSON_IsString(item) || item->valuestring[0] == '\0')
      return fail(p, "syscall names must be non-empty strings", "");
    if ((out[n++] = strdup(item->valuestring)) == NULL)
      return oci_error_errno(p->err, "seccomp profile %s: allocate names", p->origin);
  }
  return 0;
}

static int parse_rule(struct parse *p, const cJSON *object, size_t index, struct seccomp_rule *rule)
{
  static const char *const keys[] = {"names",    "name",     "action",  "errnoRet", "args",
                                     "includes", "excludes", "comment", NULL};

  snprintf(p->where, sizeof(p->where), "syscalls[%zu]: ", index);
  if (!cJSON_IsObject(object))
    return fail(p, "syscalls entries must be objects", "");
  if (check_keys(p, object, keys, "a syscalls entry") < 0)
    return -1;
  if (parse_names(p, object, rule) < 0)
    return -1;
  snprintf(p->where, sizeof(p->where), "syscalls[%zu] (%.40s): ", index, rule->names[0]);
  if (parse_action(p, cJSON_GetObjectItemCaseSensitive(object, "action"), &rule->action) < 0 ||
      parse_errno(p, cJSON_GetObjectItemCaseSensitive(object, "errnoRet"), &rule->errno_ret) < 0 ||
      parse_args(p, cJSON_GetObjectItemCaseSensitive(object, "args"), rule) < 0 ||
      parse_condition(p, cJSON_GetObjectItemCaseSensitive(object, "includes"), &rule->includes) <
          0 ||
      parse_condition(p, cJSON_GetObjectItemCaseSensitive(object, "excludes"), &rule->excludes) < 0)
    return -1;
  p->where[0] = '\0';
  return 0;
}

static int parse_flags(struct parse *p, const cJSON *array, unsigned *out)
{
  const cJSON *item;
  if (array == NULL || cJSON_IsNull(array))
    return 0;
  if (!cJSON_IsArray(array))
    return fail(p, "flags must be an array", "");
  cJSON_ArrayForEach(item, array)
  {
    unsigned flag = cJSON_IsString(item) ? seccomp_flag_from_name(item->valuestring) : 0;
    if (flag == 0)
      return fail(p, "unknown or unsupported flag ",
                  cJSON_IsString(item) ? item->valuestring : "?");
    *out |= flag;
  }
  return 0;
}

void seccomp_profile_free(struct seccomp_profile *profile)
{
  if (profile == NULL || !profile->owned)
    return;
  for (size_t r = 0; r < profile->n_rules; r++) {
    char **names = (char **)profile->rules[r].names;
    for (size_t i = 0; names != NULL && names[i] != NULL; i++)
      free(names[i]);
    free(names);
  }
  free((void *)profile->rules);
  free(profile);
}

static void profile_release(struct seccomp_profile **profile)
{
  seccomp_profile_free(*profile);
}

static int profile_parse(const char *json, const char *origin, bool allow_notify,
                         struct seccomp_profile **out, oci_error_t *err)
{
  static const char *const keys[] = {"defaultAction", "defaultErrnoRet", "architectures", "archMap",
                                     "syscalls",      "flags",           "comment",       NULL};
  struct parse p = {.origin = origin,
                    .native = seccomp_arch_info_host(),
                    .err = err,
                    .allow_notify = allow_notify};
  cleanup_cjson cJSON *root = cJSON_Parse(json);
  __attribute__((cleanup(profile_release))) struct seccomp_profile *profile = NULL;
  const cJSON *syscalls, *item, *arches, *arch_map;
  struct seccomp_rule *rules;

  if (root == NULL || !cJSON_IsObject(root))
    return fail(&p, "not a JSON object", "");
  if (check_keys(&p, root, keys, "the profile") < 0)
    return -1;
  profile = calloc(1, sizeof(*profile));
  if (profile == NULL)
    return oci_error_errno(err, "seccomp profile %s: allocate", origin);
  profile->owned = true;
  if (parse_action(&p, cJSON_GetObjectItemCaseSensitive(root, "defaultAction"),
                   &profile->default_action) < 0 ||
      parse_errno(&p, cJSON_GetObjectItemCaseSensitive(root, "defaultErrnoRet"),
                  &profile->default_errno_ret) < 0)
    return -1;
  arches = cJSON_GetObjectItemCaseSensitive(root, "architectures");
  arch_map = cJSON_GetObjectItemCaseSensitive(root, "archMap");
  if (arches != NULL && parse_arch_list(&p, arches, &profile->arches) < 0)
    return -1;
  if (arch_map != NULL && parse_arch_map(&p, arch_map, &profile->arches) < 0)
    return -1;
  if (parse_flags(&p, cJSON_GetObjectItemCaseSensitive(root, "flags"), &profile->filter_flags) < 0)
    return -1;
  syscalls = cJSON_GetObjectItemCaseSensitive(root, "syscalls");
  if (syscalls != NULL && !cJSON_IsArray(syscalls))
    return fail(&p, "syscalls must be an array", "");
  rules = calloc((size_t)cJSON_GetArraySize(syscalls) + 1, sizeof(*rules));
  if (rules == NULL)
    return oci_error_errno(err, "seccomp profile %s: allocate rules", origin);
  profile->rules = rules;
  cJSON_ArrayForEach(item, syscalls)
  {
    profile->n_rules++; /* counted first, so a half-parsed rule is freed */
    if (parse_rule(&p, item, profile->n_rules - 1, &rules[profile->n_rules - 1]) < 0)
      return -1;
  }
  *out = steal_pointer(&profile);
  return 0;
}

int seccomp_profile_parse(const char *json, const char *origin, struct seccomp_profile **out,
                          oci_error_t *err)
{
  return profile_parse(json, origin, false, out, err);
}

int seccomp_profile_parse_notify(const char *json, const char *origin, struct seccomp_profile **out,
                                 oci_error_t *err)
{
  return profile_parse(json, origin, true, out, err);
}

int seccomp_profile_parse_file(const char *path, struct seccomp_profile **out, oci_error_t *err)
{
  cleanup_free char *text = NULL;
  cleanup_free char *what = NULL;

  if (asprintf(&what, "seccomp profile '%s'", path) < 0) {
    what = NULL;
    return oci_error_errno(err, "seccomp profile: allocate");
  }
  if (oci_file_read(AT_FDCWD, path, OCI_FILE_NAMED, what, PROFILE_MAX_BYTES, &text, NULL, err) < 0)
    return -1;
  return seccomp_profile_parse(text, path, out, err);
}
