/* Unit tests of linux.sysctl's check (src/runtime/sysctl.c): only keys of a
 * namespace the container has of its own; a host-wide key or a namespace
 * shared with the host is refused by name. */
#include "config.h"

#include <stdlib.h>

#include "runtime/spec/spec.h"
#include "runtime/sysctl.h"
#include "unit.h"

/* A configuration with the given sysctl and namespaces ("ipc,network"). */
static int check(const char *key, const char *namespaces, char *msg, size_t size)
{
  char text[1024];
  struct spec spec;
  oci_error_t err = NULL;
  cJSON *json;
  int ret;

  snprintf(text, sizeof(text),
           "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"rootfs\"},"
           "\"linux\":{\"sysctl\":{\"%s\":\"1\"},\"namespaces\":[%s]}}",
           key, namespaces);
  json = cJSON_Parse(text);
  if (spec_parse(json, &spec, &err) < 0) {
    snprintf(msg, size, "parse: %s", err->message);
    oci_error_free(&err);
    cJSON_Delete(json);
    return -2;
  }
  ret = sysctl_check(&spec, &err);
  snprintf(msg, size, "%s", err != NULL ? err->message : "");
  oci_error_free(&err);
  spec_clear(&spec);
  cJSON_Delete(json);
  return ret;
}

int main(void)
{
  static const char all[] = "{\"type\":\"ipc\"},{\"type\":\"network\"},{\"type\":\"uts\"},"
                            "{\"type\":\"mount\"}";
  static const char none[] = "{\"type\":\"mount\"}";
  char msg[1024];

  is_int(check("net.ipv4.ip_forward", all, msg, sizeof(msg)), 0, "net.* with a new network ns");
  is_int(check("net.ipv4.conf/eth0.1/forwarding", all, msg, sizeof(msg)), 0,
         "the slash form of a key holding dots");
  is_int(check("kernel.shmmax", all, msg, sizeof(msg)), 0, "an IPC limit with a new IPC ns");
  is_int(check("fs.mqueue.msg_max", all, msg, sizeof(msg)), 0, "fs.mqueue.* with a new IPC ns");
  is_int(check("kernel.domainname", all, msg, sizeof(msg)), 0, "kernel.domainname with new UTS");

  is_int(check("net.ipv4.ip_forward", none, msg, sizeof(msg)), -1,
         "net.* in the host's network namespace is refused");
  ok(strstr(msg, "net.ipv4.ip_forward") != NULL && strstr(msg, "network") != NULL,
     "the refusal names the key and the namespace (%s)", msg);
  is_int(check("kernel.shmmax", none, msg, sizeof(msg)), -1,
         "an IPC limit in the host's IPC namespace is refused");
  is_int(check("kernel.hostname", none, msg, sizeof(msg)), -1,
         "kernel.hostname in the host's UTS namespace is refused");
  is_int(check("kernel.panic", all, msg, sizeof(msg)), -1, "a host-wide key is refused");
  ok(strstr(msg, "kernel.panic") != NULL && strstr(msg, "not namespaced") != NULL,
     "the refusal says it is not namespaced (%s)", msg);
  is_int(check("vm.overcommit_memory", all, msg, sizeof(msg)), -1, "vm.* is refused");
  is_int(check("fs.file-max", all, msg, sizeof(msg)), -1, "fs.* other than mqueue is refused");
  is_int(check("net.ipv4.conf/../../kernel/panic", all, msg, sizeof(msg)) < 0, 1,
         "a '..' component is refused (by the parser or the check)");
  is_int(check("net.ipv4.ip_forward",
               "{\"type\":\"network\",\"path\":\"/proc/self/ns/net\"},"
               "{\"type\":\"mount\"}",
               msg, sizeof(msg)),
         -1, "net.* in a joined namespace that is the host's own is refused");
  ok(strstr(msg, "host's") != NULL, "it says the namespace is the host's (%s)", msg);
  return unit_done();
}
