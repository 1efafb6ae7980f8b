/* linux.sysctl (see sysctl.h). The allowed keys are the ones the kernel
 * keeps per namespace: System V IPC and POSIX message queue limits per IPC
 * namespace, net.* per network namespace, the host and domain names per UTS
 * namespace. Anything else (kernel.*, vm.*, fs.* but mqueue) is one value
 * for the whole machine. */
#include "config.h"

#include "runtime/sysctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/in_root.h"
#include "oci/io.h"

static const char *const ipc_keys[] = {
    "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.sem",
    "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
};

/* The namespace a key belongs to, or SPEC_NS_COUNT for a host-wide key. */
static enum spec_namespace_type key_namespace(const char *key)
{
  for (size_t i = 0; i < sizeof(ipc_keys) / sizeof(ipc_keys[0]); i++) {
    if (strcmp(key, ipc_keys[i]) == 0)
      return SPEC_NS_IPC;
  }
  if (strncmp(key, "fs.mqueue.", 10) == 0)
    return SPEC_NS_IPC;
  if (strncmp(key, "net.", 4) == 0)
    return SPEC_NS_NETWORK;
  if (strcmp(key, "kernel.hostname") == 0 || strcmp(key, "kernel.domainname") == 0)
    return SPEC_NS_UTS;
  return SPEC_NS_COUNT;
}

/* "net.ipv4.ip_forward" -> "net/ipv4/ip_forward"; a key already written
 * with slashes (sysctl(8)'s form for names holding dots, such as a VLAN
 * interface's) is taken as it is. No empty, "." or ".." component. */
static int key_path(const char *key, char *path, size_t size)
{
  bool slashes = strchr(key, '/') != NULL;
  size_t len = strlen(key);

  if (len == 0 || len >= size)
    return -1;
  for (size_t i = 0; i <= len; i++)
    path[i] = !slashes && key[i] == '.' ? '/' : key[i];
  for (const char *c = path;;) {
    size_t n = strcspn(c, "/");
    if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
      return -1;
    if (c[n] == '\0')
      return 0;
    c += n + 1;
  }
}

/* A namespace joined by path may be the host's own (ocirun's). */
static bool is_own_namespace(const char *path, enum spec_namespace_type ns)
{
  static const char *const own[SPEC_NS_COUNT] = {
      [SPEC_NS_IPC] = "/proc/self/ns/ipc",
      [SPEC_NS_NETWORK] = "/proc/self/ns/net",
      [SPEC_NS_UTS] = "/proc/self/ns/uts",
  };
  struct stat joined, mine;

  return own[ns] != NULL && stat(path, &joined) == 0 && stat(own[ns], &mine) == 0 &&
         joined.st_dev == mine.st_dev && joined.st_ino == mine.st_ino;
}

int sysctl_check(const struct spec *spec, oci_error_t *err)
{
  char path[256];

  for (size_t i = 0; i < spec->n_sysctl; i++) {
    const char *key = spec->sysctl[i].key;
    enum spec_namespace_type ns = key_namespace(key);

    if (key_path(key, path, sizeof(path)) < 0)
      return oci_error_set(err, 0, "linux.sysctl: '%s' is not a sysctl name", key);
    if (ns == SPEC_NS_COUNT)
      return oci_error_set(err, 0,
                           "linux.sysctl: '%s' is not namespaced: setting it would change the "
                           "host (allowed: IPC limits, fs.mqueue.*, net.*, kernel.hostname, "
                           "kernel.domainname)",
                           key);
    if (!spec->namespaces[ns].present)
      return oci_error_set(err, 0,
                           "linux.sysctl: '%s' belongs to the %s namespace, which the container "
                           "shares with the host",
                           key, spec_namespace_name(ns));
    if (spec->namespaces[ns].path != NULL && is_own_namespace(spec->namespaces[ns].path, ns))
      return oci_error_set(err, 0,
                           "linux.sysctl: '%s': the %s namespace joined at '%s' is the host's", key,
                           spec_namespace_name(ns), spec->namespaces[ns].path);
  }
  return 0;
}

int sysctl_apply(const struct spec *spec, oci_error_t *err)
{
  cleanup_close int sys_fd = -1;
  char path[256];

  if (spec->n_sysctl == 0)
    return 0;
  sys_fd = open("/proc/sys", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (sys_fd < 0)
    return oci_error_errno(err, "linux.sysctl: open /proc/sys");
  for (size_t i = 0; i < spec->n_sysctl; i++) {
    const char *value = spec->sysctl[i].value;
    cleanup_close int fd = -1;

    if (key_path(spec->sysctl[i].key, path, sizeof(path)) < 0)
      return oci_error_set(err, 0, "linux.sysctl: '%s' is not a sysctl name", spec->sysctl[i].key);
    fd = oci_openat2(sys_fd, path, O_WRONLY,
                     RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
    if (fd < 0 || oci_write_all(fd, value, strlen(value)) < 0)
      return oci_error_errno(err, "linux.sysctl: set %s to '%s' (/proc/sys/%s)",
                             spec->sysctl[i].key, value, path);
  }
  return 0;
}
