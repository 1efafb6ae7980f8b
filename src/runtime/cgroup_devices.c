/* The device allowlist of a run, as data, and its compilation to a cgroup v2
 * device program. The list is Docker's default (moby's default spec plus the
 * rules runc adds): mknod of any node is allowed, opening only the few
 * harmless devices below is. Everything else (kmsg, kvm, loop, zram, disks)
 * is refused with EPERM at open, whatever node the workload made for it.
 * Rootless runs get no program (an unprivileged user cannot attach one): there
 * the kernel makes every mount created in a user namespace nodev and refuses
 * mknod of a device to anyone without CAP_MKNOD in the initial namespace. */
#include "config.h"

#include "runtime/cgroup_devices.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/cleanup.h"

#define ANY_NUMBER -1

enum {
  ACCESS_MKNOD = BPF_DEVCG_ACC_MKNOD,
  ACCESS_READ = BPF_DEVCG_ACC_READ,
  ACCESS_WRITE = BPF_DEVCG_ACC_WRITE,
  ACCESS_ALL = BPF_DEVCG_ACC_MKNOD | BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE
};

struct device_rule {
  char type; /* 'c' or 'b' */
  int major; /* ANY_NUMBER: "*" */
  int minor;
  unsigned access; /* ACCESS_* bits */
  const char *what;
};

static const struct device_rule device_rules[] = {
    {'c', ANY_NUMBER, ANY_NUMBER, ACCESS_MKNOD, "mknod of any character device"},
    {'b', ANY_NUMBER, ANY_NUMBER, ACCESS_MKNOD, "mknod of any block device"},
    {'c', 1, 3, ACCESS_ALL, "/dev/null"},
    {'c', 1, 5, ACCESS_ALL, "/dev/zero"},
    {'c', 1, 7, ACCESS_ALL, "/dev/full"},
    {'c', 1, 8, ACCESS_ALL, "/dev/random"},
    {'c', 1, 9, ACCESS_ALL, "/dev/urandom"},
    {'c', 5, 0, ACCESS_ALL, "/dev/tty"},
    {'c', 5, 1, ACCESS_ALL, "/dev/console"},
    {'c', 5, 2, ACCESS_ALL, "/dev/ptmx"},
    {'c', 136, ANY_NUMBER, ACCESS_ALL, "/dev/pts/*"},
    {'c', 10, 200, ACCESS_ALL, "/dev/net/tun"},
};
#define N_DEVICE_RULES (sizeof(device_rules) / sizeof(device_rules[0]))

/* Header (5) + per rule at most type, major, minor, 3 for access, 2 to
 * allow; + 2 to deny. */
#define MAX_INSNS (5 + 8 * N_DEVICE_RULES + 2)

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

struct program {
  struct bpf_insn insns[MAX_INSNS];
  size_t n;
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

/* A "skip the rest of this rule" jump, patched once the rule's end is known. */
static void emit_skip_unless_equal(struct program *p, uint8_t reg, int32_t value)
{
  emit(p, BPF_JMP | BPF_JNE | BPF_K, reg, 0, 0, value);
}

static void emit_return(struct program *p, int32_t value)
{
  emit(p, BPF_ALU64 | BPF_MOV | BPF_K, REG_RESULT, 0, 0, value);
  emit(p, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

/* One rule: a run of checks, each jumping past the rule on mismatch, then
 * "allow". The request's access must be a subset of the rule's. */
static void emit_rule(struct program *p, const struct device_rule *rule)
{
  size_t first = p->n;

  emit_skip_unless_equal(p, REG_TYPE, rule->type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR);
  if (rule->major != ANY_NUMBER)
    emit_skip_unless_equal(p, REG_MAJOR, rule->major);
  if (rule->minor != ANY_NUMBER)
    emit_skip_unless_equal(p, REG_MINOR, rule->minor);
  if (rule->access != ACCESS_ALL) {
    emit(p, BPF_ALU64 | BPF_MOV | BPF_X, REG_SCRATCH, REG_ACCESS, 0, 0);
    emit(p, BPF_ALU64 | BPF_AND | BPF_K, REG_SCRATCH, 0, 0, (int32_t)(ACCESS_ALL & ~rule->access));
    emit(p, BPF_JMP | BPF_JNE | BPF_K, REG_SCRATCH, 0, 0, 0);
  }
  emit_return(p, 1);
  for (size_t i = first; i < p->n; i++) {
    if (p->insns[i].code == (BPF_JMP | BPF_JNE | BPF_K))
      p->insns[i].off = (int16_t)(p->n - i - 1);
  }
}

/* ctx is struct bpf_cgroup_dev_ctx: access_type (type in the low 16 bits,
 * access in the high 16), major, minor. */
static void compile(struct program *p)
{
  p->n = 0;
  emit_load_u32(p, REG_TYPE, offsetof(struct bpf_cgroup_dev_ctx, access_type));
  emit(p, BPF_ALU64 | BPF_MOV | BPF_X, REG_ACCESS, REG_TYPE, 0, 0);
  emit(p, BPF_ALU64 | BPF_AND | BPF_K, REG_TYPE, 0, 0, 0xffff);
  emit(p, BPF_ALU64 | BPF_RSH | BPF_K, REG_ACCESS, 0, 0, 16);
  emit_load_u32(p, REG_MAJOR, offsetof(struct bpf_cgroup_dev_ctx, major));
  emit_load_u32(p, REG_MINOR, offsetof(struct bpf_cgroup_dev_ctx, minor));
  for (size_t i = 0; i < N_DEVICE_RULES; i++)
    emit_rule(p, &device_rules[i]);
  emit_return(p, 0);
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

int cgroup_devices_attach(int dir_fd, const char *path, oci_error_t *err)
{
  struct program program;
  cleanup_close int prog_fd = -1;
  cleanup_close int cgroup_fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  union bpf_attr attr;

  if (cgroup_fd < 0)
    return oci_error_errno(err, "cgroup devices: open '%s'", path);
  compile(&program);
  prog_fd = load_program(&program, NULL, 0);
  if (prog_fd < 0) {
    int saved = errno;
    char log[1024];

    /* Once more with the verifier's log, to say why. */
    if (load_program(&program, log, sizeof(log)) < 0 && log[0] != '\0') {
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

static void format_number(int number, char *buf, size_t size)
{
  if (number == ANY_NUMBER)
    snprintf(buf, size, "*");
  else
    snprintf(buf, size, "%d", number);
}

void cgroup_devices_print(FILE *out, const char *indent)
{
  for (size_t i = 0; i < N_DEVICE_RULES; i++) {
    const struct device_rule *rule = &device_rules[i];
    char major[16], minor[16], numbers[40], access[4];
    size_t n = 0;

    format_number(rule->major, major, sizeof(major));
    format_number(rule->minor, minor, sizeof(minor));
    snprintf(numbers, sizeof(numbers), "%s:%s", major, minor);
    if (rule->access & ACCESS_READ)
      access[n++] = 'r';
    if (rule->access & ACCESS_WRITE)
      access[n++] = 'w';
    if (rule->access & ACCESS_MKNOD)
      access[n++] = 'm';
    access[n] = '\0';
    fprintf(out, "%sallow %c %-9s %-4s %s\n", indent, rule->type, numbers, access, rule->what);
  }
  fprintf(out, "%sdeny  everything else (open fails with EPERM)\n", indent);
}
