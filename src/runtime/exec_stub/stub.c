/* ocirun's exec stub: the container's first process runs it, from a sealed
 * memfd, as its last step before the workload, so that what /proc/self/exe
 * names when the workload is exec'd (and what a "#!/proc/self/exe" script's
 * interpreter resolves to) is this sealed file, never ocirun's binary on the
 * host (CVE-2019-5736). Static, no libc: a few raw syscalls, so the seccomp
 * filter already in force needs to allow only fcntl, execveat, execve,
 * write and exit_group. Run as "ocirun-exec-spawn" it first makes the
 * exec'd process of `ocirun exec` (clone, setsid, ioctl too); as
 * "ocirun-init" it is the init of an `ocirun run` (init.c). The protocol
 * is in protocol.h. */
#include <asm/ioctls.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/sched.h>

#include "runtime/exec_stub/protocol.h"
#include "runtime/exec_stub/sys.h"

#define SIGNAL_CHILD 17

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

/* A report in the child's own layout, then exit: the exec failed (the exit
 * code docker gives: 127 not found, 126 cannot run), or, with a step named,
 * spawning the process did (125). */
static _Noreturn void report_and_exit(int report_fd, const char *step, const char *command,
                                      int error)
{
  /* static: zeroed without a memset, which there is no libc to provide */
  static struct exec_stub_report report;
  struct text t = {report.message, report.message + sizeof(report.message) - 1};
  const char *text = 0;

  report.kind = step != 0 ? EXEC_STUB_REPORT_SETUP_FAILED : EXEC_STUB_REPORT_EXEC_FAILED;
  report.errno_value = error;

  for (unsigned i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
    if (errors[i].number == error)
      text = errors[i].text;
  }
  if (step != 0) {
    append(&t, "exec: ");
    append(&t, step);
    append(&t, ": ");
  } else {
    append(&t, "exec '");
    append(&t, command);
    append(&t, "': ");
  }
  if (text != 0) {
    append(&t, text);
  } else {
    append(&t, "error ");
    append_number(&t, (unsigned long)error);
  }
  syscall5(__NR_write, report_fd, (long)&report, sizeof(report), 0, 0);
  exit_group(step != 0 ? 125 : error == ENOENT ? 127 : 126);
}

/* Execs the workload from fd; returns only with a report written. */
static _Noreturn void exec_workload(int fd, int report_fd, const char *path, char **argv,
                                    char **envp)
{
  /* Neither the command's fd nor the report pipe may reach the workload;
   * the report pipe's closing at exec is how ocirun learns it succeeded. */
  long r = syscall5(__NR_fcntl, fd, F_SETFD, FD_CLOEXEC, 0, 0);

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
  report_and_exit(report_fd, 0, argv[0], (int)-r);
}

/* `ocirun exec`: this process (ocirun's joiner, already confined as the
 * workload, outside the container's pid namespace) makes the process in
 * it, a child of its own parent's (CLONE_PARENT: `ocirun exec` waits for
 * it), tells its pid, and exits. So nothing that enters the container's
 * pid namespace ever runs ocirun's binary or holds more than the workload:
 * a process of the container with CAP_SYS_PTRACE finds only this sealed
 * file, confined. The child leads a session of its own, and takes its pty
 * as its controlling terminal when it has one. */
static _Noreturn void spawn_main(long argc, char **argv, char **envp)
{
  int fd, report_fd, pid_fd, terminal;
  long pid;

  if (argc <= EXEC_STUB_SPAWN_ARG_WORKLOAD || (fd = parse_fd(argv[EXEC_STUB_ARG_FD])) < 0 ||
      (report_fd = parse_fd(argv[EXEC_STUB_ARG_REPORT_FD])) < 0 ||
      (pid_fd = parse_fd(argv[EXEC_STUB_SPAWN_ARG_PID_FD])) < 0)
    exit_group(126);
  terminal = same(argv[EXEC_STUB_SPAWN_ARG_TERMINAL], "t");
  pid = syscall5(__NR_clone, CLONE_PARENT | SIGNAL_CHILD, 0, 0, 0, 0);
  if (pid < 0)
    report_and_exit(report_fd, "clone the process into the container", 0, (int)-pid);
  if (pid == 0) {
    long r = syscall5(__NR_close, pid_fd, 0, 0, 0, 0);

    (void)r;
    r = syscall5(__NR_setsid, 0, 0, 0, 0, 0);
    if (r < 0)
      report_and_exit(report_fd, "setsid", 0, (int)-r);
    if (terminal && (r = syscall5(__NR_ioctl, 0, TIOCSCTTY, 0, 0, 0)) < 0)
      report_and_exit(report_fd, "make the pty the controlling terminal", 0, (int)-r);
    exec_workload(fd, report_fd, argv[EXEC_STUB_ARG_PATH], argv + EXEC_STUB_SPAWN_ARG_WORKLOAD,
                  envp);
  }
  {
    int child = (int)pid;

    if (syscall5(__NR_write, pid_fd, (long)&child, sizeof(child), 0, 0) != sizeof(child))
      exit_group(125);
  }
  exit_group(0);
}

_Noreturn void stub_main(long *stack)
{
  long argc = stack[0];
  char **argv = (char **)(stack + 1);
  char **envp = argv + argc + 1;
  int fd, report_fd;

  if (argc > 0 && same(argv[0], INIT_STUB_NAME))
    init_main(argc, argv);
  if (argc > 0 && same(argv[0], EXEC_STUB_SPAWN_NAME))
    spawn_main(argc, argv, envp);
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
  exec_workload(fd, report_fd, argv[EXEC_STUB_ARG_PATH], argv + EXEC_STUB_ARG_WORKLOAD, envp);
}
