/* Runs one process behind the boundary an OCI runtime-spec configuration
 * describes (runtime/spec.h): clone3 into its namespaces and cgroup slice,
 * the mount plan, user, capabilities, no-new-privileges, seccomp. The
 * runtime takes only the spec and these options; it knows nothing of the
 * command line or the image that produced them. */
#ifndef RUNTIME_H
#define RUNTIME_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "oci/error.h"
#include "runtime/mount/mount_plan.h"
#include "runtime/spec/spec.h"
#include "runtime/stdio_relay.h"

struct oci_event_sink;
struct state_root;

/* What runtime_run and runtime_create carry out: the plan, one value
 * (runtime/plan.h builds and prints it), made for one of them: `ocirun
 * run` (supervised, pid 1 ocirun's init, the root an overlay with its run
 * dir) or `ocirun create` (outlives ocirun, the bundle's root). */
struct runtime_plan;
enum runtime_plan_mode { RUNTIME_PLAN_RUN, RUNTIME_PLAN_CREATE };

/* How a run is made that a configuration does not say. */
struct runtime_options {
  const char *state_root; /* --root: ocirun's state, records and caches */
  /* runtime_run: --root as the caller opened it once (state/root.h), with
   * its run folder (made when missing): the record and the run dir */
  struct state_root *state;
  const char *id;         /* the container's name (ocirun run's --name) */
  const char *bundle;     /* absolute; root.path is relative to it; NULL for ocirun run */
  struct mount_root root; /* how the root is made; root_fd -1: opened from the bundle */
  bool rootless;          /* decided once, by the caller: ocirun runs without privilege */
  double timeout_seconds; /* runtime_run only; 0: none */
  /* runtime_run, at the deadline: stop_signal to the workload first (0:
   * none, SIGKILL at once), SIGKILL stop_timeout_seconds later (docker's
   * --stop-signal and --stop-timeout, docker's order) */
  int stop_signal;
  double stop_timeout_seconds;
  bool unsafe_no_cgroup;      /* loud development opt-out: no slice, no limits, no device program */
  const char *seccomp_origin; /* names linux.seccomp in messages and the plan */
  /* create with process.terminal: a unix socket the pty's master is sent
   * to (SCM_RIGHTS), as runc's callers expect; the slave is the stdio */
  const char *console_socket;
  /* What names each mounts[] entry in messages, n_mounts of them, NULL for
   * the default ("config.json: mounts[N]"): a front end's own flag. */
  const char *const *mount_names;
  /* What the run reports as it works (warnings, the hooks' output and
   * failures that do not stop it): the command line's sink, NULL for none
   * (a hook then writes straight to ocirun's stderr). */
  const struct oci_event_sink *events;
  /* runtime_run: the configuration's text, kept in the run dir (with the
   * run's pid 1 in its record once it has exec'd) so `ocirun exec NAME`
   * can join the run; NULL: it cannot be joined. */
  const char *config_json;
  /* runtime_run: pasta connects the run's new network namespace
   * (runtime/pasta.h), with these port options ("-t", "8080:80", ...,
   * "none" for a protocol without a port); NULL: no pasta. */
  const char *const *pasta_options;
  /* runtime_run: files written into the run dir once it exists (path: a
   * plain name there, content: the text), which mounts[] entries bind
   * (ocirun run's generated /etc/hosts and /etc/resolv.conf). */
  const struct mount_file *run_dir_files;
  size_t n_run_dir_files;
};

/* What the parent knows of the container's process once it has exec'd:
 * still alive and unreaped, so /proc/<pid> is this process. */
struct run_started {
  pid_t pid;          /* the container's pid 1 (ocirun's init), in ocirun's pid namespace */
  int pidfd;          /* the container's pid 1 */
  pid_t workload_pid; /* the workload, pid 1's child: what an observer looks at */
  int workload_pidfd; /* of workload_pid, taken before its parent was checked */
  int cgroup_fd;      /* the slice's directory, or -1 (--unsafe-no-cgroup) */
};

struct run_io {
  int stdin_fd; /* -1: end of file at once */
  int stdout_fd;
  int stderr_fd;
  /* Optional: called once in the parent right after the container's
   * process has exec'd (an outside observer, e.g. the probe's host view). */
  void (*on_exec)(const struct run_started *started, void *context);
  void *context;
  /* The command line's: where the run reports (runtime_options.events)
   * and where --dry-run prints the plan (plan_out), as JSON with
   * plan_json (--log-format json); a front end passes them on. */
  const struct oci_event_sink *events;
  FILE *plan_out;
  bool plan_json;
};

struct run_result {
  int exit_code;       /* docker's conventions: status, 128+signal, 125/126/127 */
  bool exited;         /* exited normally (vs killed by a signal) */
  int signal;          /* when killed */
  bool oom_killed;     /* the cgroup's memory.events counted an oom_kill */
  bool timed_out;      /* killed at the --timeout deadline */
  bool interrupted;    /* SIGINT/SIGTERM to ocirun */
  bool layer_exceeded; /* killed: its writable layer on disk was measured past its bound */
  unsigned long long layer_bytes, layer_bound; /* then: the measure and the bound, in bytes */
  /* the root's writable layer was a tmpfs because the store's filesystem
   * (this one, a static string) cannot hold an overlay upper; NULL */
  const char *layer_fallback;
  bool teardown_verified; /* cgroup gone, no process left, state removed */
};

/* Carries out a plan built for RUNTIME_PLAN_RUN (runtime/plan.h): runs
 * its process and supervises it: the caller's stdio reaches it only
 * through ocirun's relay, the deadline and the caller's signals end it,
 * and everything created is removed and checked gone. Nothing is decided
 * again: the plan is what runs (once; the caller then clears it). Returns
 * 0 when the process ran (whatever its status), a negative value with
 * *err set when the boundary could not be built (nothing ran, everything
 * created was removed). */
int runtime_run(struct runtime_plan *plan, const struct run_io *io, struct run_result *result,
                oci_error_t *err);

/* `ocirun create`: carries out a plan built for RUNTIME_PLAN_CREATE up to
 * the user program; the container's pid 1 then blocks opening exec_fifo
 * for writing, and execs the user program when `ocirun start` opens the
 * fifo for reading and reads one byte. Its stdio is the caller's 0, 1, 2
 * (an OCI caller, conmon or containerd's shim, owns those pipes). On
 * success the slice (*cgroup_path, allocated, NULL without one) and the
 * process stay for `delete`; on failure nothing is left. *pid is in
 * ocirun's pid namespace. */
int runtime_create(struct runtime_plan *plan, const char *exec_fifo, pid_t *pid, char **cgroup_path,
                   oci_error_t *err);

/* A second process in a live container (`ocirun exec`): it joins the
 * namespaces of the container's pid 1 through a pidfd and its cgroup, and
 * gets the process's user, capabilities, rlimits, no-new-privileges and
 * the container's seccomp filter, after the clean inherited state of every
 * process ocirun starts (clean_state.h). */
struct runtime_exec {
  const struct spec *spec;            /* the container's configuration (seccomp) */
  const struct spec_process *process; /* what to run */
  pid_t pid; /* the container's pid 1, checked alive (start time) by the caller */
  /* A pidfd of pid opened BEFORE that check (so it is that process), the
   * caller's; joined through. -1: the runtime opens one (a pid reused
   * since the caller's check would then be joined). */
  int pidfd;
  const char *cgroup_path; /* its slice; NULL: none */
  const char *sub_cgroup; /* exec --cgroup: an existing cgroup beneath the slice; NULL: the slice */
  const char *state_root; /* for the seccomp cache */
  bool set_groups;        /* false in a user namespace that denies setgroups */
  /* Without a terminal: what becomes the process's 0, 1, 2. Only a pipe,
   * a socket or a null device is accepted (stdio_relay_may_hand_over):
   * an OCI caller's own pipes, or ocirun's relay pipes; never a terminal
   * or a file of the caller's. */
  int stdio[3];
  /* process->terminal only: the unix socket the pty's master is sent to (a
   * caller's console socket, or ocirun's own socketpair for
   * runtime_exec_attach); the caller's. The pty is then the stdio, and
   * the caller's 0, 1, 2 never reach the process. */
  int console_fd;
};
/* Starts it and returns once it has exec'd (*exec_pid, a child of ocirun's
 * that the caller may wait for, or leave to a subreaper); a failure before
 * exec returns -126 or -127 for a command that cannot run or is missing, -1
 * otherwise. */
int runtime_exec_start(const struct runtime_exec *exec, pid_t *exec_pid, oci_error_t *err);
/* Waits for it: its exit status, or 128+N for signal N. */
int runtime_exec_wait(pid_t exec_pid, int *exit_code, oci_error_t *err);
/* Waits for it while relaying its stdio: relay is the caller's, opened
 * before runtime_exec_start (stdio_relay_open: ocirun's pipes, whose
 * container ends were the process's stdio; or stdio_relay_open_terminal
 * with the pty's master attached, received from the socketpair given as
 * console_fd), its container ends closed once the process has them.
 * signal_fd is the caller's signals, taken (supervise_signals_take) before
 * the relay was opened, so that none arriving since ends ocirun with the
 * process left and the terminal raw: INT, TERM, HUP, QUIT, also one that
 * came before this call, go to the process, SIGWINCH forwards the window
 * size. The caller's terminal, if relayed raw, is restored at the end, and
 * a process ocirun fails to relay is killed. Clears relay. relay NULL: the
 * process's stdio is its own (an OCI caller's pipes or console socket),
 * and only its signals are forwarded while ocirun waits. */
int runtime_exec_relay(pid_t exec_pid, struct stdio_relay *relay, int signal_fd, int *exit_code,
                       oci_error_t *err);

#endif
