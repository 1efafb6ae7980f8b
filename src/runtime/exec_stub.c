/* The exec stub's host side (see exec_stub.h): the stub's bytes are
 * embedded at build time and written, per run, into a memfd whose every
 * write seal is set before anything could exec it. */
#include "config.h"

#include "runtime/exec_stub.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/io.h"
#include "runtime/exec_stub/protocol.h"
#include "src/runtime/exec_stub_embedded.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

#define SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

/* Set in the child only (after clone): the sealed stub, close-on-exec. */
static int stub_fd = -1;

static int write_sealed_stub(oci_error_t *err)
{
  /* MFD_EXEC where vm.memfd_noexec knows it; older kernels refuse the flag */
  cleanup_close int fd =
      memfd_create("ocirun-exec-stub", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);

  if (fd < 0 && errno == EINVAL)
    fd = memfd_create("ocirun-exec-stub", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return oci_error_errno(err, "run: exec stub: memfd_create%s",
                           errno == EACCES ? " (is vm.memfd_noexec 2?)" : "");
  if (oci_write_all(fd, exec_stub_program, exec_stub_program_length) < 0)
    return oci_error_errno(err, "run: exec stub: write the memfd");
  if (fcntl(fd, F_ADD_SEALS, SEALS) < 0)
    return oci_error_errno(err, "run: exec stub: seal the memfd");
  stub_fd = steal_fd(&fd);
  return 0;
}

int exec_stub_fd(void)
{
  return stub_fd;
}

int exec_stub_prepare(oci_error_t *err)
{
  return write_sealed_stub(err);
}

/* Execs the stub in one of its two workload modes: exec (pid_fd -1) or
 * spawn (pid_fd the pipe the spawned process's pid is written to). */
static void stub_exec_mode(int fd, const char *path, int report_fd, int pid_fd, bool terminal,
                           char *const argv[], char *const envp[])
{
  char fd_text[16], report_text[16], pid_text[16];
  cleanup_free char **stub_argv = NULL;
  cleanup_close int report_copy = -1, pid_copy = -1;
  size_t first = pid_fd >= 0 ? EXEC_STUB_SPAWN_ARG_WORKLOAD : EXEC_STUB_ARG_WORKLOAD;
  struct stat st;
  size_t argc = 0;
  int saved;

  if (stub_fd < 0) {
    errno = EBADF; /* exec_stub_prepare did not run: exec nothing */
    return;
  }
  /* What execve would refuse anyway, checked here while a PATH search can
   * still try the next directory (as exec.LookPath does for docker): the
   * stub's exec is the point of no return. */
  if (fstat(fd, &st) < 0)
    return;
  if (!S_ISREG(st.st_mode) || (st.st_mode & 0111) == 0) {
    errno = EACCES;
    return;
  }
  while (argv[argc] != NULL)
    argc++;
  stub_argv = calloc(argc + first + 1, sizeof(*stub_argv));
  if (stub_argv == NULL)
    return;
  /* inheritable copies for the stub, which closes them on its own exec */
  report_copy = fcntl(report_fd, F_DUPFD, 3);
  if (report_copy < 0 || fcntl(fd, F_SETFD, 0) < 0)
    return;
  if (pid_fd >= 0 && (pid_copy = fcntl(pid_fd, F_DUPFD, 3)) < 0)
    return;
  snprintf(fd_text, sizeof(fd_text), "%d", fd);
  snprintf(report_text, sizeof(report_text), "%d", report_copy);
  snprintf(pid_text, sizeof(pid_text), "%d", pid_copy);
  stub_argv[0] = (char *)(pid_fd >= 0 ? EXEC_STUB_SPAWN_NAME : EXEC_STUB_NAME);
  stub_argv[EXEC_STUB_ARG_FD] = fd_text;
  stub_argv[EXEC_STUB_ARG_REPORT_FD] = report_text;
  stub_argv[EXEC_STUB_ARG_PATH] = (char *)path;
  if (pid_fd >= 0) {
    stub_argv[EXEC_STUB_SPAWN_ARG_PID_FD] = pid_text;
    stub_argv[EXEC_STUB_SPAWN_ARG_TERMINAL] = (char *)(terminal ? "t" : "-");
  }
  memcpy(stub_argv + first, argv, argc * sizeof(*argv));
  syscall(SYS_execveat, stub_fd, "", stub_argv, envp, AT_EMPTY_PATH);
  saved = errno;
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  errno = saved;
}

void exec_stub_exec(int fd, const char *path, int report_fd, char *const argv[], char *const envp[])
{
  stub_exec_mode(fd, path, report_fd, -1, false, argv, envp);
}

void exec_stub_spawn(int fd, const char *path, int report_fd, int pid_fd, bool terminal,
                     char *const argv[], char *const envp[])
{
  stub_exec_mode(fd, path, report_fd, pid_fd, terminal, argv, envp);
}

void exec_stub_exec_init(pid_t workload, int status_fd, int gate_fd)
{
  static char *const no_env[] = {NULL};
  char pid_text[16], status_text[16], gate_text[16];
  char *argv[INIT_ARG_COUNT + 1] = {NULL};
  int saved;

  if (stub_fd < 0) {
    errno = EBADF;
    return;
  }
  /* the init's own two: inherited by it alone (the workload closed its
   * copies) */
  if (fcntl(status_fd, F_SETFD, 0) < 0 || fcntl(gate_fd, F_SETFD, 0) < 0)
    return;
  snprintf(pid_text, sizeof(pid_text), "%d", (int)workload);
  snprintf(status_text, sizeof(status_text), "%d", status_fd);
  snprintf(gate_text, sizeof(gate_text), "%d", gate_fd);
  argv[0] = (char *)INIT_STUB_NAME;
  argv[INIT_ARG_CHILD] = pid_text;
  argv[INIT_ARG_STATUS_FD] = status_text;
  argv[INIT_ARG_GATE_FD] = gate_text;
  syscall(SYS_execveat, stub_fd, "", argv, no_env, AT_EMPTY_PATH);
  saved = errno;
  fcntl(status_fd, F_SETFD, FD_CLOEXEC);
  fcntl(gate_fd, F_SETFD, FD_CLOEXEC);
  errno = saved;
}
