/* The seccomp filter: a profile (Docker's default or a JSON file) resolved
 * against the run's capabilities and the host's architecture, compiled with
 * libseccomp to a BPF program in the parent (or taken from the cache of
 * compiled programs), and loaded in the child with one prctl. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <seccomp.h>

#include "runtime/capabilities.h"
#include "oci/cleanup.h"
#include "oci/digest.h"
#include "runtime/seccomp/filter.h"
#include "runtime/seccomp/rules.h"

struct seccomp_filter {
  struct seccomp_program program; /* what the child loads */
  unsigned flags;                 /* seccomp(2) flags the profile asks for */
  bool notifies;                  /* an SCMP_ACT_NOTIFY action: loaded with a listener */
  char *profile_json;             /* the resolved profile, as applied */
};

/* What a profile's conditions are checked against. */
struct seccomp_host {
  uint64_t caps;
  const struct seccomp_arch_info *native;
  unsigned kernel; /* major << 16 | minor */
};

static unsigned kernel_version(void)
{
  struct utsname name;
  unsigned major = 0, minor = 0;

  if (uname(&name) < 0 || sscanf(name.release, "%u.%u", &major, &minor) != 2)
    return 0;
  return (major << 16) | minor;
}

static int host_describe(uint64_t caps, struct seccomp_host *host, oci_error_t *err)
{
  host->caps = caps;
  host->native = seccomp_arch_info_host();
  host->kernel = kernel_version();
  if (host->native == NULL)
    return oci_error_set(err, 0, "seccomp: native architecture %#x not in ocirun's table",
                         seccomp_arch_native());
  return 0;
}

/* Docker's semantics: includes must all hold, excludes must all fail. */
static bool rule_applies(const struct seccomp_rule *rule, const struct seccomp_host *host)
{
  const struct seccomp_condition *in = &rule->includes, *ex = &rule->excludes;

  if ((host->caps & in->caps) != in->caps)
    return false;
  if (in->arches != 0 && (in->arches & host->native->bit) == 0)
    return false;
  if (in->min_kernel != 0 && host->kernel < in->min_kernel)
    return false;
  if ((host->caps & ex->caps) != 0)
    return false;
  if ((ex->arches & host->native->bit) != 0)
    return false;
  if (ex->min_kernel != 0 && host->kernel >= ex->min_kernel)
    return false;
  return true;
}

static uint32_t action_with_errno(uint32_t action, int errno_ret)
{
  if (action == SCMP_ACT_ERRNO(0))
    return SCMP_ACT_ERRNO(errno_ret < 0 ? EPERM : errno_ret);
  if (action == SCMP_ACT_TRACE(0))
    return SCMP_ACT_TRACE(errno_ret < 0 ? EPERM : errno_ret);
  return action;
}

static uint32_t profile_arches(const struct seccomp_profile *profile,
                               const struct seccomp_host *host)
{
  uint32_t arches = profile->arches | host->native->bit;
  if (profile->builtin_arch_map)
    arches |= host->native->sub_arches;
  return arches;
}

static void arg_to_libseccomp(const struct seccomp_arg *arg, struct scmp_arg_cmp *cmp)
{
  cmp->arg = arg->index;
  cmp->op = arg->op;
  cmp->datum_a = arg->value;
  cmp->datum_b = arg->op == SCMP_CMP_MASKED_EQ ? arg->value_two : 0;
}

static bool args_repeat_an_index(const struct seccomp_rule *rule)
{
  for (size_t i = 0; i < rule->n_args; i++)
    for (size_t j = i + 1; j < rule->n_args; j++)
      if (rule->args[i].index == rule->args[j].index)
        return true;
  return false;
}

static int rule_add(scmp_filter_ctx ctx, const struct seccomp_rule *rule, const char *name, int nr,
                    uint32_t action, oci_error_t *err)
{
  struct scmp_arg_cmp cmps[SECCOMP_RULE_MAX_ARGS];
  int ret;

  for (size_t i = 0; i < rule->n_args; i++)
    arg_to_libseccomp(&rule->args[i], &cmps[i]);
  /* Conditions on one argument cannot be ANDed by libseccomp; like runc,
   * such a rule becomes one rule per condition (any of them allows). */
  if (args_repeat_an_index(rule)) {
    for (size_t i = 0; i < rule->n_args; i++) {
      ret = seccomp_rule_add_array(ctx, action, nr, 1, &cmps[i]);
      if (ret < 0 && ret != -EEXIST)
        return oci_error_set(err, -ret, "seccomp: add rule for %s (argument %zu)", name, i);
    }
    return 0;
  }
  ret = seccomp_rule_add_array(ctx, action, nr, (unsigned)rule->n_args, cmps);
  if (ret < 0 && ret != -EEXIST)
    return oci_error_set(err, -ret, "seccomp: add rule for %s", name);
  return 0;
}

static int filter_compile(const struct seccomp_profile *profile, const struct seccomp_host *host,
                          scmp_filter_ctx *out, oci_error_t *err)
{
  uint32_t default_action = action_with_errno(profile->default_action, profile->default_errno_ret);
  uint32_t arches = profile_arches(profile, host);
  scmp_filter_ctx ctx = seccomp_init(default_action);
  int ret;

  if (ctx == NULL)
    return oci_error_set(err, EINVAL, "seccomp: seccomp_init");
  /* no-new-privileges is the runtime's decision (--security-opt), not a
   * side effect of loading the filter. */
  ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
  if (ret < 0)
    goto fail_attr;
  for (uint32_t bit = 1; bit != 0; bit <<= 1) {
    const struct seccomp_arch_info *arch;
    uint32_t token;
    if ((arches & bit) == 0 || bit == host->native->bit)
      continue;
    arch = seccomp_arch_info_by_bit(bit);
    token = arch != NULL ? seccomp_arch_resolve_name(arch->libseccomp_name) : 0;
    if (token == 0) {
      seccomp_release(ctx);
      return oci_error_set(err, 0, "seccomp: architecture %s unknown to libseccomp",
                           arch != NULL ? arch->scmp_name : "?");
    }
    ret = seccomp_arch_add(ctx, token);
    if (ret < 0 && ret != -EEXIST) {
      seccomp_release(ctx);
      return oci_error_set(err, -ret, "seccomp: add architecture %s", arch->scmp_name);
    }
  }
  for (size_t r = 0; r < profile->n_rules; r++) {
    const struct seccomp_rule *rule = &profile->rules[r];
    uint32_t action = action_with_errno(rule->action, rule->errno_ret);
    if (!rule_applies(rule, host) || action == default_action)
      continue; /* libseccomp refuses rules that repeat the default */
    for (const char *const *name = rule->names; *name != NULL; name++) {
      int nr = seccomp_syscall_resolve_name(*name);
      if (nr == __NR_SCMP_ERROR) {
        /* A name newer than libseccomp: skipping an allow rule only
         * denies more (Docker does the same); skipping any other would
         * let the call through, so that is an error. */
        if (rule->action == SCMP_ACT_ALLOW)
          continue;
        seccomp_release(ctx);
        return oci_error_set(err, 0, "seccomp: syscall '%s' unknown to libseccomp %u.%u", *name,
                             seccomp_version()->major, seccomp_version()->minor);
      }
      if (rule_add(ctx, rule, *name, nr, action, err) < 0) {
        seccomp_release(ctx);
        return -1;
      }
    }
  }
  *out = ctx;
  return 0;

fail_attr:
  seccomp_release(ctx);
  return oci_error_set(err, -ret, "seccomp: set filter attribute");
}

/* --- rendering as Docker/OCI JSON --- */

static cJSON *caps_json(uint64_t caps)
{
  cJSON *array = cJSON_CreateArray();
  for (int cap = 0; cap < 64 && array != NULL; cap++) {
    char name[64];
    if ((caps & (UINT64_C(1) << cap)) == 0 || capability_name(cap) == NULL)
      continue;
    snprintf(name, sizeof(name), "CAP_%s", capability_name(cap));
    cJSON_AddItemToArray(array, cJSON_CreateString(name));
  }
  return array;
}

static cJSON *arches_json(uint32_t arches, bool scmp_names)
{
  cJSON *array = cJSON_CreateArray();
  for (uint32_t bit = 1; bit != 0 && array != NULL; bit <<= 1) {
    const struct seccomp_arch_info *arch = (arches & bit) ? seccomp_arch_info_by_bit(bit) : NULL;
    if (arch != NULL)
      cJSON_AddItemToArray(array, cJSON_CreateString(scmp_names ? arch->scmp_name : arch->go_name));
  }
  return array;
}

static cJSON *condition_json(const struct seccomp_condition *condition)
{
  cJSON *object = cJSON_CreateObject();
  if (object == NULL)
    return NULL;
  if (condition->caps != 0)
    cJSON_AddItemToObject(object, "caps", caps_json(condition->caps));
  if (condition->arches != 0)
    cJSON_AddItemToObject(object, "arches", arches_json(condition->arches, false));
  if (condition->min_kernel != 0) {
    char version[32];
    snprintf(version, sizeof(version), "%u.%u", condition->min_kernel >> 16,
             condition->min_kernel & 0xffff);
    cJSON_AddStringToObject(object, "minKernel", version);
  }
  return object;
}

static bool condition_empty(const struct seccomp_condition *condition)
{
  return condition->caps == 0 && condition->arches == 0 && condition->min_kernel == 0;
}

static cJSON *rule_json(const struct seccomp_rule *rule, bool with_conditions)
{
  cJSON *object = cJSON_CreateObject(), *names = cJSON_CreateArray();
  if (object == NULL || names == NULL) {
    cJSON_Delete(object);
    cJSON_Delete(names);
    return NULL;
  }
  for (const char *const *name = rule->names; *name != NULL; name++)
    cJSON_AddItemToArray(names, cJSON_CreateString(*name));
  cJSON_AddItemToObject(object, "names", names);
  cJSON_AddStringToObject(object, "action", seccomp_action_name(rule->action));
  if (rule->errno_ret >= 0)
    cJSON_AddNumberToObject(object, "errnoRet", rule->errno_ret);
  if (rule->n_args > 0) {
    cJSON *args = cJSON_AddArrayToObject(object, "args");
    for (size_t i = 0; i < rule->n_args && args != NULL; i++) {
      cJSON *arg = cJSON_CreateObject();
      if (arg == NULL)
        break;
      cJSON_AddNumberToObject(arg, "index", rule->args[i].index);
      cJSON_AddNumberToObject(arg, "value", (double)rule->args[i].value);
      cJSON_AddNumberToObject(arg, "valueTwo", (double)rule->args[i].value_two);
      cJSON_AddStringToObject(arg, "op", seccomp_op_name(rule->args[i].op));
      cJSON_AddItemToArray(args, arg);
    }
  }
  if (with_conditions && !condition_empty(&rule->includes))
    cJSON_AddItemToObject(object, "includes", condition_json(&rule->includes));
  if (with_conditions && !condition_empty(&rule->excludes))
    cJSON_AddItemToObject(object, "excludes", condition_json(&rule->excludes));
  return object;
}

/* host NULL: the whole profile with its conditions and archMap (what
 * `ocirun seccomp-profile` prints); otherwise only what applies to host,
 * which is OCI's linux.seccomp format (no includes, excludes or archMap). */
static cJSON *profile_json(const struct seccomp_profile *profile, const struct seccomp_host *host)
{
  cleanup_cjson cJSON *root = cJSON_CreateObject();
  cJSON *syscalls;

  if (root == NULL)
    return NULL;
  cJSON_AddStringToObject(root, "defaultAction", seccomp_action_name(profile->default_action));
  if (profile->default_errno_ret >= 0)
    cJSON_AddNumberToObject(root, "defaultErrnoRet", profile->default_errno_ret);
  if (profile->filter_flags != 0) {
    cJSON *flags = cJSON_AddArrayToObject(root, "flags");
    for (unsigned bit = 1; bit != 0 && flags != NULL; bit <<= 1)
      if ((profile->filter_flags & bit) != 0 && seccomp_flag_name(bit) != NULL)
        cJSON_AddItemToArray(flags, cJSON_CreateString(seccomp_flag_name(bit)));
  }
  if (host != NULL) {
    cJSON_AddItemToObject(root, "architectures", arches_json(profile_arches(profile, host), true));
  } else {
    if (profile->arches != 0)
      cJSON_AddItemToObject(root, "architectures", arches_json(profile->arches, true));
    if (profile->builtin_arch_map) {
      cJSON *map = cJSON_AddArrayToObject(root, "archMap");
      for (uint32_t bit = 1; bit != 0 && map != NULL; bit <<= 1) {
        const struct seccomp_arch_info *arch = seccomp_arch_info_by_bit(bit);
        cJSON *entry;
        if (arch == NULL || arch->sub_arches == 0)
          continue;
        entry = cJSON_CreateObject();
        if (entry == NULL)
          return NULL;
        cJSON_AddStringToObject(entry, "architecture", arch->scmp_name);
        cJSON_AddItemToObject(entry, "subArchitectures", arches_json(arch->sub_arches, true));
        cJSON_AddItemToArray(map, entry);
      }
    }
  }
  syscalls = cJSON_AddArrayToObject(root, "syscalls");
  for (size_t r = 0; r < profile->n_rules && syscalls != NULL; r++) {
    if (host != NULL && !rule_applies(&profile->rules[r], host))
      continue;
    cJSON_AddItemToArray(syscalls, rule_json(&profile->rules[r], host == NULL));
  }
  return steal_pointer(&root);
}

static char *profile_render(const struct seccomp_profile *profile, const struct seccomp_host *host)
{
  cleanup_cjson cJSON *root = profile_json(profile, host);

  return root != NULL ? cJSON_Print(root) : NULL;
}

/* --- the interface of seccomp.h --- */

static void profile_release(struct seccomp_profile **profile)
{
  seccomp_profile_free(*profile);
}

int seccomp_profile_resolve_oci(const struct seccomp_profile *profile, uint64_t effective_caps,
                                cJSON **out, oci_error_t *err)
{
  struct seccomp_host host;

  *out = NULL;
  if (host_describe(effective_caps, &host, err) < 0)
    return -1;
  *out = profile_json(profile, &host);
  if (*out == NULL)
    return oci_error_set(err, ENOMEM, "seccomp: render profile");
  return 0;
}

int seccomp_resolve_oci(const char *profile_path, uint64_t effective_caps, cJSON **out,
                        oci_error_t *err)
{
  __attribute__((cleanup(profile_release))) struct seccomp_profile *parsed = NULL;

  *out = NULL;
  if (profile_path != NULL && seccomp_profile_parse_file(profile_path, &parsed, err) < 0)
    return -1;
  return seccomp_profile_resolve_oci(parsed != NULL ? parsed : seccomp_default_profile(),
                                     effective_caps, out, err);
}

/* libseccomp writes the program to a file descriptor: a memfd keeps it in
 * memory, so the child gets plain instructions and needs no library call. */
static int program_export(scmp_filter_ctx ctx, struct seccomp_program *program, oci_error_t *err)
{
  cleanup_close int fd = memfd_create("ocirun-seccomp", MFD_CLOEXEC);
  struct stat st;
  ssize_t n;
  int ret;

  if (fd < 0)
    return oci_error_errno(err, "seccomp: memfd_create");
  ret = seccomp_export_bpf(ctx, fd);
  if (ret < 0)
    return oci_error_set(err, -ret, "seccomp: export BPF program");
  if (fstat(fd, &st) < 0)
    return oci_error_errno(err, "seccomp: stat exported program");
  if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0 ||
      (size_t)st.st_size > SECCOMP_PROGRAM_MAX_INSNS * sizeof(struct sock_filter))
    return oci_error_set(err, 0, "seccomp: exported program has %lld bytes", (long long)st.st_size);
  program->insns = malloc((size_t)st.st_size);
  if (program->insns == NULL)
    return oci_error_errno(err, "seccomp: allocate program");
  n = pread(fd, program->insns, (size_t)st.st_size, 0);
  if (n != st.st_size) {
    free(program->insns);
    program->insns = NULL;
    return oci_error_set(err, n < 0 ? errno : EIO, "seccomp: read exported program");
  }
  program->n_insns = (size_t)st.st_size / sizeof(struct sock_filter);
  return 0;
}

/* --- the exported program checked against the profile ---
 * libseccomp can export a program without a rule on one architecture:
 * 2.5.4, given x86_64 and x32 in one filter, a rule with arguments and a
 * rule on a call x86_64 lacks (socketcall, ipc, _llseek: a pseudo-syscall
 * there), drops x86_64's load of the syscall number, so x86_64's rules
 * compare the architecture and every x86_64 call gets the default (its
 * PFC output still shows the rules). So every applicable rule is tried on
 * every architecture of the filter with arguments that satisfy it: the
 * program must answer the action of a rule that matches the call, or the
 * build fails naming the rule. */

/* What a multiplexer carries (i386, s390, ppc), with its number there:
 * libseccomp turns a rule on one of these into a rule on the multiplexer
 * that ignores the arguments (they are in memory, out of a filter's
 * reach). */
struct carried_call {
  const char *name;
  uint32_t number;
};
static const struct carried_call socketcall_calls[] = {
    {"socket", 1},    {"bind", 2},        {"connect", 3},     {"listen", 4},
    {"accept", 5},    {"getsockname", 6}, {"getpeername", 7}, {"socketpair", 8},
    {"send", 9},      {"recv", 10},       {"sendto", 11},     {"recvfrom", 12},
    {"shutdown", 13}, {"setsockopt", 14}, {"getsockopt", 15}, {"sendmsg", 16},
    {"recvmsg", 17},  {"accept4", 18},    {"recvmmsg", 19},   {"sendmmsg", 20},
    {NULL, 0}};
static const struct carried_call ipc_calls[] = {
    {"semop", 1},   {"semget", 2},  {"semctl", 3},  {"semtimedop", 4}, {"msgsnd", 11},
    {"msgrcv", 12}, {"msgget", 13}, {"msgctl", 14}, {"shmat", 21},     {"shmdt", 22},
    {"shmget", 23}, {"shmctl", 24}, {NULL, 0}};

/* ipc(2) reads only the low 16 bits of its call number (the rest is a
 * version) while libseccomp compares all 32: the same call with version
 * bits set is tried too. */
struct multiplexer {
  const char *name;
  const struct carried_call *calls;
  uint32_t version_bits;
};
static const struct multiplexer multiplexers[] = {
    {"socketcall", socketcall_calls, 0},
    {"ipc", ipc_calls, 0x20000},
};

static bool name_in(const char *name, const struct carried_call *calls)
{
  for (; calls->name != NULL; calls++)
    if (strcmp(calls->name, name) == 0)
      return true;
  return false;
}

/* The rule names call itself, or (carried) a call the multiplexer call carries. */
static bool rule_names(const struct seccomp_rule *rule, const char *call, bool carried)
{
  for (const char *const *name = rule->names; *name != NULL; name++) {
    if (!carried && strcmp(*name, call) == 0)
      return true;
    for (size_t m = 0; carried && m < sizeof(multiplexers) / sizeof(multiplexers[0]); m++)
      if (strcmp(call, multiplexers[m].name) == 0 && name_in(*name, multiplexers[m].calls))
        return true;
  }
  return false;
}

/* narrow: a 32-bit ABI, whose arguments libseccomp compares as 32 bits. */
static bool arg_holds(const struct seccomp_arg *arg, uint64_t value, bool narrow)
{
  uint64_t mask = narrow ? UINT32_MAX : UINT64_MAX, datum = arg->value & mask;

  value &= mask;
  switch (arg->op) {
  case SCMP_CMP_NE:
    return value != datum;
  case SCMP_CMP_LT:
    return value < datum;
  case SCMP_CMP_LE:
    return value <= datum;
  case SCMP_CMP_EQ:
    return value == datum;
  case SCMP_CMP_GE:
    return value >= datum;
  case SCMP_CMP_GT:
    return value > datum;
  case SCMP_CMP_MASKED_EQ:
    return (value & datum) == (arg->value_two & mask);
  default:
    return false;
  }
}

/* As rule_add compiles it: conditions on one argument are alternatives. */
static bool rule_matches(const struct seccomp_rule *rule, const uint64_t args[6], bool narrow)
{
  bool alternatives = args_repeat_an_index(rule), any = false;

  for (size_t i = 0; i < rule->n_args; i++) {
    bool holds = arg_holds(&rule->args[i], args[rule->args[i].index], narrow);
    if (!holds && !alternatives)
      return false;
    any |= holds;
  }
  return rule->n_args == 0 || !alternatives || any;
}

/* Arguments meant to satisfy the rule (rule_matches says whether they do:
 * "LT 0" cannot be). */
static void rule_witness(const struct seccomp_rule *rule, uint64_t args[6])
{
  memset(args, 0, 6 * sizeof(*args));
  for (size_t i = 0; i < rule->n_args; i++) {
    const struct seccomp_arg *arg = &rule->args[i];
    if (arg->op == SCMP_CMP_NE || arg->op == SCMP_CMP_GT)
      args[arg->index] = arg->value + 1;
    else if (arg->op == SCMP_CMP_LT)
      args[arg->index] = arg->value - 1;
    else if (arg->op == SCMP_CMP_MASKED_EQ)
      args[arg->index] = arg->value_two;
    else
      args[arg->index] = arg->value;
  }
}

static bool arch_narrow(uint32_t token)
{
  static const uint32_t narrow[] = {
      SCMP_ARCH_X86, SCMP_ARCH_X32,  SCMP_ARCH_ARM,       SCMP_ARCH_MIPS,        SCMP_ARCH_MIPSEL,
      SCMP_ARCH_PPC, SCMP_ARCH_S390, SCMP_ARCH_MIPS64N32, SCMP_ARCH_MIPSEL64N32,
  };
  for (size_t i = 0; i < sizeof(narrow) / sizeof(narrow[0]); i++)
    if (narrow[i] == token)
      return true;
  return false;
}

/* The kernel's order of actions, most restrictive first (it is how it
 * picks between stacked filters): a smaller rank denies more. */
static int32_t action_rank(uint32_t action)
{
  return (int32_t)(action & SECCOMP_RET_ACTION_FULL);
}

/* Is got the action of an applicable rule that matches call(args)? A rule
 * on a call the multiplexer call carries matches whatever the arguments. */
static bool answer_expected(const struct seccomp_profile *profile, const struct seccomp_host *host,
                            const char *call, const uint64_t args[6], bool narrow, uint32_t got)
{
  for (size_t r = 0; r < profile->n_rules; r++) {
    const struct seccomp_rule *rule = &profile->rules[r];
    if (!rule_applies(rule, host) || action_with_errno(rule->action, rule->errno_ret) != got)
      continue;
    if (rule_names(rule, call, true) ||
        (rule_names(rule, call, false) && rule_matches(rule, args, narrow)))
      return true;
  }
  return false;
}

/* "SCMP_ACT_ERRNO(1)": a program's answer as a profile writes it. */
static const char *action_text(uint32_t ret, char buf[48])
{
  uint32_t action = ret & SECCOMP_RET_ACTION_FULL, data = ret & SECCOMP_RET_DATA;

  if (action == SCMP_ACT_ERRNO(0) || action == SCMP_ACT_TRACE(0))
    snprintf(buf, 48, "%s(%u)", seccomp_action_name(action), data);
  else
    snprintf(buf, 48, "%s", seccomp_action_name(action));
  return buf;
}

/* The first argument of rule compared with a value above 32 bits (for
 * SCMP_CMP_MASKED_EQ the value compared, not the mask: a mask's high bits
 * only clear what a 32-bit call never sets), or NULL. On a 32-bit ABI
 * (i386, and x32 as libseccomp compiles it) libseccomp compares only the
 * low 32 bits, so "allow personality if arg0 == 0x100400000", which no
 * i386 call can make, allowed i386's personality(0x400000). */
static const struct seccomp_arg *arg_wider_than_abi(const struct seccomp_rule *rule)
{
  for (size_t i = 0; i < rule->n_args; i++) {
    const struct seccomp_arg *arg = &rule->args[i];
    uint64_t datum = arg->op == SCMP_CMP_MASKED_EQ ? arg->value_two : arg->value;
    if (datum > UINT32_MAX)
      return arg;
  }
  return NULL;
}

static int rule_check(const struct seccomp_profile *profile, const struct seccomp_host *host,
                      const struct seccomp_program *program, size_t r,
                      const struct seccomp_arch_info *arch, uint32_t token, oci_error_t *err)
{
  const struct seccomp_rule *rule = &profile->rules[r];
  bool narrow = arch_narrow(token);
  struct seccomp_data data = {.arch = token == SCMP_ARCH_X32 ? SCMP_ARCH_X86_64 : token};
  const struct seccomp_arg *wide = narrow ? arg_wider_than_abi(rule) : NULL;
  uint64_t args[6];
  uint32_t got;

  rule_witness(rule, args);
  if (!rule_matches(rule, args, narrow))
    return 0; /* no one call satisfies it, or none this ABI can make */
  memcpy(data.args, args, sizeof(data.args));
  for (const char *const *name = rule->names; *name != NULL; name++) {
    data.nr = seccomp_syscall_resolve_name_arch(token, *name);
    if (data.nr < 0)
      continue; /* not a call of this architecture, or unknown (an allow rule) */
    if (wide != NULL)
      return oci_error_set(
          err, 0,
          "seccomp: syscalls[%zu] (%s) compares argument %u with %#llx, above 32 bits: on %s, a "
          "32-bit ABI to libseccomp, it compares only the low 32 bits, so the rule would match "
          "calls it does not name; refused rather than loaded weaker (leave %s out of "
          "architectures)",
          r, *name, wide->index,
          (unsigned long long)(wide->op == SCMP_CMP_MASKED_EQ ? wide->value_two : wide->value),
          arch->scmp_name, arch->scmp_name);
    if (!seccomp_bpf_run(program, &data, &got))
      return oci_error_set(err, 0, "seccomp: libseccomp exported a malformed program");
    /* Of two rules without arguments on one call libseccomp keeps the
     * first (the profile's order decides), but a rule without arguments
     * overrides one with them wherever it stands, whatever their actions:
     * "allow getcwd" beside "getcwd errno if arg1 >= 0" allowed every
     * getcwd. A rule with arguments may give way only to a stricter one. */
    if (!answer_expected(profile, host, *name, args, narrow, got) ||
        (rule->n_args > 0 &&
         action_rank(got) > action_rank(action_with_errno(rule->action, rule->errno_ret)))) {
      char want[48], gave[48];
      return oci_error_set(
          err, 0,
          "seccomp: syscalls[%zu] (%s, %s) does not hold on %s in the program libseccomp %u.%u.%u "
          "compiled (the call gets %s); refused rather than loaded weaker (libseccomp 2.5 drops "
          "x86_64's rules when x32 is in the filter with a rule on a call x86_64 lacks, such as "
          "socketcall or ipc, beside a rule with args; a rule without args on a call overrides one "
          "with args, whatever their actions and order)",
          r, *name, action_text(action_with_errno(rule->action, rule->errno_ret), want),
          arch->scmp_name, seccomp_version()->major, seccomp_version()->minor,
          seccomp_version()->micro, action_text(got, gave));
    }
  }
  return 0;
}

/* May the program answer call, made through a multiplexer that hides its
 * arguments, with got? Yes if a rule on the multiplexer itself, without
 * arguments, says so (the profile decided the multiplexer: Docker's allows
 * socketcall), or if got denies at least as much as the profile's answer
 * to call for any arguments (a rule naming it, or the default where a rule
 * naming it compares arguments). */
static bool carried_answer_holds(const struct seccomp_profile *profile,
                                 const struct seccomp_host *host, const char *multiplexer,
                                 const char *call, uint32_t got)
{
  uint32_t default_action = action_with_errno(profile->default_action, profile->default_errno_ret);
  bool compares = false;

  for (size_t r = 0; r < profile->n_rules; r++) {
    const struct seccomp_rule *rule = &profile->rules[r];
    if (rule_applies(rule, host) && rule->n_args == 0 &&
        action_with_errno(rule->action, rule->errno_ret) == got &&
        rule_names(rule, multiplexer, false))
      return true;
  }
  for (size_t r = 0; r < profile->n_rules; r++) {
    const struct seccomp_rule *rule = &profile->rules[r];
    if (!rule_applies(rule, host) || !rule_names(rule, call, false))
      continue;
    compares |= rule->n_args > 0;
    if (action_rank(got) > action_rank(action_with_errno(rule->action, rule->errno_ret)))
      return false;
  }
  return !compares || action_rank(got) <= action_rank(default_action);
}

/* Each applicable rule's calls as the architecture's multiplexers carry
 * them: rule_check tries the direct calls with arguments that satisfy the
 * rule, but through socketcall or ipc the arguments are out of the
 * filter's sight (a socket family allow-list allows every family there),
 * and ipc's version bits dodge libseccomp's comparison of the call number. */
static int multiplexer_check(const struct seccomp_profile *profile, const struct seccomp_host *host,
                             const struct seccomp_program *program,
                             const struct seccomp_arch_info *arch, uint32_t token, oci_error_t *err)
{
  for (size_t m = 0; m < sizeof(multiplexers) / sizeof(multiplexers[0]); m++) {
    const struct multiplexer *mux = &multiplexers[m];
    struct seccomp_data data = {.nr = seccomp_syscall_resolve_name_arch(token, mux->name),
                                .arch = token};
    if (data.nr < 0)
      continue; /* not a call of this architecture (a pseudo-syscall) */
    for (size_t r = 0; r < profile->n_rules; r++) {
      const struct seccomp_rule *rule = &profile->rules[r];
      if (!rule_applies(rule, host))
        continue;
      for (const struct carried_call *call = mux->calls; call->name != NULL; call++) {
        if (!rule_names(rule, call->name, false))
          continue;
        for (int versioned = 0; versioned <= (mux->version_bits != 0); versioned++) {
          char want[48], gave[48];
          uint32_t got;
          data.args[0] = call->number | (versioned ? mux->version_bits : 0);
          if (!seccomp_bpf_run(program, &data, &got))
            return oci_error_set(err, 0, "seccomp: libseccomp exported a malformed program");
          if (carried_answer_holds(profile, host, mux->name, call->name, got))
            continue;
          return oci_error_set(
              err, 0,
              "seccomp: syscalls[%zu] (%s, %s) does not hold on %s through %s(%#llx), which "
              "hides the call's arguments%s (the call gets %s); refused rather than loaded "
              "weaker: add a rule on %s without arguments, or leave %s out of architectures",
              r, call->name, action_text(action_with_errno(rule->action, rule->errno_ret), want),
              arch->scmp_name, mux->name, (unsigned long long)data.args[0],
              versioned ? " and reads only the low 16 bits of its call number" : "",
              action_text(got, gave), mux->name, arch->scmp_name);
        }
      }
    }
  }
  return 0;
}

static int program_check(const struct seccomp_profile *profile, const struct seccomp_host *host,
                         const struct seccomp_program *program, oci_error_t *err)
{
  uint32_t arches = profile_arches(profile, host);

  for (uint32_t bit = 1; bit != 0; bit <<= 1) {
    const struct seccomp_arch_info *arch = seccomp_arch_info_by_bit(bit);
    uint32_t token;
    if ((arches & bit) == 0 || arch == NULL)
      continue;
    token = bit == host->native->bit ? seccomp_arch_native()
                                     : seccomp_arch_resolve_name(arch->libseccomp_name);
    for (size_t r = 0; r < profile->n_rules; r++)
      if (rule_applies(&profile->rules[r], host) &&
          rule_check(profile, host, program, r, arch, token, err) < 0)
        return -1;
    if (multiplexer_check(profile, host, program, arch, token, err) < 0)
      return -1;
  }
  return 0;
}

/* Everything the compiled program depends on: the resolved profile (names,
 * actions, arguments, architectures), libseccomp's version and this file's
 * compilation rules (bump the tag when filter_compile changes meaning). */
static void program_cache_key(const char *profile_json, char key[OCI_DIGEST_LEN])
{
  const struct scmp_version *version = seccomp_version();
  struct oci_sha256 *hash = oci_sha256_new();
  char header[96];

  snprintf(header, sizeof(header), "ocirun seccomp program v3\nlibseccomp %u.%u.%u\n",
           version->major, version->minor, version->micro);
  if (hash == NULL) {
    key[0] = '\0';
    return;
  }
  oci_sha256_update(hash, header, strlen(header));
  oci_sha256_update(hash, profile_json, strlen(profile_json));
  oci_sha256_final(hash, key);
  oci_sha256_free(hash);
}

static bool profile_notifies(const struct seccomp_profile *profile)
{
  if (profile->default_action == SCMP_ACT_NOTIFY)
    return true;
  for (size_t r = 0; r < profile->n_rules; r++)
    if (profile->rules[r].action == SCMP_ACT_NOTIFY)
      return true;
  return false;
}

/* The child sends the listener to the agent with sendmsg under the filter
 * it just loaded (seccomp/listener.c): a sendmsg the filter notifies would
 * wait for an agent that has no listener yet, for ever. Refused before the
 * container exists (checked with all-zero arguments: a rule notifying only
 * some sendmsg calls is the profile author's to keep off the runtime's). */
static int listener_check(const struct seccomp_program *program, oci_error_t *err)
{
  struct seccomp_data data = {.nr = seccomp_syscall_resolve_name("sendmsg"),
                              .arch = seccomp_arch_native()};
  uint32_t got;

  if (!seccomp_bpf_run(program, &data, &got))
    return oci_error_set(err, 0, "seccomp: libseccomp exported a malformed program");
  if ((got & SECCOMP_RET_ACTION_FULL) == SCMP_ACT_NOTIFY)
    return oci_error_set(err, 0,
                         "linux.seccomp: SCMP_ACT_NOTIFY on sendmsg is refused: the runtime sends "
                         "the notify listener to linux.seccomp.listenerPath with sendmsg once the "
                         "filter is loaded, which would wait for the agent for ever");
  return 0;
}

/* Compiles a profile for the run (or takes the program from the cache). */
static int filter_build(const struct seccomp_profile *profile, uint64_t effective_caps,
                        const char *state_root, struct seccomp_filter **out, oci_error_t *err)
{
  struct seccomp_host host;
  struct seccomp_filter *filter;
  scmp_filter_ctx ctx = NULL;
  char key[OCI_DIGEST_LEN];

  if (host_describe(effective_caps, &host, err) < 0)
    return -1;
  filter = calloc(1, sizeof(*filter));
  if (filter == NULL)
    return oci_error_errno(err, "seccomp: allocate filter");
  filter->flags = profile->filter_flags;
  filter->notifies = profile_notifies(profile);
  filter->profile_json = profile_render(profile, &host);
  if (filter->profile_json == NULL) {
    seccomp_filter_free(filter);
    return oci_error_set(err, ENOMEM, "seccomp: render profile");
  }
  program_cache_key(filter->profile_json, key);
  if (state_root != NULL && key[0] != '\0' &&
      seccomp_cache_lookup(state_root, key, &filter->program) > 0) {
    if (filter->notifies && listener_check(&filter->program, err) < 0) {
      seccomp_filter_free(filter);
      return -1;
    }
    *out = filter;
    return 0;
  }
  if (filter_compile(profile, &host, &ctx, err) < 0 ||
      program_export(ctx, &filter->program, err) < 0 ||
      program_check(profile, &host, &filter->program, err) < 0 ||
      (filter->notifies && listener_check(&filter->program, err) < 0)) {
    if (ctx != NULL)
      seccomp_release(ctx);
    seccomp_filter_free(filter);
    return -1;
  }
  seccomp_release(ctx);
  if (state_root != NULL && key[0] != '\0')
    seccomp_cache_store(state_root, key, &filter->program);
  *out = filter;
  return 0;
}

int seccomp_filter_build_cached(const char *profile_path, uint64_t effective_caps,
                                const char *state_root, struct seccomp_filter **out,
                                oci_error_t *err)
{
  __attribute__((cleanup(profile_release))) struct seccomp_profile *parsed = NULL;

  *out = NULL;
  if (profile_path != NULL && seccomp_profile_parse_file(profile_path, &parsed, err) < 0)
    return -1;
  return filter_build(parsed != NULL ? parsed : seccomp_default_profile(), effective_caps,
                      state_root, out, err);
}

int seccomp_filter_build_oci(const cJSON *seccomp, uint64_t effective_caps, const char *state_root,
                             struct seccomp_filter **out, oci_error_t *err)
{
  __attribute__((cleanup(profile_release))) struct seccomp_profile *parsed = NULL;
  cleanup_free char *text = NULL;

  *out = NULL;
  if (seccomp == NULL)
    return 0;
  text = cJSON_PrintUnformatted(seccomp);
  if (text == NULL)
    return oci_error_set(err, ENOMEM, "seccomp: print linux.seccomp");
  /* The spec parser has refused SCMP_ACT_NOTIFY without a listenerPath. */
  if (seccomp_profile_parse_notify(text, "config.json: linux.seccomp", &parsed, err) < 0)
    return -1;
  return filter_build(parsed, effective_caps, state_root, out, err);
}

int seccomp_filter_build(const char *profile_path, uint64_t effective_caps,
                         struct seccomp_filter **out, oci_error_t *err)
{
  return seccomp_filter_build_cached(profile_path, effective_caps, NULL, out, err);
}

bool seccomp_filter_notifies(const struct seccomp_filter *filter)
{
  return filter != NULL && filter->notifies;
}

int seccomp_filter_load_listener(struct seccomp_filter *filter, int *listener, oci_error_t *err)
{
  struct sock_fprog prog;
  unsigned flags;
  long ret;

  if (listener != NULL)
    *listener = -1;
  if (filter == NULL)
    return 0; /* unconfined */
  prog.len = (unsigned short)filter->program.n_insns;
  prog.filter = filter->program.insns;
  /* Needs no-new-privileges or CAP_SYS_ADMIN: the caller's ordering.
   * TSYNC is dropped: this process has one thread, and with TSYNC the
   * call would return a thread id instead of 0. With NEW_LISTENER it
   * returns the listener (close-on-exec: the workload never holds it). */
  flags = filter->flags & ~SECCOMP_FILTER_FLAG_TSYNC;
  if (listener != NULL && filter->notifies)
    flags |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
  ret = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
  if (ret < 0)
    return oci_error_errno(err, "seccomp: load filter (%zu instructions)", filter->program.n_insns);
  if ((flags & SECCOMP_FILTER_FLAG_NEW_LISTENER) != 0)
    *listener = (int)ret;
  return 0;
}

int seccomp_filter_load(struct seccomp_filter *filter, oci_error_t *err)
{
  return seccomp_filter_load_listener(filter, NULL, err);
}

void seccomp_filter_free(struct seccomp_filter *filter)
{
  if (filter == NULL)
    return;
  free(filter->program.insns);
  free(filter->profile_json);
  free(filter);
}

const struct seccomp_program *seccomp_filter_program(const struct seccomp_filter *filter)
{
  return &filter->program;
}

char *seccomp_filter_profile_json(const struct seccomp_filter *filter)
{
  if (filter == NULL)
    return strdup("\"unconfined\"");
  return strdup(filter->profile_json);
}

int seccomp_print_default_profile(FILE *out, oci_error_t *err)
{
  cleanup_free char *json = profile_render(seccomp_default_profile(), NULL);

  if (json == NULL)
    return oci_error_set(err, ENOMEM, "seccomp: render default profile");
  if (fprintf(out, "%s\n", json) < 0 || fflush(out) != 0)
    return oci_error_errno(err, "seccomp: write default profile");
  return 0;
}
