/* The container's first process execs its command through a tiny static
 * stub held in a sealed memfd (exec_stub/stub.c), so that /proc/self/exe at
 * the workload's exec, and a "#!/proc/self/exe" interpreter the kernel
 * resolves then, is that sealed stub and never ocirun's host binary
 * (CVE-2019-5736); ocirun itself runs from its own file, not a copy. */
#ifndef EXEC_STUB_H
#define EXEC_STUB_H

#include "oci/oci.h"

/* In the child, once the parent has written its user namespace maps and
 * before the seccomp filter: makes the process non-dumpable (nothing but a
 * CAP_SYS_PTRACE holder of the host may open its /proc/PID/exe while that
 * is ocirun's binary) and writes the stub into a sealed memfd. */
int exec_stub_prepare(oci_error_t *err);

/* Execs the workload (argv, envp) through the stub: fd is the command,
 * already resolved O_PATH inside the root, path the name it was resolved
 * by (a script is run by it), report_fd the pipe the stub writes a failed
 * exec to. Returns with errno set when the command is not an executable
 * regular file (EACCES, without exec'ing anything, so a PATH search may go
 * on) or when the stub itself could not be exec'd. */
void exec_stub_exec(int fd, const char *path, int report_fd, char *const argv[],
                    char *const envp[]);

#endif
