/* Unit tests of the device rules' decision (src/runtime/cgroup/devices.c):
 * docker's default allowlist as spec rules, the spec's order (later rules
 * win, per access bit), 'a' and wildcards, and the printed rules. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/magic.h>

#include "oci/cleanup.h"
#include "runtime/cgroup/devices.h"
#include "unit.h"

#define ANY -1

static bool docker(char type, int64_t major, int64_t minor, const char *access)
{
  return cgroup_devices_allowed(cgroup_devices_docker_default, cgroup_devices_docker_default_n,
                                type, major, minor, access);
}

static void test_docker_default(void)
{
  ok(docker('c', 1, 3, "rw"), "docker: /dev/null 1:3 rw");
  ok(docker('c', 1, 3, "r") && docker('c', 1, 3, "w"), "docker: /dev/null r, w");
  ok(docker('c', 1, 5, "rw") && docker('c', 1, 9, "r"), "docker: zero, urandom");
  ok(docker('c', 5, 0, "rw"), "docker: /dev/tty 5:0");
  ok(docker('c', 5, 2, "rw"), "docker: /dev/ptmx 5:2");
  ok(docker('c', 136, 0, "rw") && docker('c', 136, 4242, "rw"), "docker: 136:* (pts)");
  ok(docker('c', 10, 200, "rw"), "docker: /dev/net/tun");
  ok(docker('c', 1, 1, "m") && docker('c', 10, 232, "m") && docker('c', 4242, 7, "m"),
     "docker: mknod c *:* m");
  ok(docker('b', 7, 0, "m") && docker('b', 8, 0, "m"), "docker: mknod b *:* m");
  ok(!docker('c', 1, 1, "r") && !docker('c', 1, 1, "rw"), "docker: /dev/mem 1:1 denied");
  ok(!docker('c', 1, 11, "w"), "docker: /dev/kmsg 1:11 denied");
  ok(!docker('c', 10, 232, "rw"), "docker: /dev/kvm 10:232 denied");
  ok(!docker('b', 7, 0, "rw") && !docker('b', 7, 0, "r"), "docker: /dev/loop0 7:0 (block) denied");
  ok(!docker('c', 7, 0, "r"), "docker: c 7:0 (vcs) denied");
  ok(!docker('b', 8, 0, "r") && !docker('b', 1, 3, "rw"), "docker: block devices denied");
  ok(!docker('c', 1, 1, "rm"), "docker: m allowed but r not: rm denied");
  ok(!docker('c', 137, 0, "rw"), "docker: 137:0 (not pts) denied");
}

static void test_order(void)
{
  const struct spec_device_rule allow_then_deny_w[] = {
      {false, 'a', ANY, ANY, "rwm"}, {true, 'c', 1, 3, "rwm"}, {false, 'c', 1, 3, "w"}};
  const struct spec_device_rule deny_then_allow[] = {{true, 'c', 1, 3, "rwm"},
                                                     {false, 'a', ANY, ANY, "rwm"}};
  const struct spec_device_rule split[] = {{true, 'c', 1, 3, "r"}, {true, 'c', 1, 3, "w"}};
  const struct spec_device_rule allow_all[] = {{false, 'a', ANY, ANY, "rwm"},
                                               {true, 'a', ANY, ANY, "rwm"}};
  const struct spec_device_rule deny_major[] = {
      {true, 'a', ANY, ANY, "rwm"}, {false, 'c', 10, ANY, "rw"}, {true, 'c', 10, 200, "r"}};
  const struct spec_device_rule a_numbers[] = {{true, 'a', 1, 3, "rw"}};

  ok(cgroup_devices_allowed(allow_then_deny_w, 3, 'c', 1, 3, "r"),
     "order: allow rwm then deny w: r allowed");
  ok(!cgroup_devices_allowed(allow_then_deny_w, 3, 'c', 1, 3, "w"),
     "order: allow rwm then deny w: w denied");
  ok(!cgroup_devices_allowed(allow_then_deny_w, 3, 'c', 1, 3, "rw"),
     "order: allow rwm then deny w: an open for rw is denied (a partial deny counts)");
  ok(cgroup_devices_allowed(allow_then_deny_w, 3, 'c', 1, 3, "m"),
     "order: allow rwm then deny w: m allowed");
  ok(!cgroup_devices_allowed(deny_then_allow, 2, 'c', 1, 3, "r"),
     "order: a later deny-all overrides an earlier allow");
  ok(cgroup_devices_allowed(split, 2, 'c', 1, 3, "rw"),
     "order: allow r and allow w in two rules: rw allowed");
  ok(!cgroup_devices_allowed(split, 2, 'c', 1, 3, "rwm"), "order: but not m (no rule names it)");
  ok(cgroup_devices_allowed(allow_all, 2, 'b', 8, 0, "rwm"), "allow a *:* rwm allows a disk");
  ok(!cgroup_devices_allowed(NULL, 0, 'c', 1, 3, "r"), "no rules: default deny");
  ok(!cgroup_devices_allowed(deny_major, 3, 'c', 10, 229, "r"), "deny c 10:* rw covers 10:229");
  ok(cgroup_devices_allowed(deny_major, 3, 'c', 10, 200, "r"), "a later allow c 10:200 r wins");
  ok(!cgroup_devices_allowed(deny_major, 3, 'c', 10, 200, "rw"), "but not for w");
  ok(cgroup_devices_allowed(deny_major, 3, 'c', 10, 200, "m"), "m: only the first rule names it");
  ok(cgroup_devices_allowed(deny_major, 3, 'b', 10, 229, "rw"),
     "deny c 10:* leaves block 10:229 allowed");
  ok(cgroup_devices_allowed(a_numbers, 1, 'c', 1, 3, "r") &&
         cgroup_devices_allowed(a_numbers, 1, 'b', 1, 3, "r") &&
         !cgroup_devices_allowed(a_numbers, 1, 'c', 1, 4, "r"),
     "type 'a' with numbers: both types, those numbers");
  ok(!docker('c', 1, 3, "") && !docker('c', 1, 3, "x") && !docker('u', 1, 3, "r"),
     "an empty or unknown access or type is never allowed");
}

static void test_with_defaults(void)
{
  const struct spec_device_rule runc_spec[] = {{false, 'a', ANY, ANY, "rwm"}};
  const struct spec_device_rule deny_null[] = {{false, 'c', 1, 3, "rwm"}};
  struct spec_device_rule *rules = NULL;
  size_t n = 0;
  oci_error_t err = NULL;

  if (!ok(cgroup_devices_with_defaults(runc_spec, 1, &rules, &n, &err) == 0,
          "with defaults: built"))
    return;
  ok(n > 1 && rules[0].allow == false && rules[0].type == 'a', "with defaults: the spec's first");
  ok(cgroup_devices_allowed(rules, n, 'c', 1, 3, "rw") &&
         cgroup_devices_allowed(rules, n, 'c', 1, 9, "r") &&
         cgroup_devices_allowed(rules, n, 'c', 5, 2, "rw") &&
         cgroup_devices_allowed(rules, n, 'c', 136, 3, "rw"),
     "with defaults: a deny-all spec still has null, urandom, ptmx, pts");
  ok(!cgroup_devices_allowed(rules, n, 'c', 1, 11, "w") &&
         !cgroup_devices_allowed(rules, n, 'c', 10, 200, "rw") &&
         !cgroup_devices_allowed(rules, n, 'c', 1, 1, "m") &&
         !cgroup_devices_allowed(rules, n, 'b', 7, 0, "r"),
     "with defaults: but not kmsg, tun, mknod of other nodes, block devices");
  free(rules);
  if (cgroup_devices_with_defaults(deny_null, 1, &rules, &n, &err) == 0)
    ok(cgroup_devices_allowed(rules, n, 'c', 1, 3, "rw"),
       "with defaults: the defaults come last (a spec cannot deny /dev/null)");
  free(rules);
  if (cgroup_devices_with_defaults(NULL, 0, &rules, &n, &err) == 0)
    ok(!cgroup_devices_allowed(rules, n, 'c', 10, 232, "rw") &&
           cgroup_devices_allowed(rules, n, 'c', 1, 5, "rw"),
       "with defaults: no spec rules: the defaults alone, default deny");
  free(rules);
}

static void test_print(void)
{
  cleanup_free char *printed = NULL;
  size_t size = 0;
  FILE *out = open_memstream(&printed, &size);

  cgroup_devices_print(cgroup_devices_docker_default, cgroup_devices_docker_default_n, out, "  ");
  fclose(out);
  ok(strstr(printed, "  deny  a *:*       rwm  any device\n") != NULL, "print: the deny-all rule");
  ok(strstr(printed, "  allow c *:*       m    any character device\n") != NULL,
     "print: mknod of any character device");
  ok(strstr(printed, "  allow c 136:*     rwm  /dev/pts/*\n") != NULL, "print: 136:*");
  ok(strstr(printed, "  deny  everything else") != NULL, "print: the default last");
  ok(strstr(printed, "deny  a") < strstr(printed, "allow c 1:3 "), "print: in the rules' order");
}

/* --kernel (in the cgroup v2 guest, tests/guest/devices-program.sh): the
 * loaded program decides as cgroup_devices_allowed does. A child moved into
 * a cgroup with the program opens (or makes) nodes made beforehand; EPERM is
 * the program's refusal, anything else (ENXIO for a device with no driver)
 * got past it. */
struct probe {
  char type;
  int major, minor;
  const char *access;
};

static const struct probe probes[] = {
    {'c', 1, 3, "r"},    {'c', 1, 3, "w"},   {'c', 1, 3, "rw"},    {'c', 1, 5, "rw"},
    {'c', 1, 9, "r"},    {'c', 1, 11, "w"},  {'c', 10, 232, "rw"}, {'c', 10, 200, "r"},
    {'c', 10, 200, "w"}, {'c', 136, 0, "r"}, {'b', 7, 0, "r"},     {'b', 7, 0, "rw"},
    {'c', 1, 1, "m"},    {'b', 7, 0, "m"},   {'c', 10, 229, "m"},
};
#define N_PROBES (sizeof(probes) / sizeof(probes[0]))

/* In the child: one byte per probe, '1' got past the program, '0' EPERM,
 * '?' something else went wrong. */
static void probe_all(const char *scratch, int out)
{
  for (size_t i = 0; i < N_PROBES; i++) {
    const struct probe *p = &probes[i];
    char node[512], result = '?';
    mode_t kind = p->type == 'b' ? S_IFBLK : S_IFCHR;
    int ret;

    if (strcmp(p->access, "m") == 0) {
      snprintf(node, sizeof(node), "%s/made%zu", scratch, i);
      ret = mknod(node, kind | 0600, makedev(p->major, p->minor));
      if (ret == 0)
        unlink(node); /* the next rule set makes it again */
    } else {
      int flags = strcmp(p->access, "r") == 0   ? O_RDONLY
                  : strcmp(p->access, "w") == 0 ? O_WRONLY
                                                : O_RDWR;
      snprintf(node, sizeof(node), "%s/%c%d_%d", scratch, p->type, p->major, p->minor);
      ret = open(node, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
      if (ret >= 0)
        close(ret);
    }
    if (ret >= 0 || (errno != EPERM && errno != EACCES && errno != ENOENT))
      result = '1';
    else if (errno == EPERM)
      result = '0';
    if (write(out, &result, 1) != 1)
      _exit(3);
  }
}

static bool kernel_decisions(const char *cgroup, const char *scratch, char *got)
{
  int fds[2];
  pid_t pid;
  int status;
  ssize_t n;

  if (pipe2(fds, O_CLOEXEC) < 0 || (pid = fork()) < 0)
    return false;
  if (pid == 0) {
    char procs[600];
    int fd;
    close(fds[0]);
    snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgroup);
    fd = open(procs, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1)
      _exit(2);
    probe_all(scratch, fds[1]);
    _exit(0);
  }
  close(fds[1]);
  size_t used = 0;
  /* A pipe read returns what is there so far: read to the end. */
  while (used < N_PROBES &&
         ((n = read(fds[0], got + used, N_PROBES - used)) > 0 || (n < 0 && errno == EINTR)))
    used += n > 0 ? (size_t)n : 0;
  close(fds[0]);
  waitpid(pid, &status, 0);
  memset(got + used, '-', N_PROBES - used);
  got[N_PROBES] = '\0';
  return used == N_PROBES && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void check_rules_in_kernel(const char *base, const char *scratch, const char *what,
                                  const struct spec_device_rule *rules, size_t n)
{
  char cgroup[512], got[N_PROBES + 1], want[N_PROBES + 1];
  oci_error_t err = NULL;
  int dir_fd;

  snprintf(cgroup, sizeof(cgroup), "%s/%s", base, what);
  if (mkdir(cgroup, 0755) < 0 || (dir_fd = open(cgroup, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
    ok(false, "kernel, %s: make the cgroup %s", what, cgroup);
    return;
  }
  if (!ok(cgroup_devices_attach(dir_fd, cgroup, rules, n, &err) == 0, "kernel, %s: attached", what))
    printf("# %s\n", err->message);
  oci_error_free(&err);
  close(dir_fd);
  for (size_t i = 0; i < N_PROBES; i++)
    want[i] = cgroup_devices_allowed(rules, n, probes[i].type, probes[i].major, probes[i].minor,
                                     probes[i].access)
                  ? '1'
                  : '0';
  want[N_PROBES] = '\0';
  ok(kernel_decisions(cgroup, scratch, got), "kernel, %s: the child probed every device", what);
  if (!is_str(got, want, "kernel, %s: the program decides as cgroup_devices_allowed", what)) {
    for (size_t i = 0; i < N_PROBES; i++)
      printf("#   %c %d:%d %s: kernel %c, allowed() %c\n", probes[i].type, probes[i].major,
             probes[i].minor, probes[i].access, got[i], want[i]);
  }
  for (int attempt = 0; rmdir(cgroup) < 0 && errno == EBUSY && attempt < 100; attempt++)
    usleep(20000);
}

static int kernel_main(void)
{
  const struct spec_device_rule partial[] = {
      {false, 'a', ANY, ANY, "rwm"}, {true, 'c', 1, 3, "rwm"},  {false, 'c', 1, 3, "w"},
      {true, 'c', 1, 5, "r"},        {true, 'c', 1, 5, "w"},    {true, 'c', 10, ANY, "rw"},
      {false, 'c', 10, 232, "rwm"},  {true, 'b', ANY, ANY, "r"}};
  const struct spec_device_rule allow_all[] = {{false, 'a', ANY, ANY, "rwm"},
                                               {true, 'a', ANY, ANY, "rwm"}};
  const struct spec_device_rule a_numbers[] = {{true, 'a', 1, ANY, "rw"}, {true, 'a', 7, 0, "m"}};
  char base[128], scratch[] = "/tmp/cgroup_devices.XXXXXX", node[512];
  struct statfs fs;

  if (geteuid() != 0 || statfs("/sys/fs/cgroup", &fs) < 0 || fs.f_type != CGROUP2_SUPER_MAGIC) {
    printf("1..0 # SKIP needs root on cgroup v2 (the guest)\n");
    return 0;
  }
  snprintf(base, sizeof(base), "/sys/fs/cgroup/ocirun-unit-devices.%d", (int)getpid());
  if (mkdir(base, 0755) < 0 || mkdtemp(scratch) == NULL) {
    ok(false, "kernel: make %s and a scratch directory", base);
    return unit_done();
  }
  for (size_t i = 0; i < N_PROBES; i++) {
    if (strcmp(probes[i].access, "m") == 0)
      continue;
    snprintf(node, sizeof(node), "%s/%c%d_%d", scratch, probes[i].type, probes[i].major,
             probes[i].minor);
    if (mknod(node, (probes[i].type == 'b' ? S_IFBLK : S_IFCHR) | 0600,
              makedev(probes[i].major, probes[i].minor)) < 0 &&
        errno != EEXIST)
      ok(false, "kernel: mknod %s", node);
  }
  snprintf(node, sizeof(node), "%s/c1_3", scratch);
  {
    int fd = open(node, O_RDWR | O_CLOEXEC);
    ok(fd >= 0, "kernel control: the scratch null node opens outside any program");
    if (fd >= 0)
      close(fd);
  }
  check_rules_in_kernel(base, scratch, "docker", cgroup_devices_docker_default,
                        cgroup_devices_docker_default_n);
  check_rules_in_kernel(base, scratch, "partial", partial, sizeof(partial) / sizeof(partial[0]));
  check_rules_in_kernel(base, scratch, "allow-all", allow_all, 2);
  check_rules_in_kernel(base, scratch, "a-numbers", a_numbers, 2);
  check_rules_in_kernel(base, scratch, "none", NULL, 0);
  for (size_t i = 0; i < N_PROBES; i++) {
    snprintf(node, sizeof(node), "%s/%c%d_%d", scratch, probes[i].type, probes[i].major,
             probes[i].minor);
    unlink(node);
    snprintf(node, sizeof(node), "%s/made%zu", scratch, i);
    unlink(node);
  }
  rmdir(scratch);
  ok(rmdir(base) == 0, "kernel: the test cgroups are removed");
  return unit_done();
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "--kernel") == 0)
    return kernel_main();
  test_docker_default();
  test_order();
  test_with_defaults();
  test_print();
  return unit_done();
}
