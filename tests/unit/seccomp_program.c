/* The default seccomp filter as the kernel runs it: the program libseccomp
 * exported (what the child loads), run by a small classic-BPF interpreter
 * (seccomp/bpf.c) on synthetic calls of each x86 ABI (x86_64, i386, x32).
 * libseccomp rewrites rules on the way (a socket rule also becomes a
 * socketcall rule), so what the rule table says proves nothing: the
 * program does. */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "runtime/capabilities.h"
#include "runtime/seccomp/filter.h"
#include "runtime/seccomp/rules.h"
#include "unit.h"

#if defined(__x86_64__)

/* The three ABIs of an x86_64 kernel, as seccomp sees a call. i386's
 * numbers are asm/unistd_32.h's, which cannot be included beside the
 * 64-bit ones; x32's are x86_64's with __X32_SYSCALL_BIT. */
enum {
  X32_BIT = 0x40000000,
  I386_GETPID = 20,
  I386_SOCKETCALL = 102,
  I386_KEYCTL = 288,
  I386_SOCKET = 359,
  SOCKETCALL_SOCKET = 1, /* linux/net.h: SYS_SOCKET ... SYS_SENDMMSG */
  SOCKETCALL_LAST = 20,
};
struct abi {
  const char *name;
  uint32_t arch;
  int socket_nr, getpid_nr, keyctl_nr;
};
static const struct abi x86_64 = {"x86_64", AUDIT_ARCH_X86_64, SYS_socket, SYS_getpid, SYS_keyctl};
static const struct abi i386 = {"i386", AUDIT_ARCH_I386, I386_SOCKET, I386_GETPID, I386_KEYCTL};
static const struct abi x32 = {"x32", AUDIT_ARCH_X86_64, SYS_socket | X32_BIT, SYS_getpid | X32_BIT,
                               SYS_keyctl | X32_BIT};

/* What the program answers, as the tables below write it: "allow",
 * "EPERM" (the errno of SECCOMP_RET_ERRNO), "kill", or another action. */
static const char *answer(const struct seccomp_program *program, uint32_t arch, int nr,
                          const uint64_t args[6], char *buf, size_t size)
{
  struct seccomp_data data = {.nr = nr, .arch = arch};
  uint32_t ret;

  memcpy(data.args, args, sizeof(data.args));
  if (!seccomp_bpf_run(program, &data, &ret))
    return "malformed program";
  switch (ret & SECCOMP_RET_ACTION_FULL) {
  case SECCOMP_RET_ALLOW:
    return "allow";
  case SECCOMP_RET_ERRNO: {
    const char *name = strerrorname_np((int)(ret & SECCOMP_RET_DATA));
    snprintf(buf, size, "%s", name != NULL ? name : "errno ?");
    return buf;
  }
  case SECCOMP_RET_KILL_THREAD:
  case SECCOMP_RET_KILL_PROCESS:
    return "kill";
  default:
    snprintf(buf, size, "action %#x", ret);
    return buf;
  }
}

/* socket(family, type, 0) on an ABI; family as the 64-bit register holds it. */
static const char *socket_answer(const struct seccomp_program *program, const struct abi *abi,
                                 uint64_t family, char *buf, size_t size)
{
  const uint64_t args[6] = {family, SOCK_STREAM, 0, 0, 0, 0};
  return answer(program, abi->arch, abi->socket_nr, args, buf, size);
}

/* socketcall(call, args) from a 64-bit process's int $0x80: the family is
 * in the memory args points to, which a filter never sees. */
static const char *socketcall_answer(const struct seccomp_program *program, unsigned call,
                                     char *buf, size_t size)
{
  const uint64_t args[6] = {call, 0x10000, 0, 0, 0, 0};
  return answer(program, AUDIT_ARCH_I386, I386_SOCKETCALL, args, buf, size);
}

static const char *plain_answer(const struct seccomp_program *program, uint32_t arch, int nr,
                                char *buf, size_t size)
{
  const uint64_t args[6] = {0};
  return answer(program, arch, nr, args, buf, size);
}

/* --- the default's answer for every address family (AF_* of sys/socket.h,
 * 0 to AF_MAX - 1). A change to the default's socket rules, or a new
 * family in the headers, fails here until this table says it. AF_ALG and
 * AF_VSOCK are denied as in moby's and containerd's defaults
 * (docs/confinement.md names the revisions compared). --- */
#define ALLOWED "allow"
#define DENIED "EPERM"
#define FAMILY(family, answer)                                                                     \
  {                                                                                                \
    family, #family, answer                                                                        \
  }
static const struct {
  int family;
  const char *name, *answer;
} families[] = {
    FAMILY(AF_UNSPEC, ALLOWED),     FAMILY(AF_UNIX, ALLOWED),      FAMILY(AF_INET, ALLOWED),
    FAMILY(AF_AX25, ALLOWED),       FAMILY(AF_IPX, ALLOWED),       FAMILY(AF_APPLETALK, ALLOWED),
    FAMILY(AF_NETROM, ALLOWED),     FAMILY(AF_BRIDGE, ALLOWED),    FAMILY(AF_ATMPVC, ALLOWED),
    FAMILY(AF_X25, ALLOWED),        FAMILY(AF_INET6, ALLOWED),     FAMILY(AF_ROSE, ALLOWED),
    FAMILY(AF_DECnet, ALLOWED),     FAMILY(AF_NETBEUI, ALLOWED),   FAMILY(AF_SECURITY, ALLOWED),
    FAMILY(AF_KEY, ALLOWED),        FAMILY(AF_NETLINK, ALLOWED),   FAMILY(AF_PACKET, ALLOWED),
    FAMILY(AF_ASH, ALLOWED),        FAMILY(AF_ECONET, ALLOWED),    FAMILY(AF_ATMSVC, ALLOWED),
    FAMILY(AF_RDS, ALLOWED),        FAMILY(AF_SNA, ALLOWED),       FAMILY(AF_IRDA, ALLOWED),
    FAMILY(AF_PPPOX, ALLOWED),      FAMILY(AF_WANPIPE, ALLOWED),   FAMILY(AF_LLC, ALLOWED),
    FAMILY(AF_IB, ALLOWED),         FAMILY(AF_MPLS, ALLOWED),      FAMILY(AF_CAN, ALLOWED),
    FAMILY(AF_TIPC, ALLOWED),       FAMILY(AF_BLUETOOTH, ALLOWED), FAMILY(AF_IUCV, ALLOWED),
    FAMILY(AF_RXRPC, ALLOWED),      FAMILY(AF_ISDN, ALLOWED),      FAMILY(AF_PHONET, ALLOWED),
    FAMILY(AF_IEEE802154, ALLOWED), FAMILY(AF_CAIF, ALLOWED),      FAMILY(AF_ALG, DENIED),
    FAMILY(AF_NFC, ALLOWED),        FAMILY(AF_VSOCK, DENIED),      FAMILY(AF_KCM, ALLOWED),
    FAMILY(AF_QIPCRTR, ALLOWED),    FAMILY(AF_SMC, ALLOWED),       FAMILY(AF_XDP, ALLOWED),
    FAMILY(AF_MCTP, ALLOWED),
};
enum { N_FAMILIES = sizeof(families) / sizeof(families[0]) };

/* The family's answer on an ABI; at most one "not ok" line per table. */
static void check_family_table(const struct seccomp_program *program, const struct abi *abi,
                               const char *label)
{
  char buf[64], table[N_FAMILIES * 24] = "";
  size_t wrong = 0, used = 0;

  for (size_t i = 0; i < N_FAMILIES; i++) {
    const char *got = socket_answer(program, abi, (uint64_t)families[i].family, buf, sizeof(buf));
    if (strcmp(got, families[i].answer) != 0) {
      printf("#   %s socket(%s=%d): %s, the table says %s\n", abi->name, families[i].name,
             families[i].family, got, families[i].answer);
      wrong++;
    }
    if (strcmp(families[i].answer, ALLOWED) != 0 && used < sizeof(table))
      used += (size_t)snprintf(table + used, sizeof(table) - used, " %s=%s", families[i].name, got);
  }
  ok(wrong == 0, "%s: %s socket() of every family 0..AF_MAX-1 as the table says (denied:%s)", label,
     abi->name, table);
}

/* Everything the default must answer, on one built program. */
static void check_default(const struct seccomp_program *program, const char *label)
{
  const struct abi *abis[] = {&x86_64, &i386, &x32};
  char buf[64];
  unsigned socketcall_wrong = 0;

  for (size_t i = 0; i < 3; i++) {
    const struct abi *abi = abis[i];
    check_family_table(program, abi, label);
    is_str(socket_answer(program, abi, AF_MAX, buf, sizeof(buf)), DENIED,
           "%s: %s socket(AF_MAX=%d), a family newer than the table: denied", label, abi->name,
           AF_MAX);
    is_str(socket_answer(program, abi, (uint32_t)-1, buf, sizeof(buf)), DENIED,
           "%s: %s socket(-1): denied", label, abi->name);
    is_str(plain_answer(program, abi->arch, abi->getpid_nr, buf, sizeof(buf)), "allow",
           "%s: %s getpid allowed (control)", label, abi->name);
    is_str(plain_answer(program, abi->arch, abi->keyctl_nr, buf, sizeof(buf)), "EPERM",
           "%s: %s keyctl, in no rule, gets the default EPERM (control)", label, abi->name);
  }
  /* The kernel reads socket's family as an int: the high half of the
   * 64-bit register must not turn a denied family into an allowed one. */
  for (size_t i = 0; i < N_FAMILIES; i++)
    if (strcmp(families[i].answer, DENIED) == 0) {
      uint64_t high = UINT64_C(1) << 32 | (uint64_t)families[i].family;
      is_str(socket_answer(program, &x86_64, high, buf, sizeof(buf)), DENIED,
             "%s: x86_64 socket(%#" PRIx64 "), %s with high bits set: denied", label, high,
             families[i].name);
      is_str(socket_answer(program, &x32, high, buf, sizeof(buf)), DENIED,
             "%s: x32 socket(%#" PRIx64 "): denied", label, high);
    }
  /* i386's socketcall, every call it multiplexes (x86_64 and x32 have none). */
  for (unsigned call = 0; call <= SOCKETCALL_LAST + 1; call++)
    if (strcmp(socketcall_answer(program, call, buf, sizeof(buf)), "ENOSYS") != 0) {
      printf("#   socketcall(%u): %s\n", call, buf);
      socketcall_wrong++;
    }
  ok(socketcall_wrong == 0, "%s: i386 socketcall(0..%d), SYS_SOCKET among them: ENOSYS", label,
     SOCKETCALL_LAST + 1);
  is_str(socketcall_answer(program, SOCKETCALL_SOCKET, buf, sizeof(buf)), "ENOSYS",
         "%s: i386 socketcall(SYS_SOCKET, {AF_VSOCK or AF_ALG ...}): ENOSYS", label);
  is_str(plain_answer(program, AUDIT_ARCH_AARCH64, SYS_getpid, buf, sizeof(buf)), "kill",
         "%s: a call of an architecture the filter does not cover (aarch64): killed", label);
}

/* --- building programs --- */

static struct seccomp_filter *build_default(uint64_t caps)
{
  struct seccomp_filter *filter = NULL;
  oci_error_t err = NULL;

  if (seccomp_filter_build(NULL, caps, &filter, &err) < 0) {
    printf("# build the default: %s\n", err->message);
    oci_error_free(&err);
  }
  return filter;
}

/* A profile given as JSON (Docker's format or OCI's), as a configuration's
 * linux.seccomp is built. */
static struct seccomp_filter *build_json(const char *text, uint64_t caps)
{
  struct seccomp_filter *filter = NULL;
  oci_error_t err = NULL;
  cJSON *json = cJSON_Parse(text);

  if (json == NULL || seccomp_filter_build_oci(json, caps, NULL, &filter, &err) < 0) {
    printf("# build a profile: %s\n", err != NULL ? err->message : "not JSON");
    oci_error_free(&err);
  }
  cJSON_Delete(json);
  return filter;
}

static bool same_program(const struct seccomp_filter *a, const struct seccomp_filter *b)
{
  const struct seccomp_program *pa = seccomp_filter_program(a), *pb = seccomp_filter_program(b);
  return pa->n_insns == pb->n_insns &&
         memcmp(pa->insns, pb->insns, pa->n_insns * sizeof(*pa->insns)) == 0;
}

/* `ocirun seccomp-profile`'s output. */
static char *printed_default(void)
{
  char *text = NULL;
  size_t size = 0;
  oci_error_t err = NULL;
  FILE *out = open_memstream(&text, &size);

  if (out == NULL)
    return NULL;
  if (seccomp_print_default_profile(out, &err) < 0)
    oci_error_free(&err);
  fclose(out);
  return text;
}

/* The printed profile and the one `ocirun run` writes into its
 * configuration compile to the very program of the built-in table. */
static void check_consistent(const struct seccomp_filter *builtin, uint64_t caps, const char *label)
{
  char *printed = printed_default();
  struct seccomp_filter *from_print = printed != NULL ? build_json(printed, caps) : NULL;
  struct seccomp_filter *from_run = NULL;
  cJSON *resolved = NULL;
  oci_error_t err = NULL;

  ok(from_print != NULL && same_program(builtin, from_print),
     "%s: `ocirun seccomp-profile`'s JSON compiles to the same program", label);
  if (seccomp_resolve_oci(NULL, caps, &resolved, &err) < 0) {
    printf("# resolve: %s\n", err->message);
    oci_error_free(&err);
  } else {
    char *text = cJSON_PrintUnformatted(resolved);
    from_run = text != NULL ? build_json(text, caps) : NULL;
    free(text);
  }
  ok(from_run != NULL && same_program(builtin, from_run),
     "%s: the linux.seccomp `ocirun run` writes compiles to the same program", label);
  cJSON_Delete(resolved);
  seccomp_filter_free(from_print);
  seccomp_filter_free(from_run);
  free(printed);
}

/* Builds the profile; *refused when the builder said no (what it said is
 * printed), else the filter. */
static struct seccomp_filter *build_case(const char *text, bool *refused)
{
  struct seccomp_filter *filter = NULL;
  oci_error_t err = NULL;
  cJSON *json = cJSON_Parse(text);

  *refused = json == NULL || seccomp_filter_build_oci(json, 0, NULL, &filter, &err) < 0;
  if (*refused)
    printf("#   refused: %s\n", err != NULL ? err->message : "not JSON");
  oci_error_free(&err);
  cJSON_Delete(json);
  return filter;
}

/* --- the holes, seen by the same interpreter (positive controls) --- */

#define PROFILE_HEAD                                                                               \
  "{\"defaultAction\": \"SCMP_ACT_ERRNO\", \"defaultErrnoRet\": 1,"                                \
  " \"architectures\": [\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\", \"SCMP_ARCH_X32\"],"              \
  " \"syscalls\": [{\"names\": [\"getpid\"], \"action\": \"SCMP_ACT_ALLOW\"},"
/* ocirun's socket rules before AF_ALG was denied: socketcall allowed, and
 * every family but AF_VSOCK by one "not equal" comparison. */
static const char old_rules[] =
    PROFILE_HEAD "{\"names\": [\"socketcall\"], \"action\": \"SCMP_ACT_ALLOW\"},"
                 " {\"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\","
                 "  \"args\": [{\"index\": 0, \"value\": 40, \"op\": \"SCMP_CMP_NE\"}]}]}";
/* The same with socketcall merely left out of the allow list. */
static const char without_socketcall[] =
    PROFILE_HEAD "{\"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\","
                 "  \"args\": [{\"index\": 0, \"value\": 40, \"op\": \"SCMP_CMP_NE\"}]}]}";
/* moby's and containerd's socket rules (below AF_ALG, AF_NFC, above
 * AF_VSOCK), and socketcall allowed as they allow it. */
static const char open_range[] =
    PROFILE_HEAD "{\"names\": [\"socketcall\"], \"action\": \"SCMP_ACT_ALLOW\"},"
                 " {\"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\","
                 "  \"args\": [{\"index\": 0, \"value\": 38, \"op\": \"SCMP_CMP_LT\"}]},"
                 " {\"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\","
                 "  \"args\": [{\"index\": 0, \"value\": 39, \"op\": \"SCMP_CMP_EQ\"}]},"
                 " {\"names\": [\"socket\"], \"action\": \"SCMP_ACT_ALLOW\","
                 "  \"args\": [{\"index\": 0, \"value\": 40, \"op\": \"SCMP_CMP_GT\"}]}]}";

static void check_controls(void)
{
  struct seccomp_filter *old = build_json(old_rules, 0);
  struct seccomp_filter *range = build_json(open_range, 0);
  bool refused;
  struct seccomp_filter *bare = build_case(without_socketcall, &refused);
  char buf[64];

  /* libseccomp's own socketcall(SYS_SOCKET) rule, without the family
   * check, would allow every family on i386: build.c's multiplexer_check
   * refuses the profile. */
  ok(refused && bare == NULL,
     "socketcall in no rule beside a socket rule with arguments, i386 in the filter: refused");
  if (!ok(old != NULL && range != NULL, "control profiles compile"))
    goto out;
  is_str(socket_answer(seccomp_filter_program(old), &x86_64, AF_VSOCK, buf, sizeof(buf)), "EPERM",
         "control, old rules: x86_64 socket(AF_VSOCK) denied (the rule works as written)");
  is_str(socketcall_answer(seccomp_filter_program(old), SOCKETCALL_SOCKET, buf, sizeof(buf)),
         "allow", "control, old rules: i386 socketcall(SYS_SOCKET, {AF_VSOCK}) allowed (the hole)");
  is_str(socket_answer(seccomp_filter_program(old), &x86_64, UINT64_C(1) << 32 | AF_VSOCK, buf,
                       sizeof(buf)),
         "allow",
         "control, old rules: x86_64 socket(0x100000028), AF_VSOCK to the kernel: allowed");
  is_str(socket_answer(seccomp_filter_program(old), &x86_64, AF_ALG, buf, sizeof(buf)), "allow",
         "control, old rules: x86_64 socket(AF_ALG) allowed");
  is_str(socket_answer(seccomp_filter_program(range), &x86_64, AF_ALG, buf, sizeof(buf)), "EPERM",
         "control, open range: x86_64 socket(AF_ALG) denied");
  is_str(socket_answer(seccomp_filter_program(range), &x86_64, UINT64_C(1) << 32 | AF_ALG, buf,
                       sizeof(buf)),
         "allow", "control, open range: x86_64 socket(0x100000026), AF_ALG to the kernel: allowed");
out:
  seccomp_filter_free(old);
  seccomp_filter_free(bare);
  seccomp_filter_free(range);
}

/* --- a rule beside a rule on a call x86_64 lacks (socketcall, ipc: the
 * i386 multiplexers; _llseek), on every combination of the x86 ABIs: the
 * program either keeps the rule on each ABI it covers or is refused, never
 * built without it. libseccomp 2.5.4 drops x86_64's rules when x32 is in
 * the filter (build.c's program_check refuses it); the x86_64 answer is
 * what the hole shows. --- */

enum { I386_SHMGET = 395, I386_IPC = 117, I386_IPC_SHMGET = 23 };

struct multiplexed_case {
  const char *call, *beside; /* "socket", "socketcall" */
  int nr_x86_64, nr_i386;
  uint64_t arg0; /* what the call's rule denies (AF_VSOCK; shmget's key) */
};

/* The rule on the call x86_64 lacks: its action as JSON, NULL for none. */
struct beside_rule {
  const char *label, *action;
};

static void check_multiplexed_case(const struct multiplexed_case *c, const char *arches,
                                   bool i386_in, bool x32_in, bool with_args,
                                   const struct beside_rule *beside)
{
  char text[1024], buf[64], label[256];
  const uint64_t args[6] = {c->arg0, SOCK_STREAM, 0, 0, 0, 0};
  struct seccomp_filter *filter;
  const struct seccomp_program *program;
  bool refused, kept;

  char condition[128] = "", second[160] = "";

  if (with_args)
    snprintf(condition, sizeof(condition),
             ", \"args\": [{\"index\": 0, \"op\": \"SCMP_CMP_EQ\", \"value\": %" PRIu64 "}]",
             c->arg0);
  if (beside->action != NULL)
    snprintf(second, sizeof(second), ", {\"names\": [\"%s\"], %s}", c->beside, beside->action);
  snprintf(text, sizeof(text),
           "{\"defaultAction\": \"SCMP_ACT_ALLOW\", \"architectures\": [%s], \"syscalls\": ["
           "{\"names\": [\"%s\"], \"action\": \"SCMP_ACT_ERRNO\"%s}%s]}",
           arches, c->call, condition, second);
  snprintf(label, sizeof(label), "%s rule%s, %s rule %s, architectures [%s]", c->call,
           with_args ? " on arg0" : "", c->beside, beside->label, arches);
  filter = build_case(text, &refused);
  /* Refusing is right only where libseccomp 2.5 cannot compile the rules
   * (x32 beside x86_64, a rule with arguments, a rule on a call x86_64
   * lacks whose action is not the default), or where i386's ipc carries
   * the call past its rule (the call number's version bits: ipc(2) reads
   * only its low 16 bits) and the profile has no rule on ipc. */
  if (refused) {
    ok((x32_in && with_args && beside->action != NULL && strcmp(beside->label, "allow") != 0) ||
           (i386_in && beside->action == NULL && strcmp(c->beside, "ipc") == 0),
       "%s: refused, not built weaker", label);
    return;
  }
  program = seccomp_filter_program(filter);
  kept = strcmp(answer(program, AUDIT_ARCH_X86_64, c->nr_x86_64, args, buf, sizeof(buf)),
                "EPERM") == 0;
  if (!kept)
    printf("#   x86_64 %s: %s\n", c->call, buf);
  if (x32_in &&
      strcmp(answer(program, AUDIT_ARCH_X86_64, c->nr_x86_64 | X32_BIT, args, buf, sizeof(buf)),
             "EPERM") != 0) {
    printf("#   x32 %s: %s\n", c->call, buf);
    kept = false;
  }
  if (i386_in &&
      strcmp(answer(program, AUDIT_ARCH_I386, c->nr_i386, args, buf, sizeof(buf)), "EPERM") != 0) {
    printf("#   i386 %s: %s\n", c->call, buf);
    kept = false;
  }
  if (i386_in && strcmp(c->beside, "ipc") == 0) {
    const uint64_t versioned[6] = {2 << 16 | I386_IPC_SHMGET, c->arg0, 0, 0, 0, 0};
    const char *got = answer(program, AUDIT_ARCH_I386, I386_IPC, versioned, buf, sizeof(buf));
    /* a rule on ipc decides it; without one, the shmget rule must hold */
    if (beside->action == NULL && strcmp(got, "EPERM") != 0) {
      printf("#   i386 ipc(2 << 16 | SHMGET): %s\n", got);
      kept = false;
    }
  }
  ok(kept, "%s: the %s rule holds on every ABI of the filter", label, c->call);
  seccomp_filter_free(filter);
}

static void check_multiplexed(void)
{
  static const struct multiplexed_case cases[] = {
      {"socket", "socketcall", SYS_socket, I386_SOCKET, AF_VSOCK},
      {"shmget", "ipc", SYS_shmget, I386_SHMGET, 40},
      {"getpid", "_llseek", SYS_getpid, I386_GETPID, 5},
  };
  static const struct {
    const char *list;
    bool i386, x32;
  } arches[] = {
      {"\"SCMP_ARCH_X86_64\"", false, false},
      {"\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\"", true, false},
      {"\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X32\"", false, true},
      {"\"SCMP_ARCH_X86_64\", \"SCMP_ARCH_X86\", \"SCMP_ARCH_X32\"", true, true},
  };
  static const struct beside_rule beside_rules[] = {
      {"absent", NULL},
      {"allow", "\"action\": \"SCMP_ACT_ALLOW\""},
      {"errno", "\"action\": \"SCMP_ACT_ERRNO\""},
      {"errno 38", "\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": 38"},
      {"kill", "\"action\": \"SCMP_ACT_KILL\""},
  };

  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
    for (size_t a = 0; a < sizeof(arches) / sizeof(arches[0]); a++)
      for (int with_args = 0; with_args < 2; with_args++)
        for (size_t m = 0; m < sizeof(beside_rules) / sizeof(beside_rules[0]); m++)
          check_multiplexed_case(&cases[c], arches[a].list, arches[a].i386, arches[a].x32,
                                 with_args, &beside_rules[m]);
}

int main(void)
{
  const struct {
    const char *label;
    uint64_t caps;
  } runs[] = {
      {"no capabilities", 0},
      {"docker's capabilities", capabilities_docker_default()},
      {"every capability", ~UINT64_C(0)},
  };

  ok(N_FAMILIES == AF_MAX, "the family table has one entry per family below AF_MAX (%d)", AF_MAX);
  for (size_t i = 0; i < N_FAMILIES; i++)
    if (families[i].family != (int)i)
      ok(false, "the family table is in order: %s is at %zu", families[i].name, i);
  check_controls();
  check_multiplexed();
  for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
    struct seccomp_filter *filter = build_default(runs[i].caps);
    if (!ok(filter != NULL, "%s: the default compiles", runs[i].label))
      continue;
    check_default(seccomp_filter_program(filter), runs[i].label);
    check_consistent(filter, runs[i].caps, runs[i].label);
    seccomp_filter_free(filter);
  }
  return unit_done();
}

#else

int main(void)
{
  printf("1..0 # SKIP the x86 ABIs are what this test checks; this is not x86_64\n");
  return 0;
}

#endif
