/* Runs one process in an unpacked image behind the boundary ocirun builds:
 * clone3 into new namespaces and a cgroup slice, the mount plan, caps,
 * no-new-privileges, seccomp; then waits under the deadline and tears down. */
#ifndef RUNTIME_H
#define RUNTIME_H

#include <stdbool.h>
#include <sys/types.h>

#include "oci/oci.h"
#include "cli/run_config.h"

/* What the parent knows of the container's process once it has exec'd:
 * still alive and unreaped, so /proc/<pid> is this process. */
struct run_started {
  pid_t pid;     /* in ocirun's pid namespace */
  int pidfd;     /* the container's pid 1 */
  int cgroup_fd; /* the slice's directory, or -1 (--unsafe-no-cgroup) */
};

struct run_io {
  int stdin_fd; /* -1: end of file at once */
  int stdout_fd;
  int stderr_fd;
  /* Optional: called once in the parent right after the container's
   * process has exec'd (an outside observer, e.g. the probe's host view). */
  void (*on_exec)(const struct run_started *started, void *context);
  void *context;
};

struct run_result {
  int exit_code;          /* docker's conventions: status, 128+signal, 125/126/127 */
  bool exited;            /* exited normally (vs killed by a signal) */
  int signal;             /* when killed */
  bool oom_killed;        /* the cgroup's memory.events counted an oom_kill */
  bool timed_out;         /* killed at the --timeout deadline */
  bool interrupted;       /* SIGINT/SIGTERM to ocirun */
  bool teardown_verified; /* cgroup gone, no process left, state removed */
};

/* image must already be resolved and rootfs unpacked: nothing is looked up
 * by name here. Returns 0 when the process ran (whatever its status), a
 * negative value with *err set when the boundary could not be built (nothing
 * ran, everything created was removed). */
int runtime_run(struct oci_store *store, const struct oci_image *image, const char *rootfs,
                const struct run_config *config, const struct run_io *io, struct run_result *result,
                oci_error_t *err);

#endif
