/* linux: namespaces, id mappings, devices, cgroupsPath, seccomp, masked and
 * read-only paths, sysctl, rootfsPropagation; linux.resources is
 * resources.c's. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "oci/cleanup.h"
#include "runtime/seccomp/rules.h"
#include "runtime/spec/parse.h"

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

static int parse_namespaces(const cJSON *array, const char *array_path, void *target,
                            oci_error_t *err)
{
  struct spec *spec = target;
  char path[SPEC_PATH_MAX], field_path[SPEC_PATH_MAX];
  const cJSON *item;
  size_t index = 0;

  if (array == NULL)
    return 0;
  if (spec_expect_array(array, array_path, err) < 0)
    return -1;
  cJSON_ArrayForEach(item, array)
  {
    cleanup_free char *type = NULL;
    cleanup_free char *ns_path = NULL;
    int found = -1;

    spec_join_index(path, array_path, index++);
    if (spec_expect_object(item, path, err) < 0 ||
        spec_get_string(item, path, "type", true, &type, err) < 0 ||
        spec_get_string(item, path, "path", false, &ns_path, err) < 0)
      return -1;
    for (int t = 0; t < SPEC_NS_COUNT; t++)
      if (strcmp(type, namespace_names[t]) == 0)
        found = t;
    if (found < 0)
      return spec_fail(err, spec_join_key(field_path, path, "type"), "unknown namespace type '%s'",
                       type);
    if (spec->namespaces[found].present)
      return spec_fail(err, spec_join_key(field_path, path, "type"),
                       "the %s namespace is given twice", type);
    spec->namespaces[found].present = true;
    /* "" is how a Go caller writes "no path": a new namespace */
    if (ns_path != NULL && ns_path[0] != '\0') {
      if (ns_path[0] != '/')
        return spec_fail(err, spec_join_key(field_path, path, "path"),
                         "'%s' is not an absolute path", ns_path);
      spec->namespaces[found].path = steal_pointer(&ns_path);
    }
  }
  return 0;
}

int spec_parse_id_mappings(const cJSON *array, const char *path, struct spec_id_mapping **out,
                           size_t *n_out, oci_error_t *err)
{
  char item_path[SPEC_PATH_MAX];
  const cJSON *item;

  if (array == NULL)
    return 0;
  if (spec_expect_array(array, path, err) < 0)
    return -1;
  *out = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(**out));
  if (*out == NULL)
    return spec_out_of_memory(err, path);
  cJSON_ArrayForEach(item, array)
  {
    struct spec_id_mapping *m = &(*out)[*n_out];
    spec_join_index(item_path, path, *n_out);
    if (spec_expect_object(item, item_path, err) < 0 ||
        spec_get_u32(item, item_path, "containerID", true, &m->container_id, NULL, err) < 0 ||
        spec_get_u32(item, item_path, "hostID", true, &m->host_id, NULL, err) < 0 ||
        spec_get_u32(item, item_path, "size", true, &m->size, NULL, err) < 0)
      return -1;
    if (m->size == 0)
      return spec_fail(err, item_path, "size 0 maps nothing");
    if ((uint64_t)m->container_id + m->size > UINT64_C(1) << 32 ||
        (uint64_t)m->host_id + m->size > UINT64_C(1) << 32)
      return spec_fail(err, item_path, "the range passes 2^32");
    (*n_out)++;
  }
  return 0;
}

static int parse_uid_mappings(const cJSON *array, const char *path, void *target, oci_error_t *err)
{
  struct spec *spec = target;

  return spec_parse_id_mappings(array, path, &spec->uid_mappings, &spec->n_uid_mappings, err);
}

static int parse_gid_mappings(const cJSON *array, const char *path, void *target, oci_error_t *err)
{
  struct spec *spec = target;

  return spec_parse_id_mappings(array, path, &spec->gid_mappings, &spec->n_gid_mappings, err);
}

static int parse_device(const cJSON *item, const char *path, struct spec_device *device,
                        oci_error_t *err)
{
  char field_path[SPEC_PATH_MAX];
  cleanup_free char *type = NULL;
  cleanup_free char *given_path = NULL;
  uint32_t v = 0;

  if (spec_expect_object(item, path, err) < 0 ||
      spec_get_string(item, path, "type", true, &type, err) < 0)
    return -1;
  if (strlen(type) != 1 || strchr("cbup", type[0]) == NULL)
    return spec_fail(err, spec_join_key(field_path, path, "type"), "'%s' is not one of c, b, u, p",
                     type);
  device->type = type[0];
  if (spec_get_string(item, path, "path", true, &given_path, err) < 0)
    return -1;
  if (spec_container_path(given_path, IN_ROOT_ALLOW_ROOT, spec_join_key(field_path, path, "path"),
                          &device->path, err) < 0)
    return -1;
  if (device->type == 'p') {
    device->major = device->minor = 0;
  } else {
    const cJSON *major, *minor;
    if (spec_required(item, path, "major", &major, err) < 0 ||
        spec_required(item, path, "minor", &minor, err) < 0 ||
        spec_number_i64(major, spec_join_key(field_path, path, "major"), 0, UINT32_MAX,
                        &device->major, err) < 0 ||
        spec_number_i64(minor, spec_join_key(field_path, path, "minor"), 0, UINT32_MAX,
                        &device->minor, err) < 0)
      return -1;
  }
  if (spec_get_u32(item, path, "fileMode", false, &v, &device->file_mode_set, err) < 0)
    return -1;
  if (device->file_mode_set && v > 0777)
    return spec_fail(err, spec_join_key(field_path, path, "fileMode"),
                     "%#o is not a permission mode (above 0777)", v);
  device->file_mode = v;
  if (spec_get_u32(item, path, "uid", false, &v, &device->uid_set, err) < 0)
    return -1;
  device->uid = v;
  if (spec_get_u32(item, path, "gid", false, &v, &device->gid_set, err) < 0)
    return -1;
  device->gid = v;
  return 0;
}

static int parse_devices(const cJSON *array, const char *array_path, void *target, oci_error_t *err)
{
  struct spec *spec = target;
  char path[SPEC_PATH_MAX];
  const cJSON *item;

  if (array == NULL)
    return 0;
  if (spec_expect_array(array, array_path, err) < 0)
    return -1;
  spec->devices = calloc((size_t)cJSON_GetArraySize(array) + 1, sizeof(*spec->devices));
  if (spec->devices == NULL)
    return spec_out_of_memory(err, array_path);
  cJSON_ArrayForEach(item, array)
  {
    spec->n_devices++;
    if (parse_device(item, spec_join_index(path, array_path, spec->n_devices - 1),
                     &spec->devices[spec->n_devices - 1], err) < 0)
      return -1;
  }
  return 0;
}

/* "" is how a Go caller writes "not given". */
static int parse_optional_string(const cJSON *value, const char *path, void *string,
                                 oci_error_t *err)
{
  char **out = string;

  if (spec_field_string(value, path, out, err) < 0)
    return -1;
  if (*out != NULL && (*out)[0] == '\0')
    free(steal_pointer(out));
  return 0;
}

/* --- linux: seccomp, paths, sysctl, propagation ------------------------------ */

/* SCMP_ACT_NOTIFY needs the agent listenerPath names (parsed first). */
static int check_seccomp_action(const cJSON *item, const char *path, const struct spec *spec,
                                oci_error_t *err)
{
  uint32_t action;
  if (spec_expect_type(item, path, cJSON_String, "a string", err) < 0)
    return -1;
  if (strcmp(item->valuestring, "SCMP_ACT_NOTIFY") == 0 && spec->seccomp_listener_path == NULL)
    return oci_error_set(err, 0, "%s: SCMP_ACT_NOTIFY is not supported by ocirun (%s)", path,
                         "without linux.seccomp.listenerPath: no agent would answer it");
  if (seccomp_action_from_name(item->valuestring, &action) < 0)
    return spec_fail(err, path, "unknown action '%s'", item->valuestring);
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
    return spec_out_of_memory(err, "linux.seccomp"), NULL;
  for (size_t i = 0; level.keys[i] != NULL; i++) {
    const cJSON *item = spec_member(object, level.keys[i]), *entry;
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
      return spec_out_of_memory(err, "linux.seccomp"), NULL;
    }
  }
  return steal_pointer(&copy);
}

static int parse_default_action(const cJSON *value, const char *path, void *target,
                                oci_error_t *err)
{
  if (value == NULL)
    return spec_fail(err, path, "required");
  return check_seccomp_action(value, path, target, err);
}

static int parse_seccomp_flags(const cJSON *flags, const char *path, void *unused, oci_error_t *err)
{
  char item_path[SPEC_PATH_MAX];
  const cJSON *item;
  size_t index = 0;

  (void)unused;
  if (flags == NULL)
    return 0;
  if (spec_expect_array(flags, path, err) < 0)
    return -1;
  cJSON_ArrayForEach(item, flags)
  {
    spec_join_index(item_path, path, index++);
    if (spec_expect_type(item, item_path, cJSON_String, "a string", err) < 0)
      return -1;
    if (seccomp_flag_from_name(item->valuestring) == 0)
      return oci_error_set(err, 0, "%s: the seccomp flag '%s' is not supported by ocirun",
                           item_path, item->valuestring);
  }
  return 0;
}

static int parse_seccomp_syscalls(const cJSON *syscalls, const char *path, void *target,
                                  oci_error_t *err)
{
  char item_path[SPEC_PATH_MAX], field_path[SPEC_PATH_MAX];
  const cJSON *item, *action;
  size_t index = 0;

  if (syscalls == NULL)
    return 0;
  if (spec_expect_array(syscalls, path, err) < 0)
    return -1;
  cJSON_ArrayForEach(item, syscalls)
  {
    spec_join_index(item_path, path, index++);
    if (spec_expect_object(item, item_path, err) < 0 ||
        spec_required(item, item_path, "action", &action, err) < 0 ||
        check_seccomp_action(action, spec_join_key(field_path, item_path, "action"), target, err) <
            0)
      return -1;
  }
  return 0;
}

/* The agent's unix socket, a host path ("" is "not given"); connected by
 * create (seccomp/listener.c) only when the filter notifies. */
static int parse_listener_path(const cJSON *value, const char *path, void *target, oci_error_t *err)
{
  struct spec *spec = target;

  if (parse_optional_string(value, path, &spec->seccomp_listener_path, err) < 0)
    return -1;
  if (spec->seccomp_listener_path != NULL && spec->seccomp_listener_path[0] != '/')
    return spec_fail(err, path, "'%s' is not an absolute path", spec->seccomp_listener_path);
  return 0;
}

/* The spec: MUST NOT be set without listenerPath. */
static int parse_listener_metadata(const cJSON *value, const char *path, void *target,
                                   oci_error_t *err)
{
  struct spec *spec = target;

  if (spec_field_string(value, path, &spec->seccomp_listener_metadata, err) < 0)
    return -1;
  if (spec->seccomp_listener_metadata != NULL && spec->seccomp_listener_path == NULL)
    return spec_fail(err, path, "set without linux.seccomp.listenerPath");
  return 0;
}

/* What decides whether the profile can be run at all; the rest is the
 * profile compiler's (seccomp/profile.c), from the copy. */
static const struct spec_field seccomp_fields[] = {
    SPEC_MEMBER("listenerPath", parse_listener_path),
    SPEC_MEMBER("listenerMetadata", parse_listener_metadata),
    SPEC_MEMBER("defaultAction", parse_default_action),
    SPEC_MEMBER("flags", parse_seccomp_flags),
    SPEC_MEMBER("syscalls", parse_seccomp_syscalls),
};

static int parse_seccomp(const cJSON *seccomp, const char *path, void *target, oci_error_t *err)
{
  struct spec *spec = target;

  if (seccomp == NULL)
    return 0;
  if (spec_expect_object(seccomp, path, err) < 0 ||
      SPEC_DISPATCH(seccomp, path, seccomp_fields, spec, err) < 0)
    return -1;
  spec->seccomp = seccomp_copy(seccomp, seccomp_keys, err);
  return spec->seccomp == NULL ? -1 : 0;
}

/* Kept as given (the mount plan normalises them); only absolute. */
static int parse_absolute_paths(const cJSON *value, const char *path, void *paths, oci_error_t *err)
{
  char item_path[SPEC_PATH_MAX];
  char ***out = paths;

  if (spec_field_strv(value, path, out, err) < 0)
    return -1;
  for (size_t i = 0; *out != NULL && (*out)[i] != NULL; i++)
    if ((*out)[i][0] != '/')
      return spec_fail(err, spec_join_index(item_path, path, i), "'%s' is not an absolute path",
                       (*out)[i]);
  return 0;
}

/* A sysctl name becomes a file under /proc/sys: "net.ipv4.ip_forward" or
 * "net/ipv4/ip_forward" (then dots are part of a name, as in sysctl(8));
 * no empty, "." or ".." component may take it elsewhere. */
static int parse_sysctl(const cJSON *value, const char *map_path, void *target, oci_error_t *err)
{
  struct spec *spec = target;
  char path[SPEC_PATH_MAX];

  if (spec_string_map(value, map_path, &spec->sysctl, &spec->n_sysctl, err) < 0)
    return -1;
  for (size_t i = 0; i < spec->n_sysctl; i++) {
    const char *key = spec->sysctl[i].key;
    const char *separator = strchr(key, '/') != NULL ? "/" : ".";
    cleanup_free char *copy = strdup(key);
    size_t parts = 0, joined = 0;
    char *saveptr = NULL;

    if (copy == NULL)
      return spec_out_of_memory(err, map_path);
    for (char *part = strtok_r(copy, separator, &saveptr); part != NULL;
         part = strtok_r(NULL, separator, &saveptr)) {
      if (strcmp(part, ".") == 0 || strcmp(part, "..") == 0)
        return spec_fail(err, spec_join_key(path, map_path, key), "not a sysctl name");
      parts++;
      joined += strlen(part);
    }
    /* the separators between the parts are all there were: none empty */
    if (parts == 0 || joined + parts - 1 != strlen(key))
      return spec_fail(err, spec_join_key(path, map_path, key), "not a sysctl name");
  }
  return 0;
}

/* "" is how a Go caller writes "not given". */
static int parse_rootfs_propagation(const cJSON *value, const char *path, void *propagation,
                                    oci_error_t *err)
{
  cleanup_free char *name = NULL;

  if (spec_field_string(value, path, &name, err) < 0)
    return -1;
  if (name == NULL || name[0] == '\0')
    return 0;
  if (spec_propagation_from_name(name, propagation) < 0)
    return spec_fail(err, path,
                     "'%s' is not one of private, rprivate, slave, rslave, shared, rshared, "
                     "unbindable, runbindable",
                     name);
  return 0;
}

/* linux.timeOffsets: {"monotonic": {"secs": S, "nanosecs": N}, "boottime":
 * ...}; a clock's name is its key, and Linux has only these two. */
static int parse_time_offsets(const cJSON *value, const char *path, void *target, oci_error_t *err)
{
  static const char *const clocks[SPEC_CLOCK_COUNT] = {"monotonic", "boottime"};
  struct spec *spec = target;
  char clock_path[SPEC_PATH_MAX];
  const cJSON *item;

  if (value == NULL)
    return 0;
  if (spec_expect_object(value, path, err) < 0)
    return -1;
  cJSON_ArrayForEach(item, value)
  {
    struct spec_time_offset *offset = NULL;
    int64_t nanosecs = 0;

    spec_join_key(clock_path, path, item->string);
    for (int c = 0; c < SPEC_CLOCK_COUNT; c++)
      if (strcmp(item->string, clocks[c]) == 0)
        offset = &spec->time_offsets[c];
    if (offset == NULL)
      return spec_fail(err, clock_path, "not a clock of a time namespace (monotonic, boottime)");
    if (spec_expect_object(item, clock_path, err) < 0 ||
        spec_get_i64(item, clock_path, "secs", INT64_MIN, INT64_MAX, &offset->secs, NULL, err) <
            0 ||
        spec_get_i64(item, clock_path, "nanosecs", 0, 999999999, &nanosecs, NULL, err) < 0)
      return -1;
    offset->nanosecs = (uint32_t)nanosecs;
    offset->set = true;
    spec->has_time_offsets = true;
  }
  return 0;
}

/* Offsets are written into a namespace no process has entered yet: the
 * container's own new one. */
static int check_time_offsets(const cJSON *linux_object, const char *path, void *target,
                              oci_error_t *err)
{
  const struct spec *spec = target;
  char offsets_path[SPEC_PATH_MAX];

  (void)linux_object;
  if (!spec->has_time_offsets)
    return 0;
  spec_join_key(offsets_path, path, "timeOffsets");
  if (!spec->namespaces[SPEC_NS_TIME].present)
    return spec_fail(err, offsets_path, "needs a time namespace in linux.namespaces");
  if (spec->namespaces[SPEC_NS_TIME].path != NULL)
    return spec_fail(err, offsets_path,
                     "needs a new time namespace: the offsets of one joined by path ('%s') are "
                     "its own",
                     spec->namespaces[SPEC_NS_TIME].path);
  return 0;
}

static const struct spec_field linux_fields[] = {
    SPEC_REFUSED("intelRdt", REFUSE_PRESENT, "no resctrl support"),
    SPEC_MEMBER("personality", spec_parse_personality),
    SPEC_MEMBER("timeOffsets", parse_time_offsets),
    SPEC_REFUSED("mountLabel", REFUSE_NONEMPTY, "no SELinux support"),
    SPEC_FIELD("memoryPolicy", spec_parse_memory_policy, struct spec, memory_policy),
    SPEC_REFUSED("netDevices", REFUSE_NONEMPTY, "moving network devices is not implemented"),
    SPEC_MEMBER("namespaces", parse_namespaces),
    SPEC_MEMBER("uidMappings", parse_uid_mappings),
    SPEC_MEMBER("gidMappings", parse_gid_mappings),
    SPEC_MEMBER("devices", parse_devices),
    SPEC_FIELD("cgroupsPath", parse_optional_string, struct spec, cgroups_path),
    SPEC_MEMBER("resources", spec_parse_resources),
    SPEC_MEMBER("seccomp", parse_seccomp),
    SPEC_FIELD("maskedPaths", parse_absolute_paths, struct spec, masked_paths),
    SPEC_FIELD("readonlyPaths", parse_absolute_paths, struct spec, readonly_paths),
    SPEC_MEMBER("sysctl", parse_sysctl),
    SPEC_FIELD("rootfsPropagation", parse_rootfs_propagation, struct spec, rootfs_propagation),
    SPEC_CHECK(check_time_offsets),
};

int spec_parse_linux(const cJSON *value, const char *path, void *spec, oci_error_t *err)
{
  if (value == NULL)
    return 0;
  if (spec_expect_object(value, path, err) < 0)
    return -1;
  return SPEC_DISPATCH(value, path, linux_fields, spec, err);
}
