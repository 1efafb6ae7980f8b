/* docker run's meaning as an OCI runtime-spec configuration: the process
 * (argv, env, cwd, user, capabilities), the mounts, namespaces, masked and
 * read-only paths, limits, device rules and the resolved seccomp profile
 * that ocirun's run has always applied, now as one document the runtime
 * takes like any bundle's config.json. */
#include "config.h"

#include "docker_run/run_spec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "oci/cleanup.h"
#include "runtime/capabilities.h"
#include "runtime/seccomp/filter.h"
#include "runtime/spec/spec.h"
#include "runtime/user.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* The filesystems every run gets, before any --tmpfs. Every one the
 * workload can write is nodev, so a device node it makes (it has CAP_MKNOD,
 * as in docker) cannot be opened there, device cgroup or not. devpts is the
 * exception: its nodes are the run's ptys, and nothing can be created in
 * it. The options are the ones ocirun has always mounted with: the probe's
 * observations of /dev, /proc and /sys stay the same. */
static const struct {
  const char *destination, *type, *source, *options;
} run_mounts[] = {
    {"/proc", "proc", "proc", "nosuid,noexec,nodev"},
    {"/dev", "tmpfs", "tmpfs", "nosuid,nodev,mode=755,size=65536k"},
    /* gid=5 (tty) is added outside a user namespace, where it exists */
    {"/dev/pts", "devpts", "devpts", "nosuid,noexec,newinstance,ptmxmode=0666,mode=0620"},
    {"/dev/shm", "tmpfs", "shm", "nosuid,noexec,nodev,mode=1777,size=65536k"},
    /* POSIX message queues of the run's own ipc namespace */
    {"/dev/mqueue", "mqueue", "mqueue", "nosuid,noexec,nodev"},
    /* sysfs shows the network namespace it is mounted in: the new one */
    {"/sys", "sysfs", "sysfs", "nosuid,noexec,nodev,ro"},
    {"/sys/fs/cgroup", "cgroup", "cgroup", "nosuid,noexec,nodev,ro"},
};

/* Hidden from the container: they leak host state or kernel memory. */
static const char *const masked_paths[] = {
    "/proc/acpi",        "/proc/asound",        "/proc/interrupts", "/proc/kcore",
    "/proc/keys",        "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
    "/proc/sched_debug", "/proc/scsi",          "/sys/firmware",    "/sys/devices/virtual/powercap",
};
/* Kernel knobs the container may read but never write. */
static const char *const readonly_paths[] = {
    "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

/* docker's default device allowlist (moby's default spec plus the rules
 * runc adds), after a first rule that denies everything: mknod of any node
 * is allowed, opening only these few harmless devices is. -1: any. */
static const struct {
  char type;
  int major, minor;
  const char *access;
} device_allowlist[] = {
    {'c', -1, -1, "m"},    /* mknod of any character device */
    {'b', -1, -1, "m"},    /* mknod of any block device */
    {'c', 1, 3, "rwm"},    /* /dev/null */
    {'c', 1, 5, "rwm"},    /* /dev/zero */
    {'c', 1, 7, "rwm"},    /* /dev/full */
    {'c', 1, 8, "rwm"},    /* /dev/random */
    {'c', 1, 9, "rwm"},    /* /dev/urandom */
    {'c', 5, 0, "rwm"},    /* /dev/tty */
    {'c', 5, 1, "rwm"},    /* /dev/console */
    {'c', 5, 2, "rwm"},    /* /dev/ptmx */
    {'c', 136, -1, "rwm"}, /* /dev/pts/N */
    {'c', 10, 200, "rwm"}, /* /dev/net/tun */
};

#define N_OF(array) (sizeof(array) / sizeof((array)[0]))

/* ---- cJSON with every allocation checked ---- */

static int no_memory(oci_error_t *err)
{
  return oci_error_set(err, ENOMEM, "run: build the configuration: out of memory");
}

/* Takes item (deleted when it cannot be added). */
static int add_item(cJSON *object, const char *key, cJSON *item, oci_error_t *err)
{
  if (item == NULL || !cJSON_AddItemToObject(object, key, item)) {
    cJSON_Delete(item);
    return no_memory(err);
  }
  return 0;
}

static int push_item(cJSON *array, cJSON *item, oci_error_t *err)
{
  if (item == NULL || !cJSON_AddItemToArray(array, item)) {
    cJSON_Delete(item);
    return no_memory(err);
  }
  return 0;
}

static int add_string(cJSON *object, const char *key, const char *value, oci_error_t *err)
{
  return add_item(object, key, cJSON_CreateString(value), err);
}

static int add_number(cJSON *object, const char *key, double value, oci_error_t *err)
{
  return add_item(object, key, cJSON_CreateNumber(value), err);
}

static int add_bool(cJSON *object, const char *key, bool value, oci_error_t *err)
{
  return add_item(object, key, cJSON_CreateBool(value), err);
}

static int push_string(cJSON *array, const char *value, oci_error_t *err)
{
  return push_item(array, cJSON_CreateString(value), err);
}

static cJSON *strv_json(char *const *strv, size_t n, oci_error_t *err)
{
  cleanup_cjson cJSON *array = cJSON_CreateArray();

  if (array == NULL) {
    no_memory(err);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    if (push_string(array, strv[i], err) < 0)
      return NULL;
  }
  return steal_pointer(&array);
}

/* ---- the process ---- */

static int strv_append(char ***v, size_t *n, const char *s, oci_error_t *err)
{
  char **grown = reallocarray(*v, *n + 2, sizeof(**v));

  if (grown == NULL)
    return oci_error_errno(err, "run: allocate");
  *v = grown;
  (*v)[*n] = strdup(s);
  if ((*v)[*n] == NULL)
    return oci_error_errno(err, "run: allocate");
  (*v)[++*n] = NULL;
  return 0;
}

/* docker's rule: --entrypoint replaces the image's entrypoint and drops its
 * cmd; a command after IMAGE replaces the cmd. */
static int build_argv(const struct run_config *config, const struct oci_image *image, char ***out,
                      oci_error_t *err)
{
  cleanup_strv char **argv = NULL;
  size_t n = 0;
  bool user_command = config->command != NULL && config->command[0] != NULL;
  char *const *cmd = user_command ? config->command : image->defaults.cmd;

  if (config->entrypoint_set) {
    if (config->entrypoint[0] != '\0' && strv_append(&argv, &n, config->entrypoint, err) < 0)
      return -1;
    if (!user_command)
      cmd = NULL;
  } else {
    for (char **s = image->defaults.entrypoint; s != NULL && *s != NULL; s++) {
      if (strv_append(&argv, &n, *s, err) < 0)
        return -1;
    }
  }
  for (char *const *s = cmd; s != NULL && *s != NULL; s++) {
    if (strv_append(&argv, &n, *s, err) < 0)
      return -1;
  }
  if (n == 0)
    return oci_error_set(err, 0, "run: no command given and the image has no entrypoint or cmd");
  /* docker refuses this before it runs anything; exec '' would only fail */
  if (argv[0][0] == '\0') {
    const char *source =
        config->entrypoint_set ? "the command after IMAGE"
        : image->defaults.entrypoint != NULL && image->defaults.entrypoint[0] != NULL
            ? "the image's Entrypoint"
        : user_command ? "the command after IMAGE"
                       : "the image's Cmd";
    return oci_error_set(err, 0, "run: the command to run is an empty string (from %s)", source);
  }
  *out = steal_pointer(&argv);
  return 0;
}

/* Sets NAME=VALUE, replacing an earlier entry of the same name. */
static int env_set(char ***env, size_t *n, const char *entry, oci_error_t *err)
{
  size_t name_len = strcspn(entry, "=");

  for (size_t i = 0; i < *n; i++) {
    if (strncmp((*env)[i], entry, name_len) == 0 && (*env)[i][name_len] == '=') {
      char *copy = strdup(entry);

      if (copy == NULL)
        return oci_error_errno(err, "run: allocate");
      free((*env)[i]);
      (*env)[i] = copy;
      return 0;
    }
  }
  return strv_append(env, n, entry, err);
}

static bool env_has(char **env, const char *name)
{
  size_t len = strlen(name);

  for (char **s = env; s != NULL && *s != NULL; s++) {
    if (strncmp(*s, name, len) == 0 && (*s)[len] == '=')
      return true;
  }
  return false;
}

/* Nothing from ocirun's own environment: PATH and HOSTNAME, the image's
 * env, then -e/--env-file in order, then HOME from passwd if still unset. */
static int build_env(const struct run_config *config, const struct oci_image *image,
                     const char *hostname, const char *home, char ***out, oci_error_t *err)
{
  cleanup_strv char **env = NULL;
  cleanup_free char *hostname_entry = NULL;
  cleanup_free char *home_entry = NULL;
  size_t n = 0;

  if (asprintf(&hostname_entry, "HOSTNAME=%s", hostname) < 0 ||
      asprintf(&home_entry, "HOME=%s", home) < 0) {
    hostname_entry = home_entry = NULL;
    return oci_error_errno(err, "run: allocate");
  }
  if (env_set(&env, &n, "PATH=" DEFAULT_PATH, err) < 0 ||
      env_set(&env, &n, hostname_entry, err) < 0)
    return -1;
  for (char **s = image->defaults.env; s != NULL && *s != NULL; s++) {
    if (strchr(*s, '=') != NULL && env_set(&env, &n, *s, err) < 0)
      return -1;
  }
  for (size_t i = 0; i < config->n_env; i++) {
    if (env_set(&env, &n, config->env[i], err) < 0)
      return -1;
  }
  if (!env_has(env, "HOME") && env_set(&env, &n, home_entry, err) < 0)
    return -1;
  *out = steal_pointer(&env);
  return 0;
}

void run_spec_hostname(const struct run_config *config, char *out, size_t size)
{
  const char *name = config->name;

  if (config->hostname != NULL)
    name = config->hostname;
  else if (config->name_generated && strncmp(name, "ocirun-", 7) == 0)
    name += 7;
  snprintf(out, size, "%s", name);
}

const char *run_spec_seccomp_origin(const struct run_config *config)
{
  if (config->seccomp_unconfined)
    return NULL;
  return config->seccomp_profile_path != NULL ? config->seccomp_profile_path
                                              : "built-in default (docker's profile)";
}

/* docker's rule: --cap-add ALL is every capability (the caller holds) but
 * those --cap-drop names (its ALL names none); otherwise docker's default
 * set, less --cap-drop (ALL: everything), plus --cap-add. */
static uint64_t effective_capabilities(const struct run_config *config)
{
  if (config->cap_add_all)
    return capabilities_all_held() & (config->cap_drop_all ? ~(uint64_t)0 : ~config->cap_drop);
  uint64_t caps = config->cap_drop_all ? 0 : capabilities_docker_default() & ~config->cap_drop;

  return caps | config->cap_add;
}

/* Rootless: the run's uid, gid and groups must exist in the user namespace.
 * Without a subordinate range only 0 does, and setgroups is denied, so the
 * image's supplementary groups for root are left out rather than refused. */
static int check_user_mapped(const struct userns_map *map, struct run_user *user,
                             const char *user_source, oci_error_t *err)
{
  const char *hint = map->n_ranges > 1
                         ? "it is outside the range from /etc/subuid and /etc/subgid"
                         : "without a range for this user in /etc/subuid and /etc/subgid (and "
                           "newuidmap/newgidmap from the uidmap package) only 0 is mapped";

  if (!userns_map_has_uid(map, user->uid) || !userns_map_has_gid(map, user->gid))
    return oci_error_set(err, 0, "run: rootless: %s uid %u gid %u cannot be mapped: %s",
                         user_source, (unsigned)user->uid, (unsigned)user->gid, hint);
  if (!userns_map_allows_setgroups(map)) {
    user->n_groups = 0;
    return 0;
  }
  for (size_t i = 0; i < user->n_groups; i++) {
    if (!userns_map_has_gid(map, user->groups[i]))
      return oci_error_set(err, 0, "run: rootless: %s supplementary group %u cannot be mapped: %s",
                           user_source, (unsigned)user->groups[i], hint);
  }
  return 0;
}

static cJSON *user_json(const struct run_user *user, oci_error_t *err)
{
  cleanup_cjson cJSON *object = cJSON_CreateObject();
  cJSON *gids;

  if (object == NULL || add_number(object, "uid", user->uid, err) < 0 ||
      add_number(object, "gid", user->gid, err) < 0) {
    no_memory(err);
    return NULL;
  }
  if (user->n_groups > 0) {
    gids = cJSON_AddArrayToObject(object, "additionalGids");
    if (gids == NULL) {
      no_memory(err);
      return NULL;
    }
    for (size_t i = 0; i < user->n_groups; i++) {
      if (push_item(gids, cJSON_CreateNumber(user->groups[i]), err) < 0)
        return NULL;
    }
  }
  return steal_pointer(&object);
}

/* "CAP_NET_RAW", ... for the bits ocirun knows names for. */
static cJSON *capability_names(uint64_t caps, oci_error_t *err)
{
  cleanup_cjson cJSON *array = cJSON_CreateArray();

  if (array == NULL) {
    no_memory(err);
    return NULL;
  }
  for (int cap = 0; cap < 64; cap++) {
    char name[64];

    if ((caps & (UINT64_C(1) << cap)) == 0 || capability_name(cap) == NULL)
      continue;
    snprintf(name, sizeof(name), "CAP_%s", capability_name(cap));
    if (push_string(array, name, err) < 0)
      return NULL;
  }
  return steal_pointer(&array);
}

/* docker's sets: the bounding set is the run's; uid 0 also has it
 * permitted and effective, any other uid starts with none (a file
 * capability can raise it within the bounding set); inheritable and ambient
 * stay empty, as in docker since CVE-2022-24769. */
static cJSON *capabilities_json(uint64_t caps, uid_t uid, oci_error_t *err)
{
  cleanup_cjson cJSON *object = cJSON_CreateObject();
  uint64_t held = uid == 0 ? caps : 0;

  if (object == NULL) {
    no_memory(err);
    return NULL;
  }
  if (add_item(object, "bounding", capability_names(caps, err), err) < 0 ||
      add_item(object, "effective", capability_names(held, err), err) < 0 ||
      add_item(object, "permitted", capability_names(held, err), err) < 0 ||
      add_item(object, "inheritable", capability_names(0, err), err) < 0 ||
      add_item(object, "ambient", capability_names(0, err), err) < 0)
    return NULL;
  return steal_pointer(&object);
}

/* Everything the process section needs, resolved once. */
struct run_process {
  struct run_user user;
  char **argv;
  char **env;
  const char *cwd;
  uint64_t caps;
};

static void run_process_clear(struct run_process *process)
{
  user_clear(&process->user);
  cleanup_strvp(&process->argv);
  cleanup_strvp(&process->env);
}

static int resolve_process(const struct run_spec_input *in, const char *hostname,
                           struct run_process *out, oci_error_t *err)
{
  const struct run_config *config = in->config;
  const struct oci_image *image = in->image;
  const char *user_spec = config->user != NULL ? config->user : image->defaults.user;
  const char *user_source = config->user != NULL ? "--user" : "image config user";

  if (user_resolve(in->rootfs_fd, user_spec, user_source, &out->user, err) < 0)
    return -1;
  if (run_resources_add_groups(&config->resources, in->rootfs_fd, in->map, &out->user, err) < 0)
    return -1;
  if (in->rootless && check_user_mapped(in->map, &out->user, user_source, err) < 0)
    return -1;
  out->cwd = config->workdir != NULL ? config->workdir
             : image->defaults.working_dir != NULL && image->defaults.working_dir[0] == '/'
                 ? image->defaults.working_dir
                 : "/";
  out->caps = effective_capabilities(config);
  if (build_argv(config, image, &out->argv, err) < 0 ||
      build_env(config, image, hostname, out->user.home, &out->env, err) < 0)
    return -1;
  return 0;
}

/* -t: a terminal, at the caller's terminal's size when it has one. */
static int terminal_json(cJSON *process, const struct run_config *config, oci_error_t *err)
{
  cJSON *size;

  if (add_bool(process, "terminal", config->tty, err) < 0)
    return -1;
  if (!config->tty || config->console_rows == 0)
    return 0;
  size = cJSON_CreateObject();
  if (add_item(process, "consoleSize", size, err) < 0)
    return -1;
  if (add_number(size, "height", config->console_rows, err) < 0 ||
      add_number(size, "width", config->console_cols, err) < 0)
    return -1;
  return 0;
}

static cJSON *process_json(const struct run_process *process, const struct run_config *config,
                           oci_error_t *err)
{
  cleanup_cjson cJSON *object = cJSON_CreateObject();

  if (object == NULL) {
    no_memory(err);
    return NULL;
  }
  /* No rlimits: the caller's are inherited, as before. No oomScoreAdj: the
   * runtime raises a negative inherited score to docker's 0 when it is
   * unset. */
  if (terminal_json(object, config, err) < 0 ||
      add_item(object, "user", user_json(&process->user, err), err) < 0 ||
      add_item(object, "args", strv_json(process->argv, strv_length(process->argv), err), err) <
          0 ||
      add_item(object, "env", strv_json(process->env, strv_length(process->env), err), err) < 0 ||
      add_string(object, "cwd", process->cwd, err) < 0 ||
      add_item(object, "capabilities", capabilities_json(process->caps, process->user.uid, err),
               err) < 0 ||
      add_bool(object, "noNewPrivileges", config->no_new_privileges, err) < 0)
    return NULL;
  return steal_pointer(&object);
}

/* ---- mounts ---- */

/* A comma-separated option list as a JSON array. */
static int push_options(cJSON *array, const char *options, oci_error_t *err)
{
  cleanup_free char *words = strdup(options);
  char *save = NULL;

  if (words == NULL)
    return no_memory(err);
  for (char *w = strtok_r(words, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save)) {
    if (push_string(array, w, err) < 0)
      return -1;
  }
  return 0;
}

static cJSON *mount_json(const char *destination, const char *type, const char *source,
                         const char *options, oci_error_t *err)
{
  cleanup_cjson cJSON *object = cJSON_CreateObject();
  cJSON *array;

  if (object == NULL || add_string(object, "destination", destination, err) < 0 ||
      add_string(object, "type", type, err) < 0 || add_string(object, "source", source, err) < 0 ||
      (array = cJSON_AddArrayToObject(object, "options")) == NULL) {
    no_memory(err);
    return NULL;
  }
  if (push_options(array, options, err) < 0)
    return NULL;
  return steal_pointer(&object);
}

/* --tmpfs as docker mounts it; every mount the workload can write is nodev
 * (so also without a device cgroup): docker's "dev" is refused, not
 * ignored. */
static cJSON *tmpfs_json(const struct run_mount *mount, oci_error_t *err)
{
  char options[160];
  int used;

  if ((mount->flags & MS_NODEV) == 0) {
    oci_error_set(err, 0,
                  "%s '%s': option 'dev' is not allowed: every mount the container can "
                  "write is nodev",
                  mount->option, mount->path);
    return NULL;
  }
  /* ocirun's /dev holds only what it puts there (issue 8, finding 6) */
  if ((strcmp(mount->path, "/dev") == 0 || strncmp(mount->path, "/dev/", 5) == 0) &&
      strcmp(mount->path, "/dev/shm") != 0 && strcmp(mount->path, "/dev/mqueue") != 0) {
    oci_error_set(err, 0, "%s %s: the target is in ocirun's /dev tmpfs: refused", mount->option,
                  mount->path);
    return NULL;
  }
  used = snprintf(options, sizeof(options), "%s%s%snodev,mode=%o",
                  (mount->flags & MS_RDONLY) ? "ro," : "rw,",
                  (mount->flags & MS_NOSUID) ? "nosuid," : "",
                  (mount->flags & MS_NOEXEC) ? "noexec," : "", (unsigned)mount->mode);
  if (mount->size_bytes > 0)
    snprintf(options + used, sizeof(options) - (size_t)used, ",size=%llu",
             (unsigned long long)mount->size_bytes);
  return mount_json(mount->path, "tmpfs", "tmpfs", options, err);
}

/* -v/--volume and --mount type=bind or volume (a volume's source is its
 * _data, set when the run opened it): always nosuid and nodev (a setuid
 * file or a device node of the host's tree is no more than a file inside),
 * read-only with every submount when ro (rbind,ro is read-only down the
 * tree: mount/plan.c), docker's rprivate unless another propagation is
 * asked. The source is the path for the document; the runtime mounts the
 * fd opened when the option was parsed (mount_root.source_fds). */
static cJSON *bind_json(const struct run_mount *mount, oci_error_t *err)
{
  char options[64];

  if (mount->source == NULL) {
    oci_error_set(err, 0, "%s %s: the volume was not opened", mount->option, mount->path);
    return NULL;
  }
  snprintf(options, sizeof(options), "%s,%s,nosuid,nodev,%s", mount->recursive ? "rbind" : "bind",
           mount->read_only ? "ro" : "rw", mount->propagation);
  return mount_json(mount->path, "bind", mount->source, options, err);
}

static cJSON *mounts_json(const struct run_config *config, bool rootless, oci_error_t *err)
{
  cleanup_cjson cJSON *array = cJSON_CreateArray();

  if (array == NULL) {
    no_memory(err);
    return NULL;
  }
  for (size_t i = 0; i < N_OF(run_mounts); i++) {
    cleanup_free char *options = NULL;

    if (asprintf(&options, "%s%s", run_mounts[i].options,
                 !rootless && strcmp(run_mounts[i].type, "devpts") == 0 ? ",gid=5" : "") < 0) {
      options = NULL;
      no_memory(err);
      return NULL;
    }
    if (push_item(array,
                  mount_json(run_mounts[i].destination, run_mounts[i].type, run_mounts[i].source,
                             options, err),
                  err) < 0)
      return NULL;
  }
  for (size_t i = 0; i < config->n_mounts; i++) {
    const struct run_mount *m = &config->mounts[i];
    cJSON *mount = m->kind == RUN_MOUNT_TMPFS ? tmpfs_json(m, err) : bind_json(m, err);

    if (mount == NULL)
      return NULL;
    if (push_item(array, mount, err) < 0)
      return NULL;
  }
  return steal_pointer(&array);
}

/* ---- linux ---- */

/* The run's new namespaces (the spec's names), the user namespace only
 * rootless: a root run keeps the host's ids; no network namespace with
 * --network host: the host's is shared. */
static cJSON *namespaces_json(bool rootless, bool host_network, oci_error_t *err)
{
  static const char *const types[] = {"pid", "network", "mount", "ipc", "uts", "cgroup", "user"};
  cleanup_cjson cJSON *array = cJSON_CreateArray();

  if (array == NULL) {
    no_memory(err);
    return NULL;
  }
  for (size_t i = 0; i < N_OF(types); i++) {
    cJSON *entry;

    if ((strcmp(types[i], "user") == 0 && !rootless) ||
        (strcmp(types[i], "network") == 0 && host_network))
      continue;
    entry = cJSON_CreateObject();
    if (push_item(array, entry, err) < 0 || add_string(entry, "type", types[i], err) < 0)
      return NULL;
  }
  return steal_pointer(&array);
}

static cJSON *id_mappings_json(const struct id_range *ranges, size_t n, oci_error_t *err)
{
  cleanup_cjson cJSON *array = cJSON_CreateArray();

  if (array == NULL) {
    no_memory(err);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    cJSON *entry = cJSON_CreateObject();

    if (push_item(array, entry, err) < 0 ||
        add_number(entry, "containerID", ranges[i].inside, err) < 0 ||
        add_number(entry, "hostID", ranges[i].outside, err) < 0 ||
        add_number(entry, "size", ranges[i].count, err) < 0)
      return NULL;
  }
  return steal_pointer(&array);
}

static cJSON *device_rules_json(oci_error_t *err)
{
  cleanup_cjson cJSON *array = cJSON_CreateArray();
  cJSON *deny = cJSON_CreateObject();

  if (array == NULL || push_item(array, deny, err) < 0 || add_bool(deny, "allow", false, err) < 0 ||
      add_string(deny, "access", "rwm", err) < 0) {
    no_memory(err);
    return NULL;
  }
  for (size_t i = 0; i < N_OF(device_allowlist); i++) {
    char type[2] = {device_allowlist[i].type, '\0'};
    cJSON *rule = cJSON_CreateObject();

    if (push_item(array, rule, err) < 0 || add_bool(rule, "allow", true, err) < 0 ||
        add_string(rule, "type", type, err) < 0 ||
        (device_allowlist[i].major >= 0 &&
         add_number(rule, "major", device_allowlist[i].major, err) < 0) ||
        (device_allowlist[i].minor >= 0 &&
         add_number(rule, "minor", device_allowlist[i].minor, err) < 0) ||
        add_string(rule, "access", device_allowlist[i].access, err) < 0)
      return NULL;
  }
  return steal_pointer(&array);
}

/* docker's --memory-swap is memory plus swap, runtime-spec's memory.swap
 * too: unset means as much swap as memory (twice --memory), "-1" (kept as
 * -2 by the parser) unlimited. */
static int memory_json(const struct run_config *config, cJSON *resources, oci_error_t *err)
{
  cJSON *memory;
  int64_t swap;

  if (config->memory_bytes < 0) {
    if (config->memory_swap_bytes >= 0)
      return oci_error_set(err, 0, "--memory-swap needs --memory");
    return 0;
  }
  if (config->memory_swap_bytes == -1)
    swap = config->memory_bytes > INT64_MAX / 2 ? -1 : 2 * config->memory_bytes;
  else if (config->memory_swap_bytes == -2)
    swap = -1;
  else if (config->memory_swap_bytes < config->memory_bytes)
    return oci_error_set(err, 0,
                         "--memory-swap (%" PRId64 ") must be at least --memory (%" PRId64 ")",
                         config->memory_swap_bytes, config->memory_bytes);
  else
    swap = config->memory_swap_bytes;
  memory = cJSON_CreateObject();
  if (add_item(resources, "memory", memory, err) < 0 ||
      add_number(memory, "limit", (double)config->memory_bytes, err) < 0 ||
      add_number(memory, "swap", (double)swap, err) < 0)
    return -1;
  return 0;
}

static cJSON *resources_json(const struct run_config *config, oci_error_t *err)
{
  cleanup_cjson cJSON *object = cJSON_CreateObject();

  if (object == NULL) {
    no_memory(err);
    return NULL;
  }
  if (memory_json(config, object, err) < 0)
    return NULL;
  if (config->cpu_quota_us > 0) {
    cJSON *cpu = cJSON_CreateObject();

    if (add_item(object, "cpu", cpu, err) < 0 ||
        add_number(cpu, "quota", (double)config->cpu_quota_us, err) < 0 ||
        add_number(cpu, "period", config->cpu_period_us > 0 ? (double)config->cpu_period_us : 1e5,
                   err) < 0)
      return NULL;
  }
  if (config->pids_limit > 0) {
    cJSON *pids = cJSON_CreateObject();

    if (add_item(object, "pids", pids, err) < 0 ||
        add_number(pids, "limit", (double)config->pids_limit, err) < 0)
      return NULL;
  }
  if (add_item(object, "devices", device_rules_json(err), err) < 0)
    return NULL;
  return steal_pointer(&object);
}

static cJSON *paths_json(const char *const *paths, size_t n, oci_error_t *err)
{
  return strv_json((char *const *)paths, n, err);
}

static cJSON *linux_json(const struct run_spec_input *in, uint64_t caps, oci_error_t *err)
{
  const struct run_config *config = in->config;
  cleanup_cjson cJSON *object = cJSON_CreateObject();

  if (object == NULL) {
    no_memory(err);
    return NULL;
  }
  if (add_item(object, "namespaces",
               namespaces_json(in->rootless, config->network.mode == RUN_NETWORK_HOST, err),
               err) < 0)
    return NULL;
  if (in->rootless && (add_item(object, "uidMappings",
                                id_mappings_json(in->map->uid, in->map->n_ranges, err), err) < 0 ||
                       add_item(object, "gidMappings",
                                id_mappings_json(in->map->gid, in->map->n_ranges, err), err) < 0))
    return NULL;
  if (add_item(object, "maskedPaths", paths_json(masked_paths, N_OF(masked_paths), err), err) < 0 ||
      add_item(object, "readonlyPaths", paths_json(readonly_paths, N_OF(readonly_paths), err),
               err) < 0 ||
      add_item(object, "resources", resources_json(config, err), err) < 0)
    return NULL;
  if (in->cgroups_path != NULL && add_string(object, "cgroupsPath", in->cgroups_path, err) < 0)
    return NULL;
  /* Resolved here for the run's capabilities (the bounding set, as docker
   * does) and this host's kernel and architectures: the runtime compiles
   * exactly what the document says. */
  if (!config->seccomp_unconfined) {
    cJSON *seccomp = NULL;

    if (seccomp_resolve_oci(config->seccomp_profile_path, caps, &seccomp, err) < 0 ||
        add_item(object, "seccomp", seccomp, err) < 0)
      return NULL;
  }
  return steal_pointer(&object);
}

static cJSON *root_json(const struct run_spec_input *in, oci_error_t *err)
{
  cleanup_cjson cJSON *object = cJSON_CreateObject();

  if (object == NULL || add_string(object, "path", in->rootfs_path, err) < 0 ||
      add_bool(object, "readonly", in->config->read_only, err) < 0) {
    no_memory(err);
    return NULL;
  }
  return steal_pointer(&object);
}

int run_spec_build(const struct run_spec_input *in, cJSON **config, oci_error_t *err)
{
  cleanup_cjson cJSON *document = NULL;
  struct run_process process = {0};
  char hostname[64];
  int ret = -1;

  *config = NULL;
  if (in->rootless && in->map == NULL)
    return oci_error_set(err, 0, "run: rootless: no user namespace map was chosen");
  run_spec_hostname(in->config, hostname, sizeof(hostname));
  if (resolve_process(in, hostname, &process, err) < 0)
    goto out;
  document = cJSON_CreateObject();
  if (document == NULL) {
    no_memory(err);
    goto out;
  }
  if (add_string(document, "ociVersion", SPEC_OCI_VERSION, err) < 0 ||
      add_item(document, "process", process_json(&process, in->config, err), err) < 0 ||
      add_item(document, "root", root_json(in, err), err) < 0 ||
      add_string(document, "hostname", hostname, err) < 0 ||
      add_item(document, "mounts", mounts_json(in->config, in->rootless, err), err) < 0 ||
      add_item(document, "linux", linux_json(in, process.caps, err), err) < 0 ||
      run_resources_spec(&in->config->resources, in->config->tty,
                         !in->rootless && !in->config->unsafe_no_cgroup, document, err) < 0)
    goto out;
  *config = steal_pointer(&document);
  ret = 0;
out:
  run_process_clear(&process);
  return ret;
}
