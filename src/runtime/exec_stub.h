/* The container's first process execs its command through a tiny static
 * stub held in a sealed memfd (exec_stub/stub.c), so that /proc/self/exe at
 * the workload's exec, and a "#!/proc/self/exe" interpreter the kernel
 * resolves then, is that sealed stub and never ocirun's host binary
 * (CVE-2019-5736); ocirun itself runs from its own file, not a copy. */
#ifndef EXEC_STUB_H
#define EXEC_STUB_H

#include <stdbool.h>
#include <sys/types.h>

#include "oci/oci.h"

/* In the child, once its inherited state is clean (clean_state.c made it
 * non-dumpable: nothing but a CAP_SYS_PTRACE holder of the host may open
 * its /proc/PID/exe while that is ocirun's binary) and before the seccomp
 * filter: writes the stub into a sealed memfd. */
int exec_stub_prepare(oci_error_t *err);
/* The sealed stub's fd once prepared (close-on-exec), -1 before: a process
 * forked to exec through it (a hook in the container) keeps it open. */
int exec_stub_fd(void);

/* Execs the workload (argv, envp) through the stub: fd is the command,
 * already resolved O_PATH inside the root, path the name it was resolved
 * by (a script is run by it), report_fd the pipe the stub writes a failed
 * exec to. Returns with errno set when the command is not an executable
 * regular file (EACCES, without exec'ing anything, so a PATH search may go
 * on) or when the stub itself could not be exec'd. */
void exec_stub_exec(int fd, const char *path, int report_fd, char *const argv[],
                    char *const envp[]);

/* ocirun exec's joiner, confined as the workload and outside the
 * container's pid namespace (it has set it for its children): the stub
 * makes the process in that namespace as a child of the joiner's parent
 * (CLONE_PARENT), in a session of its own (its pty, with terminal, its
 * controlling terminal), writes its pid to pid_fd and exits; the process
 * execs the command as exec_stub_exec's does. Returns with errno set only
 * if the stub could not be exec'd (or the command is not executable). */
void exec_stub_spawn(int fd, const char *path, int report_fd, int pid_fd, bool terminal,
                     char *const argv[], char *const envp[]);

/* ocirun run's pid 1, once confined, with every signal blocked and the
 * workload forked (it waits on gate_fd's pipe): becomes the init
 * (exec_stub/init.c) from the same sealed memfd, handing it status_fd and
 * gate_fd. Returns with errno set only if that exec failed. */
void exec_stub_exec_init(pid_t workload, int status_fd, int gate_fd);

#endif
