/* Unit tests of the runtime-spec configuration parser (src/runtime/spec.c):
 * a complete config.json read value by value, one refusal per rule and per
 * refused property (each naming the property), unknown properties ignored,
 * and config.json read from a bundle without following or waiting. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "runtime/capabilities.h"
#include "runtime/process_attrs.h"
#include "runtime/seccomp/rules.h"
#include "runtime/spec/spec.h"
#include "unit.h"

/* JSON written with ' for " (none of the tests needs a quote in a value). */
static char *json_text(const char *text)
{
  char *copy = strdup(text);
  for (char *c = copy; *c != '\0'; c++)
    if (*c == '\'')
      *c = '"';
  return copy;
}

static cJSON *json_parse(const char *text)
{
  cleanup_free char *copy = json_text(text);
  cJSON *json = cJSON_Parse(copy);
  if (json == NULL)
    printf("# bad test JSON: %s\n", text);
  return json;
}

/* A complete configuration: what `runc spec` writes, plus every property
 * the parser reads. */
static const char complete[] =
    "{'ociVersion': '1.2.0',"
    " 'process': {'terminal': true, 'consoleSize': {'height': 25, 'width': 80},"
    "   'user': {'uid': 1000, 'gid': 1001, 'umask': 18, 'additionalGids': [5, 6, 4294967295]},"
    "   'args': ['sh', '-c', 'echo hi'],"
    "   'env': ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', "
    "           'TERM=xterm', 'EMPTY='],"
    "   'cwd': '/home/user',"
    "   'capabilities': {'bounding': ['CAP_AUDIT_WRITE', 'CAP_KILL', 'CAP_NET_BIND_SERVICE'],"
    "     'effective': ['CAP_AUDIT_WRITE', 'CAP_KILL'],"
    "     'inheritable': ['CAP_CHOWN'],"
    "     'permitted': ['CAP_AUDIT_WRITE', 'CAP_KILL', 'CAP_NET_BIND_SERVICE'],"
    "     'ambient': ['CAP_NET_BIND_SERVICE']},"
    "   'rlimits': [{'type': 'RLIMIT_NOFILE', 'hard': 1024, 'soft': 512},"
    "               {'type': 'RLIMIT_CORE', 'hard': 18446744073709551615,"
    "                'soft': 18446744073709551615}],"
    "   'noNewPrivileges': true, 'oomScoreAdj': -500,"
    "   'apparmorProfile': '', 'selinuxLabel': '', 'commandLine': 'ignored on linux'},"
    " 'root': {'path': 'rootfs', 'readonly': true},"
    " 'hostname': 'runc', 'domainname': 'example.org',"
    " 'mounts': ["
    "   {'destination': '/proc', 'type': 'proc', 'source': 'proc'},"
    "   {'destination': '/dev', 'type': 'tmpfs', 'source': 'tmpfs',"
    "    'options': ['nosuid', 'strictatime', 'mode=755', 'size=65536k']},"
    "   {'destination': '/dev/pts', 'type': 'devpts', 'source': 'devpts',"
    "    'options': ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5']},"
    "   {'destination': '/dev/shm', 'type': 'tmpfs', 'source': 'shm',"
    "    'options': ['nosuid', 'noexec', 'nodev', 'mode=1777', 'size=65536k']},"
    "   {'destination': '/dev/mqueue', 'type': 'mqueue', 'source': 'mqueue',"
    "    'options': ['nosuid', 'noexec', 'nodev']},"
    "   {'destination': '/sys', 'type': 'sysfs', 'source': 'sysfs',"
    "    'options': ['nosuid', 'noexec', 'nodev', 'ro']},"
    "   {'destination': '/sys/fs/cgroup', 'type': 'cgroup', 'source': 'cgroup',"
    "    'options': ['nosuid', 'noexec', 'nodev', 'relatime', 'ro']},"
    "   {'destination': 'data//./x/', 'source': '/volumes/testing',"
    "    'options': ['rbind', 'rw', 'rslave', 'rnosuid', 'defaults']},"
    "   {'destination': '/ro', 'type': 'none', 'source': '/src',"
    "    'options': ['bind', 'ro', 'rw', 'noatime', 'atime', 'rprivate']}],"
    " 'hooks': {"
    "   'prestart': [{'path': '/usr/bin/fix-mounts', 'args': ['fix-mounts', 'arg1'],"
    "                 'env': ['key1=value1']}, {'path': '/usr/bin/setup-network'}],"
    "   'createRuntime': [{'path': '/bin/cr'}], 'createContainer': [{'path': '/bin/cc'}],"
    "   'startContainer': [{'path': '/bin/sc'}],"
    "   'poststart': [{'path': '/usr/bin/notify-start', 'timeout': 5}],"
    "   'poststop': [{'path': '/usr/sbin/cleanup.sh', 'args': ['cleanup.sh', '-f']}]},"
    " 'annotations': {'com.example.key1': 'value1', 'com.example.key2': ''},"
    " 'linux': {"
    "   'namespaces': [{'type': 'pid'}, {'type': 'network', 'path': '/var/run/netns/a'},"
    "     {'type': 'ipc'}, {'type': 'uts'}, {'type': 'mount'}, {'type': 'user', 'path': ''},"
    "     {'type': 'cgroup'}, {'type': 'time'}],"
    "   'uidMappings': [{'containerID': 0, 'hostID': 100000, 'size': 65536}],"
    "   'gidMappings': [{'containerID': 0, 'hostID': 200000, 'size': 1000},"
    "                   {'containerID': 1000, 'hostID': 1000, 'size': 1}],"
    "   'devices': [{'path': '/dev/fuse', 'type': 'c', 'major': 10, 'minor': 229,"
    "                'fileMode': 438, 'uid': 0, 'gid': 0},"
    "               {'path': '/dev/sda', 'type': 'b', 'major': 8, 'minor': 0},"
    "               {'path': '/dev/fifo', 'type': 'p'}],"
    "   'cgroupsPath': '/myRuntime/myContainer',"
    "   'resources': {"
    "     'memory': {'limit': 536870912, 'reservation': -1, 'swap': 1073741824,"
    "                'disableOOMKiller': false},"
    "     'cpu': {'shares': 1024, 'quota': 1000000, 'period': 500000, 'cpus': '2-3',"
    "             'mems': '0-7,9', 'idle': 0},"
    "     'pids': {'limit': 32771},"
    "     'devices': [{'allow': false, 'access': 'rwm'},"
    "                 {'allow': true, 'type': 'c', 'major': 10, 'minor': 229, 'access': 'wr'},"
    "                 {'allow': true, 'type': 'b', 'major': 8, 'access': 'm'}],"
    "     'unified': {'memory.high': '1073741824', 'io.weight': 'default 100'},"
    "     'blockIO': {}, 'hugepageLimits': []},"
    "   'rootfsPropagation': 'rslave',"
    "   'seccomp': {'defaultAction': 'SCMP_ACT_ERRNO', 'defaultErrnoRet': 1,"
    "     'architectures': ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86'],"
    "     'flags': ['SECCOMP_FILTER_FLAG_LOG'],"
    "     'syscalls': [{'names': ['getcwd', 'chmod'], 'action': 'SCMP_ACT_ALLOW'}]},"
    "   'maskedPaths': ['/proc/kcore', '/proc/latency_stats'],"
    "   'readonlyPaths': ['/proc/asound', '/proc/sys'],"
    "   'sysctl': {'net.ipv4.ip_forward': '1', 'net/ipv4/conf/eth0.100/forwarding': '0'},"
    "   'mountLabel': '', 'timeOffsets': {}},"
    " 'com.example.unknown': {'anything': [1, 2]}}";

/* Parses text; the error message (or "") in msg. */
static int parse(const char *text, struct spec *spec, char *msg, size_t size)
{
  cleanup_cjson cJSON *json = json_parse(text);
  oci_error_t err = NULL;
  int ret = spec_parse(json, spec, &err);
  snprintf(msg, size, "%s", err != NULL ? err->message : "");
  oci_error_free(&err);
  return ret;
}

static const char *mount_data(const struct spec *spec, const char *destination)
{
  for (size_t i = 0; i < spec->n_mounts; i++)
    if (strcmp(spec->mounts[i].destination, destination) == 0)
      return spec->mounts[i].data;
  return "(no such mount)";
}

static void test_complete(void)
{
  struct spec s;
  char msg[1024];
  const struct spec_process *p = &s.process;
  const struct spec_resources *r = &s.resources;

  if (!is_int(parse(complete, &s, msg, sizeof(msg)), 0, "the complete config parses (%s)", msg))
    return;
  is_str(s.oci_version, "1.2.0", "ociVersion");
  is_str(s.root_path, "rootfs", "root.path");
  ok(s.root_readonly, "root.readonly");
  ok(s.has_process, "has_process");
  ok(p->terminal, "process.terminal");
  is_int(p->console_height, 25, "consoleSize.height");
  is_int(p->console_width, 80, "consoleSize.width");
  is_int(p->uid, 1000, "user.uid");
  is_int(p->gid, 1001, "user.gid");
  ok(p->umask_set && p->umask == 022, "user.umask 18 is 022");
  is_int(p->n_additional_gids, 3, "three additionalGids");
  is_int(p->additional_gids[2], 4294967295u, "an additionalGid at the top of uint32");
  is_int(strv_length(p->args), 3, "three args");
  is_str(p->args[2], "echo hi", "args[2]");
  is_int(strv_length(p->env), 3, "three env entries");
  is_str(p->env[2], "EMPTY=", "env[2], an empty value");
  is_str(p->cwd, "/home/user", "cwd");
  is_int(p->cap_bounding,
         (1ull << CAP_AUDIT_WRITE) | (1ull << CAP_KILL) | (1ull << CAP_NET_BIND_SERVICE),
         "capabilities.bounding");
  is_int(p->cap_effective, (1ull << CAP_AUDIT_WRITE) | (1ull << CAP_KILL),
         "capabilities.effective");
  is_int(p->cap_inheritable, 1ull << CAP_CHOWN, "capabilities.inheritable");
  is_int(p->cap_permitted, p->cap_bounding, "capabilities.permitted");
  is_int(p->cap_ambient, 1ull << CAP_NET_BIND_SERVICE, "capabilities.ambient");
  is_int(p->n_rlimits, 2, "two rlimits");
  ok(p->rlimits[0].resource == RLIMIT_NOFILE && p->rlimits[0].soft == 512 &&
         p->rlimits[0].hard == 1024,
     "RLIMIT_NOFILE 512/1024");
  ok(p->rlimits[1].resource == RLIMIT_CORE && p->rlimits[1].soft == UINT64_MAX &&
         p->rlimits[1].hard == UINT64_MAX,
     "RLIMIT_CORE 2^64-1 (unlimited) read as UINT64_MAX");
  ok(p->no_new_privileges, "noNewPrivileges");
  ok(p->oom_score_adj_set && p->oom_score_adj == -500, "oomScoreAdj -500");
  is_str(s.hostname, "runc", "hostname");
  is_str(s.domainname, "example.org", "domainname");

  is_int(s.n_mounts, 9, "nine mounts");
  is_str(s.mounts[0].destination, "/proc", "mounts[0].destination");
  is_str(s.mounts[0].type, "proc", "mounts[0].type");
  is_str(s.mounts[0].source, "proc", "mounts[0].source");
  ok(s.mounts[0].data == NULL && s.mounts[0].flags == 0, "mounts[0]: no options");
  is_str(s.mounts[1].data, "mode=755,size=65536k", "tmpfs: unknown options go to data");
  is_int(s.mounts[1].flags, MS_NOSUID | MS_STRICTATIME, "tmpfs: nosuid, strictatime");
  is_str(mount_data(&s, "/dev/pts"), "newinstance,ptmxmode=0666,mode=0620,gid=5",
         "devpts data, in order");
  is_int(s.mounts[3].flags, MS_NOSUID | MS_NOEXEC | MS_NODEV, "/dev/shm flags");
  is_int(s.mounts[6].flags, MS_NOSUID | MS_NOEXEC | MS_NODEV | MS_RELATIME | MS_RDONLY,
         "/sys/fs/cgroup flags");
  is_str(s.mounts[7].destination, "/data/x", "a relative destination is taken from /, normalised");
  ok(s.mounts[7].bind && s.mounts[7].recursive, "rbind: bind, recursive");
  ok(s.mounts[7].type == NULL, "no type given: NULL");
  is_int(s.mounts[7].clear_flags, MS_RDONLY, "rw clears MS_RDONLY");
  is_int(s.mounts[7].flags, MS_NOSUID, "rnosuid sets MS_NOSUID");
  is_int(s.mounts[7].propagation, MS_SLAVE | MS_REC, "rslave");
  ok(s.mounts[7].data == NULL, "defaults is not data");
  ok(s.mounts[8].bind && !s.mounts[8].recursive, "bind: not recursive");
  is_int(s.mounts[8].flags, 0, "ro then rw, noatime then atime: the last wins");
  is_int(s.mounts[8].clear_flags, MS_RDONLY | MS_NOATIME, "and are cleared");
  is_int(s.mounts[8].propagation, MS_PRIVATE | MS_REC, "rprivate");
  ok(!s.mounts[8].recursive, "bind with rprivate: still not a recursive bind");

  is_int(s.hooks[SPEC_HOOK_PRESTART].n_hooks, 2, "two prestart hooks");
  is_str(s.hooks[SPEC_HOOK_PRESTART].hooks[0].path, "/usr/bin/fix-mounts", "prestart[0].path");
  is_str(s.hooks[SPEC_HOOK_PRESTART].hooks[0].args[1], "arg1", "prestart[0].args[1]");
  is_str(s.hooks[SPEC_HOOK_PRESTART].hooks[0].env[0], "key1=value1", "prestart[0].env[0]");
  ok(s.hooks[SPEC_HOOK_PRESTART].hooks[1].args == NULL, "prestart[1]: no args, NULL");
  is_str(s.hooks[SPEC_HOOK_CREATE_RUNTIME].hooks[0].path, "/bin/cr", "createRuntime");
  is_str(s.hooks[SPEC_HOOK_CREATE_CONTAINER].hooks[0].path, "/bin/cc", "createContainer");
  is_str(s.hooks[SPEC_HOOK_START_CONTAINER].hooks[0].path, "/bin/sc", "startContainer");
  is_int(s.hooks[SPEC_HOOK_POSTSTART].hooks[0].timeout, 5, "poststart[0].timeout");
  is_int(s.hooks[SPEC_HOOK_POSTSTOP].n_hooks, 1, "one poststop hook");
  is_int(s.n_annotations, 2, "two annotations");
  is_str(s.annotations[0].key, "com.example.key1", "annotation key");
  is_str(s.annotations[0].value, "value1", "annotation value");
  is_str(s.annotations[1].value, "", "an empty annotation value");

  for (int t = 0; t < SPEC_NS_COUNT; t++)
    ok(s.namespaces[t].present, "namespace %s present", spec_namespace_name(t));
  is_str(s.namespaces[SPEC_NS_NETWORK].path, "/var/run/netns/a", "network namespace path");
  ok(s.namespaces[SPEC_NS_USER].path == NULL, "an empty namespace path: a new one");
  ok(s.n_uid_mappings == 1 && s.uid_mappings[0].container_id == 0 &&
         s.uid_mappings[0].host_id == 100000 && s.uid_mappings[0].size == 65536,
     "uidMappings");
  ok(s.n_gid_mappings == 2 && s.gid_mappings[1].host_id == 1000 && s.gid_mappings[1].size == 1,
     "gidMappings");
  is_int(s.n_devices, 3, "three devices");
  ok(s.devices[0].type == 'c' && s.devices[0].major == 10 && s.devices[0].minor == 229,
     "/dev/fuse c 10:229");
  ok(s.devices[0].file_mode_set && s.devices[0].file_mode == 0666, "fileMode 438 is 0666");
  ok(s.devices[0].uid_set && s.devices[0].gid_set && s.devices[0].uid == 0, "uid, gid");
  ok(!s.devices[1].file_mode_set && !s.devices[1].uid_set, "fileMode, uid not given");
  ok(s.devices[2].type == 'p', "a FIFO needs no major or minor");
  is_str(s.cgroups_path, "/myRuntime/myContainer", "cgroupsPath");
  ok(s.has_resources, "has_resources");
  is_int(r->memory_limit, 536870912, "memory.limit");
  is_int(r->memory_reservation, INT64_MAX, "memory.reservation -1 is unlimited (INT64_MAX)");
  is_int(r->memory_swap, 1073741824, "memory.swap");
  ok(r->cpu_shares_set && r->cpu_shares == 1024, "cpu.shares");
  is_int(r->cpu_quota, 1000000, "cpu.quota");
  is_int(r->cpu_period, 500000, "cpu.period");
  is_str(r->cpuset_cpus, "2-3", "cpu.cpus");
  is_str(r->cpuset_mems, "0-7,9", "cpu.mems");
  is_int(r->pids_limit, 32771, "pids.limit");
  is_int(r->n_devices, 3, "three device rules");
  ok(!r->devices[0].allow && r->devices[0].type == 'a' && r->devices[0].major == -1 &&
         r->devices[0].minor == -1,
     "deny rule: type and numbers absent mean any");
  is_str(r->devices[0].access, "rwm", "deny rule access");
  ok(r->devices[1].allow && r->devices[1].type == 'c' && r->devices[1].major == 10 &&
         r->devices[1].minor == 229,
     "allow c 10:229");
  is_str(r->devices[1].access, "rw", "access 'wr' kept in rwm order");
  ok(r->devices[2].major == 8 && r->devices[2].minor == -1, "b 8:*");
  is_int(r->n_unified, 2, "two unified entries");
  is_str(r->unified[1].key, "io.weight", "unified key");
  is_str(r->unified[1].value, "default 100", "unified value");
  is_int(s.rootfs_propagation, MS_SLAVE | MS_REC, "rootfsPropagation rslave");
  ok(s.seccomp != NULL && cJSON_IsObject(s.seccomp), "seccomp kept");
  is_str(cJSON_GetStringValue(cJSON_GetObjectItem(s.seccomp, "defaultAction")), "SCMP_ACT_ERRNO",
         "seccomp.defaultAction in the copy");
  is_int(cJSON_GetArraySize(cJSON_GetObjectItem(s.seccomp, "syscalls")), 1, "seccomp.syscalls");
  {
    cleanup_free char *text = cJSON_PrintUnformatted(s.seccomp);
    struct seccomp_profile *profile = NULL;
    oci_error_t err = NULL;
    ok(seccomp_profile_parse(text, "linux.seccomp", &profile, &err) == 0,
       "the profile compiler reads the copy (%s)", err != NULL ? err->message : "");
    seccomp_profile_free(profile);
    oci_error_free(&err);
  }
  is_int(strv_length(s.masked_paths), 2, "maskedPaths");
  is_str(s.readonly_paths[1], "/proc/sys", "readonlyPaths");
  is_int(s.n_sysctl, 2, "two sysctls");
  is_str(s.sysctl[0].key, "net.ipv4.ip_forward", "sysctl key");
  is_str(s.sysctl[0].value, "1", "sysctl value");
  spec_clear(&s);
  ok(s.mounts == NULL && s.process.args == NULL && s.seccomp == NULL, "spec_clear empties");
}

/* The smallest configuration with a process, which the refusal tests
 * change one property at a time. */
static const char base[] = "{'ociVersion': '1.0.2', 'root': {'path': 'rootfs'},"
                           " 'process': {'args': ['sh'], 'cwd': '/', 'user': {'uid': 0, 'gid': 0}},"
                           " 'linux': {'resources': {'memory': {}, 'cpu': {}}}}";

/* base with the member at a dotted path set to value (JSON text with '),
 * or removed when value is NULL. */
static cJSON *base_with(const char *dotted, const char *value)
{
  cJSON *config = json_parse(base);
  cleanup_free char *path = strdup(dotted);
  cJSON *object = config;
  char *key = path, *dot;

  while ((dot = strchr(key, '.')) != NULL) {
    cJSON *next;
    *dot = '\0';
    next = cJSON_GetObjectItemCaseSensitive(object, key);
    if (next == NULL)
      next = cJSON_AddObjectToObject(object, key);
    object = next;
    key = dot + 1;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(object, key);
  if (value != NULL)
    cJSON_AddItemToObject(object, key, json_parse(value));
  return config;
}

static int parse_changed(const char *dotted, const char *value, char *msg, size_t size)
{
  cleanup_cjson cJSON *config = base_with(dotted, value);
  struct spec s;
  oci_error_t err = NULL;
  int ret = spec_parse(config, &s, &err);
  snprintf(msg, size, "%s", err != NULL ? err->message : "");
  oci_error_free(&err);
  spec_clear(&s);
  return ret;
}

/* Setting dotted to value is refused with a message containing want. */
static void refused(const char *dotted, const char *value, const char *want)
{
  char msg[1024];
  int ret = parse_changed(dotted, value, msg, sizeof(msg));
  if (!ok(ret == -1 && strstr(msg, want) != NULL, "%s = %s refused: %s", dotted,
          value != NULL ? value : "(removed)", want))
    printf("#   returned %d, message: '%s'\n", ret, msg);
}

static void accepted(const char *dotted, const char *value)
{
  char msg[1024];
  int ret = parse_changed(dotted, value, msg, sizeof(msg));
  if (!ok(ret == 0, "%s = %s accepted", dotted, value != NULL ? value : "(removed)"))
    printf("#   message: '%s'\n", msg);
}

static void test_rules(void)
{
  /* ociVersion, root */
  refused("ociVersion", NULL, "ociVersion: required");
  refused("ociVersion", "2", "ociVersion: expected a string");
  refused("ociVersion", "'2.0.0'", "ociVersion: version 2 is not supported");
  refused("ociVersion", "'0.1.0'", "ociVersion: version 0 is not supported");
  refused("ociVersion", "'1.2'", "ociVersion: '1.2' is not a SemVer version");
  refused("ociVersion", "'1.02.0'", "not a SemVer version");
  refused("ociVersion", "'1.2.0x'", "not a SemVer version");
  accepted("ociVersion", "'1.3.0-rc.1+dev'");
  refused("root", NULL, "root: required");
  refused("root", "'rootfs'", "root: expected an object, got a string");
  refused("root.path", "''", "root.path: empty");
  refused("root.path", NULL, "root.path: required");
  refused("root.readonly", "'yes'", "root.readonly: expected a boolean");

  /* process */
  accepted("process", NULL);
  refused("process.args", "[]", "process.args: at least one entry is required");
  refused("process.args", NULL, "process.args: at least one entry is required");
  refused("process.args", "['sh', 1]", "process.args[1]: expected a string, got a number");
  refused("process.args", "['']", "process.args[0]: empty");
  refused("process.cwd", "'tmp'", "process.cwd: 'tmp' is not an absolute path");
  refused("process.cwd", NULL, "process.cwd: required");
  refused("process.env", "['PATH=/bin', 'NOVALUE']", "process.env[1]: 'NOVALUE' is not NAME=VALUE");
  refused("process.env", "['=x']", "process.env[0]: '=x' is not NAME=VALUE");
  refused("process.user", NULL, "process.user: required");
  refused("process.user", "{'gid': 0}", "process.user.uid: required");
  refused("process.user", "{'uid': 0}", "process.user.gid: required");
  refused("process.user.uid", "-1", "process.user.uid: -1 is negative");
  refused("process.user.uid", "4294967296", "process.user.uid: 4294967296 is above 4294967295");
  refused("process.user.gid", "1.5", "process.user.gid: not an integer");
  refused("process.user.gid", "'0'", "process.user.gid: expected an integer, got a string");
  refused("process.user.umask", "512", "process.user.umask: 01000 is not a umask");
  refused("process.user.additionalGids", "[1, -2]",
          "process.user.additionalGids[1]: -2 is negative");
  accepted("process.user.username", "'ignored: Windows only'");
  refused("process.capabilities.bounding", "['CAP_CHOWN', 'CAP_FOO']",
          "process.capabilities.bounding[1]: unknown capability 'CAP_FOO'");
  refused("process.capabilities.ambient", "['ALL']",
          "process.capabilities.ambient[0]: unknown capability 'ALL'");
  refused("process.capabilities.effective", "'CAP_CHOWN'",
          "process.capabilities.effective: expected an array");
  refused("process.rlimits",
          "[{'type': 'RLIMIT_NOFILE', 'soft': 1, 'hard': 1},"
          " {'type': 'RLIMIT_FOO', 'soft': 1, 'hard': 1}]",
          "process.rlimits[1].type: unknown rlimit 'RLIMIT_FOO'");
  refused("process.rlimits",
          "[{'type': 'RLIMIT_NOFILE', 'soft': 1, 'hard': 1},"
          " {'type': 'RLIMIT_NOFILE', 'soft': 2, 'hard': 2}]",
          "process.rlimits[1].type: RLIMIT_NOFILE is given twice");
  refused("process.rlimits", "[{'type': 'RLIMIT_NOFILE', 'soft': 1}]",
          "process.rlimits[0].hard: required");
  refused("process.rlimits", "[{'type': 'RLIMIT_NOFILE', 'soft': 2, 'hard': 1}]",
          "process.rlimits[0]: RLIMIT_NOFILE: soft limit 2 is above the hard limit 1");
  refused("process.rlimits", "[{'type': 'RLIMIT_NOFILE', 'soft': -1, 'hard': 1}]",
          "process.rlimits[0].soft: -1 is negative");
  refused("process.oomScoreAdj", "1001", "process.oomScoreAdj: 1001 is out of range [-1000, 1000]");
  refused("process.oomScoreAdj", "-1001", "process.oomScoreAdj: -1001 is out of range");
  accepted("process.oomScoreAdj", "1000");
  refused("process.terminal", "1", "process.terminal: expected a boolean");
  refused("process.noNewPrivileges", "'true'", "process.noNewPrivileges: expected a boolean");
  accepted("process.consoleSize", "'ignored without a terminal'");
  {
    char msg[1024];
    cleanup_cjson cJSON *config = base_with("process.terminal", "true");
    struct spec s;
    oci_error_t err = NULL;
    cJSON_AddItemToObject(cJSON_GetObjectItem(config, "process"), "consoleSize",
                          json_parse("{'height': 70000, 'width': 80}"));
    is_int(spec_parse(config, &s, &err), -1, "a console height above 65535 refused");
    snprintf(msg, sizeof(msg), "%s", err != NULL ? err->message : "");
    ok(strstr(msg, "process.consoleSize.height: 70000 is above 65535") != NULL, "named (%s)", msg);
    oci_error_free(&err);
  }

  /* mounts */
  refused("mounts", "[{'type': 'tmpfs'}]", "mounts[0].destination: required");
  refused("mounts", "[{'destination': '/a/../b'}]",
          "mounts[0].destination: '/a/../b' contains '..'");
  refused("mounts", "[{'destination': ''}]", "mounts[0].destination: empty");
  refused("mounts", "[{'destination': '/a', 'options': ['ro', 7]}]",
          "mounts[0].options[1]: expected a string");
  refused("mounts", "[{'destination': '/a', 'options': ['']}]",
          "mounts[0].options[0]: an empty option");
  /* runc's and crun's tmpcopyup is taken (podman asks for it): a flag, not data */
  {
    cleanup_cjson cJSON *config =
        base_with("mounts", "[{'destination': '/a', 'type': 'tmpfs', 'options': ['tmpcopyup']}]");
    struct spec s;
    oci_error_t err = NULL;

    ok(spec_parse(config, &s, &err) == 0 && s.n_mounts == 1 && s.mounts[0].tmpcopyup &&
           s.mounts[0].data == NULL,
       "mounts[0].options: tmpcopyup is taken as the mount's tmpcopyup flag");
    oci_error_free(&err);
    spec_clear(&s);
  }
  /* an r- attribute form is about the tree's mounts: it never makes a bind
   * take the tree (it did: "bind" + "rro" cloned every host submount) */
  {
    cleanup_cjson cJSON *config = base_with(
        "mounts", "[{'destination': '/a', 'source': '/s', 'options': ['bind', 'rro', 'rdev']},"
                  " {'destination': '/b', 'source': '/s', 'options': ['rbind', 'rnosuid', 'rw']}]");
    struct spec s;
    oci_error_t err = NULL;

    ok(spec_parse(config, &s, &err) == 0 && s.n_mounts == 2, "bind with rro, rbind with rnosuid");
    ok(s.n_mounts == 2 && s.mounts[0].bind && !s.mounts[0].recursive,
       "bind + rro + rdev: still one mount, not the tree");
    ok(s.n_mounts == 2 && s.mounts[0].flags == MS_RDONLY && s.mounts[0].rec_flags == MS_RDONLY &&
           s.mounts[0].clear_flags == MS_NODEV && s.mounts[0].rec_clear_flags == MS_NODEV,
       "rro and rdev: for the top mount and for the tree");
    ok(s.n_mounts == 2 && s.mounts[1].recursive && s.mounts[1].rec_flags == MS_NOSUID &&
           s.mounts[1].rec_clear_flags == 0 && s.mounts[1].clear_flags == MS_RDONLY,
       "rbind + rnosuid + rw: the tree nosuid, rw only for the top mount");
    oci_error_free(&err);
    spec_clear(&s);
  }
  refused("mounts", "[{'destination': '/a', 'options': ['rbind', 'idmap'], 'uidMappings': 3}]",
          "mounts[0].uidMappings: expected an array");
  refused("mounts", "[{'destination': '/a', 'type': 3}]", "mounts[0].type: expected a string");
  refused("mounts", "{'destination': '/a'}", "mounts: expected an array");
  refused("hostname", "'a-name-longer-than-sixty-four-bytes-is-refused-by-sethostname-so-here'",
          "hostname: longer than 64 bytes");
  refused("domainname", "7", "domainname: expected a string");

  /* hooks, annotations */
  refused("hooks.prestart", "[{'path': 'relative'}]",
          "hooks.prestart[0].path: 'relative' is not an absolute path");
  refused("hooks.poststop", "[{'args': ['x']}]", "hooks.poststop[0].path: required");
  refused("hooks.poststart", "[{'path': '/x', 'timeout': 0}]",
          "hooks.poststart[0].timeout: 0 is not above zero");
  refused("hooks.createRuntime", "[{'path': '/x', 'timeout': -3}]",
          "hooks.createRuntime[0].timeout: -3 is not above zero");
  refused("hooks.startContainer", "[{'path': '/x', 'env': ['bad']}]",
          "hooks.startContainer[0].env[0]: 'bad' is not NAME=VALUE");
  refused("hooks.createContainer", "[{'path': '/x', 'args': 'x'}]",
          "hooks.createContainer[0].args: expected an array");
  accepted("hooks.someFutureHook", "[{'path': 'not checked'}]");
  refused("annotations", "{'a': 1}", "annotations.a: expected a string, got a number");
  refused("annotations", "{'': 'x'}", "annotations: an empty key");

  /* linux: namespaces, mappings, devices */
  refused("linux.namespaces", "[{'type': 'pid'}, {'type': 'pid'}]",
          "linux.namespaces[1].type: the pid namespace is given twice");
  refused("linux.namespaces", "[{'type': 'net'}]",
          "linux.namespaces[0].type: unknown namespace type 'net'");
  refused("linux.namespaces", "[{'path': '/proc/1/ns/pid'}]", "linux.namespaces[0].type: required");
  refused("linux.namespaces", "[{'type': 'pid', 'path': 'proc/1/ns/pid'}]",
          "linux.namespaces[0].path: 'proc/1/ns/pid' is not an absolute path");
  refused("linux.uidMappings", "[{'containerID': 0, 'hostID': 1000}]",
          "linux.uidMappings[0].size: required");
  refused("linux.gidMappings", "[{'containerID': 0, 'hostID': 1000, 'size': 0}]",
          "linux.gidMappings[0]: size 0 maps nothing");
  refused("linux.gidMappings", "[{'containerID': 4294967295, 'hostID': 1000, 'size': 2}]",
          "linux.gidMappings[0]: the range passes 2^32");
  refused("linux.devices", "[{'path': '/dev/x', 'type': 'x', 'major': 1, 'minor': 1}]",
          "linux.devices[0].type: 'x' is not one of c, b, u, p");
  refused("linux.devices", "[{'path': 'dev/x', 'type': 'c', 'major': 1, 'minor': 1}]",
          "linux.devices[0].path: 'dev/x' is not an absolute path");
  refused("linux.devices", "[{'path': '/dev/../x', 'type': 'c', 'major': 1, 'minor': 1}]",
          "linux.devices[0].path: '/dev/../x' contains '..'");
  refused("linux.devices", "[{'path': '/dev/x', 'type': 'c', 'minor': 1}]",
          "linux.devices[0].major: required");
  refused("linux.devices", "[{'path': '/dev/x', 'type': 'u', 'major': 1}]",
          "linux.devices[0].minor: required");
  refused("linux.devices",
          "[{'path': '/dev/x', 'type': 'b', 'major': 1, 'minor': 1, 'fileMode': 4095}]",
          "linux.devices[0].fileMode: 07777 is not a permission mode");
  refused("linux.devices", "[{'path': '/dev/x', 'type': 'c', 'major': 1, 'minor': 1, 'uid': -1}]",
          "linux.devices[0].uid: -1 is negative");
  refused("linux.cgroupsPath", "1", "linux.cgroupsPath: expected a string");

  /* linux.resources */
  refused("linux.resources.memory.limit", "-2", "linux.resources.memory.limit: -2 is out of range");
  refused("linux.resources.memory.reservation", "'1g'",
          "linux.resources.memory.reservation: expected an integer");
  refused("linux.resources.memory", "{'limit': 2000, 'swap': 1000}",
          "linux.resources.memory.swap: 1000 (memory+swap) is below the memory limit 2000");
  accepted("linux.resources.memory", "{'limit': 2000, 'swap': -1}");
  refused("linux.resources.cpu.quota", "-2", "linux.resources.cpu.quota: -2 is out of range");
  refused("linux.resources.cpu.shares", "-1", "linux.resources.cpu.shares: -1 is negative");
  refused("linux.resources.cpu.cpus", "'0-'", "linux.resources.cpu.cpus: '0-' is not a list");
  refused("linux.resources.cpu.cpus", "'3-1'", "linux.resources.cpu.cpus: '3-1' is not a list");
  refused("linux.resources.cpu.mems", "'0,'", "linux.resources.cpu.mems: '0,' is not a list");
  refused("linux.resources.cpu.mems", "'a'", "linux.resources.cpu.mems: 'a' is not a list");
  refused("linux.resources.pids", "{}", "linux.resources.pids.limit: required");
  {
    struct spec s;
    char msg[1024];
    cleanup_cjson cJSON *config = base_with("linux.resources.pids", "{'limit': -1}");
    oci_error_t err = NULL;
    is_int(spec_parse(config, &s, &err), 0, "pids.limit -1 parses");
    is_int(s.resources.pids_limit, 0, "pids.limit -1 is unlimited (0)");
    ok(s.resources.memory_limit == -1 && s.resources.cpu_quota == -1 &&
           !s.resources.cpu_shares_set && s.resources.cpu_period == 0 &&
           s.resources.cpuset_cpus == NULL,
       "limits not given stay unset");
    spec_clear(&s);
    (void)msg;
  }
  refused("linux.resources.devices", "[{'access': 'rwm'}]",
          "linux.resources.devices[0].allow: required");
  refused("linux.resources.devices", "[{'allow': true, 'type': 'u'}]",
          "linux.resources.devices[0].type: 'u' is not one of a, c, b");
  refused("linux.resources.devices", "[{'allow': true, 'access': 'rwx'}]",
          "linux.resources.devices[0].access: 'rwx' is not a combination of r, w and m");
  refused("linux.resources.devices", "[{'allow': true, 'access': 'rr'}]",
          "linux.resources.devices[0].access: 'rr' is not a combination");
  refused("linux.resources.devices", "[{'allow': true, 'major': -2}]",
          "linux.resources.devices[0].major: -2 is out of range");
  refused("linux.resources.unified", "{'../../cgroup.procs': '1'}",
          "linux.resources.unified.../../cgroup.procs: not a cgroup file name");
  refused("linux.resources.unified", "{'..': '1'}", "not a cgroup file name");
  refused("linux.resources.unified", "{'memory.max': 1}",
          "linux.resources.unified.memory.max: expected a string");

  /* linux: seccomp, paths, sysctl, propagation */
  refused("linux.seccomp", "{}", "linux.seccomp.defaultAction: required");
  refused("linux.seccomp", "[]", "linux.seccomp: expected an object");
  refused("linux.seccomp", "{'defaultAction': 'SCMP_ACT_FOO'}",
          "linux.seccomp.defaultAction: unknown action 'SCMP_ACT_FOO'");
  refused("linux.seccomp", "{'defaultAction': 'SCMP_ACT_NOTIFY'}",
          "linux.seccomp.defaultAction: SCMP_ACT_NOTIFY is not supported by ocirun (without "
          "linux.seccomp.listenerPath");
  refused("linux.seccomp",
          "{'defaultAction': 'SCMP_ACT_ALLOW', 'listenerPath': '',"
          " 'syscalls': [{'names': ['mkdir'], 'action': 'SCMP_ACT_NOTIFY'}]}",
          "linux.seccomp.syscalls[0].action: SCMP_ACT_NOTIFY is not supported by ocirun");
  accepted("linux.seccomp", "{'defaultAction': 'SCMP_ACT_ALLOW', 'listenerPath': '/run/agent',"
                            " 'syscalls': [{'names': ['mkdir'], 'action': 'SCMP_ACT_NOTIFY'}]}");
  accepted("linux.seccomp", "{'defaultAction': 'SCMP_ACT_NOTIFY', 'listenerPath': '/run/agent',"
                            " 'listenerMetadata': 'meta'}");
  refused("linux.seccomp",
          "{'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': ['a'], 'action': 'X'}]}",
          "linux.seccomp.syscalls[0].action: unknown action 'X'");
  refused(
      "linux.seccomp",
      "{'defaultAction': 'SCMP_ACT_ALLOW', 'flags': ['SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV']}",
      "linux.seccomp.flags[0]: the seccomp flag 'SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV' is "
      "not supported by ocirun");
  accepted("linux.seccomp", "{'defaultAction': 'SCMP_ACT_ALLOW', 'listenerPath': '/run/agent'}");
  refused("linux.seccomp", "{'defaultAction': 'SCMP_ACT_ALLOW', 'listenerPath': 'run/agent'}",
          "linux.seccomp.listenerPath: 'run/agent' is not an absolute path");
  refused("linux.seccomp", "{'defaultAction': 'SCMP_ACT_ALLOW', 'listenerPath': 7}",
          "linux.seccomp.listenerPath");
  refused("linux.seccomp", "{'defaultAction': 'SCMP_ACT_ALLOW', 'listenerMetadata': 'x'}",
          "linux.seccomp.listenerMetadata: set without linux.seccomp.listenerPath");
  refused("linux.maskedPaths", "['/proc/kcore', 'proc/keys']",
          "linux.maskedPaths[1]: 'proc/keys' is not an absolute path");
  refused("linux.readonlyPaths", "['']", "linux.readonlyPaths[0]: '' is not an absolute path");
  refused("linux.sysctl", "{'net.ipv4..x': '1'}", "linux.sysctl.net.ipv4..x: not a sysctl name");
  refused("linux.sysctl", "{'net/../../../etc/x': '1'}", "not a sysctl name");
  refused("linux.sysctl", "{'/kernel/x': '1'}", "not a sysctl name");
  refused("linux.sysctl", "{'kernel.x': 1}", "linux.sysctl.kernel.x: expected a string");
  refused("linux.rootfsPropagation", "'bind'", "linux.rootfsPropagation: 'bind' is not one of");
  refused("linux", "[]", "linux: expected an object");
}

static void test_refused_properties(void)
{
  static const struct {
    const char *dotted, *value;
  } cases[] = {
      {"linux.intelRdt", "{'closID': 'x'}"},
      {"linux.intelRdt", "{}"},
      {"linux.mountLabel", "'system_u:object_r:svirt_sandbox_file_t:s0'"},
      {"linux.netDevices", "{'eth0': {'name': 'eth1'}}"},
      {"process.apparmorProfile", "'acme_secure_profile'"},
      {"process.selinuxLabel", "'system_u:system_r:svirt_lxc_net_t:s0'"},
      {"linux.resources.blockIO.leafWeight", "500"},
      {"linux.resources.network", "{'classID': 1}"},
      {"linux.resources.rdma", "{'mlx5_1': {'hcaHandles': 3}}"},
      {"linux.resources.memory.kernel", "-1"},
      {"linux.resources.memory.kernelTCP", "-1"},
      {"linux.resources.memory.swappiness", "0"},
      {"linux.resources.memory.disableOOMKiller", "true"},
      {"linux.resources.memory.useHierarchy", "true"},
      {"linux.resources.memory.checkBeforeUpdate", "true"},
      {"linux.resources.cpu.realtimeRuntime", "950000"},
      {"linux.resources.cpu.realtimePeriod", "1000000"},
      {"windows", "{'layerFolders': []}"},
      {"solaris", "{}"},
      {"vm", "{'hypervisor': {'path': '/x'}}"},
      {"zos", "{}"},
      {"freebsd", "{}"},
  };
  char want[256];
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    snprintf(want, sizeof(want), "%s is not supported by ocirun", cases[i].dotted);
    refused(cases[i].dotted, cases[i].value, want);
  }
  /* idmapped mounts: parsed here, checked against the mount in the plan */
  accepted("mounts",
           "[{'destination': '/a', 'uidMappings': [{'containerID': 0, 'hostID': 1, 'size': 1}]}]");
  refused("mounts",
          "[{'destination': '/a', 'gidMappings': [{'containerID': 0, 'hostID': 1, 'size': 0}]}]",
          "mounts[0].gidMappings[0]: size 0 maps nothing");
  accepted("mounts", "[{'destination': '/a', 'options': ['bind', 'ridmap']}]");
  /* the values that ask for nothing */
  accepted("linux.mountLabel", "''");
  accepted("process.apparmorProfile", "''");
  accepted("linux.resources.memory.disableOOMKiller", "false");
  accepted("linux.resources.memory.checkBeforeUpdate", "false");
  accepted("linux.resources.cpu.idle", "0");
  accepted("linux.resources.hugepageLimits", "[]");
  accepted("linux.resources.blockIO", "{}");
  accepted("linux.intelRdt", "null");
}

/* base with dotted set to value, parsed into *s (spec_clear it). */
static int parse_with(const char *dotted, const char *value, struct spec *s)
{
  cleanup_cjson cJSON *config = base_with(dotted, value);
  oci_error_t err = NULL;
  int ret = spec_parse(config, s, &err);

  if (ret < 0)
    printf("#   message: '%s'\n", err->message);
  oci_error_free(&err);
  return ret;
}

/* What dockerd writes for every container that asks for no CPU weight. */
static void test_cpu_shares_zero(void)
{
  struct spec s;

  if (is_int(
          parse_with("linux.resources.cpu", "{'shares': 0, 'quota': 50000, 'period': 100000}", &s),
          0, "cpu {shares: 0} (dockerd's) parses"))
    ok(!s.resources.cpu_shares_set && s.resources.cpu_quota == 50000,
       "cpu.shares 0: not given, the quota kept");
  spec_clear(&s);
}

static void test_block_io(void)
{
  struct spec s;
  const struct spec_resources *r = &s.resources;

  /* what dockerd writes for every container */
  if (is_int(parse_with("linux.resources.blockIO", "{'weight': 0}", &s), 0,
             "blockIO {weight: 0} (dockerd's) parses"))
    is_int(r->blkio_weight, 0, "weight 0: not given");
  spec_clear(&s);
  if (is_int(parse_with("linux.resources.blockIO",
                        "{'weight': 500, 'leafWeight': 0,"
                        " 'weightDevice': [{'major': 8, 'minor': 0, 'weight': 300},"
                        "                  {'major': 8, 'minor': 16, 'leafWeight': 0}],"
                        " 'throttleReadBpsDevice': [{'major': 8, 'minor': 0, 'rate': 1048576}],"
                        " 'throttleWriteBpsDevice': [{'major': 8, 'minor': 0, 'rate': 0}],"
                        " 'throttleReadIOPSDevice': [{'major': 254, 'minor': 1, 'rate': 100}],"
                        " 'throttleWriteIOPSDevice': [{'major': 4095, 'minor': 1048575,"
                        "                              'rate': 9007199254740992}]}",
                        &s),
             0, "a full blockIO parses")) {
    is_int(r->blkio_weight, 500, "weight");
    is_int(r->n_blkio_weight_devices, 2, "two weightDevice entries");
    ok(r->blkio_weight_devices[0].device.major == 8 &&
           r->blkio_weight_devices[0].device.minor == 0 && r->blkio_weight_devices[0].weight == 300,
       "weightDevice[0] 8:0 300");
    is_int(r->blkio_weight_devices[1].weight, 0, "weightDevice[1] without a weight");
    ok(r->blkio_throttles[SPEC_THROTTLE_READ_BPS].n == 1 &&
           r->blkio_throttles[SPEC_THROTTLE_READ_BPS].items[0].rate == 1048576,
       "throttleReadBpsDevice");
    ok(r->blkio_throttles[SPEC_THROTTLE_WRITE_BPS].items[0].rate == 0, "throttleWriteBpsDevice 0");
    ok(r->blkio_throttles[SPEC_THROTTLE_READ_IOPS].items[0].device.major == 254,
       "throttleReadIOPSDevice");
    ok(r->blkio_throttles[SPEC_THROTTLE_WRITE_IOPS].items[0].device.minor == 1048575 &&
           r->blkio_throttles[SPEC_THROTTLE_WRITE_IOPS].items[0].rate == 9007199254740992ULL,
       "throttleWriteIOPSDevice at the largest numbers");
  }
  spec_clear(&s);
  refused("linux.resources.blockIO.weight", "9", "blockIO.weight: 9 is outside 10..1000");
  refused("linux.resources.blockIO.weight", "1001", "blockIO.weight: 1001 is outside 10..1000");
  refused("linux.resources.blockIO.weight", "'500'", "blockIO.weight: expected an integer");
  refused("linux.resources.blockIO.leafWeight", "10",
          "blockIO.leafWeight is not supported by ocirun (cgroup v2 has no leaf weight");
  refused("linux.resources.blockIO.weightDevice", "[{'major': 8, 'minor': 0, 'leafWeight': 10}]",
          "weightDevice[0].leafWeight: is not supported by ocirun");
  refused("linux.resources.blockIO.weightDevice", "[{'major': 8, 'minor': 0, 'weight': 0}]",
          "weightDevice[0].weight: 0 is outside 10..1000");
  refused("linux.resources.blockIO.weightDevice", "[{'minor': 0, 'weight': 10}]",
          "weightDevice[0].major: required");
  refused("linux.resources.blockIO.weightDevice",
          "[{'major': 8, 'minor': 0, 'weight': 10}, {'major': 8, 'minor': 0, 'weight': 20}]",
          "weightDevice[1]: device 8:0 is given twice (first at [0])");
  refused("linux.resources.blockIO.throttleReadBpsDevice", "[{'major': 8, 'minor': 0}]",
          "throttleReadBpsDevice[0].rate: required");
  refused("linux.resources.blockIO.throttleReadBpsDevice", "[{'major': 8, 'minor': 0, 'rate': -1}]",
          "throttleReadBpsDevice[0].rate: -1 is negative");
  refused("linux.resources.blockIO.throttleWriteIOPSDevice",
          "[{'major': 4096, 'minor': 0, 'rate': 1}]",
          "throttleWriteIOPSDevice[0].major: 4096 is not a device major number (0..4095)");
  refused("linux.resources.blockIO.throttleWriteIOPSDevice",
          "[{'major': 8, 'minor': 1048576, 'rate': 1}]", "minor: 1048576 is not a device minor");
  refused("linux.resources.blockIO.throttleReadIOPSDevice",
          "[{'major': 8, 'minor': 0, 'rate': 1}, {'major': 8, 'minor': 0, 'rate': 2}]",
          "throttleReadIOPSDevice[1]: device 8:0 is given twice");
  refused("linux.resources.blockIO.throttleReadIOPSDevice", "{}",
          "throttleReadIOPSDevice: expected an array");
  refused("linux.resources.blockIO", "[]", "linux.resources.blockIO: expected an object");
}

static void test_hugepages_and_idle(void)
{
  struct spec s;
  const struct spec_resources *r = &s.resources;

  if (is_int(parse_with("linux.resources.hugepageLimits",
                        "[{'pageSize': '2MB', 'limit': 4194304}, {'pageSize': '1GB', 'limit': 0},"
                        " {'pageSize': '64KB', 'limit': 65536}]",
                        &s),
             0, "hugepageLimits parse")) {
    is_int(r->n_hugepage_limits, 3, "three page sizes");
    ok(strcmp(r->hugepage_limits[0].page_size, "2MB") == 0 &&
           r->hugepage_limits[0].page_bytes == 2097152 && r->hugepage_limits[0].limit == 4194304,
       "2MB: 4194304 bytes");
    ok(r->hugepage_limits[1].page_bytes == 1073741824 && r->hugepage_limits[1].limit == 0,
       "1GB: 0 (no huge pages)");
    ok(r->hugepage_limits[2].page_bytes == 65536, "64KB");
  }
  spec_clear(&s);
  refused("linux.resources.hugepageLimits", "[{'pageSize': '2048KB', 'limit': 0}]",
          "pageSize: '2048KB' is not a huge page size as the kernel names it");
  refused("linux.resources.hugepageLimits", "[{'pageSize': '3MB', 'limit': 0}]",
          "'3MB' is not a huge page size");
  refused("linux.resources.hugepageLimits", "[{'pageSize': '2mb', 'limit': 0}]",
          "'2mb' is not a huge page size");
  refused("linux.resources.hugepageLimits", "[{'pageSize': '02MB', 'limit': 0}]",
          "'02MB' is not a huge page size");
  refused("linux.resources.hugepageLimits", "[{'pageSize': 'MB', 'limit': 0}]",
          "'MB' is not a huge page size");
  refused("linux.resources.hugepageLimits", "[{'pageSize': '2MB/../x', 'limit': 0}]",
          "is not a huge page size");
  refused("linux.resources.hugepageLimits", "[{'pageSize': '2MB', 'limit': 1}]",
          "hugepageLimits[0].limit: 1 bytes is not a whole number of 2MB pages");
  refused("linux.resources.hugepageLimits", "[{'pageSize': '2MB'}]",
          "hugepageLimits[0].limit: required");
  refused("linux.resources.hugepageLimits", "[{'limit': 0}]",
          "hugepageLimits[0].pageSize: required");
  refused("linux.resources.hugepageLimits",
          "[{'pageSize': '2MB', 'limit': 0}, {'pageSize': '2MB', 'limit': 2097152}]",
          "hugepageLimits[1]: page size 2MB is given twice (first at [0])");
  if (is_int(parse_with("linux.resources.cpu.idle", "1", &s), 0, "cpu.idle 1 parses"))
    ok(r->cpu_idle_set && r->cpu_idle == 1, "cpu.idle 1 is kept");
  spec_clear(&s);
  refused("linux.resources.cpu.idle", "2", "cpu.idle: 2 is out of range [0, 1]");
  refused("linux.resources.cpu.idle", "-1", "cpu.idle: -1 is out of range [0, 1]");
  if (is_int(parse_with("linux.resources.cpu.burst", "20000", &s), 0, "cpu.burst 20000 parses"))
    ok(r->cpu_burst_set && r->cpu_burst == 20000, "cpu.burst 20000 is kept");
  spec_clear(&s);
  if (is_int(parse_with("linux.resources.cpu.burst", "0", &s), 0, "cpu.burst 0 parses"))
    ok(r->cpu_burst_set && r->cpu_burst == 0, "cpu.burst 0 is kept as given");
  spec_clear(&s);
  refused("linux.resources.cpu.burst", "-1", "cpu.burst: -1 is negative");
  refused("linux.resources.cpu.burst", "'1000'", "cpu.burst: expected an integer, got a string");
  refused("linux.resources.cpu.burst", "1.5", "cpu.burst");
}

static void test_process_attrs(void)
{
  static const char realtime[] = "is not supported by ocirun (cpu.max does not throttle realtime "
                                 "tasks)";
  struct spec s;

  if (ok(parse_with("process.scheduler",
                    "{'policy': 'SCHED_BATCH', 'nice': -3, 'priority': 0,"
                    " 'flags': ['SCHED_FLAG_KEEP_POLICY'], 'runtime': 0}",
                    &s) == 0,
         "process.scheduler parsed")) {
    ok(s.process.scheduler.set, "scheduler: set");
    is_int(s.process.scheduler.policy, 3, "scheduler: SCHED_BATCH");
    is_int(s.process.scheduler.nice, -3, "scheduler: nice");
    is_int((int)s.process.scheduler.flags, 0x08, "scheduler: SCHED_FLAG_KEEP_POLICY");
    spec_clear(&s);
  }
  if (ok(parse_with("process.ioPriority", "{'class': 'IOPRIO_CLASS_IDLE', 'priority': 4}", &s) == 0,
         "process.ioPriority parsed")) {
    ok(s.process.io_priority.set, "ioPriority: set");
    is_int(s.process.io_priority.io_class, 3, "ioPriority: IOPRIO_CLASS_IDLE");
    is_int(s.process.io_priority.level, 4, "ioPriority: priority");
    spec_clear(&s);
  }
  if (ok(parse_with("linux.personality", "{'domain': 'LINUX32', 'flags': []}", &s) == 0,
         "linux.personality parsed")) {
    ok(s.personality_set, "personality: set");
    is_int(s.personality, 8, "personality: PER_LINUX32");
    spec_clear(&s);
  }
  if (ok(parse_with("linux.memoryPolicy",
                    "{'mode': 'MPOL_INTERLEAVE', 'nodes': '0-2,5,1023',"
                    " 'flags': ['MPOL_F_STATIC_NODES', 'MPOL_F_NUMA_BALANCING']}",
                    &s) == 0,
         "linux.memoryPolicy parsed")) {
    ok(s.memory_policy.set, "memoryPolicy: set");
    is_int(s.memory_policy.mode, 3, "memoryPolicy: MPOL_INTERLEAVE");
    ok(s.memory_policy.nodes[0] == 0x27, "memoryPolicy: nodes 0-2,5 in the first word");
    ok(s.memory_policy.nodes[1023 / (8 * sizeof(unsigned long))] ==
           1UL << (1023 % (8 * sizeof(unsigned long))),
       "memoryPolicy: node 1023 in the last word");
    is_int((int)s.memory_policy.max_node, 1024, "memoryPolicy: max_node one above the highest");
    is_int((int)s.memory_policy.flags, (1 << 15) | (1 << 13), "memoryPolicy: flags");
    spec_clear(&s);
  }
  {
    cleanup_cjson cJSON *config = base_with("process.scheduler", "{'policy': 'SCHED_IDLE'}");
    cJSON *linux_object = cJSON_GetObjectItemCaseSensitive(config, "linux");
    oci_error_t err = NULL;
    char *text = NULL;
    size_t size = 0;
    FILE *out;

    cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(config, "process"), "ioPriority",
                          json_parse("{'class': 'IOPRIO_CLASS_BE', 'priority': 2}"));
    cJSON_AddItemToObject(linux_object, "personality", json_parse("{'domain': 'LINUX32'}"));
    cJSON_AddItemToObject(linux_object, "memoryPolicy",
                          json_parse("{'mode': 'MPOL_BIND', 'nodes': '0-1,4'}"));
    if (ok(spec_parse(config, &s, &err) == 0, "the four attributes parsed together")) {
      out = open_memstream(&text, &size);
      process_attrs_print(&s, out);
      fclose(out);
      is_str(text,
             "scheduler: SCHED_IDLE nice 0 flags 0\nI/O priority: IOPRIO_CLASS_BE 2\n"
             "personality: LINUX32\nmemory policy: MPOL_BIND nodes 0,1,4 flags 0\n",
             "process_attrs_print: one plan line each");
      free(text);
      spec_clear(&s);
    }
    oci_error_free(&err);
  }
  is_str(spec_attr_name(SPEC_NAMES_SCHEDULER_POLICY, 5), "SCHED_IDLE", "spec_attr_name");
  is_str(spec_attr_name(SPEC_NAMES_MEMORY_POLICY_MODE, 6), "MPOL_WEIGHTED_INTERLEAVE",
         "spec_attr_name: MPOL_WEIGHTED_INTERLEAVE");

  refused("process.scheduler", "{}", "process.scheduler.policy: required");
  refused("process.scheduler", "{'policy': 'SCHED_FIFO', 'priority': 10}", realtime);
  refused("process.scheduler", "{'policy': 'SCHED_RR'}", realtime);
  refused("process.scheduler", "{'policy': 'SCHED_DEADLINE'}", realtime);
  refused("process.scheduler", "{'policy': 'SCHED_ISO'}", "Linux has no SCHED_ISO");
  refused("process.scheduler", "{'policy': 'sched_other'}", "unknown name 'sched_other'");
  refused("process.scheduler", "{'policy': 'SCHED_OTHER', 'nice': 20}", "process.scheduler.nice:");
  refused("process.scheduler", "{'policy': 'SCHED_OTHER', 'nice': -21}", "process.scheduler.nice:");
  refused("process.scheduler", "{'policy': 'SCHED_OTHER', 'priority': 1}",
          "process.scheduler.priority is not supported by ocirun (a static priority is for "
          "SCHED_FIFO and SCHED_RR: cpu.max");
  refused("process.scheduler", "{'policy': 'SCHED_OTHER', 'runtime': 1}",
          "process.scheduler.runtime is not supported by ocirun (for SCHED_DEADLINE");
  refused("process.scheduler", "{'policy': 'SCHED_OTHER', 'period': 1}",
          "process.scheduler.period is not supported");
  refused("process.scheduler", "{'policy': 'SCHED_OTHER', 'deadline': 1}",
          "process.scheduler.deadline is not supported");
  refused("process.scheduler", "{'policy': 'SCHED_OTHER', 'flags': ['SCHED_FLAG_RESET_ON_FORK']}",
          "process.scheduler.flags[0]: SCHED_FLAG_RESET_ON_FORK is not supported by ocirun");
  refused("process.scheduler",
          "{'policy': 'SCHED_OTHER', 'flags': ['SCHED_FLAG_KEEP_POLICY', 'SCHED_FLAG_RECLAIM']}",
          "process.scheduler.flags[1]: SCHED_FLAG_RECLAIM is not supported by ocirun (for "
          "SCHED_DEADLINE");
  refused("process.scheduler", "{'policy': 'SCHED_OTHER', 'flags': ['SCHED_FLAG_KEEP_PARAMS']}",
          "SCHED_FLAG_KEEP_PARAMS is not supported");
  refused("process.scheduler", "{'policy': 'SCHED_OTHER', 'flags': ['SCHED_FLAG_UTIL_CLAMP_MIN']}",
          "the spec gives no clamp value");
  refused("process.scheduler", "{'policy': 'SCHED_OTHER', 'flags': 'SCHED_FLAG_KEEP_POLICY'}",
          "process.scheduler.flags: expected an array");
  refused("process.scheduler", "'SCHED_OTHER'", "process.scheduler: expected an object");

  refused("process.ioPriority", "{'class': 'IOPRIO_CLASS_RT', 'priority': 0}",
          "process.ioPriority.class: IOPRIO_CLASS_RT is not supported by ocirun (the realtime I/O "
          "class: cpu.max does not throttle realtime tasks)");
  refused("process.ioPriority", "{'class': 'IOPRIO_CLASS_BE'}",
          "process.ioPriority.priority: required");
  refused("process.ioPriority", "{'priority': 1}", "process.ioPriority.class: required");
  refused("process.ioPriority", "{'class': 'IOPRIO_CLASS_BE', 'priority': 8}",
          "process.ioPriority.priority: 8 is out of range [0, 7]");
  refused("process.ioPriority", "{'class': 'IOPRIO_CLASS_NONE', 'priority': 0}",
          "unknown name 'IOPRIO_CLASS_NONE'");

  refused("linux.personality", "{}", "linux.personality.domain: required");
  refused("linux.personality", "{'domain': 'LINUX64'}", "unknown name 'LINUX64'");
  refused("linux.personality", "{'domain': 'LINUX', 'flags': ['ADDR_NO_RANDOMIZE']}",
          "linux.personality.flags is not supported by ocirun (the spec defines no personality "
          "flag)");

  accepted("linux.memoryPolicy", "{'mode': 'MPOL_DEFAULT'}");
  accepted("linux.memoryPolicy", "{'mode': 'MPOL_PREFERRED'}");
  accepted("linux.memoryPolicy", "{'mode': 'MPOL_LOCAL', 'nodes': ''}");
  accepted("linux.memoryPolicy", "{'mode': 'MPOL_BIND', 'nodes': '1', 'flags': []}");
  refused("linux.memoryPolicy", "{'nodes': '0'}", "linux.memoryPolicy.mode: required");
  refused("linux.memoryPolicy", "{'mode': 'MPOL_NOOP'}", "unknown name 'MPOL_NOOP'");
  refused("linux.memoryPolicy", "{'mode': 'MPOL_BIND'}",
          "linux.memoryPolicy: MPOL_BIND needs nodes");
  refused("linux.memoryPolicy", "{'mode': 'MPOL_WEIGHTED_INTERLEAVE', 'nodes': ''}",
          "MPOL_WEIGHTED_INTERLEAVE needs nodes");
  refused("linux.memoryPolicy", "{'mode': 'MPOL_DEFAULT', 'nodes': '0'}",
          "linux.memoryPolicy: MPOL_DEFAULT takes no nodes");
  refused("linux.memoryPolicy", "{'mode': 'MPOL_LOCAL', 'nodes': '0'}",
          "MPOL_LOCAL takes no nodes");
  refused("linux.memoryPolicy", "{'mode': 'MPOL_DEFAULT', 'flags': ['MPOL_F_STATIC_NODES']}",
          "MPOL_DEFAULT takes no flags");
  refused("linux.memoryPolicy",
          "{'mode': 'MPOL_BIND', 'nodes': '0', 'flags': ['MPOL_F_STATIC_NODES', "
          "'MPOL_F_RELATIVE_NODES']}",
          "MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES exclude each other");
  refused("linux.memoryPolicy", "{'mode': 'MPOL_BIND', 'nodes': '0', 'flags': ['MPOL_F_MOF']}",
          "linux.memoryPolicy.flags[0]: unknown name 'MPOL_F_MOF'");
  refused("linux.memoryPolicy", "{'mode': 'MPOL_BIND', 'nodes': 0}",
          "linux.memoryPolicy.nodes: expected a string");
  refused("linux.memoryPolicy", "{'mode': 'MPOL_BIND', 'nodes': '1024'}",
          "linux.memoryPolicy.nodes: '1024': node 1024 is above Linux's highest, 1023");
  static const char *const bad_lists[] = {"3-1", "1,", ",1", "1-", "a", "1 2", "-1", "1--2", "0x1"};
  for (size_t i = 0; i < sizeof(bad_lists) / sizeof(bad_lists[0]); i++) {
    char value[64], want[64];
    snprintf(value, sizeof(value), "{'mode': 'MPOL_BIND', 'nodes': '%s'}", bad_lists[i]);
    snprintf(want, sizeof(want), "'%s' is not a list of nodes like 0-3,7", bad_lists[i]);
    refused("linux.memoryPolicy", value, want);
  }
}

static void test_exec_cpu_affinity(void)
{
  struct spec s;
  const struct spec_cpu_affinity *a = &s.process.exec_cpu_affinity;
  const unsigned long bits = 8 * sizeof(a->initial.cpus[0]);

  if (is_int(parse_with("process.execCPUAffinity", "{'initial': '7', 'final': '0-3,7,1023'}", &s),
             0, "execCPUAffinity parses")) {
    ok(a->initial.max_cpu == 8 && a->initial.cpus[0] == 0x80, "initial: CPU 7 alone");
    ok(a->final.max_cpu == 1024 && a->final.cpus[0] == 0x8f &&
           a->final.cpus[1023 / bits] == 1UL << (1023 % bits),
       "final: CPUs 0-3, 7 and 1023");
  }
  spec_clear(&s);
  if (is_int(parse_with("process.execCPUAffinity", "{'initial': '', 'final': '1'}", &s), 0,
             "an empty initial parses"))
    ok(a->initial.max_cpu == 0 && a->final.max_cpu == 2, "\"\" is not given (the spec's rule)");
  spec_clear(&s);
  if (is_int(parse_with("process.execCPUAffinity", "{}", &s), 0, "{} parses"))
    ok(a->initial.max_cpu == 0 && a->final.max_cpu == 0, "{} asks for nothing");
  spec_clear(&s);
  refused("process.execCPUAffinity", "{'final': '1024'}",
          "process.execCPUAffinity.final: '1024': CPU 1024 is above Linux's highest, 1023");
  refused("process.execCPUAffinity", "{'initial': 7}",
          "process.execCPUAffinity.initial: expected a string");
  refused("process.execCPUAffinity", "'0-3'", "process.execCPUAffinity: expected an object");
  static const char *const bad_lists[] = {"3-1", "1,", ",1", "1-", "all", "1 2", "-1", "0x1"};
  for (size_t i = 0; i < sizeof(bad_lists) / sizeof(bad_lists[0]); i++) {
    char value[64], want[80];
    snprintf(value, sizeof(value), "{'final': '%s'}", bad_lists[i]);
    snprintf(want, sizeof(want), "final: '%s' is not a list of CPUs like 0-3,7", bad_lists[i]);
    refused("process.execCPUAffinity", value, want);
  }
}

/* linux.timeOffsets (OFFSETS) beside linux.namespaces (NAMESPACES). */
static int parse_time_offsets(const char *namespaces, const char *offsets, struct spec *s,
                              char *msg, size_t size)
{
  char text[1024];

  snprintf(text, sizeof(text),
           "{'ociVersion': '1.0.2', 'root': {'path': 'rootfs'},"
           " 'process': {'args': ['sh'], 'cwd': '/', 'user': {'uid': 0, 'gid': 0}},"
           " 'linux': {'namespaces': [{'type': 'mount'}%s], 'timeOffsets': %s}}",
           namespaces, offsets);
  return parse(text, s, msg, size);
}

static void test_time_offsets(void)
{
  static const struct {
    const char *namespaces, *offsets, *want; /* want NULL: accepted */
  } refusals[] = {
      {"", "{'boottime': {'secs': 1}}", "linux.timeOffsets: needs a time namespace"},
      {", {'type': 'time', 'path': '/proc/1/ns/time'}", "{'boottime': {'secs': 1}}",
       "linux.timeOffsets: needs a new time namespace"},
      {", {'type': 'time'}", "{'realtime': {'secs': 1}}",
       "linux.timeOffsets.realtime: not a clock of a time namespace"},
      {", {'type': 'time'}", "{'boottime': {'nanosecs': 1000000000}}",
       "linux.timeOffsets.boottime.nanosecs: 1000000000 is out of range"},
      {", {'type': 'time'}", "{'boottime': {'nanosecs': -1}}",
       "linux.timeOffsets.boottime.nanosecs: -1 is out of range"},
      {", {'type': 'time'}", "{'boottime': {'secs': '1'}}",
       "linux.timeOffsets.boottime.secs: expected an integer"},
      {", {'type': 'time'}", "{'boottime': 1}", "linux.timeOffsets.boottime: expected an object"},
      {", {'type': 'time'}", "[]", "linux.timeOffsets: expected an object"},
  };
  char msg[1024];
  struct spec s;

  if (is_int(parse_time_offsets(", {'type': 'time'}",
                                "{'monotonic': {'secs': -5, 'nanosecs': 7}, 'boottime': "
                                "{'secs': 86400}}",
                                &s, msg, sizeof(msg)),
             0, "timeOffsets with a new time namespace parse")) {
    ok(s.has_time_offsets, "offsets are given");
    ok(s.time_offsets[SPEC_CLOCK_MONOTONIC].set &&
           s.time_offsets[SPEC_CLOCK_MONOTONIC].secs == -5 &&
           s.time_offsets[SPEC_CLOCK_MONOTONIC].nanosecs == 7,
       "monotonic -5 s 7 ns");
    ok(s.time_offsets[SPEC_CLOCK_BOOTTIME].set &&
           s.time_offsets[SPEC_CLOCK_BOOTTIME].secs == 86400 &&
           s.time_offsets[SPEC_CLOCK_BOOTTIME].nanosecs == 0,
       "boottime 86400 s");
  } else {
    printf("#   message: '%s'\n", msg);
  }
  spec_clear(&s);
  if (is_int(parse_time_offsets("", "{}", &s, msg, sizeof(msg)), 0,
             "{} needs no time namespace (it asks for nothing)"))
    ok(!s.has_time_offsets, "{}: no offsets");
  spec_clear(&s);
  for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
    int ret = parse_time_offsets(refusals[i].namespaces, refusals[i].offsets, &s, msg, sizeof(msg));

    spec_clear(&s);
    if (!ok(ret == -1 && strstr(msg, refusals[i].want) != NULL, "timeOffsets %s: refused: %s",
            refusals[i].offsets, refusals[i].want))
      printf("#   returned %d, message: '%s'\n", ret, msg);
  }
}

static void test_extensibility(void)
{
  /* properties the spec does not define are ignored, at every level */
  accepted("com.example.extension", "{'x': [1, 'y']}");
  accepted("process.com.example.field", "3");
  accepted("process.user.com.example.field", "'x'");
  accepted("linux.com.example.field", "true");
  accepted("linux.resources.com.example.field", "{}");
  accepted("linux.resources.memory.com.example.field", "1");
  accepted("mounts", "[{'destination': '/a', 'com.example.field': 1}]");
  accepted("linux.seccomp", "{'defaultAction': 'SCMP_ACT_ALLOW', 'com.example.field': 1}");
  {
    /* and left out of the copy the profile compiler reads */
    struct spec s;
    char msg[1024];
    cleanup_cjson cJSON *config = base_with(
        "linux.seccomp",
        "{'defaultAction': 'SCMP_ACT_ERRNO', 'archMap': [], 'comment': 'x', 'flags': [],"
        " 'syscalls': [{'names': ['read'], 'action': 'SCMP_ACT_ALLOW', 'includes': {'caps': "
        "['CAP_SYS_ADMIN']}, 'args': [{'index': 0, 'value': 1, 'op': 'SCMP_CMP_EQ', 'x': 1}]}]}");
    cleanup_free char *kept = NULL;
    oci_error_t err = NULL;
    is_int(spec_parse(config, &s, &err), 0, "seccomp with Docker's extensions parses");
    kept = s.seccomp != NULL ? cJSON_PrintUnformatted(s.seccomp) : NULL;
    is_str(kept,
           "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"flags\":[],\"syscalls\":[{\"names\":[\"read\"],"
           "\"action\":\"SCMP_ACT_ALLOW\",\"args\":[{\"index\":0,\"value\":1,\"op\":\"SCMP_CMP_"
           "EQ\"}]}]}",
           "the copy keeps only the spec's seccomp properties");
    spec_clear(&s);
    (void)msg;
  }
  refused("linux.seccomp",
          "{'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [{'names': ['a'], 'action': "
          "'SCMP_ACT_ALLOW', 'args': [1]}]}",
          "linux.seccomp: args entries must be objects");
  refused("linux.seccomp", "{'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [1]}",
          "linux.seccomp.syscalls[0]: expected an object");
  /* and a key given twice is refused wherever it is */
  {
    struct spec s;
    char msg[1024];
    is_int(parse("{'ociVersion': '1.2.0', 'root': {'path': 'rootfs'},"
                 " 'process': {'args': ['sh'], 'cwd': '/', 'user': {'uid': 0, 'uid': 1000, "
                 "'gid': 0}}}",
                 &s, msg, sizeof(msg)),
           -1, "a key given twice is refused");
    ok(strstr(msg, "process.user: the key 'uid' is given twice") != NULL, "named (%s)", msg);
    is_int(parse("{'ociVersion': '1.2.0', 'root': {'path': 'rootfs'}, 'root': {'path': 'r'}}", &s,
                 msg, sizeof(msg)),
           -1, "a top-level key given twice is refused");
    ok(strstr(msg, "config.json: the key 'root' is given twice") != NULL, "named (%s)", msg);
    is_int(parse("{'ociVersion': '1.2.0', 'root': {'path': 'rootfs'},"
                 " 'mounts': [{'destination': '/a'}, {'destination': '/b', 'type': 'x', "
                 "'type': 'y'}]}",
                 &s, msg, sizeof(msg)),
           -1, "a key given twice in an array element is refused");
    ok(strstr(msg, "mounts[1]: the key 'type' is given twice") != NULL, "named (%s)", msg);
    is_int(parse("{'ociVersion': '1.2.0', 'root': {'path': 'rootfs'}}", &s, msg, sizeof(msg)), 0,
           "a config without process parses");
    ok(!s.has_process && !s.has_resources && s.seccomp == NULL, "no process, no resources");
    spec_clear(&s);
    is_int(parse("[1]", &s, msg, sizeof(msg)), -1, "an array is not a configuration");
  }
}

static void write_file(int dir_fd, const char *name, const char *text)
{
  int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
    printf("# cannot write %s\n", name);
  if (fd >= 0)
    close(fd);
}

static int load(int dir_fd, const char *dir, struct spec *spec, char *msg, size_t size)
{
  oci_error_t err = NULL;
  int ret = spec_load_bundle(dir_fd, dir, spec, &err);
  snprintf(msg, size, "%s", err != NULL ? err->message : "");
  oci_error_free(&err);
  return ret;
}

static void test_bundle(void)
{
  char dir[] = "/tmp/ocirun-spec-test.XXXXXX", msg[1024], want[1200];
  cleanup_free char *text = json_text(base);
  cleanup_close int dir_fd = -1;
  struct spec s;

  if (!ok(mkdtemp(dir) != NULL, "a bundle directory"))
    return;
  dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  is_int(load(dir_fd, dir, &s, msg, sizeof(msg)), -1, "no config.json: refused");
  snprintf(want, sizeof(want), "%s/config.json", dir);
  ok(strstr(msg, want) != NULL, "the error names the file (%s)", msg);

  write_file(dir_fd, "config.json", text);
  is_int(load(dir_fd, dir, &s, msg, sizeof(msg)), 0, "a bundle's config.json loads (%s)", msg);
  is_str(s.process.args != NULL ? s.process.args[0] : NULL, "sh", "and is parsed");
  spec_clear(&s);

  write_file(dir_fd, "config.json", "{\"ociVersion\": \"1.2.0\", \"root\": {\"path\": \"\"}}");
  is_int(load(dir_fd, dir, &s, msg, sizeof(msg)), -1, "an invalid value: refused");
  snprintf(want, sizeof(want), "%s/config.json: root.path: empty", dir);
  is_str(msg, want, "the error names the file and the property");

  write_file(dir_fd, "config.json", "{\"ociVersion\": ");
  is_int(load(dir_fd, dir, &s, msg, sizeof(msg)), -1, "truncated JSON: refused");
  snprintf(want, sizeof(want), "%s/config.json: not valid JSON", dir);
  ok(strstr(msg, want) != NULL, "the error names the file (%s)", msg);

  write_file(dir_fd, "config.json", "{\"ociVersion\": \"1.2.0\", \"root\": {\"path\": \"r\"}} {}");
  is_int(load(dir_fd, dir, &s, msg, sizeof(msg)), -1, "a second document after the first: refused");

  unlinkat(dir_fd, "config.json", 0);
  write_file(dir_fd, "elsewhere.json", text);
  if (symlinkat("elsewhere.json", dir_fd, "config.json") == 0) {
    is_int(load(dir_fd, dir, &s, msg, sizeof(msg)), -1, "a symlinked config.json: refused");
    ok(strstr(msg, "symbolic link") != NULL, "as a symbolic link (%s)", msg);
    spec_clear(&s); /* empty after a refusal; not if the test failed */
  }
  unlinkat(dir_fd, "config.json", 0);
  if (mkfifoat(dir_fd, "config.json", 0600) == 0) {
    /* a FIFO with no writer would block an open for reading forever */
    alarm(10);
    is_int(load(dir_fd, dir, &s, msg, sizeof(msg)), -1, "a FIFO config.json: refused at once");
    alarm(0);
    ok(strstr(msg, "a FIFO") != NULL, "as a FIFO (%s)", msg);
  }
  unlinkat(dir_fd, "config.json", 0);
  unlinkat(dir_fd, "elsewhere.json", 0);
  rmdir(dir);
}

/* hostname/domainname with a sysctl of the same name: refused when they
 * differ (the sysctl, applied after the field, would win), either
 * spelling; the same value, or either alone, is taken. */
static void test_uts_sysctl(void)
{
  static const struct {
    const char *fields, *sysctl, *want; /* want NULL: accepted */
  } cases[] = {
      {"'hostname': 'a',", "'kernel.hostname': 'b'",
       "linux.sysctl.kernel.hostname: 'b' conflicts with hostname 'a' (the field sets it): "
       "refused"},
      {"'hostname': 'a',", "'kernel/hostname': 'b'",
       "linux.sysctl.kernel/hostname: 'b' conflicts with hostname 'a'"},
      {"'domainname': 'd',", "'kernel.domainname': 'e'",
       "linux.sysctl.kernel.domainname: 'e' conflicts with domainname 'd'"},
      {"'hostname': 'a', 'domainname': 'd',", "'kernel.domainname': 'e'",
       "conflicts with domainname 'd'"},
      {"'hostname': 'a',", "'kernel.hostname': 'a'", NULL},
      {"'hostname': 'a',", "'kernel.domainname': 'e'", NULL},
      {"", "'kernel.hostname': 'b'", NULL},
      {"'domainname': 'd',", "'kernel.hostname': 'b'", NULL},
  };

  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char text[1024], msg[1024];
    struct spec s;
    int ret;

    snprintf(text, sizeof(text),
             "{'ociVersion': '1.0.2', 'root': {'path': 'rootfs'}, %s"
             " 'process': {'args': ['sh'], 'cwd': '/', 'user': {'uid': 0, 'gid': 0}},"
             " 'linux': {'namespaces': [{'type': 'uts'}], 'sysctl': {%s}}}",
             cases[i].fields, cases[i].sysctl);
    ret = parse(text, &s, msg, sizeof(msg));
    spec_clear(&s);
    if (cases[i].want == NULL) {
      if (!ok(ret == 0, "%s beside %s: accepted", cases[i].sysctl, cases[i].fields))
        printf("#   message: '%s'\n", msg);
    } else if (!ok(ret == -1 && strstr(msg, cases[i].want) != NULL, "%s beside %s: refused: %s",
                   cases[i].sysctl, cases[i].fields, cases[i].want)) {
      printf("#   returned %d, message: '%s'\n", ret, msg);
    }
  }
}

int main(void)
{
  test_complete();
  test_uts_sysctl();
  test_rules();
  test_refused_properties();
  test_cpu_shares_zero();
  test_block_io();
  test_hugepages_and_idle();
  test_process_attrs();
  test_exec_cpu_affinity();
  test_time_offsets();
  test_extensibility();
  test_bundle();
  is_str(spec_namespace_name(SPEC_NS_NETWORK), "network", "spec_namespace_name");
  ok(spec_namespace_name(SPEC_NS_COUNT) == NULL, "spec_namespace_name out of range");
  is_str(spec_hook_kind_name(SPEC_HOOK_CREATE_CONTAINER), "createContainer", "spec_hook_kind_name");
  ok(spec_hook_kind_name(SPEC_HOOK_KIND_COUNT) == NULL, "spec_hook_kind_name out of range");
  return unit_done();
}
