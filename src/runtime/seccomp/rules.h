/* A seccomp profile in memory: Docker's JSON model as C data. The built-in
 * default (seccomp/default.c) and a profile file (seccomp/profile.c) both
 * become this; seccomp/build.c compiles it and renders it back as JSON. */
#ifndef SECCOMP_RULES_H
#define SECCOMP_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "oci/error.h"

enum { SECCOMP_RULE_MAX_ARGS = 6, SECCOMP_PROFILE_MAX_ARCHES = 16 };

/* Architecture names as profiles spell them in includes/excludes.arches
 * (Go's names: "amd64", "x32", "arm64", ...), as bits. */
enum seccomp_arch_bit {
  SECCOMP_ARCH_AMD64 = 1u << 0,
  SECCOMP_ARCH_X86 = 1u << 1,
  SECCOMP_ARCH_X32 = 1u << 2,
  SECCOMP_ARCH_ARM64 = 1u << 3,
  SECCOMP_ARCH_ARM = 1u << 4,
  SECCOMP_ARCH_PPC64LE = 1u << 5,
  SECCOMP_ARCH_S390 = 1u << 6,
  SECCOMP_ARCH_S390X = 1u << 7,
  SECCOMP_ARCH_RISCV64 = 1u << 8,
  SECCOMP_ARCH_MIPS64 = 1u << 9,
  SECCOMP_ARCH_MIPS64N32 = 1u << 10,
  SECCOMP_ARCH_MIPS = 1u << 11,
  SECCOMP_ARCH_MIPSEL64 = 1u << 12,
  SECCOMP_ARCH_MIPSEL64N32 = 1u << 13,
  SECCOMP_ARCH_MIPSEL = 1u << 14,
  SECCOMP_ARCH_PPC64 = 1u << 15,
  SECCOMP_ARCH_PPC = 1u << 16,
  SECCOMP_ARCH_LOONG64 = 1u << 17,
};

struct seccomp_arch_info {
  uint32_t bit;                /* enum seccomp_arch_bit */
  const char *go_name;         /* includes.arches spelling */
  const char *scmp_name;       /* "SCMP_ARCH_X86_64" */
  const char *libseccomp_name; /* seccomp_arch_resolve_name's spelling */
  uint32_t sub_arches;         /* what a host of this arch also executes */
};
/* Looked up by bit, Go name or SCMP name; NULL when unknown. */
const struct seccomp_arch_info *seccomp_arch_info_by_go_name(const char *name);
const struct seccomp_arch_info *seccomp_arch_info_by_scmp_name(const char *name);
const struct seccomp_arch_info *seccomp_arch_info_by_bit(uint32_t bit);
/* The host's own architecture (libseccomp's native token). */
const struct seccomp_arch_info *seccomp_arch_info_host(void);

struct seccomp_arg {
  unsigned index;
  uint64_t value;     /* for SCMP_CMP_MASKED_EQ: the mask (Docker's order) */
  uint64_t value_two; /* for SCMP_CMP_MASKED_EQ: the value after masking */
  enum scmp_compare op;
};

/* When a rule applies (includes: all must hold; excludes: none may). */
struct seccomp_condition {
  uint64_t caps;       /* capability bit mask */
  uint32_t arches;     /* enum seccomp_arch_bit mask */
  unsigned min_kernel; /* major << 16 | minor; 0: none */
};

struct seccomp_rule {
  const char *const *names; /* NULL-terminated */
  uint32_t action;          /* SCMP_ACT_ALLOW, SCMP_ACT_ERRNO(0), ... without errno */
  int errno_ret;            /* -1: not given (EPERM for ERRNO) */
  struct seccomp_arg args[SECCOMP_RULE_MAX_ARGS];
  size_t n_args;
  struct seccomp_condition includes;
  struct seccomp_condition excludes;
};

struct seccomp_profile {
  uint32_t default_action; /* without errno */
  int default_errno_ret;   /* -1: not given (EPERM for ERRNO) */
  /* Architectures the filter is compiled for, besides the native one:
   * "architectures" plus the archMap entry of the native architecture. */
  uint32_t arches;
  /* Docker's archMap: add every ABI the native architecture executes
   * (x86_64: x86 and x32), as the built-in table of seccomp/names.c says. */
  bool builtin_arch_map;
  /* seccomp(2) flags given as "flags": SECCOMP_FILTER_FLAG_LOG and
   * SECCOMP_FILTER_FLAG_SPEC_ALLOW (TSYNC is accepted and needs nothing:
   * the child is single-threaded). */
  unsigned filter_flags;
  const struct seccomp_rule *rules;
  size_t n_rules;
  bool owned; /* allocated by the profile parser: seccomp_profile_free frees */
};

/* Docker's default profile (seccomp/default.c). */
const struct seccomp_profile *seccomp_default_profile(void);

/* Parses a Docker/OCI JSON profile (seccomp/profile.c). */
int seccomp_profile_parse_file(const char *path, struct seccomp_profile **out, oci_error_t *err);
int seccomp_profile_parse(const char *json, const char *origin, struct seccomp_profile **out,
                          oci_error_t *err);
/* The same, SCMP_ACT_NOTIFY accepted: a configuration whose
 * linux.seccomp.listenerPath names the agent that answers it (the spec
 * parser refuses the action without one; a profile file never has one). */
int seccomp_profile_parse_notify(const char *json, const char *origin, struct seccomp_profile **out,
                                 oci_error_t *err);
void seccomp_profile_free(struct seccomp_profile *profile);
/* The profile resolved for a run, without compiling it: only the rules
 * whose conditions hold for effective_caps and the host's kernel, the
 * architectures the host executes spelled out, and nothing Docker-only
 * (includes, excludes, archMap): OCI's linux.seccomp object, which
 * seccomp_profile_parse reads back to the same rules. */
int seccomp_profile_resolve_oci(const struct seccomp_profile *profile, uint64_t effective_caps,
                                cJSON **out, oci_error_t *err);

/* A compiled filter: classic BPF instructions, as prctl(PR_SET_SECCOMP)
 * takes them. */
enum { SECCOMP_PROGRAM_MAX_INSNS = BPF_MAXINSNS };
struct seccomp_program {
  struct sock_filter *insns;
  size_t n_insns;
};
/* The program a built filter loads (struct seccomp_filter is seccomp/build.c's):
 * for tests that run it on synthetic calls. */
struct seccomp_filter;
const struct seccomp_program *seccomp_filter_program(const struct seccomp_filter *filter);
/* Runs a program on one call as the kernel would (seccomp/bpf.c): false
 * when the program is malformed or runs off its end, else *ret is its
 * SECCOMP_RET_* answer. */
bool seccomp_bpf_run(const struct seccomp_program *program, const struct seccomp_data *data,
                     uint32_t *ret);

/* The cache of compiled programs (seccomp/cache.c) under
 * STATE_ROOT/seccomp-cache, keyed by a digest of everything the program
 * depends on. Lookup returns 1 on a hit (insns allocated), 0 on a miss or
 * an unusable entry; storing is best effort: a cache that cannot be
 * written only costs the next run the compilation. */
int seccomp_cache_lookup(const char *state_root, const char *key, struct seccomp_program *out);
void seccomp_cache_store(const char *state_root, const char *key,
                         const struct seccomp_program *program);

/* Filter flag <-> "SECCOMP_FILTER_FLAG_LOG"; 0 when unknown. */
unsigned seccomp_flag_from_name(const char *name);
const char *seccomp_flag_name(unsigned flag);

/* Action <-> Docker's name ("SCMP_ACT_ERRNO"); op <-> "SCMP_CMP_EQ". */
const char *seccomp_action_name(uint32_t action);
int seccomp_action_from_name(const char *name, uint32_t *action);
/* The index-th accepted action name, NULL past the last (`ocirun features`). */
const char *seccomp_action_name_at(size_t index);
const char *seccomp_op_name(enum scmp_compare op);
int seccomp_op_from_name(const char *name, enum scmp_compare *op);

#endif
