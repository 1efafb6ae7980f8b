/* `ocirun features`' document (runtime-spec features.md), read from the
 * tables the parser and the runtime use (hook kinds, namespace names and
 * mount options from the spec parser, capability and seccomp names from
 * the confinement code), so it cannot drift from what ocirun accepts. */
#include "config.h"

#include <stdio.h>

#include "container/container.h"
#include "container/lifecycle.h"
#include "oci/cleanup.h"
#include "runtime/capabilities.h"
#include "runtime/seccomp/rules.h"
#include "runtime/spec/spec.h"

/* Every kind of the spec: the runtime runs each at its place. */
bool container_hook_kind_supported(enum spec_hook_kind kind)
{
  return (unsigned)kind < SPEC_HOOK_KIND_COUNT;
}

/* The oldest configuration version the parser accepts (it takes any 1.x). */
#define OCI_VERSION_MIN "1.0.0"

static bool add_string(cJSON *array, const char *value)
{
  return cJSON_AddItemToArray(array, cJSON_CreateString(value));
}

static bool add_hooks_and_mounts(cJSON *features)
{
  cJSON *hooks = cJSON_AddArrayToObject(features, "hooks");
  cJSON *options = cJSON_AddArrayToObject(features, "mountOptions");
  const char *name;

  if (hooks == NULL || options == NULL)
    return false;
  for (int kind = 0; kind < SPEC_HOOK_KIND_COUNT; kind++)
    if (container_hook_kind_supported((enum spec_hook_kind)kind) &&
        !add_string(hooks, spec_hook_kind_name((enum spec_hook_kind)kind)))
      return false;
  for (size_t i = 0; (name = spec_mount_option_name(i)) != NULL; i++)
    if (!add_string(options, name))
      return false;
  return true;
}

static bool add_capabilities(cJSON *linux_object)
{
  cJSON *caps = cJSON_AddArrayToObject(linux_object, "capabilities");

  if (caps == NULL)
    return false;
  for (int cap = 0; cap < 64; cap++) {
    const char *name = capability_name(cap);
    char full[64];
    if (name == NULL)
      continue;
    snprintf(full, sizeof(full), "CAP_%s", name);
    if (!add_string(caps, full))
      return false;
  }
  return true;
}

static bool add_seccomp(cJSON *linux_object)
{
  cJSON *seccomp = cJSON_AddObjectToObject(linux_object, "seccomp"), *actions, *operators, *archs,
        *known, *supported;
  const char *name;

  if (seccomp == NULL || !cJSON_AddBoolToObject(seccomp, "enabled", true) ||
      (actions = cJSON_AddArrayToObject(seccomp, "actions")) == NULL ||
      (operators = cJSON_AddArrayToObject(seccomp, "operators")) == NULL ||
      (archs = cJSON_AddArrayToObject(seccomp, "archs")) == NULL ||
      (known = cJSON_AddArrayToObject(seccomp, "knownFlags")) == NULL ||
      (supported = cJSON_AddArrayToObject(seccomp, "supportedFlags")) == NULL)
    return false;
  for (size_t i = 0; (name = seccomp_action_name_at(i)) != NULL; i++)
    if (!add_string(actions, name))
      return false;
  for (int op = SCMP_CMP_NE; op < _SCMP_CMP_MAX; op++)
    if (!add_string(operators, seccomp_op_name((enum scmp_compare)op)))
      return false;
  for (unsigned bit = 0; bit < 32; bit++) {
    const struct seccomp_arch_info *arch = seccomp_arch_info_by_bit(1u << bit);
    if (arch != NULL && !add_string(archs, arch->scmp_name))
      return false;
  }
  /* The filter is loaded with seccomp(2), which knows every flag ocirun
   * names: known and supported are the same list. */
  for (unsigned bit = 0; bit < 32; bit++) {
    name = seccomp_flag_name(1u << bit);
    if (name != NULL && (!add_string(known, name) || !add_string(supported, name)))
      return false;
  }
  return true;
}

static bool add_enabled(cJSON *object, const char *key, bool enabled)
{
  cJSON *item = cJSON_AddObjectToObject(object, key);
  return item != NULL && cJSON_AddBoolToObject(item, "enabled", enabled);
}

static bool add_disabled(cJSON *object, const char *key)
{
  return add_enabled(object, key, false);
}

static bool add_linux(cJSON *features)
{
  cJSON *linux_object = cJSON_AddObjectToObject(features, "linux"), *namespaces, *cgroup,
        *extensions;

  if (linux_object == NULL ||
      (namespaces = cJSON_AddArrayToObject(linux_object, "namespaces")) == NULL)
    return false;
  for (int type = 0; type < SPEC_NS_COUNT; type++)
    if (!add_string(namespaces, spec_namespace_name((enum spec_namespace_type)type)))
      return false;
  /* cgroupfs paths on the unified hierarchy only (no --systemd-cgroup). */
  cgroup = cJSON_AddObjectToObject(linux_object, "cgroup");
  if (!add_capabilities(linux_object) || cgroup == NULL ||
      !cJSON_AddBoolToObject(cgroup, "v1", false) || !cJSON_AddBoolToObject(cgroup, "v2", true) ||
      !cJSON_AddBoolToObject(cgroup, "systemd", false) ||
      !cJSON_AddBoolToObject(cgroup, "systemdUser", false) ||
      !cJSON_AddBoolToObject(cgroup, "rdma", false) || !add_seccomp(linux_object) ||
      !add_disabled(linux_object, "apparmor") || !add_disabled(linux_object, "selinux") ||
      !add_disabled(linux_object, "intelRdt"))
    return false;
  extensions = cJSON_AddObjectToObject(linux_object, "mountExtensions");
  return extensions != NULL && add_enabled(extensions, "idmap", true);
}

cJSON *container_features(void)
{
  cleanup_cjson cJSON *features = cJSON_CreateObject();
  cJSON *annotations;

  if (features == NULL || !cJSON_AddStringToObject(features, "ociVersionMin", OCI_VERSION_MIN) ||
      !cJSON_AddStringToObject(features, "ociVersionMax", SPEC_OCI_VERSION) ||
      !add_hooks_and_mounts(features) || !add_linux(features) ||
      (annotations = cJSON_AddObjectToObject(features, "annotations")) == NULL ||
      !cJSON_AddStringToObject(annotations, "io.github.ocirun.version", PACKAGE_VERSION))
    return NULL;
  return steal_pointer(&features);
}
