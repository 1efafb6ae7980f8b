/* A classic-BPF interpreter for seccomp programs: what the kernel accepts
 * in one (seccomp_check_filter), run over a struct seccomp_data, for
 * asking what a compiled program answers to one call: the builder's check
 * of every program libseccomp exports (seccomp/build.c: program_check)
 * and tests/unit/seccomp_program.c. */
#include "config.h"

#include <string.h>

#include "runtime/seccomp/rules.h"

bool seccomp_bpf_run(const struct seccomp_program *program, const struct seccomp_data *data,
                     uint32_t *ret)
{
  uint32_t a = 0, x = 0, memory[BPF_MEMWORDS] = {0};

  for (size_t pc = 0; pc < program->n_insns; pc++) {
    const struct sock_filter *insn = &program->insns[pc];
    uint32_t k = insn->k, src = BPF_SRC(insn->code) == BPF_X ? x : k;
    bool jump;

    switch (BPF_CLASS(insn->code)) {
    case BPF_LD:
    case BPF_LDX: {
      uint32_t value;
      if (BPF_SIZE(insn->code) != BPF_W)
        return false;
      switch (BPF_MODE(insn->code)) {
      case BPF_ABS:
        if (BPF_CLASS(insn->code) != BPF_LD || k % 4 != 0 || k > sizeof(*data) - 4)
          return false;
        memcpy(&value, (const char *)data + k, sizeof(value));
        break;
      case BPF_IMM:
        value = k;
        break;
      case BPF_MEM:
        if (k >= BPF_MEMWORDS)
          return false;
        value = memory[k];
        break;
      case BPF_LEN:
        value = sizeof(*data);
        break;
      default:
        return false;
      }
      *(BPF_CLASS(insn->code) == BPF_LD ? &a : &x) = value;
      break;
    }
    case BPF_ST:
    case BPF_STX:
      if (k >= BPF_MEMWORDS)
        return false;
      memory[k] = BPF_CLASS(insn->code) == BPF_ST ? a : x;
      break;
    case BPF_ALU:
      switch (BPF_OP(insn->code)) {
      case BPF_ADD:
        a += src;
        break;
      case BPF_SUB:
        a -= src;
        break;
      case BPF_MUL:
        a *= src;
        break;
      case BPF_DIV:
        if (src == 0)
          return false;
        a /= src;
        break;
      case BPF_MOD:
        if (src == 0)
          return false;
        a %= src;
        break;
      case BPF_OR:
        a |= src;
        break;
      case BPF_AND:
        a &= src;
        break;
      case BPF_XOR:
        a ^= src;
        break;
      case BPF_LSH:
        a = src < 32 ? a << src : 0;
        break;
      case BPF_RSH:
        a = src < 32 ? a >> src : 0;
        break;
      case BPF_NEG:
        a = -a;
        break;
      default:
        return false;
      }
      break;
    case BPF_JMP:
      if (BPF_OP(insn->code) == BPF_JA) {
        pc += k;
        break;
      }
      switch (BPF_OP(insn->code)) {
      case BPF_JEQ:
        jump = a == src;
        break;
      case BPF_JGT:
        jump = a > src;
        break;
      case BPF_JGE:
        jump = a >= src;
        break;
      case BPF_JSET:
        jump = (a & src) != 0;
        break;
      default:
        return false;
      }
      pc += jump ? insn->jt : insn->jf;
      break;
    case BPF_RET:
      if (BPF_RVAL(insn->code) == BPF_A)
        *ret = a;
      else if (BPF_RVAL(insn->code) == BPF_K)
        *ret = k;
      else
        return false;
      return true;
    case BPF_MISC:
      if (BPF_MISCOP(insn->code) == BPF_TAX)
        x = a;
      else if (BPF_MISCOP(insn->code) == BPF_TXA)
        a = x;
      else
        return false;
      break;
    default:
      return false;
    }
  }
  return false; /* ran off the end: the kernel refuses such a program */
}
