/* Test-only LD_PRELOAD shim for running ocirun under a valgrind that does not
 * know openat2 (Debian 12 ships 3.19): syscall(SYS_openat2, ...) becomes a
 * plain openat, RESOLVE_* ignored. This removes ocirun's containment, so
 * tests/valgrind.sh only uses it on benign images and broken blobs, never on
 * layers that try to escape. Build: cc -shared -fPIC -o shim.so THIS -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>

long syscall(long number, ...);

long syscall(long number, ...)
{
  long (*real_syscall)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  long args[6];
  va_list ap;

  va_start(ap, number);
  for (int i = 0; i < 6; i++)
    args[i] = va_arg(ap, long);
  va_end(ap);

  if (number == SYS_openat2) {
    const char *path = (const char *)args[1];
    const struct open_how *how = (const struct open_how *)args[2];
    /* In-root resolution treats an absolute name as relative to the root. */
    if ((how->resolve & RESOLVE_IN_ROOT) != 0)
      while (*path == '/')
        path++;
    return openat((int)args[0], *path ? path : ".", (int)how->flags, (mode_t)how->mode);
  }
  if (real_syscall == NULL) {
    errno = ENOSYS;
    return -1;
  }
  return real_syscall(number, args[0], args[1], args[2], args[3], args[4], args[5]);
}
