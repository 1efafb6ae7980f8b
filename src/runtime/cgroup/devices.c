/* The device rules of a run (linux.resources.devices) compiled to a cgroup v2
 * device program, and the same decision as a pure function for tests and
 * --dry-run. The spec applies its rules in order, as the cgroup v1 device
 * files did: a later rule overrides an earlier one for the devices and the
 * access bits it names. So each requested bit (r, w, m) is decided by the
 * last rule that matches the device and names that bit, no rule means deny,
 * and a request is allowed only when all its bits are: an open for "rw"
 * after "allow rwm" then "deny w" is refused, as it was in v1.
 * Rootless runs get no program (an unprivileged user cannot attach one):
 * there the kernel makes every mount created in a user namespace nodev and
 * refuses mknod of a device to anyone without CAP_MKNOD in the initial
 * namespace. */
#include "config.h"

#include "runtime/cgroup/devices.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/cleanup.h"

#define ANY -1

const struct spec_device_rule cgroup_devices_docker_default[] = {
    {false, 'a', ANY, ANY, "rwm"}, {true, 'c', ANY, ANY, "m"}, {true, 'b', ANY, ANY, "m"},
    {true, 'c', 1, 3, "rwm"},      {true, 'c', 1, 5, "rwm"},   {true, 'c', 1, 7, "rwm"},
    {true, 'c', 1, 8, "rwm"},      {true, 'c', 1, 9, "rwm"},   {true, 'c', 5, 0, "rwm"},
    {true, 'c', 5, 1, "rwm"},      {true, 'c', 5, 2, "rwm"},   {true, 'c', 136, ANY, "rwm"},
    {true, 'c', 10, 200, "rwm"},
};
const size_t cgroup_devices_docker_default_n =
    sizeof(cgroup_devices_docker_default) / sizeof(cgroup_devices_docker_default[0]);

static const struct spec_device_rule runtime_defaults[] = {
    {true, 'c', 1, 3, "rwm"}, {true, 'c', 1, 5, "rwm"},     {true, 'c', 1, 7, "rwm"},
    {true, 'c', 1, 8, "rwm"}, {true, 'c', 1, 9, "rwm"},     {true, 'c', 5, 0, "rwm"},
    {true, 'c', 5, 2, "rwm"}, {true, 'c', 136, ANY, "rwm"},
};
#define N_RUNTIME_DEFAULTS (sizeof(runtime_defaults) / sizeof(runtime_defaults[0]))

int cgroup_devices_with_defaults(const struct spec_device_rule *rules, size_t n,
                                 struct spec_device_rule **out, size_t *n_out, oci_error_t *err)
{
  *out = calloc(n + N_RUNTIME_DEFAULTS, sizeof(**out));
  *n_out = 0;
  if (*out == NULL)
    return oci_error_errno(err, "cgroup devices: allocate the rules");
  if (n > 0)
    memcpy(*out, rules, n * sizeof(*rules));
  memcpy(*out + n, runtime_defaults, sizeof(runtime_defaults));
  *n_out = n + N_RUNTIME_DEFAULTS;
  return 0;
}

/* The access bits in the order the program decides them. */
static const struct {
  char letter;
  unsigned bit;
} access_bits[] = {
    {'r', BPF_DEVCG_ACC_READ}, {'w', BPF_DEVCG_ACC_WRITE}, {'m', BPF_DEVCG_ACC_MKNOD}};
#define N_ACCESS_BITS (sizeof(access_bits) / sizeof(access_bits[0]))

/* The bits of an access string; -1 when it has anything but r, w, m. */
static int access_mask(const char *access)
{
  int mask = 0;

  for (const char *c = access; *c != '\0'; c++) {
    size_t i;
    for (i = 0; i < N_ACCESS_BITS && access_bits[i].letter != *c; i++)
      ;
    if (i == N_ACCESS_BITS)
      return -1;
    mask |= (int)access_bits[i].bit;
  }
  return mask;
}

/* A number of a rule: -1 (any) or a device number the kernel can report. */
static bool number_valid(int64_t number)
{
  return number == ANY || (number >= 0 && number <= UINT32_MAX);
}

static bool rule_valid(const struct spec_device_rule *rule)
{
  return (rule->type == 'a' || rule->type == 'c' || rule->type == 'b') &&
         number_valid(rule->major) && number_valid(rule->minor) &&
         memchr(rule->access, '\0', sizeof(rule->access)) != NULL && access_mask(rule->access) >= 0;
}

static bool rule_matches(const struct spec_device_rule *rule, char type, int64_t major,
                         int64_t minor)
{
  return (rule->type == 'a' || rule->type == type) &&
         (rule->major == ANY || rule->major == major) &&
         (rule->minor == ANY || rule->minor == minor);
}

bool cgroup_devices_allowed(const struct spec_device_rule *rules, size_t n, char type,
                            int64_t major, int64_t minor, const char *access)
{
  int requested = access != NULL ? access_mask(access) : -1;

  if (requested <= 0 || (type != 'c' && type != 'b'))
    return false;
  for (size_t b = 0; b < N_ACCESS_BITS; b++) {
    bool allowed = false;

    if (!(requested & (int)access_bits[b].bit))
      continue;
    for (size_t i = n; i-- > 0;) {
      /* An invalid rule never reaches the kernel (attach refuses it). */
      if (!rule_valid(&rules[i]) || !(access_mask(rules[i].access) & (int)access_bits[b].bit) ||
          !rule_matches(&rules[i], type, major, minor))
        continue;
      allowed = rules[i].allow;
      break;
    }
    if (!allowed)
      return false;
  }
  return true;
}

/* Registers of the program: the request split into its parts once. */
enum {
  REG_RESULT = 0,
  REG_CTX = 1,
  REG_TYPE = 2,
  REG_ACCESS = 3,
  REG_MAJOR = 4,
  REG_MINOR = 5,
  REG_SCRATCH = 6
};

/* Header 6; per bit 3 + per rule at most type 1, major 2, minor 2, verdict 2;
 * + 2 per bit to deny; + 2 to allow. */
#define MAX_INSNS (6 + N_ACCESS_BITS * (3 + 7 * CGROUP_DEVICES_MAX_RULES + 2) + 2)

struct program {
  struct bpf_insn insns[MAX_INSNS];
  size_t n;
  /* jumps to the end of the current bit's section, patched when it ends */
  size_t section_jumps[1 + CGROUP_DEVICES_MAX_RULES];
  size_t n_section_jumps;
};

static void emit(struct program *p, uint8_t code, uint8_t dst, uint8_t src, int16_t off,
                 int32_t imm)
{
  p->insns[p->n++] =
      (struct bpf_insn){.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm};
}

static void emit_load_u32(struct program *p, uint8_t dst, int16_t offset)
{
  emit(p, BPF_LDX | BPF_MEM | BPF_W, dst, REG_CTX, offset, 0);
}

/* A "skip the rest of this rule" jump, patched once the rule's end is
 * known. The request's numbers are u32 in a 64-bit register; an immediate
 * is sign-extended, so a number past INT32_MAX goes through a 32-bit move
 * (which zero-extends). */
static void emit_skip_unless_equal(struct program *p, uint8_t reg, int64_t value)
{
  if (value <= INT32_MAX) {
    emit(p, BPF_JMP | BPF_JNE | BPF_K, reg, 0, 0, (int32_t)value);
  } else {
    emit(p, BPF_ALU | BPF_MOV | BPF_K, REG_SCRATCH, 0, 0, (int32_t)(uint32_t)value);
    emit(p, BPF_JMP | BPF_JNE | BPF_X, reg, REG_SCRATCH, 0, 0);
  }
}

static void emit_return(struct program *p, int32_t value)
{
  emit(p, BPF_ALU64 | BPF_MOV | BPF_K, REG_RESULT, 0, 0, value);
  emit(p, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

static void emit_section_jump(struct program *p, uint8_t code, uint8_t dst, int32_t imm)
{
  p->section_jumps[p->n_section_jumps++] = p->n;
  emit(p, code, dst, 0, 0, imm);
}

/* One rule within a bit's section: checks that jump past it on mismatch,
 * then the verdict: deny returns 0, allow settles this bit. */
static void emit_rule(struct program *p, const struct spec_device_rule *rule)
{
  size_t first = p->n;

  if (rule->type != 'a')
    emit_skip_unless_equal(p, REG_TYPE,
                           rule->type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR);
  if (rule->major != ANY)
    emit_skip_unless_equal(p, REG_MAJOR, rule->major);
  if (rule->minor != ANY)
    emit_skip_unless_equal(p, REG_MINOR, rule->minor);
  if (rule->allow)
    emit_section_jump(p, BPF_JMP | BPF_JA, 0, 0);
  else
    emit_return(p, 0);
  for (size_t i = first; i < p->n; i++) {
    uint8_t code = p->insns[i].code;
    if (code == (BPF_JMP | BPF_JNE | BPF_K) || code == (BPF_JMP | BPF_JNE | BPF_X))
      p->insns[i].off = (int16_t)(p->n - i - 1);
  }
}

/* ctx is struct bpf_cgroup_dev_ctx: access_type (type in the low 16 bits,
 * access in the high 16), major, minor. */
static void compile(struct program *p, const struct spec_device_rule *rules, size_t n)
{
  p->n = 0;
  emit_load_u32(p, REG_TYPE, offsetof(struct bpf_cgroup_dev_ctx, access_type));
  emit(p, BPF_ALU64 | BPF_MOV | BPF_X, REG_ACCESS, REG_TYPE, 0, 0);
  emit(p, BPF_ALU64 | BPF_AND | BPF_K, REG_TYPE, 0, 0, 0xffff);
  emit(p, BPF_ALU64 | BPF_RSH | BPF_K, REG_ACCESS, 0, 0, 16);
  emit_load_u32(p, REG_MAJOR, offsetof(struct bpf_cgroup_dev_ctx, major));
  emit_load_u32(p, REG_MINOR, offsetof(struct bpf_cgroup_dev_ctx, minor));
  for (size_t b = 0; b < N_ACCESS_BITS; b++) {
    unsigned bit = access_bits[b].bit;

    p->n_section_jumps = 0;
    /* A bit the request does not ask for needs no decision. */
    emit(p, BPF_ALU64 | BPF_MOV | BPF_X, REG_SCRATCH, REG_ACCESS, 0, 0);
    emit(p, BPF_ALU64 | BPF_AND | BPF_K, REG_SCRATCH, 0, 0, (int32_t)bit);
    emit_section_jump(p, BPF_JMP | BPF_JEQ | BPF_K, REG_SCRATCH, 0);
    bool settled = false;
    for (size_t i = n; i-- > 0 && !settled;) {
      if (!((unsigned)access_mask(rules[i].access) & bit))
        continue;
      emit_rule(p, &rules[i]);
      /* A rule for every device settles the bit: what comes after it is
       * never reached, and the verifier refuses unreachable code. */
      settled = rules[i].type == 'a' && rules[i].major == ANY && rules[i].minor == ANY;
    }
    if (!settled)
      emit_return(p, 0); /* no rule names this bit for this device */
    for (size_t j = 0; j < p->n_section_jumps; j++)
      p->insns[p->section_jumps[j]].off = (int16_t)(p->n - p->section_jumps[j] - 1);
  }
  emit_return(p, 1);
}

static int load_program(const struct program *p, char *log, size_t log_size)
{
  union bpf_attr attr;

  memset(&attr, 0, sizeof(attr));
  attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  attr.expected_attach_type = BPF_CGROUP_DEVICE;
  attr.insns = (uint64_t)(uintptr_t)p->insns;
  attr.insn_cnt = (uint32_t)p->n;
  attr.license = (uint64_t)(uintptr_t) "MIT";
  if (log != NULL) {
    attr.log_buf = (uint64_t)(uintptr_t)log;
    attr.log_size = (uint32_t)log_size;
    attr.log_level = 1;
    log[0] = '\0';
  }
  memcpy(attr.prog_name, "ocirun_devices", sizeof("ocirun_devices"));
  return (int)syscall(SYS_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

/* Every rule is checked before any is compiled: a rule the program could
 * not express is an error, never a rule left out. */
static int check_rules(const struct spec_device_rule *rules, size_t n, oci_error_t *err)
{
  if (n > CGROUP_DEVICES_MAX_RULES)
    return oci_error_set(err, 0,
                         "linux.resources.devices: %zu rules, more than the %d ocirun "
                         "supports; nothing was started",
                         n, CGROUP_DEVICES_MAX_RULES);
  for (size_t i = 0; i < n; i++) {
    if (!rule_valid(&rules[i]))
      return oci_error_set(err, 0,
                           "linux.resources.devices[%zu]: invalid rule (type '%c', major %" PRId64
                           ", minor %" PRId64 "); nothing was started",
                           i, rules[i].type, rules[i].major, rules[i].minor);
  }
  return 0;
}

int cgroup_devices_attach(int dir_fd, const char *path, const struct spec_device_rule *rules,
                          size_t n, oci_error_t *err)
{
  cleanup_free struct program *program = NULL;
  cleanup_close int prog_fd = -1;
  cleanup_close int cgroup_fd = -1;
  union bpf_attr attr;

  if (check_rules(rules, n, err) < 0)
    return -1;
  cgroup_fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cgroup_fd < 0)
    return oci_error_errno(err, "cgroup devices: open '%s'", path);
  program = calloc(1, sizeof(*program));
  if (program == NULL)
    return oci_error_errno(err, "cgroup devices: allocate the program");
  compile(program, rules, n);
  prog_fd = load_program(program, NULL, 0);
  if (prog_fd < 0) {
    int saved = errno;
    char log[1024];

    /* Once more with the verifier's log, to say why. */
    if (load_program(program, log, sizeof(log)) < 0 && log[0] != '\0') {
      log[strcspn(log, "\n")] = '\0';
      return oci_error_set(err, saved,
                           "cgroup devices: load the device program (BPF_PROG_LOAD): %s (verifier: "
                           "%s); nothing was started",
                           strerror(saved), log);
    }
    return oci_error_set(err, saved,
                         "cgroup devices: load the device program (BPF_PROG_LOAD): %s; nothing "
                         "was started",
                         strerror(saved));
  }
  /* No BPF_F_ALLOW_OVERRIDE/MULTI: nothing below the slice may replace it. */
  memset(&attr, 0, sizeof(attr));
  attr.target_fd = (uint32_t)cgroup_fd;
  attr.attach_bpf_fd = (uint32_t)prog_fd;
  attr.attach_type = BPF_CGROUP_DEVICE;
  if (syscall(SYS_bpf, BPF_PROG_ATTACH, &attr, sizeof(attr)) < 0)
    return oci_error_errno(err,
                           "cgroup devices: attach the device program to '%s' "
                           "(BPF_PROG_ATTACH, BPF_CGROUP_DEVICE); nothing was started",
                           path);
  return 0;
}

/* Names of well-known devices, for the printed rules only. */
static const struct {
  char type;
  int64_t major, minor;
  const char *name;
} known_devices[] = {
    {'a', ANY, ANY, "any device"},
    {'c', ANY, ANY, "any character device"},
    {'b', ANY, ANY, "any block device"},
    {'c', 1, 3, "/dev/null"},
    {'c', 1, 5, "/dev/zero"},
    {'c', 1, 7, "/dev/full"},
    {'c', 1, 8, "/dev/random"},
    {'c', 1, 9, "/dev/urandom"},
    {'c', 5, 0, "/dev/tty"},
    {'c', 5, 1, "/dev/console"},
    {'c', 5, 2, "/dev/ptmx"},
    {'c', 136, ANY, "/dev/pts/*"},
    {'c', 10, 200, "/dev/net/tun"},
    {'c', 10, 229, "/dev/fuse"},
};

const char *cgroup_device_name(const struct spec_device_rule *rule)
{
  for (size_t i = 0; i < sizeof(known_devices) / sizeof(known_devices[0]); i++) {
    if (known_devices[i].type == rule->type && known_devices[i].major == rule->major &&
        known_devices[i].minor == rule->minor)
      return known_devices[i].name;
  }
  return "";
}

static void format_number(int64_t number, char *buf, size_t size)
{
  if (number == ANY)
    snprintf(buf, size, "*");
  else
    snprintf(buf, size, "%" PRId64, number);
}

void cgroup_devices_print(const struct spec_device_rule *rules, size_t n, FILE *out,
                          const char *indent)
{
  for (size_t i = 0; i < n; i++) {
    const struct spec_device_rule *rule = &rules[i];
    char major[24], minor[24], numbers[50];

    format_number(rule->major, major, sizeof(major));
    format_number(rule->minor, minor, sizeof(minor));
    snprintf(numbers, sizeof(numbers), "%s:%s", major, minor);
    fprintf(out, "%s%-5s %c %-9s %-4.4s %s\n", indent, rule->allow ? "allow" : "deny", rule->type,
            numbers, rule->access, cgroup_device_name(rule));
  }
  fprintf(out,
          "%sdeny  everything else (later rules win, per access bit; open and mknod fail with "
          "EPERM)\n",
          indent);
}
