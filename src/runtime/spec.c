/* The OCI runtime-spec configuration parser: config.json (runtime-spec 1.x)
 * into struct spec. Every value is checked here, once, so the runtime builds
 * only from values it understands; docs/spec-coverage.md lists what each
 * property becomes. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include "oci/cleanup.h"
#include "oci/file_read.h"
#include "runtime/capabilities.h"
#include "runtime/json_strict.h"
#include "runtime/seccomp_rules.h"
#include "runtime/spec.h"

/* config.json is a few kilobytes; a seccomp profile makes it some tens. */
enum { SPEC_FILE_MAX_BYTES = 8 << 20, JSON_PATH_MAX = 512 };

/* --- errors that name the JSON path ------------------------------------ */

static int fail(oci_error_t *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(oci_error_t *err, const char *path, const char *fmt, ...)
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

static int out_of_memory(oci_error_t *err, const char *path)
{
  return oci_error_set(err, ENOMEM, "%s", path);
}

/* A path too long for the buffer (a long map key) ends in "...". */
static const char *mark_truncated(char *buf, int length)
{
  if (length >= JSON_PATH_MAX)
    memcpy(buf + JSON_PATH_MAX - 4, "...", 4);
  return buf;
}

/* "process" + "user" -> "process.user"; "" + "linux" -> "linux". */
static const char *join_key(char *buf, const char *parent, const char *key)
{
  return mark_truncated(
      buf, snprintf(buf, JSON_PATH_MAX, "%s%s%s", parent, parent[0] != '\0' ? "." : "", key));
}

static const char *join_index(char *buf, const char *parent, size_t index)
{
  return mark_truncated(buf, snprintf(buf, JSON_PATH_MAX, "%s[%zu]", parent, index));
}

/* --- typed access --------------------------------------------------------- */

/* A member; JSON null counts as absent, as it does for every Go runtime. */
static const cJSON *member(const cJSON *object, const char *key)
{
  const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, key);
  return item == NULL || cJSON_IsNull(item) ? NULL : item;
}

static const char *json_type_name(const cJSON *item)
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

static int expect_type(const cJSON *item, const char *path, int type, const char *want,
                       oci_error_t *err)
{
  if ((item->type & 0xff) != type)
    return fail(err, path, "expected %s, got %s", want, json_type_name(item));
  return 0;
}

static int expect_object(const cJSON *item, const char *path, oci_error_t *err)
{
  return expect_type(item, path, cJSON_Object, "an object", err);
}

static int expect_array(const cJSON *item, const char *path, oci_error_t *err)
{
  return expect_type(item, path, cJSON_Array, "an array", err);
}

static int required(const cJSON *object, const char *parent, const char *key, const cJSON **item,
                    oci_error_t *err)
{
  char path[JSON_PATH_MAX];
  *item = member(object, key);
  if (*item == NULL)
    return fail(err, join_key(path, parent, key), "required");
  return 0;
}

/* JSON numbers arrive as doubles: integers are exact up to 2^53, and the
 * largest 64-bit values (2^63 - 1, 2^64 - 1, which Go writes for
 * "unlimited") round to 2^63 and 2^64; those are read as the maximum. */
static int number_i64(const cJSON *item, const char *path, int64_t min, int64_t max, int64_t *out,
                      oci_error_t *err)
{
  double v;
  if (expect_type(item, path, cJSON_Number, "an integer", err) < 0)
    return -1;
  v = item->valuedouble;
  if (!isfinite(v) || v != trunc(v))
    return fail(err, path, "not an integer");
  if (v == 9223372036854775808.0 && max == INT64_MAX)
    *out = INT64_MAX;
  else if (v >= 9223372036854775808.0 || v < -9223372036854775808.0)
    return fail(err, path, "%.0f is out of range", v);
  else
    *out = (int64_t)v;
  if (*out < min || *out > max)
    return fail(err, path, "%" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", *out, min,
                max);
  return 0;
}

static int number_u64(const cJSON *item, const char *path, uint64_t max, uint64_t *out,
                      oci_error_t *err)
{
  double v;
  if (expect_type(item, path, cJSON_Number, "an integer", err) < 0)
    return -1;
  v = item->valuedouble;
  if (!isfinite(v) || v != trunc(v))
    return fail(err, path, "not an integer");
  if (v < 0)
    return fail(err, path, "%.0f is negative", v);
  if (v == 18446744073709551616.0 && max == UINT64_MAX)
    *out = UINT64_MAX;
  else if (v >= 18446744073709551616.0)
    return fail(err, path, "%.0f is out of range", v);
  else
    *out = (uint64_t)v;
  if (*out > max)
    return fail(err, path, "%" PRIu64 " is above %" PRIu64, *out, max);
  return 0;
}

static int number_u32(const cJSON *item, const char *path, uint32_t *out, oci_error_t *err)
{
  uint64_t v;
  if (number_u64(item, path, UINT32_MAX, &v, err) < 0)
    return -1;
  *out = (uint32_t)v;
  return 0;
}

/* Optional members: *set (when given) says whether the member was there. */
static int get_bool(const cJSON *object, const char *parent, const char *key, bool *out,
                    oci_error_t *err)
{
  char path[JSON_PATH_MAX];
  const cJSON *item = member(object, key);
  if (item == NULL)
    return 0;
  if (!cJSON_IsBool(item))
    return fail(err, join_key(path, parent, key), "expected a boolean, got %s",
                json_type_name(item));
  *out = cJSON_IsTrue(item);
  return 0;
}

static int string_dup(const cJSON *item, const char *path, char **out, oci_error_t *err)
{
  if (expect_type(item, path, cJSON_String, "a string", err) < 0)
    return -1;
  *out = strdup(item->valuestring);
  if (*out == NULL)
    return out_of_memory(err, path);
  return 0;
}

static int get_string(const cJSON *object, const char *parent, const char *key, bool is_required,
                      char **out, oci_error_t *err)
{
  char path[JSON_PATH_MAX];
  const cJSON *item = member(object, key);
  join_key(path, parent, key);
  if (item == NULL)
    return is_required ? fail(err, path, "required") : 0;
  return string_dup(item, path, out, err);
}

static int get_i64(const cJSON *object, const char *parent, const char *key, int64_t min,
                   int64_t max, int64_t *out, bool *set, oci_error_t *err)
{
  char path[JSON_PATH_MAX];
  const cJSON *item = member(object, key);
  if (set != NULL)
    *set = item != NULL;
  if (item == NULL)
    return 0;
  return number_i64(item, join_key(path, parent, key), min, max, out, err);
}

static int get_u64(const cJSON *object, const char *parent, const char *key, uint64_t max,
                   uint64_t *out, bool *set, oci_error_t *err)
{
  char path[JSON_PATH_MAX];
  const cJSON *item = member(object, key);
  if (set != NULL)
    *set = item != NULL;
  if (item == NULL)
    return 0;
  return number_u64(item, join_key(path, parent, key), max, out, err);
}

static int get_u32(const cJSON *object, const char *parent, const char *key, bool is_required,
                   uint32_t *out, bool *set, oci_error_t *err)
{
  char path[JSON_PATH_MAX];
  const cJSON *item = member(object, key);
  join_key(path, parent, key);
  if (set != NULL)
    *set = item != NULL;
  if (item == NULL)
    return is_required ? fail(err, path, "required") : 0;
  return number_u32(item, path, out, err);
}

/* An array of strings as a NULL-terminated vector (an empty one when the
 * array is empty); *out stays NULL when the member is absent. */
static int get_strv(const cJSON *object, const char *parent, const char *key, char ***out,
                    oci_error_t *err)
{
  char path[JSON_PATH_MAX], item_path[JSON_PATH_MAX];
  const cJSON *array = member(object, key), *item;
  cleanup_strv char **v = NULL;
  size_t n = 0;

  join_key(path, parent, key);
  if (array == NULL)
    return 0;
  if (expect_array(array, path, err) < 0)
    return -1;
  v = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(*v));
  if (v == NULL)
    return out_of_memory(err, path);
  cJSON_ArrayForEach(item, array)
  {
    if (string_dup(item, join_index(item_path, path, n), &v[n], err) < 0)
      return -1;
    n++;
  }
  *out = steal_pointer(&v);
  return 0;
}

/* An object of strings ("annotations", "sysctl", "unified") as pairs. */
static int get_string_map(const cJSON *object, const char *parent, const char *key,
                          struct spec_key_value **out, size_t *n_out, oci_error_t *err)
{
  char path[JSON_PATH_MAX], item_path[JSON_PATH_MAX];
  const cJSON *map = member(object, key), *item;
  struct spec_key_value *pairs;

  join_key(path, parent, key);
  if (map == NULL)
    return 0;
  if (expect_object(map, path, err) < 0)
    return -1;
  pairs = calloc((size_t)cJSON_GetArraySize(map) + 1, sizeof(*pairs));
  if (pairs == NULL)
    return out_of_memory(err, path);
  *out = pairs;
  cJSON_ArrayForEach(item, map)
  {
    join_key(item_path, path, item->string);
    if (item->string[0] == '\0')
      return fail(err, path, "an empty key");
    if (string_dup(item, item_path, &pairs[*n_out].value, err) < 0)
      return -1;
    (*n_out)++;
    pairs[*n_out - 1].key = strdup(item->string);
    if (pairs[*n_out - 1].key == NULL)
      return out_of_memory(err, item_path);
  }
  return 0;
}

/* --- properties the spec defines and ocirun does not implement ------------ */

enum refusal {
  REFUSE_PRESENT,  /* any value */
  REFUSE_NONEMPTY, /* accepted: "", [], {} (they ask for nothing) */
  REFUSE_TRUE,     /* accepted: false */
  REFUSE_NONZERO,  /* accepted: 0 */
};

struct unsupported {
  const char *key;
  enum refusal when;
  const char *why;
};

static bool asks_for_something(const cJSON *item, enum refusal when)
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

static int refuse_unsupported(const cJSON *object, const char *parent,
                              const struct unsupported *table, size_t n, oci_error_t *err)
{
  char path[JSON_PATH_MAX];
  for (size_t i = 0; i < n; i++) {
    const cJSON *item = member(object, table[i].key);
    if (item != NULL && asks_for_something(item, table[i].when))
      return oci_error_set(err, 0, "%s is not supported by ocirun (%s)",
                           join_key(path, parent, table[i].key), table[i].why);
  }
  return 0;
}

#define REFUSE_TABLE(object, parent, table, err)                                                   \
  refuse_unsupported(object, parent, table, sizeof(table) / sizeof(table[0]), err)

static const struct unsupported top_unsupported[] = {
    {"windows", REFUSE_PRESENT, "a configuration for Windows"},
    {"solaris", REFUSE_PRESENT, "a configuration for Solaris"},
    {"zos", REFUSE_PRESENT, "a configuration for z/OS"},
    {"freebsd", REFUSE_PRESENT, "a configuration for FreeBSD"},
    {"vm", REFUSE_PRESENT, "ocirun runs containers, not virtual machines"},
};

static const struct unsupported process_unsupported[] = {
    {"apparmorProfile", REFUSE_NONEMPTY, "no AppArmor support"},
    {"selinuxLabel", REFUSE_NONEMPTY, "no SELinux support"},
    {"ioPriority", REFUSE_PRESENT, "I/O priorities are not implemented"},
    {"scheduler", REFUSE_PRESENT, "scheduling policies are not implemented"},
    {"execCPUAffinity", REFUSE_NONEMPTY, "CPU affinity is not implemented"},
};

static const struct unsupported linux_unsupported[] = {
    {"intelRdt", REFUSE_PRESENT, "no resctrl support"},
    {"personality", REFUSE_PRESENT, "personality(2) is not implemented"},
    {"timeOffsets", REFUSE_NONEMPTY, "time namespace offsets are not implemented"},
    {"mountLabel", REFUSE_NONEMPTY, "no SELinux support"},
    {"memoryPolicy", REFUSE_PRESENT, "NUMA memory policies are not implemented"},
    {"netDevices", REFUSE_NONEMPTY, "moving network devices is not implemented"},
};

static const struct unsupported resources_unsupported[] = {
    {"blockIO", REFUSE_NONEMPTY, "I/O limits are not implemented"},
    {"hugepageLimits", REFUSE_NONEMPTY, "huge page limits are not implemented"},
    {"network", REFUSE_NONEMPTY, "net_cls and net_prio are cgroup v1 only"},
    {"rdma", REFUSE_NONEMPTY, "RDMA limits are not implemented"},
};

static const struct unsupported memory_unsupported[] = {
    {"kernel", REFUSE_PRESENT, "kernel memory limits are cgroup v1 only"},
    {"kernelTCP", REFUSE_PRESENT, "kernel TCP memory limits are cgroup v1 only"},
    {"swappiness", REFUSE_PRESENT, "swappiness is cgroup v1 only"},
    {"disableOOMKiller", REFUSE_TRUE, "the OOM killer cannot be disabled on cgroup v2"},
    {"useHierarchy", REFUSE_PRESENT, "a cgroup v1 setting"},
    {"checkBeforeUpdate", REFUSE_TRUE, "checking usage before an update is not implemented"},
};

static const struct unsupported cpu_unsupported[] = {
    {"realtimeRuntime", REFUSE_PRESENT, "real-time CPU limits are cgroup v1 only"},
    {"realtimePeriod", REFUSE_PRESENT, "real-time CPU limits are cgroup v1 only"},
    {"idle", REFUSE_NONZERO, "cpu.idle is not implemented"},
    {"burst", REFUSE_PRESENT, "cpu.max.burst is not implemented"},
};

static const struct unsupported mount_unsupported[] = {
    {"uidMappings", REFUSE_NONEMPTY, "idmapped mounts are not implemented"},
    {"gidMappings", REFUSE_NONEMPTY, "idmapped mounts are not implemented"},
};

static const struct unsupported seccomp_unsupported[] = {
    {"listenerPath", REFUSE_NONEMPTY, "no seccomp notify agent support"},
    {"listenerMetadata", REFUSE_NONEMPTY, "no seccomp notify agent support"},
};

/* --- the document as a whole ---------------------------------------------- */

/* SemVer 2.0.0 with major version 1: "1.2.0", "1.0.2-dev", "1.1.0+build". */
static int parse_oci_version(const cJSON *config, struct spec *spec, oci_error_t *err)
{
  const char *p;
  unsigned long parts[3];
  char *end;

  if (get_string(config, "", "ociVersion", true, &spec->oci_version, err) < 0)
    return -1;
  p = spec->oci_version;
  for (int i = 0; i < 3; i++) {
    if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
      return fail(err, "ociVersion", "'%s' is not a SemVer version", spec->oci_version);
    errno = 0;
    parts[i] = strtoul(p, &end, 10);
    if (errno != 0 || (i < 2 && *end != '.'))
      return fail(err, "ociVersion", "'%s' is not a SemVer version", spec->oci_version);
    p = i < 2 ? end + 1 : end;
  }
  if (*p != '\0' && *p != '-' && *p != '+')
    return fail(err, "ociVersion", "'%s' is not a SemVer version", spec->oci_version);
  if (parts[0] != 1)
    return fail(err, "ociVersion",
                "version %lu is not supported: ocirun implements runtime-spec 1.x (%s)", parts[0],
                SPEC_OCI_VERSION);
  return 0;
}

static int parse_root(const cJSON *config, struct spec *spec, oci_error_t *err)
{
  const cJSON *root;
  if (required(config, "", "root", &root, err) < 0 || expect_object(root, "root", err) < 0)
    return -1;
  if (get_string(root, "root", "path", true, &spec->root_path, err) < 0)
    return -1;
  if (spec->root_path[0] == '\0')
    return fail(err, "root.path", "empty");
  return get_bool(root, "root", "readonly", &spec->root_readonly, err);
}

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
  const cJSON *array = member(process, "rlimits"), *item;
  char path[JSON_PATH_MAX], type_path[JSON_PATH_MAX];

  if (array == NULL)
    return 0;
  if (expect_array(array, "process.rlimits", err) < 0)
    return -1;
  out->rlimits = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(*out->rlimits));
  if (out->rlimits == NULL)
    return out_of_memory(err, "process.rlimits");
  cJSON_ArrayForEach(item, array)
  {
    struct spec_rlimit *limit = &out->rlimits[out->n_rlimits];
    cleanup_free char *type = NULL;
    const cJSON *soft, *hard;

    join_index(path, "process.rlimits", out->n_rlimits);
    if (expect_object(item, path, err) < 0 || get_string(item, path, "type", true, &type, err) < 0)
      return -1;
    limit->resource = rlimit_from_name(type);
    if (limit->resource < 0)
      return fail(err, join_key(type_path, path, "type"), "unknown rlimit '%s'", type);
    for (size_t i = 0; i < out->n_rlimits; i++)
      if (out->rlimits[i].resource == limit->resource)
        return fail(err, join_key(type_path, path, "type"),
                    "%s is given twice (also in process.rlimits[%zu])", type, i);
    if (required(item, path, "soft", &soft, err) < 0 ||
        required(item, path, "hard", &hard, err) < 0 ||
        number_u64(soft, join_key(type_path, path, "soft"), UINT64_MAX, &limit->soft, err) < 0 ||
        number_u64(hard, join_key(type_path, path, "hard"), UINT64_MAX, &limit->hard, err) < 0)
      return -1;
    if (limit->soft > limit->hard)
      return fail(err, path, "%s: soft limit %" PRIu64 " is above the hard limit %" PRIu64,
                  rlimit_name(limit->resource), limit->soft, limit->hard);
    out->n_rlimits++;
  }
  return 0;
}

static int parse_capability_set(const cJSON *capabilities, const char *key, uint64_t *mask,
                                oci_error_t *err)
{
  char path[JSON_PATH_MAX], item_path[JSON_PATH_MAX];
  const cJSON *array = member(capabilities, key), *item;
  size_t index = 0;

  join_key(path, "process.capabilities", key);
  if (array == NULL)
    return 0;
  if (expect_array(array, path, err) < 0)
    return -1;
  cJSON_ArrayForEach(item, array)
  {
    int cap;
    join_index(item_path, path, index++);
    if (expect_type(item, item_path, cJSON_String, "a string", err) < 0)
      return -1;
    /* A name ocirun cannot map is refused rather than dropped with a
     * warning (which the spec would allow): the parser has no channel
     * for warnings, and a set that silently differs from the one asked
     * for is worse than an error. "ALL" is docker's, not the spec's. */
    cap = capability_from_name(item->valuestring);
    if (cap < 0 || cap >= 64)
      return fail(err, item_path, "unknown capability '%s'", item->valuestring);
    *mask |= UINT64_C(1) << cap;
  }
  return 0;
}

static int parse_capabilities(const cJSON *process, struct spec_process *out, oci_error_t *err)
{
  const cJSON *capabilities = member(process, "capabilities");
  if (capabilities == NULL)
    return 0;
  if (expect_object(capabilities, "process.capabilities", err) < 0)
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
  char path[JSON_PATH_MAX];
  uint32_t id, umask;

  /* uid and gid are REQUIRED in a POSIX user; without the object there
   * is no user to run as, and root is not assumed. */
  if (required(process, "process", "user", &user, err) < 0 ||
      expect_object(user, "process.user", err) < 0)
    return -1;
  /* 4294967295 is (uid_t)-1, which setresuid/setresgid read as "leave
   * it": the process would stay root. */
  if (get_u32(user, "process.user", "uid", true, &id, NULL, err) < 0)
    return -1;
  if (id == UINT32_MAX)
    return fail(err, "process.user.uid", "4294967295 is not a user id ((uid_t)-1 means no change)");
  out->uid = id;
  if (get_u32(user, "process.user", "gid", true, &id, NULL, err) < 0)
    return -1;
  if (id == UINT32_MAX)
    return fail(err, "process.user.gid",
                "4294967295 is not a group id ((gid_t)-1 means no change)");
  out->gid = id;
  if (get_u32(user, "process.user", "umask", false, &umask, &out->umask_set, err) < 0)
    return -1;
  if (out->umask_set && umask > 0777)
    return fail(err, "process.user.umask", "%#o is not a umask (above 0777)", umask);
  out->umask = umask;
  gids = member(user, "additionalGids");
  if (gids == NULL)
    return 0;
  if (expect_array(gids, "process.user.additionalGids", err) < 0)
    return -1;
  out->additional_gids = calloc((size_t)cJSON_GetArraySize(gids) + 1, sizeof(gid_t));
  if (out->additional_gids == NULL)
    return out_of_memory(err, "process.user.additionalGids");
  cJSON_ArrayForEach(item, gids)
  {
    join_index(path, "process.user.additionalGids", out->n_additional_gids);
    if (number_u32(item, path, &id, err) < 0)
      return -1;
    out->additional_gids[out->n_additional_gids++] = id;
  }
  return 0;
}

/* "NAME=VALUE" with a non-empty NAME, as environ(7) has them. */
static int check_env(char **env, const char *path, oci_error_t *err)
{
  char item_path[JSON_PATH_MAX];
  for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
    const char *equals = strchr(env[i], '=');
    if (equals == NULL || equals == env[i])
      return fail(err, join_index(item_path, path, i), "'%s' is not NAME=VALUE", env[i]);
  }
  return 0;
}

static int parse_console_size(const cJSON *process, struct spec_process *out, oci_error_t *err)
{
  const cJSON *size = member(process, "consoleSize");
  uint64_t v;

  /* The spec: ignored unless terminal is true. */
  if (size == NULL || !out->terminal)
    return 0;
  if (expect_object(size, "process.consoleSize", err) < 0)
    return -1;
  /* struct winsize holds unsigned shorts */
  if (get_u64(size, "process.consoleSize", "height", USHRT_MAX, &v, NULL, err) < 0)
    return -1;
  if (member(size, "height") == NULL)
    return fail(err, "process.consoleSize.height", "required");
  out->console_height = (unsigned)v;
  if (get_u64(size, "process.consoleSize", "width", USHRT_MAX, &v, NULL, err) < 0)
    return -1;
  if (member(size, "width") == NULL)
    return fail(err, "process.consoleSize.width", "required");
  out->console_width = (unsigned)v;
  return 0;
}

static int parse_process(const cJSON *config, struct spec *spec, oci_error_t *err)
{
  const cJSON *process = member(config, "process");
  struct spec_process *out = &spec->process;
  int64_t oom;

  if (process == NULL)
    return 0;
  spec->has_process = true;
  if (expect_object(process, "process", err) < 0 ||
      REFUSE_TABLE(process, "process", process_unsupported, err) < 0)
    return -1;
  if (get_bool(process, "process", "terminal", &out->terminal, err) < 0 ||
      parse_console_size(process, out, err) < 0 || parse_user(process, out, err) < 0)
    return -1;
  if (get_strv(process, "process", "args", &out->args, err) < 0)
    return -1;
  if (out->args == NULL || out->args[0] == NULL)
    return fail(err, "process.args", "at least one entry is required");
  if (out->args[0][0] == '\0')
    return fail(err, "process.args[0]", "empty");
  if (get_strv(process, "process", "env", &out->env, err) < 0 ||
      check_env(out->env, "process.env", err) < 0)
    return -1;
  if (out->env == NULL) {
    out->env = calloc(1, sizeof(char *));
    if (out->env == NULL)
      return out_of_memory(err, "process.env");
  }
  if (get_string(process, "process", "cwd", true, &out->cwd, err) < 0)
    return -1;
  if (out->cwd[0] != '/')
    return fail(err, "process.cwd", "'%s' is not an absolute path", out->cwd);
  if (parse_capabilities(process, out, err) < 0 || parse_rlimits(process, out, err) < 0 ||
      get_bool(process, "process", "noNewPrivileges", &out->no_new_privileges, err) < 0)
    return -1;
  if (get_i64(process, "process", "oomScoreAdj", -1000, 1000, &oom, &out->oom_score_adj_set, err) <
      0)
    return -1;
  out->oom_score_adj = out->oom_score_adj_set ? (int)oom : 0;
  return 0;
}

/* --- mounts --------------------------------------------------------------- */

enum option_kind {
  OPTION_SET,         /* sets flag */
  OPTION_CLEAR,       /* clears flag */
  OPTION_BIND,        /* bind, rbind */
  OPTION_PROPAGATION, /* flag is the propagation type */
  OPTION_NONE,        /* "defaults": mount(8)'s, nothing to change */
  OPTION_REFUSED,     /* the spec's, not implemented */
  OPTION_TMPCOPYUP,   /* runc's extension for a tmpfs */
};

struct mount_option {
  const char *name;
  enum option_kind kind;
  unsigned long flag;
  bool recursive; /* rbind (the tree), the r- attribute forms (every mount of it), the r-
                     propagation forms (MS_REC) */
};

/* The spec's Linux mount options (config.md, "Linux mount options"); any
 * other option is the filesystem's, passed on as mount data. */
static const struct mount_option mount_options[] = {
    {"defaults", OPTION_NONE, 0, false},
    {"ro", OPTION_SET, MS_RDONLY, false},
    {"rw", OPTION_CLEAR, MS_RDONLY, false},
    {"nosuid", OPTION_SET, MS_NOSUID, false},
    {"suid", OPTION_CLEAR, MS_NOSUID, false},
    {"nodev", OPTION_SET, MS_NODEV, false},
    {"dev", OPTION_CLEAR, MS_NODEV, false},
    {"noexec", OPTION_SET, MS_NOEXEC, false},
    {"exec", OPTION_CLEAR, MS_NOEXEC, false},
    {"sync", OPTION_SET, MS_SYNCHRONOUS, false},
    {"async", OPTION_CLEAR, MS_SYNCHRONOUS, false},
    {"dirsync", OPTION_SET, MS_DIRSYNC, false},
    {"remount", OPTION_SET, MS_REMOUNT, false},
    {"mand", OPTION_SET, MS_MANDLOCK, false},
    {"nomand", OPTION_CLEAR, MS_MANDLOCK, false},
    {"noatime", OPTION_SET, MS_NOATIME, false},
    {"atime", OPTION_CLEAR, MS_NOATIME, false},
    {"nodiratime", OPTION_SET, MS_NODIRATIME, false},
    {"diratime", OPTION_CLEAR, MS_NODIRATIME, false},
    {"relatime", OPTION_SET, MS_RELATIME, false},
    {"norelatime", OPTION_CLEAR, MS_RELATIME, false},
    {"strictatime", OPTION_SET, MS_STRICTATIME, false},
    {"nostrictatime", OPTION_CLEAR, MS_STRICTATIME, false},
    {"iversion", OPTION_SET, MS_I_VERSION, false},
    {"noiversion", OPTION_CLEAR, MS_I_VERSION, false},
    {"lazytime", OPTION_SET, MS_LAZYTIME, false},
    {"nolazytime", OPTION_CLEAR, MS_LAZYTIME, false},
    {"silent", OPTION_SET, MS_SILENT, false},
    {"loud", OPTION_CLEAR, MS_SILENT, false},
    {"nosymfollow", OPTION_SET, MS_NOSYMFOLLOW, false},
    {"symfollow", OPTION_CLEAR, MS_NOSYMFOLLOW, false},
    {"rro", OPTION_SET, MS_RDONLY, true},
    {"rrw", OPTION_CLEAR, MS_RDONLY, true},
    {"rnosuid", OPTION_SET, MS_NOSUID, true},
    {"rsuid", OPTION_CLEAR, MS_NOSUID, true},
    {"rnodev", OPTION_SET, MS_NODEV, true},
    {"rdev", OPTION_CLEAR, MS_NODEV, true},
    {"rnoexec", OPTION_SET, MS_NOEXEC, true},
    {"rexec", OPTION_CLEAR, MS_NOEXEC, true},
    {"rnoatime", OPTION_SET, MS_NOATIME, true},
    {"ratime", OPTION_CLEAR, MS_NOATIME, true},
    {"rnodiratime", OPTION_SET, MS_NODIRATIME, true},
    {"rdiratime", OPTION_CLEAR, MS_NODIRATIME, true},
    {"rrelatime", OPTION_SET, MS_RELATIME, true},
    {"rnorelatime", OPTION_CLEAR, MS_RELATIME, true},
    {"rstrictatime", OPTION_SET, MS_STRICTATIME, true},
    {"rnostrictatime", OPTION_CLEAR, MS_STRICTATIME, true},
    {"rnosymfollow", OPTION_SET, MS_NOSYMFOLLOW, true},
    {"rsymfollow", OPTION_CLEAR, MS_NOSYMFOLLOW, true},
    {"bind", OPTION_BIND, 0, false},
    {"rbind", OPTION_BIND, 0, true},
    {"private", OPTION_PROPAGATION, MS_PRIVATE, false},
    {"rprivate", OPTION_PROPAGATION, MS_PRIVATE, true},
    {"shared", OPTION_PROPAGATION, MS_SHARED, false},
    {"rshared", OPTION_PROPAGATION, MS_SHARED, true},
    {"slave", OPTION_PROPAGATION, MS_SLAVE, false},
    {"rslave", OPTION_PROPAGATION, MS_SLAVE, true},
    {"unbindable", OPTION_PROPAGATION, MS_UNBINDABLE, false},
    {"runbindable", OPTION_PROPAGATION, MS_UNBINDABLE, true},
    {"tmpcopyup", OPTION_TMPCOPYUP, 0, false},
    {"idmap", OPTION_REFUSED, 0, false},
    {"ridmap", OPTION_REFUSED, 0, true},
};

const char *spec_mount_option_name(size_t index)
{
  for (size_t i = 0; i < sizeof(mount_options) / sizeof(mount_options[0]); i++)
    if (mount_options[i].kind != OPTION_REFUSED && index-- == 0)
      return mount_options[i].name;
  return NULL;
}

static const struct mount_option *mount_option_find(const char *name)
{
  for (size_t i = 0; i < sizeof(mount_options) / sizeof(mount_options[0]); i++)
    if (strcmp(mount_options[i].name, name) == 0)
      return &mount_options[i];
  return NULL;
}

/* Appends ",option" (or "option") to the mount data. */
static int data_append(char **data, const char *option, const char *path, oci_error_t *err)
{
  char *joined;
  if (asprintf(&joined, "%s%s%s", *data != NULL ? *data : "", *data != NULL ? "," : "", option) < 0)
    return out_of_memory(err, path);
  free(*data);
  *data = joined;
  return 0;
}

static int apply_mount_option(struct spec_mount *mount, const char *option, const char *path,
                              oci_error_t *err)
{
  const struct mount_option *known = mount_option_find(option);

  if (option[0] == '\0')
    return fail(err, path, "an empty option");
  if (known == NULL)
    return data_append(&mount->data, option, path, err);
  /* Only "rbind" makes a bind take the tree: "bind" with "rro" or
   * "rprivate" stays one mount (the r- forms of the attributes and of the
   * propagation say what happens to every mount of the tree, if any). */
  switch (known->kind) {
  case OPTION_SET: /* the last of "ro" and "rw" wins, as in mount(8) */
    mount->flags |= known->flag;
    mount->clear_flags &= ~known->flag;
    if (known->recursive) {
      mount->rec_flags |= known->flag;
      mount->rec_clear_flags &= ~known->flag;
    }
    break;
  case OPTION_CLEAR:
    mount->clear_flags |= known->flag;
    mount->flags &= ~known->flag;
    if (known->recursive) {
      mount->rec_clear_flags |= known->flag;
      mount->rec_flags &= ~known->flag;
    }
    break;
  case OPTION_BIND:
    mount->bind = true;
    mount->recursive = mount->recursive || known->recursive;
    break;
  case OPTION_PROPAGATION:
    mount->propagation = known->flag | (known->recursive ? MS_REC : 0);
    break;
  case OPTION_NONE:
    break;
  case OPTION_TMPCOPYUP:
    mount->tmpcopyup = true;
    break;
  case OPTION_REFUSED:
    return oci_error_set(err, 0, "%s: the mount option '%s' is not supported by ocirun", path,
                         option);
  }
  return 0;
}

/* An absolute path inside the container, without "." or empty components;
 * a relative one is taken from "/" (the spec allows it, deprecated), and
 * ".." is refused rather than resolved against a tree not yet built. */
static int normalize_container_path(const char *given, const char *path, char **out,
                                    oci_error_t *err)
{
  cleanup_free char *copy = strdup(given);
  cleanup_free char *normal = NULL;
  size_t length = 0;
  char *saveptr = NULL;

  if (copy == NULL || (normal = malloc(strlen(given) + 2)) == NULL)
    return out_of_memory(err, path);
  if (given[0] == '\0')
    return fail(err, path, "empty");
  for (char *part = strtok_r(copy, "/", &saveptr); part != NULL;
       part = strtok_r(NULL, "/", &saveptr)) {
    if (strcmp(part, ".") == 0)
      continue;
    if (strcmp(part, "..") == 0)
      return fail(err, path, "'%s' contains '..'", given);
    normal[length++] = '/';
    memcpy(normal + length, part, strlen(part));
    length += strlen(part);
  }
  if (length == 0)
    normal[length++] = '/';
  normal[length] = '\0';
  *out = steal_pointer(&normal);
  return 0;
}

static int parse_mount(const cJSON *item, const char *path, struct spec_mount *mount,
                       oci_error_t *err)
{
  char options_path[JSON_PATH_MAX], option_path[JSON_PATH_MAX];
  cleanup_free char *destination = NULL;
  const cJSON *options, *option;
  size_t index = 0;

  if (expect_object(item, path, err) < 0 || REFUSE_TABLE(item, path, mount_unsupported, err) < 0 ||
      get_string(item, path, "destination", true, &destination, err) < 0 ||
      normalize_container_path(destination, join_key(option_path, path, "destination"),
                               &mount->destination, err) < 0 ||
      get_string(item, path, "type", false, &mount->type, err) < 0 ||
      get_string(item, path, "source", false, &mount->source, err) < 0)
    return -1;
  options = member(item, "options");
  if (options == NULL)
    return 0;
  join_key(options_path, path, "options");
  if (expect_array(options, options_path, err) < 0)
    return -1;
  cJSON_ArrayForEach(option, options)
  {
    join_index(option_path, options_path, index++);
    if (expect_type(option, option_path, cJSON_String, "a string", err) < 0 ||
        apply_mount_option(mount, option->valuestring, option_path, err) < 0)
      return -1;
  }
  return 0;
}

static int parse_mounts(const cJSON *config, struct spec *spec, oci_error_t *err)
{
  const cJSON *mounts = member(config, "mounts"), *item;
  char path[JSON_PATH_MAX];

  if (mounts == NULL)
    return 0;
  if (expect_array(mounts, "mounts", err) < 0)
    return -1;
  spec->mounts = calloc((size_t)cJSON_GetArraySize(mounts) + 1, sizeof(*spec->mounts));
  if (spec->mounts == NULL)
    return out_of_memory(err, "mounts");
  cJSON_ArrayForEach(item, mounts)
  {
    /* counted first, so spec_clear frees a half-parsed entry */
    spec->n_mounts++;
    if (parse_mount(item, join_index(path, "mounts", spec->n_mounts - 1),
                    &spec->mounts[spec->n_mounts - 1], err) < 0)
      return -1;
  }
  return 0;
}

/* --- hostname, hooks, annotations ------------------------------------------ */

static int parse_names(const cJSON *config, struct spec *spec, oci_error_t *err)
{
  if (get_string(config, "", "hostname", false, &spec->hostname, err) < 0 ||
      get_string(config, "", "domainname", false, &spec->domainname, err) < 0)
    return -1;
  /* sethostname and setdomainname take at most 64 bytes */
  if (spec->hostname != NULL && strlen(spec->hostname) > 64)
    return fail(err, "hostname", "longer than 64 bytes");
  if (spec->domainname != NULL && strlen(spec->domainname) > 64)
    return fail(err, "domainname", "longer than 64 bytes");
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
  char field_path[JSON_PATH_MAX];
  int64_t timeout;
  bool timeout_set;

  if (expect_object(item, path, err) < 0 ||
      get_string(item, path, "path", true, &hook->path, err) < 0)
    return -1;
  if (hook->path[0] != '/')
    return fail(err, join_key(field_path, path, "path"), "'%s' is not an absolute path",
                hook->path);
  if (get_strv(item, path, "args", &hook->args, err) < 0 ||
      get_strv(item, path, "env", &hook->env, err) < 0 ||
      check_env(hook->env, join_key(field_path, path, "env"), err) < 0)
    return -1;
  if (get_i64(item, path, "timeout", INT64_MIN, INT64_MAX, &timeout, &timeout_set, err) < 0)
    return -1;
  if (timeout_set && (timeout <= 0 || timeout > INT_MAX))
    return fail(err, join_key(field_path, path, "timeout"), "%" PRId64 " is not above zero",
                timeout);
  hook->timeout = timeout_set ? (int)timeout : 0;
  return 0;
}

static int parse_hooks(const cJSON *config, struct spec *spec, oci_error_t *err)
{
  const cJSON *hooks = member(config, "hooks");
  char path[JSON_PATH_MAX], item_path[JSON_PATH_MAX];

  if (hooks == NULL)
    return 0;
  if (expect_object(hooks, "hooks", err) < 0)
    return -1;
  for (int kind = 0; kind < SPEC_HOOK_KIND_COUNT; kind++) {
    const cJSON *array = member(hooks, hook_kind_names[kind]), *item;
    struct spec_hooks *list = &spec->hooks[kind];

    join_key(path, "hooks", hook_kind_names[kind]);
    if (array == NULL)
      continue;
    if (expect_array(array, path, err) < 0)
      return -1;
    list->hooks = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(*list->hooks));
    if (list->hooks == NULL)
      return out_of_memory(err, path);
    cJSON_ArrayForEach(item, array)
    {
      list->n_hooks++;
      if (parse_hook(item, join_index(item_path, path, list->n_hooks - 1),
                     &list->hooks[list->n_hooks - 1], err) < 0)
        return -1;
    }
  }
  return 0;
}

/* --- linux: namespaces, id mappings, devices ------------------------------- */

static const char *const namespace_names[SPEC_NS_COUNT] = {
    [SPEC_NS_PID] = "pid",       [SPEC_NS_NETWORK] = "network", [SPEC_NS_MOUNT] = "mount",
    [SPEC_NS_IPC] = "ipc",       [SPEC_NS_UTS] = "uts",         [SPEC_NS_USER] = "user",
    [SPEC_NS_CGROUP] = "cgroup", [SPEC_NS_TIME] = "time",
};

const char *spec_namespace_name(enum spec_namespace_type type)
{
  return (unsigned)type < SPEC_NS_COUNT ? namespace_names[type] : NULL;
}

static int parse_namespaces(const cJSON *linux_section, struct spec *spec, oci_error_t *err)
{
  const cJSON *array = member(linux_section, "namespaces"), *item;
  char path[JSON_PATH_MAX], field_path[JSON_PATH_MAX];
  size_t index = 0;

  if (array == NULL)
    return 0;
  if (expect_array(array, "linux.namespaces", err) < 0)
    return -1;
  cJSON_ArrayForEach(item, array)
  {
    cleanup_free char *type = NULL;
    cleanup_free char *ns_path = NULL;
    int found = -1;

    join_index(path, "linux.namespaces", index++);
    if (expect_object(item, path, err) < 0 ||
        get_string(item, path, "type", true, &type, err) < 0 ||
        get_string(item, path, "path", false, &ns_path, err) < 0)
      return -1;
    for (int t = 0; t < SPEC_NS_COUNT; t++)
      if (strcmp(type, namespace_names[t]) == 0)
        found = t;
    if (found < 0)
      return fail(err, join_key(field_path, path, "type"), "unknown namespace type '%s'", type);
    if (spec->namespaces[found].present)
      return fail(err, join_key(field_path, path, "type"), "the %s namespace is given twice", type);
    spec->namespaces[found].present = true;
    /* "" is how a Go caller writes "no path": a new namespace */
    if (ns_path != NULL && ns_path[0] != '\0') {
      if (ns_path[0] != '/')
        return fail(err, join_key(field_path, path, "path"), "'%s' is not an absolute path",
                    ns_path);
      spec->namespaces[found].path = steal_pointer(&ns_path);
    }
  }
  return 0;
}

static int parse_id_mappings(const cJSON *linux_section, const char *key,
                             struct spec_id_mapping **out, size_t *n_out, oci_error_t *err)
{
  const cJSON *array = member(linux_section, key), *item;
  char path[JSON_PATH_MAX], item_path[JSON_PATH_MAX];

  join_key(path, "linux", key);
  if (array == NULL)
    return 0;
  if (expect_array(array, path, err) < 0)
    return -1;
  *out = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(**out));
  if (*out == NULL)
    return out_of_memory(err, path);
  cJSON_ArrayForEach(item, array)
  {
    struct spec_id_mapping *m = &(*out)[*n_out];
    join_index(item_path, path, *n_out);
    if (expect_object(item, item_path, err) < 0 ||
        get_u32(item, item_path, "containerID", true, &m->container_id, NULL, err) < 0 ||
        get_u32(item, item_path, "hostID", true, &m->host_id, NULL, err) < 0 ||
        get_u32(item, item_path, "size", true, &m->size, NULL, err) < 0)
      return -1;
    if (m->size == 0)
      return fail(err, item_path, "size 0 maps nothing");
    if ((uint64_t)m->container_id + m->size > UINT64_C(1) << 32 ||
        (uint64_t)m->host_id + m->size > UINT64_C(1) << 32)
      return fail(err, item_path, "the range passes 2^32");
    (*n_out)++;
  }
  return 0;
}

static int parse_device(const cJSON *item, const char *path, struct spec_device *device,
                        oci_error_t *err)
{
  char field_path[JSON_PATH_MAX];
  cleanup_free char *type = NULL;
  cleanup_free char *given_path = NULL;
  uint32_t v;

  if (expect_object(item, path, err) < 0 || get_string(item, path, "type", true, &type, err) < 0)
    return -1;
  if (strlen(type) != 1 || strchr("cbup", type[0]) == NULL)
    return fail(err, join_key(field_path, path, "type"), "'%s' is not one of c, b, u, p", type);
  device->type = type[0];
  if (get_string(item, path, "path", true, &given_path, err) < 0)
    return -1;
  if (given_path[0] != '/')
    return fail(err, join_key(field_path, path, "path"), "'%s' is not an absolute path",
                given_path);
  if (normalize_container_path(given_path, join_key(field_path, path, "path"), &device->path, err) <
      0)
    return -1;
  if (device->type == 'p') {
    device->major = device->minor = 0;
  } else {
    const cJSON *major, *minor;
    if (required(item, path, "major", &major, err) < 0 ||
        required(item, path, "minor", &minor, err) < 0 ||
        number_i64(major, join_key(field_path, path, "major"), 0, UINT32_MAX, &device->major, err) <
            0 ||
        number_i64(minor, join_key(field_path, path, "minor"), 0, UINT32_MAX, &device->minor, err) <
            0)
      return -1;
  }
  if (get_u32(item, path, "fileMode", false, &v, &device->file_mode_set, err) < 0)
    return -1;
  if (device->file_mode_set && v > 0777)
    return fail(err, join_key(field_path, path, "fileMode"),
                "%#o is not a permission mode (above 0777)", v);
  device->file_mode = v;
  if (get_u32(item, path, "uid", false, &v, &device->uid_set, err) < 0)
    return -1;
  device->uid = v;
  if (get_u32(item, path, "gid", false, &v, &device->gid_set, err) < 0)
    return -1;
  device->gid = v;
  return 0;
}

static int parse_devices(const cJSON *linux_section, struct spec *spec, oci_error_t *err)
{
  const cJSON *array = member(linux_section, "devices"), *item;
  char path[JSON_PATH_MAX];

  if (array == NULL)
    return 0;
  if (expect_array(array, "linux.devices", err) < 0)
    return -1;
  spec->devices = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(*spec->devices));
  if (spec->devices == NULL)
    return out_of_memory(err, "linux.devices");
  cJSON_ArrayForEach(item, array)
  {
    spec->n_devices++;
    if (parse_device(item, join_index(path, "linux.devices", spec->n_devices - 1),
                     &spec->devices[spec->n_devices - 1], err) < 0)
      return -1;
  }
  return 0;
}

/* --- linux.resources -------------------------------------------------------- */

/* A memory value: bytes, or -1 for unlimited (kept as INT64_MAX, so that
 * "unlimited" and "not given" stay apart for an update). */
static int get_memory_value(const cJSON *memory, const char *key, int64_t *out, oci_error_t *err)
{
  bool set;
  int64_t v;
  if (get_i64(memory, "linux.resources.memory", key, -1, INT64_MAX, &v, &set, err) < 0)
    return -1;
  if (set)
    *out = v == -1 ? INT64_MAX : v;
  return 0;
}

static int parse_memory(const cJSON *resources, struct spec_resources *out, oci_error_t *err)
{
  const char *path = "linux.resources.memory";
  const cJSON *memory = member(resources, "memory");

  if (memory == NULL)
    return 0;
  if (expect_object(memory, path, err) < 0 ||
      REFUSE_TABLE(memory, path, memory_unsupported, err) < 0 ||
      get_memory_value(memory, "limit", &out->memory_limit, err) < 0 ||
      get_memory_value(memory, "reservation", &out->memory_reservation, err) < 0 ||
      get_memory_value(memory, "swap", &out->memory_swap, err) < 0)
    return -1;
  /* swap is memory+swap: below the memory limit it cannot be applied */
  if (out->memory_swap >= 0 && out->memory_limit >= 0 && out->memory_swap < out->memory_limit)
    return fail(err, "linux.resources.memory.swap",
                "%" PRId64 " (memory+swap) is below the memory limit %" PRId64, out->memory_swap,
                out->memory_limit);
  return 0;
}

/* "0-3,7": numbers and ranges, comma-separated. */
static int check_cpu_list(const char *list, const char *path, oci_error_t *err)
{
  const char *p = list;
  while (*p != '\0') {
    unsigned long first, last;
    char *end;
    if (*p < '0' || *p > '9')
      return fail(err, path, "'%s' is not a list like 0-3,7", list);
    first = strtoul(p, &end, 10);
    last = first;
    if (*end == '-') {
      if (end[1] < '0' || end[1] > '9')
        return fail(err, path, "'%s' is not a list like 0-3,7", list);
      last = strtoul(end + 1, &end, 10);
    }
    if (last < first || (*end != ',' && *end != '\0') || (*end == ',' && end[1] == '\0'))
      return fail(err, path, "'%s' is not a list like 0-3,7", list);
    p = *end == ',' ? end + 1 : end;
  }
  return 0;
}

static int parse_cpu(const cJSON *resources, struct spec_resources *out, oci_error_t *err)
{
  const char *path = "linux.resources.cpu";
  const cJSON *cpu = member(resources, "cpu");
  bool quota_set;
  int64_t quota;

  if (cpu == NULL)
    return 0;
  if (expect_object(cpu, path, err) < 0 || REFUSE_TABLE(cpu, path, cpu_unsupported, err) < 0 ||
      get_u64(cpu, path, "shares", UINT64_MAX, &out->cpu_shares, &out->cpu_shares_set, err) < 0 ||
      get_i64(cpu, path, "quota", -1, INT64_MAX, &quota, &quota_set, err) < 0 ||
      get_u64(cpu, path, "period", UINT64_MAX, &out->cpu_period, NULL, err) < 0 ||
      get_string(cpu, path, "cpus", false, &out->cpuset_cpus, err) < 0 ||
      get_string(cpu, path, "mems", false, &out->cpuset_mems, err) < 0)
    return -1;
  if (quota_set)
    out->cpu_quota = quota;
  if (out->cpuset_cpus != NULL &&
      check_cpu_list(out->cpuset_cpus, "linux.resources.cpu.cpus", err) < 0)
    return -1;
  if (out->cpuset_mems != NULL &&
      check_cpu_list(out->cpuset_mems, "linux.resources.cpu.mems", err) < 0)
    return -1;
  /* "" is how a Go caller writes "not given" */
  if (out->cpuset_cpus != NULL && out->cpuset_cpus[0] == '\0')
    free(steal_pointer(&out->cpuset_cpus));
  if (out->cpuset_mems != NULL && out->cpuset_mems[0] == '\0')
    free(steal_pointer(&out->cpuset_mems));
  return 0;
}

static int parse_pids(const cJSON *resources, struct spec_resources *out, oci_error_t *err)
{
  const cJSON *pids = member(resources, "pids"), *limit;
  int64_t v;

  if (pids == NULL)
    return 0;
  if (expect_object(pids, "linux.resources.pids", err) < 0 ||
      required(pids, "linux.resources.pids", "limit", &limit, err) < 0 ||
      number_i64(limit, "linux.resources.pids.limit", INT64_MIN, INT64_MAX, &v, err) < 0)
    return -1;
  out->pids_limit = v > 0 ? v : 0; /* 0 or negative: unlimited */
  return 0;
}

static int parse_device_rule(const cJSON *item, const char *path, struct spec_device_rule *rule,
                             oci_error_t *err)
{
  char field_path[JSON_PATH_MAX];
  cleanup_free char *type = NULL;
  cleanup_free char *access = NULL;
  const cJSON *allow;
  bool set;

  if (expect_object(item, path, err) < 0 || required(item, path, "allow", &allow, err) < 0)
    return -1;
  if (!cJSON_IsBool(allow))
    return fail(err, join_key(field_path, path, "allow"), "expected a boolean, got %s",
                json_type_name(allow));
  rule->allow = cJSON_IsTrue(allow);
  if (get_string(item, path, "type", false, &type, err) < 0)
    return -1;
  rule->type = type == NULL || type[0] == '\0' ? 'a' : type[0];
  if (type != NULL && type[0] != '\0' && (strlen(type) != 1 || strchr("acb", type[0]) == NULL))
    return fail(err, join_key(field_path, path, "type"), "'%s' is not one of a, c, b", type);
  /* absent: any; -1 is taken as "any" too */
  if (get_i64(item, path, "major", -1, UINT32_MAX, &rule->major, &set, err) < 0)
    return -1;
  if (!set)
    rule->major = -1;
  if (get_i64(item, path, "minor", -1, UINT32_MAX, &rule->minor, &set, err) < 0)
    return -1;
  if (!set)
    rule->minor = -1;
  if (get_string(item, path, "access", false, &access, err) < 0)
    return -1;
  /* absent or empty: every access, as the kernel's "a" alone means */
  if (access == NULL || access[0] == '\0') {
    strcpy(rule->access, "rwm");
    return 0;
  }
  {
    bool r = false, w = false, m = false;
    for (const char *c = access; *c != '\0'; c++) {
      bool *seen = *c == 'r' ? &r : *c == 'w' ? &w : *c == 'm' ? &m : NULL;
      if (seen == NULL || *seen)
        return fail(err, join_key(field_path, path, "access"),
                    "'%s' is not a combination of r, w and m", access);
      *seen = true;
    }
    snprintf(rule->access, sizeof(rule->access), "%s%s%s", r ? "r" : "", w ? "w" : "",
             m ? "m" : "");
  }
  return 0;
}

static int parse_device_rules(const cJSON *resources, struct spec_resources *out, oci_error_t *err)
{
  const cJSON *array = member(resources, "devices"), *item;
  char path[JSON_PATH_MAX];

  if (array == NULL)
    return 0;
  if (expect_array(array, "linux.resources.devices", err) < 0)
    return -1;
  out->devices = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(*out->devices));
  if (out->devices == NULL)
    return out_of_memory(err, "linux.resources.devices");
  cJSON_ArrayForEach(item, array)
  {
    if (parse_device_rule(item, join_index(path, "linux.resources.devices", out->n_devices),
                          &out->devices[out->n_devices], err) < 0)
      return -1;
    out->n_devices++;
  }
  return 0;
}

/* A unified key names a file in the container's cgroup: one name, never a
 * path that could leave it. */
static int check_unified(const struct spec_resources *out, oci_error_t *err)
{
  char path[JSON_PATH_MAX];
  for (size_t i = 0; i < out->n_unified; i++) {
    const char *key = out->unified[i].key;
    if (strchr(key, '/') != NULL || strcmp(key, ".") == 0 || strcmp(key, "..") == 0)
      return fail(err, join_key(path, "linux.resources.unified", key), "not a cgroup file name");
  }
  return 0;
}

static void resources_init(struct spec_resources *resources)
{
  resources->memory_limit = resources->memory_reservation = resources->memory_swap = -1;
  resources->cpu_quota = -1;
  resources->pids_limit = -1;
}

static int parse_resources(const cJSON *linux_section, struct spec *spec, oci_error_t *err)
{
  const cJSON *resources = member(linux_section, "resources");
  struct spec_resources *out = &spec->resources;

  if (resources == NULL)
    return 0;
  spec->has_resources = true;
  if (expect_object(resources, "linux.resources", err) < 0 ||
      REFUSE_TABLE(resources, "linux.resources", resources_unsupported, err) < 0 ||
      parse_memory(resources, out, err) < 0 || parse_cpu(resources, out, err) < 0 ||
      parse_pids(resources, out, err) < 0 || parse_device_rules(resources, out, err) < 0 ||
      get_string_map(resources, "linux.resources", "unified", &out->unified, &out->n_unified, err) <
          0 ||
      check_unified(out, err) < 0)
    return -1;
  return 0;
}

/* --- linux: seccomp, paths, sysctl, propagation ------------------------------ */

static int check_seccomp_action(const cJSON *item, const char *path, oci_error_t *err)
{
  uint32_t action;
  if (expect_type(item, path, cJSON_String, "a string", err) < 0)
    return -1;
  if (strcmp(item->valuestring, "SCMP_ACT_NOTIFY") == 0)
    return oci_error_set(err, 0, "%s: SCMP_ACT_NOTIFY is not supported by ocirun (%s)", path,
                         "no seccomp notify agent support");
  if (seccomp_action_from_name(item->valuestring, &action) < 0)
    return fail(err, path, "unknown action '%s'", item->valuestring);
  return 0;
}

/* The spec's seccomp properties, by level: the copy keeps these and
 * nothing else, so a property the spec does not define (Docker's archMap,
 * includes, excludes, comment) is ignored, as the spec's extensibility
 * rule asks, instead of reaching the profile compiler. */
struct seccomp_level {
  const char *const *keys;
  const char *list_key; /* the member whose entries are the next level */
  const struct seccomp_level *entries;
};
static const char *const seccomp_arg_keys_list[] = {"index", "value", "valueTwo", "op", NULL};
static const struct seccomp_level seccomp_arg_keys = {seccomp_arg_keys_list, NULL, NULL};
static const char *const seccomp_syscall_keys_list[] = {"names", "action", "errnoRet", "args",
                                                        NULL};
static const struct seccomp_level seccomp_syscall_keys = {seccomp_syscall_keys_list, "args",
                                                          &seccomp_arg_keys};
static const char *const seccomp_top_keys_list[] = {
    "defaultAction", "defaultErrnoRet", "architectures", "flags", "syscalls", NULL};
static const struct seccomp_level seccomp_keys = {seccomp_top_keys_list, "syscalls",
                                                  &seccomp_syscall_keys};

/* A copy of object with level's keys; the entries of level's list (an
 * array of objects, already checked for syscalls, checked here for args)
 * copied by the next level. NULL on failure, *err set. */
static cJSON *seccomp_copy(const cJSON *object, const struct seccomp_level level, oci_error_t *err)
{
  cleanup_cjson cJSON *copy = cJSON_CreateObject();
  if (copy == NULL)
    return out_of_memory(err, "linux.seccomp"), NULL;
  for (size_t i = 0; level.keys[i] != NULL; i++) {
    const cJSON *item = member(object, level.keys[i]), *entry;
    cJSON *item_copy;
    if (item == NULL)
      continue;
    if (level.list_key == NULL || strcmp(level.keys[i], level.list_key) != 0 ||
        !cJSON_IsArray(item)) {
      item_copy = cJSON_Duplicate(item, true);
    } else {
      item_copy = cJSON_CreateArray();
      cJSON_ArrayForEach(entry, item)
      {
        cJSON *entry_copy;
        if (item_copy == NULL)
          break;
        if (!cJSON_IsObject(entry)) {
          cJSON_Delete(item_copy);
          oci_error_set(err, 0, "linux.seccomp: %s entries must be objects", level.list_key);
          return NULL;
        }
        entry_copy = seccomp_copy(entry, *level.entries, err);
        if (entry_copy == NULL) {
          cJSON_Delete(item_copy);
          return NULL;
        }
        cJSON_AddItemToArray(item_copy, entry_copy);
      }
    }
    if (item_copy == NULL || !cJSON_AddItemToObject(copy, level.keys[i], item_copy)) {
      cJSON_Delete(item_copy);
      return out_of_memory(err, "linux.seccomp"), NULL;
    }
  }
  return steal_pointer(&copy);
}

/* The profile is compiled by the runtime (seccomp_profile.c); here only
 * what decides whether it can be run at all is checked, with the path. */
static int parse_seccomp(const cJSON *linux_section, struct spec *spec, oci_error_t *err)
{
  const char *path = "linux.seccomp";
  const cJSON *seccomp = member(linux_section, "seccomp"), *action, *flags, *item, *syscalls;
  char item_path[JSON_PATH_MAX], field_path[JSON_PATH_MAX];
  size_t index = 0;

  if (seccomp == NULL)
    return 0;
  if (expect_object(seccomp, path, err) < 0 ||
      REFUSE_TABLE(seccomp, path, seccomp_unsupported, err) < 0 ||
      required(seccomp, path, "defaultAction", &action, err) < 0 ||
      check_seccomp_action(action, "linux.seccomp.defaultAction", err) < 0)
    return -1;
  flags = member(seccomp, "flags");
  if (flags != NULL) {
    if (expect_array(flags, "linux.seccomp.flags", err) < 0)
      return -1;
    cJSON_ArrayForEach(item, flags)
    {
      join_index(item_path, "linux.seccomp.flags", index++);
      if (expect_type(item, item_path, cJSON_String, "a string", err) < 0)
        return -1;
      if (seccomp_flag_from_name(item->valuestring) == 0)
        return oci_error_set(err, 0, "%s: the seccomp flag '%s' is not supported by ocirun",
                             item_path, item->valuestring);
    }
  }
  syscalls = member(seccomp, "syscalls");
  if (syscalls != NULL) {
    if (expect_array(syscalls, "linux.seccomp.syscalls", err) < 0)
      return -1;
    index = 0;
    cJSON_ArrayForEach(item, syscalls)
    {
      join_index(item_path, "linux.seccomp.syscalls", index++);
      if (expect_object(item, item_path, err) < 0 ||
          required(item, item_path, "action", &action, err) < 0 ||
          check_seccomp_action(action, join_key(field_path, item_path, "action"), err) < 0)
        return -1;
    }
  }
  spec->seccomp = seccomp_copy(seccomp, seccomp_keys, err);
  return spec->seccomp == NULL ? -1 : 0;
}

static int parse_absolute_paths(const cJSON *linux_section, const char *key, char ***out,
                                oci_error_t *err)
{
  char path[JSON_PATH_MAX], item_path[JSON_PATH_MAX];
  join_key(path, "linux", key);
  if (get_strv(linux_section, "linux", key, out, err) < 0)
    return -1;
  for (size_t i = 0; *out != NULL && (*out)[i] != NULL; i++)
    if ((*out)[i][0] != '/')
      return fail(err, join_index(item_path, path, i), "'%s' is not an absolute path", (*out)[i]);
  return 0;
}

/* A sysctl name becomes a file under /proc/sys: "net.ipv4.ip_forward" or
 * "net/ipv4/ip_forward" (then dots are part of a name, as in sysctl(8));
 * no empty, "." or ".." component may take it elsewhere. */
static int check_sysctl(const struct spec *spec, oci_error_t *err)
{
  char path[JSON_PATH_MAX];
  for (size_t i = 0; i < spec->n_sysctl; i++) {
    const char *key = spec->sysctl[i].key;
    const char *separator = strchr(key, '/') != NULL ? "/" : ".";
    cleanup_free char *copy = strdup(key);
    size_t parts = 0, joined = 0;
    char *saveptr = NULL;

    if (copy == NULL)
      return out_of_memory(err, "linux.sysctl");
    for (char *part = strtok_r(copy, separator, &saveptr); part != NULL;
         part = strtok_r(NULL, separator, &saveptr)) {
      if (strcmp(part, ".") == 0 || strcmp(part, "..") == 0)
        return fail(err, join_key(path, "linux.sysctl", key), "not a sysctl name");
      parts++;
      joined += strlen(part);
    }
    /* the separators between the parts are all there were: none empty */
    if (parts == 0 || joined + parts - 1 != strlen(key))
      return fail(err, join_key(path, "linux.sysctl", key), "not a sysctl name");
  }
  return 0;
}

static int parse_rootfs_propagation(const cJSON *linux_section, struct spec *spec, oci_error_t *err)
{
  cleanup_free char *value = NULL;
  const struct mount_option *option;

  if (get_string(linux_section, "linux", "rootfsPropagation", false, &value, err) < 0)
    return -1;
  if (value == NULL || value[0] == '\0')
    return 0;
  option = mount_option_find(value);
  if (option == NULL || option->kind != OPTION_PROPAGATION)
    return fail(err, "linux.rootfsPropagation",
                "'%s' is not one of private, rprivate, slave, rslave, shared, rshared, "
                "unbindable, runbindable",
                value);
  spec->rootfs_propagation = option->flag | (option->recursive ? MS_REC : 0);
  return 0;
}

static int parse_linux(const cJSON *config, struct spec *spec, oci_error_t *err)
{
  const cJSON *linux_section = member(config, "linux");
  cleanup_free char *cgroups_path = NULL;

  if (linux_section == NULL)
    return 0;
  if (expect_object(linux_section, "linux", err) < 0 ||
      REFUSE_TABLE(linux_section, "linux", linux_unsupported, err) < 0 ||
      parse_namespaces(linux_section, spec, err) < 0 ||
      parse_id_mappings(linux_section, "uidMappings", &spec->uid_mappings, &spec->n_uid_mappings,
                        err) < 0 ||
      parse_id_mappings(linux_section, "gidMappings", &spec->gid_mappings, &spec->n_gid_mappings,
                        err) < 0 ||
      parse_devices(linux_section, spec, err) < 0 ||
      get_string(linux_section, "linux", "cgroupsPath", false, &cgroups_path, err) < 0 ||
      parse_resources(linux_section, spec, err) < 0 ||
      parse_seccomp(linux_section, spec, err) < 0 ||
      parse_absolute_paths(linux_section, "maskedPaths", &spec->masked_paths, err) < 0 ||
      parse_absolute_paths(linux_section, "readonlyPaths", &spec->readonly_paths, err) < 0 ||
      get_string_map(linux_section, "linux", "sysctl", &spec->sysctl, &spec->n_sysctl, err) < 0 ||
      check_sysctl(spec, err) < 0 || parse_rootfs_propagation(linux_section, spec, err) < 0)
    return -1;
  if (cgroups_path != NULL && cgroups_path[0] != '\0')
    spec->cgroups_path = steal_pointer(&cgroups_path);
  return 0;
}

/* --- entry points -------------------------------------------------------- */

int spec_parse(const cJSON *config, struct spec *spec, oci_error_t *err)
{
  memset(spec, 0, sizeof(*spec));
  resources_init(&spec->resources);
  if (config == NULL || !cJSON_IsObject(config))
    return oci_error_set(err, 0, "the configuration is not a JSON object");
  if (json_refuse_duplicate_keys(config, "config.json", err) < 0 ||
      parse_oci_version(config, spec, err) < 0 ||
      REFUSE_TABLE(config, "", top_unsupported, err) < 0 || parse_root(config, spec, err) < 0 ||
      parse_process(config, spec, err) < 0 || parse_mounts(config, spec, err) < 0 ||
      parse_names(config, spec, err) < 0 || parse_hooks(config, spec, err) < 0 ||
      get_string_map(config, "", "annotations", &spec->annotations, &spec->n_annotations, err) <
          0 ||
      parse_linux(config, spec, err) < 0) {
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
  resources_init(&spec->resources);
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

static void key_values_free(struct spec_key_value *pairs, size_t n)
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
  key_values_free(spec->annotations, spec->n_annotations);
  for (int t = 0; t < SPEC_NS_COUNT; t++)
    free(spec->namespaces[t].path);
  free(spec->uid_mappings);
  free(spec->gid_mappings);
  for (size_t i = 0; i < spec->n_devices; i++)
    free(spec->devices[i].path);
  free(spec->devices);
  free(spec->cgroups_path);
  free(spec->resources.cpuset_cpus);
  free(spec->resources.cpuset_mems);
  free(spec->resources.devices);
  key_values_free(spec->resources.unified, spec->resources.n_unified);
  cJSON_Delete(spec->seccomp);
  strv_free(spec->masked_paths);
  strv_free(spec->readonly_paths);
  key_values_free(spec->sysctl, spec->n_sysctl);
  memset(spec, 0, sizeof(*spec));
  resources_init(&spec->resources);
}
