/* Unit tests of the docker-run front end (src/docker_run/run_spec.c): the probe's
 * recipe flags and variations become a runtime-spec configuration whose
 * fields are checked one by one, refusals included; the seccomp profile it
 * carries is read back by the profile parser to the same rules. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "docker_run/run_config.h"
#include "docker_run/run_spec.h"
#include "oci/cleanup.h"
#include "probe/probe_backend.h"
#include "runtime/capabilities.h"
#include "runtime/seccomp/filter.h"
#include "runtime/seccomp/rules.h"
#include "runtime/spec/spec.h"
#include "unit.h"

static char rootfs_path[64];
static int rootfs_fd = -1;

static void write_file(const char *dir, const char *name, const char *content)
{
  char path[256];
  FILE *f;

  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "w");
  if (f == NULL || fputs(content, f) < 0 || fclose(f) != 0) {
    perror(path);
    exit(99);
  }
}

/* A rootfs with just the account files user_resolve reads. */
static void make_rootfs(void)
{
  char etc[128];

  snprintf(rootfs_path, sizeof(rootfs_path), "/tmp/run-spec-XXXXXX");
  if (mkdtemp(rootfs_path) == NULL) {
    perror("mkdtemp");
    exit(99);
  }
  snprintf(etc, sizeof(etc), "%s/etc", rootfs_path);
  if (mkdir(etc, 0755) < 0) {
    perror(etc);
    exit(99);
  }
  write_file(etc, "passwd",
             "root:x:0:0:root:/root:/bin/sh\n"
             "alice:x:1000:1000:Alice:/home/alice:/bin/sh\n"
             "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n");
  write_file(etc, "group",
             "root:x:0:\n"
             "wheel:x:10:root,alice\n"
             "staff:x:50:alice\n"
             "alice:x:1000:\n"
             "nogroup:x:65534:\n");
  rootfs_fd = open(rootfs_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfs_fd < 0) {
    perror(rootfs_path);
    exit(99);
  }
}

static void remove_rootfs(void)
{
  char path[256];

  snprintf(path, sizeof(path), "%s/etc/passwd", rootfs_path);
  unlink(path);
  snprintf(path, sizeof(path), "%s/etc/group", rootfs_path);
  unlink(path);
  snprintf(path, sizeof(path), "%s/etc", rootfs_path);
  rmdir(path);
  rmdir(rootfs_path);
  close(rootfs_fd);
}

/* What a test varies besides the flags. */
struct variant {
  const struct oci_image *image;
  bool rootless;
  const struct userns_map *map;
  const char *cgroups_path;
};

static struct oci_image default_image;

/* Every document built must be one the runtime's parser accepts. */
static void check_spec_parse(const cJSON *document)
{
  struct spec spec;
  oci_error_t err = NULL;

  if (!ok(spec_parse(document, &spec, &err) == 0, "spec_parse accepts the document (%s)",
          err != NULL ? err->message : "")) {
    oci_error_free(&err);
    return;
  }
  /* and reads it as meant: nodev where the workload can write, the
   * filesystem's own options as data, the device rules in order */
  for (size_t i = 0; i < spec.n_mounts; i++) {
    const struct spec_mount *mount = &spec.mounts[i];

    if ((mount->flags & MS_RDONLY) == 0 && strcmp(mount->type, "devpts") != 0 &&
        (mount->flags & MS_NODEV) == 0)
      ok(false, "spec_parse: %s is writable and not nodev", mount->destination);
    if (strcmp(mount->destination, "/dev") == 0)
      is_str(mount->data, "mode=755,size=65536k", "spec_parse: /dev's data");
  }
  ok(spec.has_resources && spec.resources.n_devices == 13 && !spec.resources.devices[0].allow &&
         spec.resources.devices[0].type == 'a' && spec.resources.devices[12].minor == 200,
     "spec_parse: the device rules");
  spec_clear(&spec);
  oci_error_free(&err);
}

/* Parses "ocirun run ARGV... IMAGE [COMMAND...]" (argv NULL-terminated,
 * "IMAGE" stands for the image) and builds the configuration; NULL with
 * the error text in message on a refusal. */
static cJSON *build_argv_list(char **args, const struct variant *variant, char *message,
                              size_t size)
{
  char *argv[64] = {"run"};
  int argc = 1, next = 0;
  struct run_config config;
  oci_error_t err = NULL;
  cJSON *document = NULL;

  for (char **a = args; *a != NULL && argc < 63; a++)
    argv[argc++] = *a;
  argv[argc] = NULL;
  message[0] = '\0';
  run_config_init(&config);
  optind = 0;
  if (run_options_parse(argc, argv, &config, &next, &err) == 0 &&
      run_config_set_command(&config, argv[next], argv + next + 1, (size_t)(argc - next - 1),
                             &err) == 0) {
    struct run_spec_input in = {
        .config = &config,
        .image = variant != NULL && variant->image != NULL ? variant->image : &default_image,
        .rootfs_fd = rootfs_fd,
        .rootfs_path = rootfs_path,
        .rootless = variant != NULL && variant->rootless,
        .map = variant != NULL ? variant->map : NULL,
        .cgroups_path = variant != NULL ? variant->cgroups_path : "/sys/fs/cgroup/ocirun/test",
    };
    run_spec_build(&in, &document, &err);
  }
  if (document != NULL)
    check_spec_parse(document);
  snprintf(message, size, "%s", err != NULL ? err->message : "");
  oci_error_free(&err);
  run_config_clear(&config);
  return document;
}

static cJSON *build(const struct variant *variant, char *message, size_t size, const char *first,
                    ...)
{
  char *args[64];
  int n = 0;
  va_list ap;

  va_start(ap, first);
  for (const char *a = first; a != NULL && n < 63; a = va_arg(ap, const char *))
    args[n++] = (char *)a;
  va_end(ap);
  args[n] = NULL;
  return build_argv_list(args, variant, message, size);
}

/* "linux.resources.memory.limit", "mounts[2].options": NULL when absent. */
static const cJSON *at(const cJSON *node, const char *path)
{
  char key[128];

  while (node != NULL && *path != '\0') {
    size_t len = strcspn(path, ".[");

    if (len > 0) {
      snprintf(key, sizeof(key), "%.*s", (int)len, path);
      node = cJSON_GetObjectItemCaseSensitive(node, key);
      path += len;
    } else if (*path == '[') {
      node = cJSON_GetArrayItem(node, atoi(path + 1));
      path = strchr(path, ']') + 1;
    }
    if (*path == '.')
      path++;
  }
  return node;
}

static const char *str_at(const cJSON *node, const char *path)
{
  const cJSON *item = at(node, path);

  return cJSON_IsString(item) ? item->valuestring : NULL;
}

static double num_at(const cJSON *node, const char *path)
{
  const cJSON *item = at(node, path);

  return cJSON_IsNumber(item) ? item->valuedouble : -999;
}

static bool has_string(const cJSON *array, const char *value)
{
  const cJSON *item;

  cJSON_ArrayForEach(item, array)
  {
    if (cJSON_IsString(item) && strcmp(item->valuestring, value) == 0)
      return true;
  }
  return false;
}

/* Array of strings joined by ',', for comparisons. */
static const char *joined(const cJSON *array)
{
  static char out[4096];
  const cJSON *item;
  size_t used = 0;

  out[0] = '\0';
  cJSON_ArrayForEach(item, array)
  {
    if (used < sizeof(out))
      used += (size_t)snprintf(out + used, sizeof(out) - used, "%s%s", used > 0 ? "," : "",
                               cJSON_IsString(item) ? item->valuestring : "?");
  }
  return out;
}

static const cJSON *mount_at(const cJSON *config, const char *destination)
{
  const cJSON *mount;

  cJSON_ArrayForEach(mount, cJSON_GetObjectItemCaseSensitive(config, "mounts"))
  {
    if (strcmp(str_at(mount, "destination"), destination) == 0)
      return mount;
  }
  return NULL;
}

/* True when a "names" array of linux.seccomp.syscalls lists name. */
static bool seccomp_names(const cJSON *config, const char *name)
{
  const cJSON *rule;

  cJSON_ArrayForEach(rule, at(config, "linux.seccomp.syscalls"))
  {
    if (has_string(cJSON_GetObjectItemCaseSensitive(rule, "names"), name))
      return true;
  }
  return false;
}

static void test_recipe(void)
{
  struct probe_request request = {0};
  cleanup_strv char **flags = probe_recipe_flags("ocirun-probe-0123456789ab", &request);
  char *args[64];
  size_t n = 0;
  char msg[1024];
  cleanup_cjson cJSON *config = NULL;
  const cJSON *tmp, *item;

  for (char **f = flags; f != NULL && *f != NULL; f++)
    args[n++] = *f;
  args[n++] = "IMAGE";
  args[n++] = "/probe";
  args[n] = NULL;
  config = build_argv_list(args, NULL, msg, sizeof(msg));
  if (!ok(config != NULL, "the recipe's flags build a configuration (%s)", msg))
    return;
  is_str(str_at(config, "ociVersion"), SPEC_OCI_VERSION, "ociVersion");
  is_str(str_at(config, "root.path"), rootfs_path, "root.path is the rootfs");
  ok(cJSON_IsTrue(at(config, "root.readonly")), "--read-only: root.readonly");
  is_str(str_at(config, "hostname"), "ocirun-probe-0123456789ab", "hostname is the --name");
  ok(cJSON_IsFalse(at(config, "process.terminal")), "terminal false");
  is_int(num_at(config, "process.user.uid"), 65534, "--user 65534:65534: uid");
  is_int(num_at(config, "process.user.gid"), 65534, "--user 65534:65534: gid");
  ok(at(config, "process.user.additionalGids") == NULL, "nobody has no supplementary groups");
  is_str(joined(at(config, "process.args")), "/probe", "args: the command after IMAGE");
  is_str(str_at(config, "process.cwd"), "/", "cwd: / without -w or WorkingDir");
  ok(cJSON_IsTrue(at(config, "process.noNewPrivileges")),
     "--security-opt no-new-privileges: noNewPrivileges");
  is_int(cJSON_GetArraySize(at(config, "process.capabilities.bounding")), 0,
         "--cap-drop ALL: empty bounding set");
  ok(at(config, "process.rlimits") == NULL, "no rlimits");
  ok(at(config, "process.oomScoreAdj") == NULL, "no oomScoreAdj");
  is_int(num_at(config, "linux.resources.memory.limit"), 128 << 20, "--memory 128m");
  is_int(num_at(config, "linux.resources.memory.swap"), 128 << 20,
         "--memory-swap 128m equal to --memory: no swap");
  is_int(num_at(config, "linux.resources.cpu.quota"), 50000, "--cpus 0.5: quota 50000");
  is_int(num_at(config, "linux.resources.cpu.period"), 100000, "--cpus 0.5: period 100000");
  is_int(num_at(config, "linux.resources.pids.limit"), 32, "--pids-limit 32");
  is_str(str_at(config, "linux.cgroupsPath"), "/sys/fs/cgroup/ocirun/test", "cgroupsPath");
  ok(at(config, "linux.seccomp") != NULL, "the default seccomp profile is applied");
  ok(!seccomp_names(config, "kcmp"), "no CAP_SYS_PTRACE (ALL dropped): no kcmp rule");
  tmp = mount_at(config, "/tmp");
  if (ok(tmp != NULL, "--tmpfs /tmp is a mount")) {
    is_str(str_at(tmp, "type"), "tmpfs", "/tmp: tmpfs");
    is_str(joined(at(tmp, "options")), "rw,nosuid,noexec,nodev,mode=1777,size=1048576",
           "/tmp: docker's options, nodev added, mode 1777");
  }
  item = cJSON_GetArrayItem(at(config, "mounts"), cJSON_GetArraySize(at(config, "mounts")) - 1);
  ok(item == tmp, "--tmpfs comes after the run's own mounts");
  ok(at(config, "linux.devices") == NULL, "no linux.devices: the runtime's defaults");
}

static void test_defaults(void)
{
  char msg[1024];
  cleanup_cjson cJSON *config = build(NULL, msg, sizeof(msg), "IMAGE", NULL);
  static const char *const destinations[] = {
      "/proc", "/dev", "/dev/pts", "/dev/shm", "/dev/mqueue", "/sys", "/sys/fs/cgroup",
  };
  static const char *const options[] = {
      "nosuid,noexec,nodev",
      "nosuid,nodev,mode=755,size=65536k",
      "nosuid,noexec,newinstance,ptmxmode=0666,mode=0620,gid=5",
      "nosuid,noexec,nodev,mode=1777,size=65536k",
      "nosuid,noexec,nodev",
      "nosuid,noexec,nodev,ro",
      "nosuid,noexec,nodev,ro",
  };
  const cJSON *mount, *ns;
  char names[256] = "";

  if (!ok(config != NULL, "no flags build a configuration (%s)", msg))
    return;
  is_int(cJSON_GetArraySize(at(config, "mounts")), 7, "seven mounts without --tmpfs");
  for (size_t i = 0; i < sizeof(destinations) / sizeof(destinations[0]); i++) {
    char path[32];

    snprintf(path, sizeof(path), "mounts[%zu]", i);
    mount = at(config, path);
    is_str(str_at(mount, "destination"), destinations[i], "mount %zu is %s", i, destinations[i]);
    is_str(joined(at(mount, "options")), options[i], "%s: ocirun's options", destinations[i]);
  }
  is_str(str_at(config, "mounts[6].type"), "cgroup", "/sys/fs/cgroup: cgroup");
  /* nodev on every mount the workload can write: all but read-only ones
   * and devpts, whose nodes are the ptys */
  cJSON_ArrayForEach(mount, at(config, "mounts"))
  {
    const cJSON *opts = at(mount, "options");

    if (has_string(opts, "ro") || strcmp(str_at(mount, "type"), "devpts") == 0)
      continue;
    ok(has_string(opts, "nodev"), "writable %s is nodev", str_at(mount, "destination"));
  }
  ok(!cJSON_IsTrue(at(config, "root.readonly")), "root writable without --read-only");
  cJSON_ArrayForEach(ns, at(config, "linux.namespaces"))
  {
    strcat(names, str_at(ns, "type"));
    strcat(names, " ");
  }
  is_str(names, "pid network mount ipc uts cgroup ", "namespaces, no user namespace as root");
  ok(at(config, "linux.uidMappings") == NULL, "no uidMappings as root");
  is_str(joined(at(config, "linux.maskedPaths")),
         "/proc/acpi,/proc/asound,/proc/interrupts,/proc/kcore,/proc/keys,/proc/latency_stats,"
         "/proc/timer_list,/proc/timer_stats,/proc/sched_debug,/proc/scsi,/sys/firmware,"
         "/sys/devices/virtual/powercap",
         "maskedPaths");
  is_str(joined(at(config, "linux.readonlyPaths")),
         "/proc/bus,/proc/fs,/proc/irq,/proc/sys,/proc/sysrq-trigger", "readonlyPaths");
  ok(at(config, "linux.resources.memory") == NULL, "no --memory: no memory limit");
  ok(at(config, "linux.resources.cpu") == NULL, "no --cpus: no cpu limit");
  ok(at(config, "linux.resources.pids") == NULL, "no --pids-limit: no pids limit");
  ok(cJSON_IsFalse(at(config, "process.noNewPrivileges")), "noNewPrivileges false by default");
  /* the device rules: deny all, then docker's allowlist */
  is_int(cJSON_GetArraySize(at(config, "linux.resources.devices")), 13,
         "13 device rules (deny all + 12)");
  ok(cJSON_IsFalse(at(config, "linux.resources.devices[0].allow")) &&
         at(config, "linux.resources.devices[0].type") == NULL &&
         at(config, "linux.resources.devices[0].major") == NULL,
     "the first device rule denies everything");
  is_str(str_at(config, "linux.resources.devices[0].access"), "rwm", "... for rwm");
  ok(cJSON_IsTrue(at(config, "linux.resources.devices[1].allow")) &&
         at(config, "linux.resources.devices[1].major") == NULL &&
         at(config, "linux.resources.devices[1].minor") == NULL,
     "mknod of any character device: no major/minor (wildcards)");
  is_str(str_at(config, "linux.resources.devices[1].access"), "m", "... access m");
  is_str(str_at(config, "linux.resources.devices[3].type"), "c", "/dev/null: c");
  is_int(num_at(config, "linux.resources.devices[3].major"), 1, "/dev/null: major 1");
  is_int(num_at(config, "linux.resources.devices[3].minor"), 3, "/dev/null: minor 3");
  is_str(str_at(config, "linux.resources.devices[3].access"), "rwm", "/dev/null: rwm");
  is_int(num_at(config, "linux.resources.devices[11].major"), 136, "/dev/pts/*: major 136");
  ok(at(config, "linux.resources.devices[11].minor") == NULL, "/dev/pts/*: any minor");
  is_int(num_at(config, "linux.resources.devices[12].minor"), 200, "/dev/net/tun last");
}

static void test_args(void)
{
  static char *entrypoint[] = {"/entry", "-x", NULL};
  static char *cmd[] = {"default", "cmd", NULL};
  static char *empty_entrypoint[] = {"", NULL};
  static char *empty_cmd[] = {"", "arg", NULL};
  struct oci_image both = {.defaults = {.entrypoint = entrypoint, .cmd = cmd}};
  struct oci_image cmd_only = {.defaults = {.cmd = cmd}};
  struct oci_image none = {0};
  struct oci_image bad_entry = {.defaults = {.entrypoint = empty_entrypoint, .cmd = cmd}};
  struct oci_image bad_cmd = {.defaults = {.cmd = empty_cmd}};
  struct variant v = {.cgroups_path = NULL};
  char msg[1024];
  cJSON *config;

  v.image = &both;
  config = build(&v, msg, sizeof(msg), "IMAGE", NULL);
  is_str(joined(at(config, "process.args")), "/entry,-x,default,cmd", "entrypoint + cmd");
  ok(at(config, "linux.cgroupsPath") == NULL, "cgroups_path NULL: no cgroupsPath");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "IMAGE", "a", "b", NULL);
  is_str(joined(at(config, "process.args")), "/entry,-x,a,b", "a command replaces the cmd");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--entrypoint", "/other", "IMAGE", NULL);
  is_str(joined(at(config, "process.args")), "/other", "--entrypoint drops the image's cmd");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--entrypoint", "/other", "IMAGE", "a", NULL);
  is_str(joined(at(config, "process.args")), "/other,a", "--entrypoint + command");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--entrypoint", "", "IMAGE", "sh", "-c", "x", NULL);
  is_str(joined(at(config, "process.args")), "sh,-c,x", "--entrypoint '' clears the entrypoint");
  cJSON_Delete(config);
  v.image = &cmd_only;
  config = build(&v, msg, sizeof(msg), "IMAGE", NULL);
  is_str(joined(at(config, "process.args")), "default,cmd", "cmd alone");
  cJSON_Delete(config);

  v.image = &none;
  config = build(&v, msg, sizeof(msg), "IMAGE", NULL);
  ok(config == NULL && strstr(msg, "no command given") != NULL,
     "no entrypoint, cmd or command: refused (%s)", msg);
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--entrypoint", "", "IMAGE", NULL);
  ok(config == NULL && strstr(msg, "no command given") != NULL,
     "--entrypoint '' and nothing else: refused (%s)", msg);
  cJSON_Delete(config);
  v.image = &bad_entry;
  config = build(&v, msg, sizeof(msg), "IMAGE", NULL);
  ok(config == NULL && strstr(msg, "empty string (from the image's Entrypoint)") != NULL,
     "empty Entrypoint[0] refused, naming it (%s)", msg);
  cJSON_Delete(config);
  v.image = &bad_cmd;
  config = build(&v, msg, sizeof(msg), "IMAGE", NULL);
  ok(config == NULL && strstr(msg, "empty string (from the image's Cmd)") != NULL,
     "empty Cmd[0] refused, naming it (%s)", msg);
  cJSON_Delete(config);
  v.image = &cmd_only;
  config = build(&v, msg, sizeof(msg), "IMAGE", "", NULL);
  ok(config == NULL && strstr(msg, "empty string (from the command after IMAGE)") != NULL,
     "empty command after IMAGE refused, naming it (%s)", msg);
  cJSON_Delete(config);
}

static void test_env_cwd_user(void)
{
  static char *cmd[] = {"sh", NULL};
  static char *env[] = {"PATH=/image/bin", "FOO=image", "BAR=image", "NOEQUALS", NULL};
  struct oci_image image = {
      .defaults = {.cmd = cmd, .env = env, .user = "alice", .working_dir = "/srv"}};
  struct oci_image relative = {.defaults = {.cmd = cmd, .working_dir = "srv"}};
  struct variant v = {.image = &image};
  char msg[1024];
  cJSON *config;

  config = build(&v, msg, sizeof(msg), "--name", "web", "-e", "FOO=cli", "IMAGE", NULL);
  if (ok(config != NULL, "image with env, user and WorkingDir (%s)", msg)) {
    is_str(joined(at(config, "process.env")),
           "PATH=/image/bin,HOSTNAME=web,FOO=cli,BAR=image,HOME=/home/alice",
           "env: PATH and HOSTNAME, image's (replacing), -e, HOME from passwd");
    is_str(str_at(config, "process.cwd"), "/srv", "cwd: the image's WorkingDir");
    is_int(num_at(config, "process.user.uid"), 1000, "user alice by name: uid 1000");
    is_int(num_at(config, "process.user.gid"), 1000, "alice's primary gid 1000");
    is_int(cJSON_GetArraySize(at(config, "process.user.additionalGids")), 2,
           "alice is in two more groups");
    is_int(num_at(config, "process.user.additionalGids[0]"), 10, "wheel (10)");
    is_int(num_at(config, "process.user.additionalGids[1]"), 50, "staff (50)");
    is_int(cJSON_GetArraySize(at(config, "process.capabilities.bounding")), 14,
           "docker's 14 default capabilities bound a non-root user");
    is_int(cJSON_GetArraySize(at(config, "process.capabilities.effective")), 0,
           "a non-root uid starts with no effective capability");
    is_int(cJSON_GetArraySize(at(config, "process.capabilities.permitted")), 0,
           "... nor a permitted one");
  }
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "-e", "HOME=/custom", "-w", "/work", "--user", "0",
                 "--hostname", "box", "IMAGE", NULL);
  if (ok(config != NULL, "-e HOME, -w, --user 0 (%s)", msg)) {
    ok(has_string(at(config, "process.env"), "HOME=/custom"), "-e HOME wins over passwd");
    ok(has_string(at(config, "process.env"), "HOSTNAME=box"), "HOSTNAME from --hostname");
    is_str(str_at(config, "hostname"), "box", "--hostname");
    is_str(str_at(config, "process.cwd"), "/work", "-w wins over WorkingDir");
    is_int(num_at(config, "process.user.uid"), 0, "--user 0 wins over the image's user");
    is_int(num_at(config, "process.user.additionalGids[0]"), 10, "root is in wheel");
  }
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--user", "nobody:staff", "IMAGE", NULL);
  is_int(num_at(config, "process.user.gid"), 50, "--user NAME:GROUP: the group's gid");
  ok(has_string(at(config, "process.env"), "HOME=/nonexistent"), "HOME of nobody");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--user", "mallory", "IMAGE", NULL);
  ok(config == NULL && strstr(msg, "--user 'mallory'") != NULL, "unknown user refused (%s)", msg);
  cJSON_Delete(config);
  v.image = &relative;
  config = build(&v, msg, sizeof(msg), "IMAGE", NULL);
  is_str(str_at(config, "process.cwd"), "/", "a relative WorkingDir: /");
  ok(has_string(at(config, "process.env"), "HOME=/root"), "root's HOME from passwd");
  ok(has_string(at(config, "process.env"),
                "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
     "docker's PATH when the image has none");
  cJSON_Delete(config);
  config = build(NULL, msg, sizeof(msg), "IMAGE", NULL);
  {
    const char *hostname = str_at(config, "hostname");

    ok(hostname != NULL && strlen(hostname) == 12 && strncmp(hostname, "ocirun-", 7) != 0,
       "a generated name: the hostname is its 12 hex digits (%s)", hostname);
  }
  cJSON_Delete(config);
}

static void test_capabilities(void)
{
  struct variant v = {0};
  char msg[1024];
  cJSON *config;
  const cJSON *bounding;

  config =
      build(&v, msg, sizeof(msg), "--cap-drop", "NET_RAW", "--cap-add", "sys_admin", "IMAGE", NULL);
  bounding = at(config, "process.capabilities.bounding");
  ok(!has_string(bounding, "CAP_NET_RAW"), "--cap-drop NET_RAW drops it");
  ok(has_string(bounding, "CAP_SYS_ADMIN"), "--cap-add sys_admin adds CAP_SYS_ADMIN");
  ok(has_string(bounding, "CAP_CHOWN"), "the rest of docker's set stays");
  is_int(cJSON_GetArraySize(bounding), 14, "14 - 1 + 1");
  is_str(joined(at(config, "process.capabilities.effective")), joined(bounding),
         "uid 0: effective = bounding");
  is_str(joined(at(config, "process.capabilities.permitted")), joined(bounding),
         "uid 0: permitted = bounding");
  is_int(cJSON_GetArraySize(at(config, "process.capabilities.inheritable")), 0,
         "inheritable empty (CVE-2022-24769)");
  is_int(cJSON_GetArraySize(at(config, "process.capabilities.ambient")), 0, "ambient empty");
  ok(seccomp_names(config, "mount"), "CAP_SYS_ADMIN: the profile's mount rule is in");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "IMAGE", NULL);
  ok(!seccomp_names(config, "mount"), "without CAP_SYS_ADMIN: no mount rule");
  ok(!has_string(at(config, "process.capabilities.bounding"), "CAP_SYS_ADMIN"),
     "CAP_SYS_ADMIN is not in docker's default set");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--cap-add", "ALL", "IMAGE", NULL);
  bounding = at(config, "process.capabilities.bounding");
  ok(has_string(bounding, "CAP_SYS_ADMIN") && has_string(bounding, "CAP_BPF") &&
         has_string(bounding, "CAP_CHECKPOINT_RESTORE"),
     "--cap-add ALL: every capability ocirun knows (%d)", cJSON_GetArraySize(bounding));
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--cap-drop", "ALL", "--cap-add", "NET_BIND_SERVICE",
                 "IMAGE", NULL);
  is_str(joined(at(config, "process.capabilities.bounding")), "CAP_NET_BIND_SERVICE",
         "--cap-drop ALL --cap-add NET_BIND_SERVICE");
  cJSON_Delete(config);
}

static void test_limits_and_mounts(void)
{
  struct variant v = {0};
  char msg[1024];
  cJSON *config;

  config = build(&v, msg, sizeof(msg), "--memory", "64m", "IMAGE", NULL);
  is_int(num_at(config, "linux.resources.memory.limit"), 64 << 20, "--memory 64m");
  is_int(num_at(config, "linux.resources.memory.swap"), 128 << 20,
         "--memory-swap unset: twice --memory (docker)");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--memory", "64m", "--memory-swap", "-1", "IMAGE", NULL);
  is_int(num_at(config, "linux.resources.memory.swap"), -1, "--memory-swap -1: unlimited (-1)");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--memory", "64m", "--memory-swap", "100m", "IMAGE", NULL);
  is_int(num_at(config, "linux.resources.memory.swap"), 100 << 20, "--memory-swap 100m");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--memory", "64m", "--memory-swap", "32m", "IMAGE", NULL);
  ok(config == NULL && strstr(msg, "--memory-swap") != NULL,
     "--memory-swap below --memory refused (%s)", msg);
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--cpus", "2", "--pids-limit", "-1", "IMAGE", NULL);
  is_int(num_at(config, "linux.resources.cpu.quota"), 200000, "--cpus 2: quota 200000");
  ok(at(config, "linux.resources.pids") == NULL, "--pids-limit -1: unlimited (no pids)");
  cJSON_Delete(config);

  config = build(&v, msg, sizeof(msg), "--tmpfs", "/run", "--tmpfs", "/data:ro,exec,mode=700",
                 "IMAGE", NULL);
  is_str(joined(at(config, "mounts[7].options")), "rw,nosuid,noexec,nodev,mode=1777",
         "--tmpfs /run: docker's defaults");
  is_str(str_at(config, "mounts[8].destination"), "/data", "second --tmpfs in order");
  is_str(joined(at(config, "mounts[8].options")), "ro,nosuid,nodev,mode=700",
         "--tmpfs ro,exec,mode=700");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--tmpfs", "/data:dev", "IMAGE", NULL);
  ok(config == NULL && strstr(msg, "option 'dev' is not allowed") != NULL,
     "--tmpfs dev refused (%s)", msg);
  cJSON_Delete(config);
}

/* Build, print, parse back with the profile parser: the same rules. */
static void check_seccomp_round_trip(const cJSON *config, uint64_t caps, const char *what)
{
  const cJSON *seccomp = at(config, "linux.seccomp");
  cleanup_free char *text = seccomp != NULL ? cJSON_PrintUnformatted(seccomp) : NULL;
  struct seccomp_profile *parsed = NULL;
  cleanup_cjson cJSON *again = NULL;
  oci_error_t err = NULL;

  if (!ok(text != NULL, "%s: linux.seccomp present", what))
    return;
  ok(strstr(text, "includes") == NULL && strstr(text, "excludes") == NULL &&
         strstr(text, "archMap") == NULL && strstr(text, "comment") == NULL,
     "%s: nothing docker-only", what);
  if (!ok(seccomp_profile_parse(text, "linux.seccomp", &parsed, &err) == 0,
          "%s: seccomp_profile_parse reads it back (%s)", what, err != NULL ? err->message : ""))
    goto out;
  ok(seccomp_profile_resolve_oci(parsed, caps, &again, &err) == 0, "%s: resolved again", what);
  ok(cJSON_Compare(again, seccomp, true), "%s: the same rules, arches and actions", what);
  is_int(parsed->n_rules, cJSON_GetArraySize(at(config, "linux.seccomp.syscalls")),
         "%s: every rule parsed", what);
out:
  seccomp_profile_free(parsed);
  oci_error_free(&err);
}

static void test_seccomp(void)
{
  struct variant v = {0};
  char msg[1024], profile_path[128];
  cJSON *config;
  const cJSON *arches;
  const cJSON *native = NULL;

  config = build(&v, msg, sizeof(msg), "IMAGE", NULL);
  is_str(str_at(config, "linux.seccomp.defaultAction"), "SCMP_ACT_ERRNO",
         "default profile: defaultAction ERRNO");
  arches = at(config, "linux.seccomp.architectures");
  ok(cJSON_GetArraySize(arches) >= 1, "architectures listed (%s)", joined(arches));
  if (seccomp_arch_info_host() != NULL)
    native = arches;
  ok(native != NULL && has_string(native, seccomp_arch_info_host()->scmp_name),
     "the host's architecture is listed");
  ok(seccomp_names(config, "read"), "read is allowed");
  check_seccomp_round_trip(config, capabilities_docker_default(), "default profile");
  cJSON_Delete(config);

  {
    struct run_config c;

    run_config_init(&c);
    is_str(run_spec_seccomp_origin(&c), "built-in default (docker's profile)",
           "seccomp origin: the built-in default");
    c.seccomp_unconfined = true;
    is_str(run_spec_seccomp_origin(&c), NULL, "seccomp origin: none when unconfined");
    run_config_clear(&c);
  }
  config = build(&v, msg, sizeof(msg), "--security-opt", "seccomp=unconfined", "IMAGE", NULL);
  ok(config != NULL && at(config, "linux.seccomp") == NULL, "seccomp=unconfined: no linux.seccomp");
  cJSON_Delete(config);

  config = build(&v, msg, sizeof(msg), "--cap-add", "SYS_ADMIN", "--cap-add", "SYS_PTRACE", "IMAGE",
                 NULL);
  check_seccomp_round_trip(
      config, capabilities_docker_default() | (UINT64_C(1) << 21) | (UINT64_C(1) << 19),
      "default profile with SYS_ADMIN and SYS_PTRACE");
  cJSON_Delete(config);

  snprintf(profile_path, sizeof(profile_path), "%s/profile.json", rootfs_path);
  write_file(rootfs_path, "profile.json",
             "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"comment\":\"test\",\"flags\":"
             "[\"SECCOMP_FILTER_FLAG_LOG\"],\"syscalls\":["
             "{\"names\":[\"keyctl\"],\"action\":\"SCMP_ACT_ERRNO\",\"errnoRet\":1,"
             "\"includes\":{\"caps\":[\"CAP_SYS_ADMIN\"]}},"
             "{\"names\":[\"ptrace\"],\"action\":\"SCMP_ACT_ERRNO\",\"excludes\":{\"caps\":"
             "[\"CAP_SYS_ADMIN\"]}},"
             "{\"names\":[\"personality\"],\"action\":\"SCMP_ACT_ERRNO\",\"args\":[{\"index\":0,"
             "\"value\":8,\"op\":\"SCMP_CMP_EQ\"}]}]}");
  {
    char option[160];

    snprintf(option, sizeof(option), "seccomp=%s", profile_path);
    config = build(&v, msg, sizeof(msg), "--security-opt", option, "IMAGE", NULL);
    if (ok(config != NULL, "--security-opt seccomp=FILE (%s)", msg)) {
      is_str(str_at(config, "linux.seccomp.defaultAction"), "SCMP_ACT_ALLOW",
             "the file's defaultAction");
      is_str(joined(at(config, "linux.seccomp.flags")), "SECCOMP_FILTER_FLAG_LOG",
             "the file's flags");
      ok(!seccomp_names(config, "keyctl"), "a rule that needs CAP_SYS_ADMIN: left out");
      ok(seccomp_names(config, "ptrace"), "a rule excluded by CAP_SYS_ADMIN: kept");
      is_int(num_at(config, "linux.seccomp.syscalls[1].args[0].value"), 8, "args kept");
      check_seccomp_round_trip(config, capabilities_docker_default(), "a profile file");
    }
    cJSON_Delete(config);
    config = build(&v, msg, sizeof(msg), "--cap-add", "SYS_ADMIN", "--security-opt", option,
                   "IMAGE", NULL);
    ok(seccomp_names(config, "keyctl") && !seccomp_names(config, "ptrace"),
       "with CAP_SYS_ADMIN: the include holds, the exclude drops");
    is_int(num_at(config, "linux.seccomp.syscalls[0].errnoRet"), 1, "errnoRet kept");
    cJSON_Delete(config);
  }
  snprintf(profile_path, sizeof(profile_path), "%s/profile.json", rootfs_path);
  unlink(profile_path);
  config =
      build(&v, msg, sizeof(msg), "--security-opt", "seccomp=/nonexistent/p.json", "IMAGE", NULL);
  ok(config == NULL && strstr(msg, "/nonexistent/p.json") != NULL,
     "a missing profile file is refused, naming it (%s)", msg);
  cJSON_Delete(config);
}

/* The runtime compiling linux.seccomp gets the filter ocirun's run built
 * from the flags before: the same resolved profile, so the same cache key
 * and program. */
static void check_same_filter(const char *what, const char *first, ...)
{
  char *argv[16] = {"run"};
  int argc = 1, next = 0;
  struct run_config config;
  oci_error_t err = NULL;
  cleanup_cjson cJSON *document = NULL;
  struct seccomp_filter *from_flags = NULL, *from_spec = NULL;
  struct spec spec = {0};
  cleanup_free char *flags_json = NULL, *spec_json = NULL;
  uint64_t caps;
  va_list ap;

  va_start(ap, first);
  for (const char *a = first; a != NULL && argc < 14; a = va_arg(ap, const char *))
    argv[argc++] = (char *)a;
  va_end(ap);
  argv[argc++] = "IMAGE";
  argv[argc] = NULL;
  run_config_init(&config);
  optind = 0;
  if (run_options_parse(argc, argv, &config, &next, &err) == 0 &&
      run_config_set_command(&config, argv[next], NULL, 0, &err) == 0) {
    struct run_spec_input in = {.config = &config,
                                .image = &default_image,
                                .rootfs_fd = rootfs_fd,
                                .rootfs_path = rootfs_path};
    run_spec_build(&in, &document, &err);
  }
  caps = config.cap_drop_all ? 0 : capabilities_docker_default() & ~config.cap_drop;
  caps |= config.cap_add;
  /* the copy of linux.seccomp the parser keeps is what the runtime compiles */
  if (ok(document != NULL &&
             seccomp_filter_build(config.seccomp_profile_path, caps, &from_flags, &err) == 0 &&
             spec_parse(document, &spec, &err) == 0 &&
             seccomp_filter_build_oci(spec.seccomp, caps, NULL, &from_spec, &err) == 0,
         "%s: both filters build (%s)", what, err != NULL ? err->message : "")) {
    flags_json = seccomp_filter_profile_json(from_flags);
    spec_json = seccomp_filter_profile_json(from_spec);
    is_str(spec_json, flags_json, "%s: linux.seccomp compiles to the filter the flags asked for",
           what);
  }
  seccomp_filter_free(from_flags);
  seccomp_filter_free(from_spec);
  spec_clear(&spec);
  oci_error_free(&err);
  run_config_clear(&config);
}

static void test_seccomp_compile(void)
{
  struct seccomp_filter *filter = (struct seccomp_filter *)1;
  oci_error_t err = NULL;
  cleanup_cjson cJSON *bad = cJSON_Parse("{\"defaultAction\":\"SCMP_ACT_NOPE\"}");

  check_same_filter("default", NULL);
  check_same_filter("--cap-add SYS_ADMIN", "--cap-add", "SYS_ADMIN", NULL);
  check_same_filter("--cap-drop ALL", "--cap-drop", "ALL", NULL);
  ok(seccomp_filter_build_oci(NULL, 0, NULL, &filter, &err) == 0 && filter == NULL,
     "no linux.seccomp: no filter");
  ok(seccomp_filter_build_oci(bad, 0, NULL, &filter, &err) < 0 && filter == NULL &&
         strstr(err->message, "linux.seccomp") != NULL &&
         strstr(err->message, "SCMP_ACT_NOPE") != NULL,
     "a bad linux.seccomp is refused, naming it (%s)", err != NULL ? err->message : "");
  oci_error_free(&err);
}

static void test_rootless(void)
{
  struct userns_map single = {.uid = {{0, 1000, 1}},
                              .gid = {{0, 1000, 1}},
                              .n_ranges = 1,
                              .n_gid_ranges = 1,
                              .self_only = true};
  struct userns_map range = {.uid = {{0, 1000, 1}, {1, 100000, 65536}},
                             .gid = {{0, 1000, 1}, {1, 100000, 65536}},
                             .n_ranges = 2,
                             .n_gid_ranges = 2};
  struct variant v = {.rootless = true, .map = &single, .cgroups_path = NULL};
  char msg[1024];
  cJSON *config;
  const cJSON *ns;
  bool user_ns = false;

  config = build(&v, msg, sizeof(msg), "IMAGE", NULL);
  if (ok(config != NULL, "rootless, only the caller mapped (%s)", msg)) {
    cJSON_ArrayForEach(ns, at(config, "linux.namespaces"))
    {
      if (strcmp(str_at(ns, "type"), "user") == 0)
        user_ns = true;
    }
    ok(user_ns, "rootless: a user namespace");
    is_int(cJSON_GetArraySize(at(config, "linux.uidMappings")), 1, "one uid mapping");
    is_int(num_at(config, "linux.uidMappings[0].containerID"), 0, "containerID 0");
    is_int(num_at(config, "linux.uidMappings[0].hostID"), 1000, "hostID 1000");
    is_int(num_at(config, "linux.uidMappings[0].size"), 1, "size 1");
    is_int(cJSON_GetArraySize(at(config, "linux.gidMappings")), 1, "one gid mapping");
    ok(at(config, "process.user.additionalGids") == NULL,
       "no setgroups with one mapping: root's groups left out");
    is_str(joined(at(config, "mounts[2].options")),
           "nosuid,noexec,newinstance,ptmxmode=0666,mode=0620", "devpts without gid=5");
  }
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--user", "65534", "IMAGE", NULL);
  ok(config == NULL && strstr(msg, "--user uid 65534 gid 65534 cannot be mapped") != NULL,
     "rootless: an unmapped uid refused (%s)", msg);
  cJSON_Delete(config);
  v.map = &range;
  config = build(&v, msg, sizeof(msg), "--user", "65534", "IMAGE", NULL);
  is_int(num_at(config, "process.user.uid"), 65534, "with a range: --user 65534");
  is_int(num_at(config, "linux.uidMappings[1].hostID"), 100000, "the range's hostID");
  is_int(num_at(config, "linux.gidMappings[1].size"), 65536, "the range's size");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--user", "alice", "IMAGE", NULL);
  is_int(cJSON_GetArraySize(at(config, "process.user.additionalGids")), 2,
         "with a range: supplementary groups kept");
  cJSON_Delete(config);
  config = build(&v, msg, sizeof(msg), "--user", "70000:70000", "IMAGE", NULL);
  ok(config == NULL && strstr(msg, "outside the range") != NULL,
     "rootless: a uid outside the range refused (%s)", msg);
  cJSON_Delete(config);
  v.map = NULL;
  config = build(&v, msg, sizeof(msg), "IMAGE", NULL);
  ok(config == NULL, "rootless without a map refused (%s)", msg);
  cJSON_Delete(config);
}

/* -t: process.terminal (ocirun relays the pty); consoleSize comes from
 * the caller's terminal (command_run.c), so none here. */
static void test_terminal(void)
{
  char msg[1024];
  cleanup_cjson cJSON *plain = build(NULL, msg, sizeof(msg), "IMAGE", NULL);
  cleanup_cjson cJSON *tty = build(NULL, msg, sizeof(msg), "-it", "IMAGE", NULL);
  cleanup_cjson cJSON *long_tty = build(NULL, msg, sizeof(msg), "--tty", "IMAGE", NULL);

  ok(cJSON_IsFalse(at(plain, "process.terminal")), "without -t: process.terminal false");
  ok(cJSON_IsTrue(at(tty, "process.terminal")), "-it: process.terminal true");
  ok(at(tty, "process.consoleSize") == NULL, "-t without a known size: no consoleSize");
  ok(cJSON_IsTrue(at(long_tty, "process.terminal")), "--tty: process.terminal true");
}

int main(void)
{
  static char *cmd[] = {"sh", NULL};

  default_image.defaults.cmd = cmd;
  make_rootfs();
  test_recipe();
  test_defaults();
  test_args();
  test_env_cwd_user();
  test_capabilities();
  test_limits_and_mounts();
  test_seccomp();
  test_seccomp_compile();
  test_rootless();
  test_terminal();
  remove_rootfs();
  return unit_done();
}
