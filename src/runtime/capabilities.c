/* Capabilities: names to numbers, Docker's default set, and the child's
 * switch to the run's user with only the capabilities it keeps. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <stdbool.h>
#include <stddef.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "runtime/capabilities.h"

static const char *const capability_names[] = {
    [CAP_CHOWN] = "CHOWN",
    [CAP_DAC_OVERRIDE] = "DAC_OVERRIDE",
    [CAP_DAC_READ_SEARCH] = "DAC_READ_SEARCH",
    [CAP_FOWNER] = "FOWNER",
    [CAP_FSETID] = "FSETID",
    [CAP_KILL] = "KILL",
    [CAP_SETGID] = "SETGID",
    [CAP_SETUID] = "SETUID",
    [CAP_SETPCAP] = "SETPCAP",
    [CAP_LINUX_IMMUTABLE] = "LINUX_IMMUTABLE",
    [CAP_NET_BIND_SERVICE] = "NET_BIND_SERVICE",
    [CAP_NET_BROADCAST] = "NET_BROADCAST",
    [CAP_NET_ADMIN] = "NET_ADMIN",
    [CAP_NET_RAW] = "NET_RAW",
    [CAP_IPC_LOCK] = "IPC_LOCK",
    [CAP_IPC_OWNER] = "IPC_OWNER",
    [CAP_SYS_MODULE] = "SYS_MODULE",
    [CAP_SYS_RAWIO] = "SYS_RAWIO",
    [CAP_SYS_CHROOT] = "SYS_CHROOT",
    [CAP_SYS_PTRACE] = "SYS_PTRACE",
    [CAP_SYS_PACCT] = "SYS_PACCT",
    [CAP_SYS_ADMIN] = "SYS_ADMIN",
    [CAP_SYS_BOOT] = "SYS_BOOT",
    [CAP_SYS_NICE] = "SYS_NICE",
    [CAP_SYS_RESOURCE] = "SYS_RESOURCE",
    [CAP_SYS_TIME] = "SYS_TIME",
    [CAP_SYS_TTY_CONFIG] = "SYS_TTY_CONFIG",
    [CAP_MKNOD] = "MKNOD",
    [CAP_LEASE] = "LEASE",
    [CAP_AUDIT_WRITE] = "AUDIT_WRITE",
    [CAP_AUDIT_CONTROL] = "AUDIT_CONTROL",
    [CAP_SETFCAP] = "SETFCAP",
    [CAP_MAC_OVERRIDE] = "MAC_OVERRIDE",
    [CAP_MAC_ADMIN] = "MAC_ADMIN",
    [CAP_SYSLOG] = "SYSLOG",
    [CAP_WAKE_ALARM] = "WAKE_ALARM",
    [CAP_BLOCK_SUSPEND] = "BLOCK_SUSPEND",
    [CAP_AUDIT_READ] = "AUDIT_READ",
    [CAP_PERFMON] = "PERFMON",
    [CAP_BPF] = "BPF",
    [CAP_CHECKPOINT_RESTORE] = "CHECKPOINT_RESTORE",
};
enum { CAPABILITY_COUNT = sizeof(capability_names) / sizeof(capability_names[0]) };

int capability_from_name(const char *name)
{
  if (name == NULL)
    return -1;
  if (strcasecmp(name, "ALL") == 0)
    return CAPABILITY_ALL;
  if (strncasecmp(name, "CAP_", 4) == 0)
    name += 4;
  for (int cap = 0; cap < CAPABILITY_COUNT; cap++)
    if (capability_names[cap] != NULL && strcasecmp(name, capability_names[cap]) == 0)
      return cap;
  return -1;
}

const char *capability_name(int cap)
{
  if (cap < 0 || cap >= CAPABILITY_COUNT)
    return NULL;
  return capability_names[cap];
}

uint64_t capabilities_all_held(void)
{
  uint64_t mask = 0;
  for (int cap = 0; cap < CAPABILITY_COUNT; cap++)
    if (capability_names[cap] != NULL && prctl(PR_CAPBSET_READ, (unsigned long)cap, 0, 0, 0) == 1)
      mask |= UINT64_C(1) << cap;
  return mask;
}

uint64_t capabilities_docker_default(void)
{
  static const int defaults[] = {
      CAP_CHOWN,   CAP_DAC_OVERRIDE, CAP_FSETID,           CAP_FOWNER,
      CAP_MKNOD,   CAP_NET_RAW,      CAP_SETGID,           CAP_SETUID,
      CAP_SETFCAP, CAP_SETPCAP,      CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT,
      CAP_KILL,    CAP_AUDIT_WRITE,
  };
  uint64_t mask = 0;
  for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
    mask |= UINT64_C(1) << defaults[i];
  return mask;
}

static void capabilities_free(cap_t *caps)
{
  if (*caps != NULL)
    cap_free(*caps);
}

/* Permitted, effective and inheritable as one libcap state, exactly the
 * sets asked for. cap_init() starts with every set empty, so nothing the
 * caller held survives in any set. An inheritable set lets a non-root user
 * regain capabilities through a file with inheritable file capabilities
 * (runc's CVE-2022-29162, crun's CVE-2022-27650): the docker-run front end
 * leaves it empty, as Docker does since CVE-2022-24769; a bundle gets what
 * its config asks. */
static int capabilities_set_process(const struct capability_sets *sets, oci_error_t *err)
{
  __attribute__((cleanup(capabilities_free))) cap_t caps = cap_init();
  const struct {
    cap_flag_t flag;
    uint64_t mask;
  } flags[] = {{CAP_PERMITTED, sets->permitted},
               {CAP_EFFECTIVE, sets->effective},
               {CAP_INHERITABLE, sets->inheritable}};
  int last = (int)cap_max_bits();

  if (caps == NULL)
    return oci_error_errno(err, "capabilities: cap_init");
  for (cap_value_t cap = 0; cap < last && cap < 64; cap++) {
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
      if ((flags[i].mask & (UINT64_C(1) << cap)) != 0 &&
          cap_set_flag(caps, flags[i].flag, 1, &cap, CAP_SET) < 0)
        return oci_error_errno(err, "capabilities: cap_set_flag %d", cap);
    }
  }
  if (cap_set_proc(caps) < 0)
    return oci_error_errno(err, "capabilities: capset (permitted/effective/inheritable)");
  return 0;
}

int capabilities_set_effective(uint64_t effective, uint64_t *previous, oci_error_t *err)
{
  __attribute__((cleanup(capabilities_free))) cap_t caps = cap_get_proc();
  int last = (int)cap_max_bits();
  uint64_t was = 0;

  if (caps == NULL)
    return oci_error_errno(err, "capabilities: cap_get_proc");
  for (cap_value_t cap = 0; cap < last && cap < 64; cap++) {
    cap_flag_value_t in_effective = CAP_CLEAR, in_permitted = CAP_CLEAR;
    cap_flag_value_t want;

    if (cap_get_flag(caps, cap, CAP_EFFECTIVE, &in_effective) < 0 ||
        cap_get_flag(caps, cap, CAP_PERMITTED, &in_permitted) < 0)
      return oci_error_errno(err, "capabilities: cap_get_flag %d", cap);
    if (in_effective == CAP_SET)
      was |= UINT64_C(1) << cap;
    want = (effective & (UINT64_C(1) << cap)) != 0 && in_permitted == CAP_SET ? CAP_SET : CAP_CLEAR;
    if (cap_set_flag(caps, CAP_EFFECTIVE, 1, &cap, want) < 0)
      return oci_error_errno(err, "capabilities: cap_set_flag %d", cap);
  }
  if (cap_set_proc(caps) < 0)
    return oci_error_errno(err, "capabilities: capset (effective)");
  if (previous != NULL)
    *previous = was;
  return 0;
}

int capabilities_switch_user(uid_t uid, gid_t gid, bool set_groups, const gid_t *groups,
                             size_t n_groups, const struct capability_sets *sets, oci_error_t *err)
{
  int last = (int)cap_max_bits();
  int bits;

  /* (uid_t)-1 and (gid_t)-1 tell setresuid/setresgid to leave an id as it
   * is: the process would stay root. Every front end's ids end here. */
  if (uid == (uid_t)-1 || gid == (gid_t)-1)
    return oci_error_set(err, EINVAL, "user: %u:%u: 4294967295 is not an id (it means no change)",
                         (unsigned)uid, (unsigned)gid);

  /* The caller's securebits survive fork and exec (all but KEEP_CAPS):
   * SECBIT_NO_SETUID_FIXUP would let a workload that gives up root for
   * another uid keep every capability, SECBIT_NOROOT give root none at its
   * exec. Cleared while CAP_SETPCAP is held; a locked bit cannot be, and
   * fails the process. */
  bits = prctl(PR_GET_SECUREBITS, 0L, 0L, 0L, 0L);
  if (bits < 0)
    return oci_error_errno(err, "capabilities: prctl(PR_GET_SECUREBITS)");
  if (bits != 0 && prctl(PR_SET_SECUREBITS, 0L, 0L, 0L, 0L) < 0)
    return oci_error_errno(
        err, "capabilities: clear the caller's securebits %#x (a locked one cannot be)",
        (unsigned)bits);
  /* The bounding set first: dropping from it needs CAP_SETPCAP, which the
   * setuid below takes away from a non-root user. */
  for (int cap = 0; cap < last && cap < 64; cap++) {
    if (sets->bounding & (UINT64_C(1) << cap))
      continue;
    if (prctl(PR_CAPBSET_DROP, (unsigned long)cap, 0L, 0L, 0L) < 0)
      return oci_error_errno(err, "capabilities: prctl(PR_CAPBSET_DROP, %d)", cap);
  }
  /* Supplementary groups and gid before uid: both need CAP_SETGID, which
   * a non-root uid no longer has once setuid is done. A user namespace with
   * setgroups denied keeps the caller's groups: nothing can change them. */
  if (set_groups && setgroups(n_groups, groups) < 0)
    return oci_error_errno(err, "capabilities: setgroups (%zu groups)", n_groups);
  if (setresgid(gid, gid, gid) < 0)
    return oci_error_errno(err, "capabilities: setresgid %u", (unsigned)gid);
  /* KEEPCAPS so the permitted set survives the uid change; capset below
   * then sets it to exactly what the configuration asks. */
  if (prctl(PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L) < 0)
    return oci_error_errno(err, "capabilities: prctl(PR_SET_KEEPCAPS)");
  if (setresuid(uid, uid, uid) < 0)
    return oci_error_errno(err, "capabilities: setresuid %u", (unsigned)uid);
  if (prctl(PR_SET_KEEPCAPS, 0L, 0L, 0L, 0L) < 0)
    return oci_error_errno(err, "capabilities: prctl(PR_SET_KEEPCAPS, 0)");
  if (capabilities_set_process(sets, err) < 0)
    return -1;
  /* Ambient: cleared, then each asked one raised (the kernel requires it
   * in permitted and inheritable, and refuses it otherwise: an error). */
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0L, 0L, 0L) < 0 && errno != EINVAL)
    return oci_error_errno(err, "capabilities: prctl(PR_CAP_AMBIENT_CLEAR_ALL)");
  for (int cap = 0; cap < last && cap < 64; cap++) {
    if ((sets->ambient & (UINT64_C(1) << cap)) != 0 &&
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, (unsigned long)cap, 0L, 0L) < 0)
      return oci_error_errno(err, "capabilities: raise ambient capability %s",
                             capability_name(cap) != NULL ? capability_name(cap) : "?");
  }
  return 0;
}
