/* The exec stub's and the init's only contact with the kernel: a raw
 * system call, no libc (see stub.c). */
#ifndef EXEC_STUB_SYS_H
#define EXEC_STUB_SYS_H

#include <asm/unistd.h>

#if defined(__x86_64__)
static inline long syscall5(long n, long a, long b, long c, long d, long e)
{
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  long ret;

  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
                   : "rcx", "r11", "memory");
  return ret;
}
#elif defined(__aarch64__)
static inline long syscall5(long n, long a, long b, long c, long d, long e)
{
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;

  __asm__ volatile("svc 0"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4)
                   : "memory", "cc");
  return x0;
}
#else
#error "ocirun's exec stub: no raw syscall entry for this architecture yet"
#endif

static inline _Noreturn void exit_group(int status)
{
  for (;;)
    syscall5(__NR_exit_group, status, 0, 0, 0, 0);
}

/* What both modes need of a string or a number. */
static inline int same(const char *a, const char *b)
{
  while (*a != '\0' && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

static inline long parse_number(const char *s)
{
  long n = 0;

  if (*s == '\0')
    return -1;
  for (; *s != '\0'; s++) {
    if (*s < '0' || *s > '9' || n > 1000000000)
      return -1;
    n = n * 10 + (*s - '0');
  }
  return n;
}

/* The init's entry (init.c), chosen by stub.c from argv[0]. */
_Noreturn void init_main(long argc, char **argv);

#endif
