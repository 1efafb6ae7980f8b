/* Unit tests of the device rules' decision (src/runtime/cgroup_devices.c):
 * docker's default allowlist as spec rules, the spec's order (later rules
 * win, per access bit), 'a' and wildcards, and the printed rules. */
#include "config.h"

#include <stdlib.h>

#include "oci/cleanup.h"
#include "runtime/cgroup_devices.h"
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

int main(void)
{
  test_docker_default();
  test_order();
  test_print();
  return unit_done();
}
