/* What the runtime's phases share, inside src/runtime/ (its face is
 * runtime.h and plan.h): the launch, everything the child needs, decided
 * by the plan (plan.c) before clone3, and the plan that holds it; the
 * child's reports; the spawned child; and the functions one phase calls
 * in another. */
#ifndef RUNTIME_LAUNCH_H
#define RUNTIME_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "oci/error.h"
#include "runtime/capabilities.h"
#include "runtime/cgroup/slice.h"
#include "runtime/mount/mount_plan.h"
#include "runtime/pasta.h"
#include "runtime/runtime.h"
#include "runtime/seccomp/filter.h"
#include "runtime/spec/spec.h"
#include "runtime/stdio_relay.h"
#include "runtime/userns.h"
#include "runtime/writable_layer.h"

/* What the child tells the parent: it failed before execve, or (create)
 * its mounts are made and it waits while the parent runs the prestart and
 * createRuntime hooks (a byte on the go pipe lets it on), or it is ready
 * and waits for `start`, or (run, when the sink wants phases) a timed step
 * is done: message "NS NAME", its CLOCK_MONOTONIC and the phase. */
enum child_failure {
  CHILD_SETUP_FAILED = 1,
  CHILD_EXEC_FAILED = 2,
  CHILD_READY = 3,
  CHILD_HOOKS = 4,
  CHILD_PHASE = 5
};

struct child_report {
  int kind;
  int errno_value;
  char message[1024];
};

/* Everything the child needs, computed by the parent before clone. */
struct launch {
  const struct spec *spec;
  const struct runtime_options *options;
  bool supervised;  /* runtime_run: dies with ocirun; create: outlives it */
  bool init;        /* pid 1 is ocirun's init (exec_stub/init.c), the workload its child */
  bool new_user_ns; /* a new user namespace, mapped by the parent */
  struct userns_map map;
  bool set_groups; /* false when the user namespace denies setgroups */
  struct mount_root root;
  struct mount_plan plan;
  int root_fd; /* the root tree (the overlay's lower, or the bundle's root), held */
  bool root_fd_owned;
  struct capability_sets caps;
  struct seccomp_filter *filter;
  char *const *envp; /* process.env, or an empty list */
  gid_t *groups;     /* additionalGids, or none when setgroups is denied */
  size_t n_groups;
  unsigned long clone_flags;
  int join_fd[SPEC_NS_COUNT]; /* namespaces joined by path (pid: by the parent), -1 */
  int stdio[3];               /* the relay's pipes (run) or the caller's 0, 1, 2 (create) */
  int go_fd;                  /* child reads one byte: the parent is ready */
  int report_fd;              /* child writes a child_report on failure; CLOEXEC */
  int exec_fifo_fd;           /* create: O_PATH of the fifo `start` opens; -1 */
  int own_fds_fd;             /* create's child: the host's /proc/self/fd until the fifo opens */
  int console_fd;             /* process.terminal: where the pty's master is sent; -1 */
  int status_fd;              /* init: where it reports the workload's status; -1 */
  int listener_fd;            /* linux.seccomp.listenerPath, connected when the filter notifies */
  char *listener_state;       /* child: what goes with the listener (seccomp_listener.c) */
  dev_t host_devpts;          /* ocirun's own devpts: never the container's pty */
  int command_fd;             /* child: process.args[0], found before the seccomp filter */
  char *command_path;         /* child: the name it was found by */
  struct pasta pasta;         /* run: the network's pasta, started by the parent; PASTA_NONE */
};

/* The container's process, stopped at its go pipe until the parent has
 * mapped its user namespace and set its OOM score, then let go. */
struct spawned {
  pid_t pid;
  int pidfd;
  int report_fd; /* the parent's end of the report pipe */
  int go_fd;     /* the go pipe's write end: its hang-up tells the child ocirun died */
  int status_fd; /* with an init: the read end of its status pipe; -1 */
};

/* The slice a configuration asks for, its limits and device rules. */
struct slice_plan {
  char *path; /* NULL: none (--unsafe-no-cgroup) */
  struct cgroup_limits limits;
  struct spec_device_rule *rules;
  size_t n_rules;
};

/* What the parent learns from the report pipe while it waits. */
struct child_watch {
  int report_fd; /* -1 once it reached end of file */
  bool reported; /* the child failed before exec and said why */
  struct child_report report;
  const struct run_io *io;
  pid_t pid;
  int cgroup_fd;
  bool init;                    /* pid is ocirun's init: the workload is its child */
  struct writable_layer *layer; /* measured while pid 1 lives */
};

extern const unsigned long namespace_clone_flag[SPEC_NS_COUNT];

/* The plan (runtime/plan.h): what runtime_run and runtime_create carry
 * out, and --dry-run prints. It holds its own copy of the caller's options
 * (with the run dir), which launch.options points to: a plan is made and
 * freed by plan.c only, never copied. */
struct runtime_plan {
  enum runtime_plan_mode mode;
  struct runtime_options options;
  char *run_dir; /* run: $ROOT/run/<id>, the overlay's scratch; NULL otherwise */
  struct launch launch;
  struct slice_plan slice;
};

/* plan.c */
void launch_clear(struct launch *launch);
void launch_init(struct launch *launch, const struct spec *spec,
                 const struct runtime_options *options, bool supervised);

/* plan_print.c: how --dry-run names the seccomp program ("unconfined",
 * the caller's origin, or "linux.seccomp"), and its rule groups (false:
 * no program, or its profile cannot be read). */
const char *runtime_plan_seccomp_origin(const struct runtime_plan *plan);
bool runtime_plan_seccomp_groups(const struct runtime_plan *plan, size_t *groups);

/* child.c */
_Noreturn void child_report_and_exit(const struct launch *launch, int kind, int errno_value,
                                     const char *message);
_Noreturn void child_fail(const struct launch *launch, oci_error_t *err);
/* The same with the report's kind (enum child_failure). */
_Noreturn void child_fail_as(const struct launch *launch, int kind, oci_error_t *err);
/* The two doors' steps (one table): the container's first process, and
 * exec's joiner with pid 1's pidfd, the namespaces it joins through it,
 * the container's cgroup (-1: none) and the pipe the spawned pid goes to. */
_Noreturn void child_main(struct launch *launch);
_Noreturn void exec_join(struct launch *launch, int pidfd, int ns_flags, int cgroup_fd,
                         int pid_pipe);

/* lookup.c: execvp's search, with the container's PATH, after pivot_root
 * and BEFORE the seccomp filter: the lookup is the runtime's work, not the
 * workload's, and a profile that does not allow openat2 (runtime-tools'
 * default, Docker's before 2020) would otherwise fail every command. It
 * runs with the user's filesystem ids, groups and effective capabilities;
 * the kernel checks the file's execute permission, as the user, at the
 * exec. On success launch->command_fd and command_path are the command;
 * on failure *failure is the report's kind (CHILD_EXEC_FAILED: no such
 * command, or not runnable) and err says why. */
int command_find(struct launch *launch, int *failure, oci_error_t *err);

/* spawn.c */
void spawned_kill(struct spawned *child);
int spawn_child(struct launch *launch, int cgroup_fd, struct spawned *child, oci_error_t *err);
int report_failure(const struct child_report *report, struct run_result *result, oci_error_t *err);

/* supervise.c */
int init_outcome(int status_fd, struct run_result *result, oci_error_t *err);
void watch_report(int pidfd, struct child_watch *watch);
/* options: the deadline (timeout_seconds) and what happens at it
 * (stop_signal, stop_timeout_seconds) */
int wait_for_child(int pidfd, int signal_fd, const struct runtime_options *options,
                   struct child_watch *watch, struct stdio_relay *relay, struct run_result *result,
                   oci_error_t *err);

/* run.c */
void keep_first_error(oci_error_t *err, oci_error_t *one);
int slice_create(const struct slice_plan *plan, bool rootless, struct cgroup_slice *slice,
                 oci_error_t *err);

#endif
