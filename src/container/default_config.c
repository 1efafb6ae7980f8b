/* `ocirun spec`'s document: a default config.json for a bundle whose
 * rootfs/ holds a busybox-like tree, in the shape runc's is (sh in a new
 * pid, network, ipc, uts, mount and cgroup namespace, three capabilities,
 * the usual masked and read-only paths), that ocirun's own parser and
 * runtime accept as it is: the unit test parses it back. One difference
 * from runc: process.terminal is false, so `ocirun create` runs it without
 * a console socket. */
#include "config.h"

#include "container/container.h"
#include "oci/cleanup.h"
#include "runtime/spec/spec.h"

static cJSON *strings(const char *const *values)
{
  cJSON *array = cJSON_CreateArray();
  for (size_t i = 0; array != NULL && values[i] != NULL; i++)
    if (!cJSON_AddItemToArray(array, cJSON_CreateString(values[i]))) {
      cJSON_Delete(array);
      return NULL;
    }
  return array;
}

static bool add_mount(cJSON *mounts, const char *destination, const char *type, const char *source,
                      const char *const *options)
{
  cJSON *mount = cJSON_CreateObject();

  return cJSON_AddItemToArray(mounts, mount) &&
         cJSON_AddStringToObject(mount, "destination", destination) &&
         cJSON_AddStringToObject(mount, "type", type) &&
         cJSON_AddStringToObject(mount, "source", source) &&
         (options == NULL || cJSON_AddItemToObject(mount, "options", strings(options)));
}

static bool add_mounts(cJSON *config, bool rootless)
{
  static const char *const dev[] = {"nosuid", "strictatime", "mode=755", "size=65536k", NULL};
  static const char *const pts[] = {"nosuid",    "noexec", "newinstance", "ptmxmode=0666",
                                    "mode=0620", "gid=5",  NULL};
  /* Rootless: gid 5 is not mapped in a one-id user namespace. */
  static const char *const pts_rootless[] = {"nosuid",        "noexec",    "newinstance",
                                             "ptmxmode=0666", "mode=0620", NULL};
  static const char *const shm[] = {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k", NULL};
  static const char *const mqueue[] = {"nosuid", "noexec", "nodev", NULL};
  static const char *const sys[] = {"nosuid", "noexec", "nodev", "ro", NULL};
  /* Rootless: a new sysfs needs a network namespace the user owns; the
   * host's, bound read-only, is what runc gives too. */
  static const char *const sys_rootless[] = {"rbind", "nosuid", "noexec", "nodev", "ro", NULL};
  static const char *const cgroup[] = {"nosuid", "noexec", "nodev", "relatime", "ro", NULL};
  cJSON *mounts = cJSON_AddArrayToObject(config, "mounts");

  return mounts != NULL && add_mount(mounts, "/proc", "proc", "proc", NULL) &&
         add_mount(mounts, "/dev", "tmpfs", "tmpfs", dev) &&
         add_mount(mounts, "/dev/pts", "devpts", "devpts", rootless ? pts_rootless : pts) &&
         add_mount(mounts, "/dev/shm", "tmpfs", "shm", shm) &&
         add_mount(mounts, "/dev/mqueue", "mqueue", "mqueue", mqueue) &&
         (rootless ? add_mount(mounts, "/sys", "bind", "/sys", sys_rootless)
                   : add_mount(mounts, "/sys", "sysfs", "sysfs", sys) &&
                         add_mount(mounts, "/sys/fs/cgroup", "cgroup", "cgroup", cgroup));
}

static bool add_process(cJSON *config)
{
  static const char *const args[] = {"sh", NULL};
  static const char *const env[] = {
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm", NULL};
  static const char *const caps[] = {"CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE", NULL};
  cJSON *process = cJSON_AddObjectToObject(config, "process"), *user, *capabilities, *rlimit,
        *rlimits;

  if (process == NULL || !cJSON_AddBoolToObject(process, "terminal", false) ||
      (user = cJSON_AddObjectToObject(process, "user")) == NULL ||
      !cJSON_AddNumberToObject(user, "uid", 0) || !cJSON_AddNumberToObject(user, "gid", 0) ||
      !cJSON_AddItemToObject(process, "args", strings(args)) ||
      !cJSON_AddItemToObject(process, "env", strings(env)) ||
      !cJSON_AddStringToObject(process, "cwd", "/") ||
      (capabilities = cJSON_AddObjectToObject(process, "capabilities")) == NULL)
    return false;
  for (const char *const *set = (const char *const[]){"bounding", "effective", "permitted", NULL};
       *set != NULL; set++)
    if (!cJSON_AddItemToObject(capabilities, *set, strings(caps)))
      return false;
  rlimits = cJSON_AddArrayToObject(process, "rlimits");
  rlimit = cJSON_CreateObject();
  return rlimits != NULL && cJSON_AddItemToArray(rlimits, rlimit) &&
         cJSON_AddStringToObject(rlimit, "type", "RLIMIT_NOFILE") &&
         cJSON_AddNumberToObject(rlimit, "hard", 1024) &&
         cJSON_AddNumberToObject(rlimit, "soft", 1024) &&
         cJSON_AddBoolToObject(process, "noNewPrivileges", true);
}

static bool add_mapping(cJSON *linux_object, const char *key, unsigned host_id)
{
  cJSON *mappings = cJSON_AddArrayToObject(linux_object, key), *mapping = cJSON_CreateObject();

  return mappings != NULL && cJSON_AddItemToArray(mappings, mapping) &&
         cJSON_AddNumberToObject(mapping, "containerID", 0) &&
         cJSON_AddNumberToObject(mapping, "hostID", host_id) &&
         cJSON_AddNumberToObject(mapping, "size", 1);
}

static bool add_linux(cJSON *config, bool rootless, uid_t uid, gid_t gid)
{
  static const char *const masked[] = {"/proc/acpi",
                                       "/proc/asound",
                                       "/proc/kcore",
                                       "/proc/keys",
                                       "/proc/latency_stats",
                                       "/proc/timer_list",
                                       "/proc/timer_stats",
                                       "/proc/sched_debug",
                                       "/sys/firmware",
                                       "/proc/scsi",
                                       "/sys/devices/virtual/powercap",
                                       NULL};
  static const char *const readonly[] = {
      "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger", NULL};
  static const char *const namespaces[] = {"pid", "network", "ipc", "uts", "mount", "cgroup", NULL};
  static const char *const rootless_namespaces[] = {"pid",  "ipc",    "uts", "mount",
                                                    "user", "cgroup", NULL};
  cJSON *linux_object = cJSON_AddObjectToObject(config, "linux"), *list;

  if (linux_object == NULL || (list = cJSON_AddArrayToObject(linux_object, "namespaces")) == NULL)
    return false;
  for (const char *const *ns = rootless ? rootless_namespaces : namespaces; *ns != NULL; ns++) {
    cJSON *entry = cJSON_CreateObject();
    if (!cJSON_AddItemToArray(list, entry) || !cJSON_AddStringToObject(entry, "type", *ns))
      return false;
  }
  if (rootless) {
    if (!add_mapping(linux_object, "uidMappings", uid) ||
        !add_mapping(linux_object, "gidMappings", gid))
      return false;
  } else {
    /* Default deny for devices: the spec's default devices are allowed by
     * the runtime itself. */
    cJSON *resources = cJSON_AddObjectToObject(linux_object, "resources"), *devices, *deny;
    if (resources == NULL || (devices = cJSON_AddArrayToObject(resources, "devices")) == NULL ||
        !cJSON_AddItemToArray(devices, deny = cJSON_CreateObject()) ||
        !cJSON_AddBoolToObject(deny, "allow", false) ||
        !cJSON_AddStringToObject(deny, "access", "rwm"))
      return false;
  }
  return cJSON_AddItemToObject(linux_object, "maskedPaths", strings(masked)) &&
         cJSON_AddItemToObject(linux_object, "readonlyPaths", strings(readonly));
}

cJSON *container_default_config(bool rootless, uid_t uid, gid_t gid)
{
  cleanup_cjson cJSON *config = cJSON_CreateObject();
  cJSON *root;

  if (config == NULL || !cJSON_AddStringToObject(config, "ociVersion", SPEC_OCI_VERSION) ||
      !add_process(config) || (root = cJSON_AddObjectToObject(config, "root")) == NULL ||
      !cJSON_AddStringToObject(root, "path", "rootfs") ||
      !cJSON_AddBoolToObject(root, "readonly", true) ||
      !cJSON_AddStringToObject(config, "hostname", "ocirun") || !add_mounts(config, rootless) ||
      !add_linux(config, rootless, uid, gid))
    return NULL;
  return steal_pointer(&config);
}
