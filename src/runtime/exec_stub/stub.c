/* ocirun's exec stub: the container's first process runs it, from a sealed
 * memfd, as its last step before the workload, so that what /proc/self/exe
 * names when the workload is exec'd (and what a "#!/proc/self/exe" script's
 * interpreter resolves to) is this sealed file, never ocirun's binary on the
 * host (CVE-2019-5736). Static, no libc: a few raw syscalls, so the seccomp
 * filter already in force needs to allow only fcntl, execveat, execve,
 * write and exit_group. Run as "ocirun-init" it is instead the init of an
 * `ocirun run` (init.c). The protocol is in protocol.h. */
#include <linux/errno.h>
#include <linux/fcntl.h>

#include "runtime/exec_stub/protocol.h"
#include "runtime/exec_stub/sys.h"

#if defined(__x86_64__)
__asm__(".text\n"
        ".global _start\n"
        "_start:\n"
        "  xor %ebp, %ebp\n"
        "  mov %rsp, %rdi\n"
        "  and $-16, %rsp\n"
        "  call stub_main\n"
        "  hlt\n");
#elif defined(__aarch64__)
__asm__(".text\n"
        ".global _start\n"
        "_start:\n"
        "  mov x29, #0\n"
        "  mov x30, #0\n"
        "  mov x0, sp\n"
        "  and sp, x0, #-16\n"
        "  bl stub_main\n"
        "  brk #0\n");
#endif

_Noreturn void stub_main(long *stack);

/* glibc's wording, so a message reads as it did when ocirun exec'd the
 * command itself; only what execve can return is listed. */
static const struct {
  int number;
  const char *text;
} errors[] = {
    {EPERM, "Operation not permitted"},
    {ENOENT, "No such file or directory"},
    {EIO, "Input/output error"},
    {E2BIG, "Argument list too long"},
    {ENOEXEC, "Exec format error"},
    {EBADF, "Bad file descriptor"},
    {EAGAIN, "Resource temporarily unavailable"},
    {ENOMEM, "Cannot allocate memory"},
    {EACCES, "Permission denied"},
    {EFAULT, "Bad address"},
    {ENOTDIR, "Not a directory"},
    {EISDIR, "Is a directory"},
    {EINVAL, "Invalid argument"},
    {ENFILE, "Too many open files in system"},
    {EMFILE, "Too many open files"},
    {ETXTBSY, "Text file busy"},
    {ENAMETOOLONG, "File name too long"},
    {ENOSYS, "Function not implemented"},
    {ELOOP, "Too many levels of symbolic links"},
    {ELIBBAD, "Accessing a corrupted shared library"},
};

struct text {
  char *at;
  char *end; /* one before the buffer's end: room for the final NUL */
};

static void append(struct text *t, const char *s)
{
  while (*s != '\0' && t->at < t->end)
    *t->at++ = *s++;
}

static void append_number(struct text *t, unsigned long n)
{
  char digits[24];
  int i = sizeof(digits) - 1;

  digits[i] = '\0';
  do
    digits[--i] = (char)('0' + n % 10);
  while ((n /= 10) != 0 && i > 0);
  append(t, digits + i);
}

static int parse_fd(const char *s)
{
  long n = parse_number(s);

  return n > 1000000 ? -1 : (int)n;
}

/* The exec failed: the same report the child would have written, then the
 * exit code docker gives (127 not found, 126 cannot run). */
static _Noreturn void report_and_exit(int report_fd, const char *command, int error)
{
  /* static: zeroed without a memset, which there is no libc to provide */
  static struct exec_stub_report report;
  struct text t = {report.message, report.message + sizeof(report.message) - 1};
  const char *text = 0;

  report.kind = EXEC_STUB_REPORT_EXEC_FAILED;
  report.errno_value = error;

  for (unsigned i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
    if (errors[i].number == error)
      text = errors[i].text;
  }
  append(&t, "exec '");
  append(&t, command);
  append(&t, "': ");
  if (text != 0) {
    append(&t, text);
  } else {
    append(&t, "error ");
    append_number(&t, (unsigned long)error);
  }
  syscall5(__NR_write, report_fd, (long)&report, sizeof(report), 0, 0);
  exit_group(error == ENOENT ? 127 : 126);
}

_Noreturn void stub_main(long *stack)
{
  long argc = stack[0];
  char **argv = (char **)(stack + 1);
  char **envp = argv + argc + 1;
  const char *path;
  int fd, report_fd;
  long r;

  if (argc > 0 && same(argv[0], INIT_STUB_NAME))
    init_main(argc, argv);
  /* Run any other way (as a "#!/proc/self/exe" interpreter, say), it does
   * nothing: it only ever stood in for ocirun's binary. */
  if (argc <= EXEC_STUB_ARG_WORKLOAD || !same(argv[0], EXEC_STUB_NAME) ||
      (fd = parse_fd(argv[EXEC_STUB_ARG_FD])) < 0 ||
      (report_fd = parse_fd(argv[EXEC_STUB_ARG_REPORT_FD])) < 0) {
    static const char usage[] = "ocirun-exec-stub: not a program: it stands in for ocirun's "
                                "binary as /proc/self/exe while a container starts\n";
    syscall5(__NR_write, 2, (long)usage, sizeof(usage) - 1, 0, 0);
    exit_group(126);
  }
  path = argv[EXEC_STUB_ARG_PATH];
  argv += EXEC_STUB_ARG_WORKLOAD;
  /* Neither the command's fd nor the report pipe may reach the workload;
   * the report pipe's closing at exec is how ocirun learns it succeeded. */
  r = syscall5(__NR_fcntl, fd, F_SETFD, FD_CLOEXEC, 0, 0);
  if (r == 0)
    r = syscall5(__NR_fcntl, report_fd, F_SETFD, FD_CLOEXEC, 0, 0);
  if (r == 0) {
    r = syscall5(__NR_execveat, fd, (long)"", (long)argv, (long)envp, AT_EMPTY_PATH);
    /* A script from a close-on-exec fd: its interpreter would be handed
     * /dev/fd/N, closed by then, so the kernel refuses with ENOENT. Run it
     * by the path ocirun just resolved instead. For a container's first
     * process nothing else runs in it yet; for `exec` into a running one
     * the workload could swap the file in between, but the path is
     * resolved in the container's root with the process's own
     * credentials, so it gets nothing it could not exec itself. */
    if (r == -ENOENT)
      r = syscall5(__NR_execve, (long)path, (long)argv, (long)envp, 0, 0);
  }
  report_and_exit(report_fd, argv[0], (int)-r);
}
