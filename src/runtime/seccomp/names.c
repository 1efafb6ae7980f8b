/* The names seccomp profiles use: architectures (both Go's and libseccomp's
 * spellings), actions and comparison operators. */
#include "config.h"

#include <linux/seccomp.h>
#include <string.h>

#include "runtime/seccomp/rules.h"

#define X86_FAMILY (SECCOMP_ARCH_X86 | SECCOMP_ARCH_X32)
#define MIPS64_FAMILY (SECCOMP_ARCH_MIPS | SECCOMP_ARCH_MIPS64N32)
#define MIPSEL64_FAMILY (SECCOMP_ARCH_MIPSEL | SECCOMP_ARCH_MIPSEL64N32)

/* sub_arches: the 32-bit ABIs a 64-bit kernel of that family also runs,
 * which a filter must cover or they become a way around it. */
static const struct seccomp_arch_info arches[] = {
    {SECCOMP_ARCH_AMD64, "amd64", "SCMP_ARCH_X86_64", "x86_64", X86_FAMILY},
    {SECCOMP_ARCH_X86, "x86", "SCMP_ARCH_X86", "x86", 0},
    {SECCOMP_ARCH_X32, "x32", "SCMP_ARCH_X32", "x32", 0},
    {SECCOMP_ARCH_ARM64, "arm64", "SCMP_ARCH_AARCH64", "aarch64", SECCOMP_ARCH_ARM},
    {SECCOMP_ARCH_ARM, "arm", "SCMP_ARCH_ARM", "arm", 0},
    {SECCOMP_ARCH_PPC64LE, "ppc64le", "SCMP_ARCH_PPC64LE", "ppc64le", 0},
    {SECCOMP_ARCH_PPC64, "ppc64", "SCMP_ARCH_PPC64", "ppc64", 0},
    {SECCOMP_ARCH_PPC, "ppc", "SCMP_ARCH_PPC", "ppc", 0},
    {SECCOMP_ARCH_S390X, "s390x", "SCMP_ARCH_S390X", "s390x", SECCOMP_ARCH_S390},
    {SECCOMP_ARCH_S390, "s390", "SCMP_ARCH_S390", "s390", 0},
    {SECCOMP_ARCH_RISCV64, "riscv64", "SCMP_ARCH_RISCV64", "riscv64", 0},
    {SECCOMP_ARCH_MIPS64, "mips64", "SCMP_ARCH_MIPS64", "mips64", MIPS64_FAMILY},
    {SECCOMP_ARCH_MIPS64N32, "mips64n32", "SCMP_ARCH_MIPS64N32", "mips64n32",
     SECCOMP_ARCH_MIPS | SECCOMP_ARCH_MIPS64},
    {SECCOMP_ARCH_MIPS, "mips", "SCMP_ARCH_MIPS", "mips", 0},
    {SECCOMP_ARCH_MIPSEL64, "mipsel64", "SCMP_ARCH_MIPSEL64", "mipsel64", MIPSEL64_FAMILY},
    {SECCOMP_ARCH_MIPSEL64N32, "mipsel64n32", "SCMP_ARCH_MIPSEL64N32", "mipsel64n32",
     SECCOMP_ARCH_MIPSEL | SECCOMP_ARCH_MIPSEL64},
    {SECCOMP_ARCH_MIPSEL, "mipsel", "SCMP_ARCH_MIPSEL", "mipsel", 0},
    {SECCOMP_ARCH_LOONG64, "loong64", "SCMP_ARCH_LOONGARCH64", "loongarch64", 0},
};
enum { ARCH_COUNT = sizeof(arches) / sizeof(arches[0]) };

const struct seccomp_arch_info *seccomp_arch_info_by_go_name(const char *name)
{
  for (size_t i = 0; i < ARCH_COUNT; i++)
    if (strcmp(arches[i].go_name, name) == 0)
      return &arches[i];
  return NULL;
}

const struct seccomp_arch_info *seccomp_arch_info_by_scmp_name(const char *name)
{
  for (size_t i = 0; i < ARCH_COUNT; i++)
    if (strcmp(arches[i].scmp_name, name) == 0)
      return &arches[i];
  return NULL;
}

const struct seccomp_arch_info *seccomp_arch_info_by_bit(uint32_t bit)
{
  for (size_t i = 0; i < ARCH_COUNT; i++)
    if (arches[i].bit == bit)
      return &arches[i];
  return NULL;
}

const struct seccomp_arch_info *seccomp_arch_info_host(void)
{
  uint32_t token = seccomp_arch_native();
  for (size_t i = 0; i < ARCH_COUNT; i++)
    if (seccomp_arch_resolve_name(arches[i].libseccomp_name) == token)
      return &arches[i];
  return NULL;
}

static const struct {
  unsigned flag;
  const char *name;
} flags[] = {
    {SECCOMP_FILTER_FLAG_TSYNC, "SECCOMP_FILTER_FLAG_TSYNC"},
    {SECCOMP_FILTER_FLAG_LOG, "SECCOMP_FILTER_FLAG_LOG"},
    {SECCOMP_FILTER_FLAG_SPEC_ALLOW, "SECCOMP_FILTER_FLAG_SPEC_ALLOW"},
};

unsigned seccomp_flag_from_name(const char *name)
{
  for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
    if (strcmp(flags[i].name, name) == 0)
      return flags[i].flag;
  return 0;
}

const char *seccomp_flag_name(unsigned flag)
{
  for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
    if (flags[i].flag == flag)
      return flags[i].name;
  return NULL;
}

static const struct {
  uint32_t action;
  const char *name;
} actions[] = {
    {SCMP_ACT_KILL_THREAD, "SCMP_ACT_KILL"},
    {SCMP_ACT_KILL_THREAD, "SCMP_ACT_KILL_THREAD"},
    {SCMP_ACT_KILL_PROCESS, "SCMP_ACT_KILL_PROCESS"},
    {SCMP_ACT_TRAP, "SCMP_ACT_TRAP"},
    {SCMP_ACT_ERRNO(0), "SCMP_ACT_ERRNO"},
    {SCMP_ACT_TRACE(0), "SCMP_ACT_TRACE"},
    {SCMP_ACT_ALLOW, "SCMP_ACT_ALLOW"},
    {SCMP_ACT_LOG, "SCMP_ACT_LOG"},
    {SCMP_ACT_NOTIFY, "SCMP_ACT_NOTIFY"}, /* only with linux.seccomp.listenerPath */
};

const char *seccomp_action_name(uint32_t action)
{
  for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
    if (actions[i].action == action)
      return actions[i].name;
  return "?";
}

int seccomp_action_from_name(const char *name, uint32_t *action)
{
  for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
    if (strcmp(actions[i].name, name) == 0) {
      *action = actions[i].action;
      return 0;
    }
  return -1;
}

static const char *const op_names[] = {
    [SCMP_CMP_NE] = "SCMP_CMP_NE",
    [SCMP_CMP_LT] = "SCMP_CMP_LT",
    [SCMP_CMP_LE] = "SCMP_CMP_LE",
    [SCMP_CMP_EQ] = "SCMP_CMP_EQ",
    [SCMP_CMP_GE] = "SCMP_CMP_GE",
    [SCMP_CMP_GT] = "SCMP_CMP_GT",
    [SCMP_CMP_MASKED_EQ] = "SCMP_CMP_MASKED_EQ",
};

const char *seccomp_action_name_at(size_t index)
{
  return index < sizeof(actions) / sizeof(actions[0]) ? actions[index].name : NULL;
}

const char *seccomp_op_name(enum scmp_compare op)
{
  if (op <= _SCMP_CMP_MIN || op >= _SCMP_CMP_MAX)
    return "?";
  return op_names[op];
}

int seccomp_op_from_name(const char *name, enum scmp_compare *op)
{
  for (int i = SCMP_CMP_NE; i < _SCMP_CMP_MAX; i++)
    if (strcmp(op_names[i], name) == 0) {
      *op = (enum scmp_compare)i;
      return 0;
    }
  return -1;
}
