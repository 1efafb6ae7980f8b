/* The container's first process and ocirun exec's joiner, in the order
 * their steps run: one table (steps[], above child_main), each step a name,
 * a function and the reason beside it (runc keeps its init sequence the
 * same way), and a column saying which door takes it: a step added for one
 * door is a decision about the other. */
#include "config.h"

#include "runtime/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/clean_state.h"
#include "runtime/console.h"
#include "runtime/exec_stub.h"
#include "runtime/exec_stub/protocol.h"
#include "runtime/container_state.h"
#include "runtime/exit_codes.h"
#include "runtime/hooks.h"
#include "oci/in_root.h"
#include "runtime/network.h"
#include "runtime/process_attrs.h"
#include "runtime/seccomp_listener.h"
#include "oci/cleanup.h"
#include "oci/events.h"
#include "runtime/sysctl.h"
#include "runtime/user.h"

_Noreturn void child_report_and_exit(const struct launch *launch, int kind, int errno_value,
                                     const char *message)
{
  struct child_report report = {.kind = kind, .errno_value = errno_value};
  ssize_t ignored;

  snprintf(report.message, sizeof(report.message), "%s", message);
  ignored = write(launch->report_fd, &report, sizeof(report));
  (void)ignored;
  _exit(kind == CHILD_EXEC_FAILED ? EXIT_COMMAND_NOT_FOUND : EXIT_RUNTIME_ERROR);
}

_Noreturn void child_fail_as(const struct launch *launch, int kind, oci_error_t *err)
{
  child_report_and_exit(launch, kind, *err != NULL ? (*err)->errno_value : ENOMEM,
                        *err != NULL ? (*err)->message : "out of memory");
}

_Noreturn void child_fail(const struct launch *launch, oci_error_t *err)
{
  child_fail_as(launch, CHILD_SETUP_FAILED, err);
}

/* What the steps of one door share while they run. */
struct steps {
  struct launch *launch;
  /* CLEAN_ENTRY_CONTAINER (run's and create's pid 1) or CLEAN_ENTRY_EXEC
   * (exec's joiner): the door, and the clean state's entry path */
  enum clean_entry door;
  int failure;  /* the report's kind should the step fail (enum child_failure) */
  int start_fd; /* create: start's channel once the exec fifo is open; -1 */
  bool phases;  /* the parent's sink wants the timed steps' timestamps */
  /* exec's joiner: pid 1's pidfd and the namespaces joined through it,
   * the container's cgroup, the pipe the spawned process's pid goes to;
   * -1 (and 0) for the container's process */
  int pidfd;
  int ns_flags;
  int cgroup_fd;
  int pid_pipe;
};

/* If ocirun dies while this waits, so does this process. */
static int set_parent_death_signal(struct steps *s, oci_error_t *err)
{
  if (s->launch->supervised && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
    return oci_error_errno(err, "run: PR_SET_PDEATHSIG");
  return 0;
}

/* The parent's steps between clone3 and the go byte (spawn.c) are done.
 * go_fd stays open: its hang-up tells the child that ocirun died. */
static int wait_for_go(struct steps *s, oci_error_t *err)
{
  char go;
  ssize_t n;

  (void)err;
  do
    n = read(s->launch->go_fd, &go, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1)
    _exit(EXIT_RUNTIME_ERROR); /* the parent is gone or gave up */
  return 0;
}

/* exec: from the host's /proc, before this process is made non-dumpable
 * and joins the container (run's and create's: the parent's step, spawn.c). */
static int set_oom_score(struct steps *s, oci_error_t *err)
{
  return oom_score_adjust(0, &s->launch->spec->process, err);
}

/* The first step once the process may go, before any path is resolved or
 * mount made (clean_state.c): the relay's pipes (run), the caller's vetted
 * stdio (create, exec) or /dev/null until a pty replaces it (exec -t) onto
 * 0, 1, 2, every other descriptor closed but these, signals, session,
 * personality, umask, scheduling, parent-death signal and dumpability all
 * the runtime's, none the caller's. */
static int clean_state(struct steps *s, oci_error_t *err)
{
  struct launch *launch = s->launch;
  /* the go and report pipes (CLOEXEC), the root tree until the mount plan
   * is applied (it may name it /proc/self/fd/N), the exec fifo, the console
   * socket, the init's status pipe, the namespaces to join; exec's: pid
   * 1's pidfd, the cgroup, the pid pipe; the idmapped binds and the binds
   * of held sources the parent made. A door's unused ones are -1. */
  int keep[10 + SPEC_NS_COUNT + MOUNT_PLAN_MAX_IDMAPS + MOUNT_PLAN_MAX_HELD_BINDS];
  size_t n_keep = 0;
  struct clean_state state;

  keep[n_keep++] = launch->go_fd;
  keep[n_keep++] = launch->report_fd;
  keep[n_keep++] = launch->root_fd;
  keep[n_keep++] = launch->exec_fifo_fd;
  keep[n_keep++] = launch->console_fd;
  keep[n_keep++] = launch->status_fd;
  keep[n_keep++] = launch->listener_fd;
  keep[n_keep++] = s->pidfd;
  keep[n_keep++] = s->cgroup_fd;
  keep[n_keep++] = s->pid_pipe;
  for (int ns = 0; ns < SPEC_NS_COUNT; ns++)
    keep[n_keep++] = launch->join_fd[ns];
  n_keep += mount_plan_idmap_fds(&launch->plan, keep + n_keep);
  n_keep += mount_plan_held_bind_fds(&launch->plan, keep + n_keep);
  clean_state_init(&state, s->door, &launch->spec->process, launch->supervised);
  memcpy(state.stdio, launch->stdio, sizeof(state.stdio));
  state.keep = keep;
  state.n_keep = n_keep;
  return clean_state_apply(&state, err);
}

/* The sealed exec stub (exec_stub.h): once the state is clean (the
 * process is non-dumpable) and before the seccomp filter. */
static int prepare_exec_stub(struct steps *s, oci_error_t *err)
{
  (void)s;
  return exec_stub_prepare(err);
}

/* exec: process.execCPUAffinity.initial, the joiner's while it sets up
 * (before the container's cgroup, whose cpuset the kernel applies on the
 * join). The container's pid 1 takes neither list: the spec's rule, and
 * runc's and crun's. */
static int set_cpus_initial(struct steps *s, oci_error_t *err)
{
  return process_attrs_set_cpu_affinity(&s->launch->spec->process.exec_cpu_affinity.initial,
                                        "initial", err);
}

/* exec: .final once in the container's cgroup and namespaces; the process
 * the stub spawns inherits it. */
static int set_cpus_final(struct steps *s, oci_error_t *err)
{
  return process_attrs_set_cpu_affinity(&s->launch->spec->process.exec_cpu_affinity.final, "final",
                                        err);
}

/* exec: into the container's slice, by the checked directory's fd: the
 * process the stub spawns inherits it (run's and create's: clone3 put them
 * there). */
static int join_cgroup(struct steps *s, oci_error_t *err)
{
  if (s->cgroup_fd >= 0 && cgroup_join(s->cgroup_fd, NULL, err) < 0)
    return oci_error_wrap(err, "exec: join the container's cgroup");
  return 0;
}

/* exec: pid 1's namespaces through its pidfd (the pid namespace only for
 * this process's children: nothing of ocirun's binary ever runs in it). */
static int join_container_namespaces(struct steps *s, oci_error_t *err)
{
  if (setns(s->pidfd, s->ns_flags) < 0)
    return oci_error_errno(err, "exec: join the container's namespaces");
  close(s->pidfd);
  s->pidfd = -1;
  if (s->cgroup_fd >= 0)
    close(s->cgroup_fd);
  s->cgroup_fd = -1;
  return 0;
}

/* Joins the namespaces the configuration names by path: the user
 * namespace first (the others may belong to it), the pid namespace was
 * entered by the parent for its child. */
static int join_namespaces(struct steps *s, oci_error_t *err)
{
  static const enum spec_namespace_type order[] = {SPEC_NS_USER,    SPEC_NS_IPC,    SPEC_NS_UTS,
                                                   SPEC_NS_NETWORK, SPEC_NS_CGROUP, SPEC_NS_TIME};
  const struct launch *launch = s->launch;

  for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
    int fd = launch->join_fd[order[i]];

    if (fd < 0)
      continue;
    if (setns(fd, (int)namespace_clone_flag[order[i]]) < 0)
      return oci_error_errno(err, "linux.namespaces: join the %s namespace '%s'",
                             spec_namespace_name(order[i]),
                             launch->spec->namespaces[order[i]].path);
    close(fd);
  }
  return 0;
}

/* A credential change (the user switch, dropping capabilities) clears the
 * parent-death signal: set it again, then make sure the parent did not die
 * in between (its end of the go pipe would have closed). */
static int rearm_parent_death_signal(const struct launch *launch, oci_error_t *err)
{
  struct pollfd go = {.fd = launch->go_fd, .events = POLLIN};

  if (!launch->supervised)
    return 0; /* create: the container outlives ocirun */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
    return oci_error_errno(err, "run: PR_SET_PDEATHSIG after the user switch");
  if (poll(&go, 1, 0) < 0)
    return oci_error_errno(err, "run: poll the go pipe");
  if (go.revents & (POLLHUP | POLLERR))
    _exit(EXIT_RUNTIME_ERROR); /* ocirun is gone: run nothing */
  return 0;
}

/* In a user namespace (new, mapped by the parent, or joined): root of it,
 * with its full capabilities for the steps that follow. */
static int become_root(struct steps *s, oci_error_t *err)
{
  if (!s->launch->new_user_ns && s->launch->join_fd[SPEC_NS_USER] < 0)
    return 0;
  if (userns_become_root(err) < 0 || rearm_parent_death_signal(s->launch, err) < 0)
    return -1;
  return 0;
}

/* The caller's session keyring (kerberos tickets, fscrypt or ecryptfs keys,
 * anything `keyctl` put there) is inherited across clone and exec, and keys
 * are not namespaced for a root run: a workload whose seccomp profile allows
 * keyctl (unconfined, or a custom profile) would read them. A new anonymous
 * session keyring of the run's own replaces it, as runc and crun do. A
 * kernel without keys has nothing to leak. */
static int join_new_session_keyring(struct steps *s, oci_error_t *err)
{
  (void)s;
  if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS)
    return oci_error_errno(err, "run: join a new session keyring (keyctl)");
  return 0;
}

/* linux.timeOffsets: a clone3 child is in its new time namespace at once,
 * and a namespace's offsets are fixed once a process is in it; so, with
 * offsets, this process makes the namespace for its children (unshare),
 * writes them, then enters it itself (setns on time_for_children), before
 * any child and before the mounts hide the host's /proc. In its user
 * namespace: the offsets want CAP_SYS_TIME there. */
static int enter_time_namespace(struct steps *s, oci_error_t *err)
{
  static const int clock_ids[SPEC_CLOCK_COUNT] = {CLOCK_MONOTONIC, CLOCK_BOOTTIME};
  const struct spec *spec = s->launch->spec;
  cleanup_close int offsets_fd = -1, ns_fd = -1;
  char text[128];
  size_t used = 0;

  if (!spec->has_time_offsets)
    return 0;
  for (int c = 0; c < SPEC_CLOCK_COUNT; c++) {
    const struct spec_time_offset *offset = &spec->time_offsets[c];
    if (offset->set)
      used += (size_t)snprintf(text + used, sizeof(text) - used, "%d %lld %u\n", clock_ids[c],
                               (long long)offset->secs, offset->nanosecs);
  }
  if (unshare(CLONE_NEWTIME) < 0)
    return oci_error_errno(err, "linux.timeOffsets: unshare a time namespace");
  offsets_fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
  if (offsets_fd < 0 || write(offsets_fd, text, used) != (ssize_t)used)
    return oci_error_errno(err, "linux.timeOffsets: write /proc/self/timens_offsets '%.*s'",
                           (int)(used > 0 ? used - 1 : 0), text);
  ns_fd = open("/proc/self/ns/time_for_children", O_RDONLY | O_CLOEXEC);
  if (ns_fd < 0 || setns(ns_fd, CLONE_NEWTIME) < 0)
    return oci_error_errno(err, "linux.timeOffsets: enter the new time namespace");
  return 0;
}

static int set_hostname(struct steps *s, oci_error_t *err)
{
  const char *hostname = s->launch->spec->hostname;

  if (hostname != NULL && sethostname(hostname, strlen(hostname)) < 0)
    return oci_error_errno(err, "hostname: sethostname '%s'", hostname);
  return 0;
}

static int set_domainname(struct steps *s, oci_error_t *err)
{
  const char *domainname = s->launch->spec->domainname;

  if (domainname != NULL && setdomainname(domainname, strlen(domainname)) < 0)
    return oci_error_errno(err, "domainname: setdomainname '%s'", domainname);
  return 0;
}

static int apply_sysctls(struct steps *s, oci_error_t *err)
{
  return sysctl_apply(s->launch->spec, err);
}

/* A new network namespace starts with its loopback down. */
static int loopback_up(struct steps *s, oci_error_t *err)
{
  if ((s->launch->clone_flags & CLONE_NEWNET) && network_loopback_up(err) < 0)
    return -1;
  return 0;
}

/* create: tell the parent the container is ready, then block until
 * `ocirun start` opens the fifo for reading (the open for writing returns
 * then). The fd is start's channel: its first byte is '0' when the user
 * program is about to be exec'd, or 'E' and the reason this process
 * failed instead (a startContainer hook). */
static int wait_for_start(struct steps *s, oci_error_t *err)
{
  struct launch *launch = s->launch;
  struct child_report ready = {.kind = CHILD_READY};
  char name[16];
  int fd;

  if (launch->exec_fifo_fd < 0)
    return 0;
  if (write(launch->report_fd, &ready, sizeof(ready)) != (ssize_t)sizeof(ready))
    return oci_error_errno(err, "create: report ready");
  snprintf(name, sizeof(name), "%d", launch->exec_fifo_fd);
  do
    fd = openat(launch->own_fds_fd, name, O_WRONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return oci_error_errno(err, "create: open the exec fifo");
  close(launch->own_fds_fd);
  close(launch->exec_fifo_fd);
  launch->own_fds_fd = launch->exec_fifo_fd = -1;
  s->start_fd = fd;
  return 0;
}

/* create, before pivot_root: the fifo's O_PATH fd opens for writing only
 * through its /proc/self/fd entry, and the container's /proc is the
 * configuration's (it may have none, or its own at another path). This
 * process's own fd directory is taken from the host's procfs while it is
 * still here. It is a host object (its ".." is the host's /proc): it is
 * close-on-exec (a createContainer hook never gets it), wait_for_start
 * closes it before the startContainer hooks and the confinement, and
 * while it is held only a process allowed to ptrace this non-dumpable one
 * could reach it, which could take this process itself. */
static int hold_own_fds(struct steps *s, oci_error_t *err)
{
  struct launch *launch = s->launch;

  if (launch->exec_fifo_fd < 0)
    return 0;
  launch->own_fds_fd = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (launch->own_fds_fd < 0)
    return oci_error_errno(err, "create: open /proc/self/fd (for the exec fifo)");
  return 0;
}

/* start failed in this process: the reason to `ocirun start` (one write,
 * under PIPE_BUF, so start reads it whole), then exit. */
static _Noreturn void start_fail(int start_fd, oci_error_t *err)
{
  char message[sizeof(((struct child_report *)NULL)->message) + 1];
  int length = snprintf(message, sizeof(message), "E%s", (*err)->message);
  ssize_t ignored;

  if (length > (int)sizeof(message) - 1)
    length = (int)sizeof(message) - 1;
  ignored = write(start_fd, message, (size_t)length);
  (void)ignored;
  _exit(EXIT_RUNTIME_ERROR);
}

/* The hooks of kind, run by this process in the container's namespaces,
 * given the state with the pid as the container sees it (the spec's rule
 * for hooks run in the container namespace). */
static int run_container_hooks(const struct launch *launch, enum spec_hook_kind kind,
                               oci_error_t *err)
{
  const struct spec *spec = launch->spec;
  cleanup_free char *state = NULL;

  if (spec->hooks[kind].n_hooks == 0)
    return 0;
  state = container_state_json_for_spec(spec, launch->options->id, launch->options->bundle,
                                        getpid(), CONTAINER_CREATED, err);
  if (state == NULL)
    return -1;
  return hooks_run_in_container(&spec->hooks[kind], kind, state, err);
}

/* create, between the mounts and pivot_root (the spec's place for the
 * three): the parent runs prestart and createRuntime in the runtime's
 * namespaces while this process waits on the go pipe, then this process
 * runs createContainer in the container's namespaces, the host's root
 * still visible (their paths are the runtime namespace's, the spec says).
 * They run with this process's full capabilities, as runc's and crun's
 * do: they are the configuration author's programs, as trusted as the
 * runtime, and their paths are the host's, which the image cannot change;
 * still, each is exec'd through the sealed exec stub, never as ocirun's
 * binary (hooks_run_in_container). */
static int child_before_pivot(void *context, oci_error_t *err)
{
  struct launch *launch = context;
  const struct spec *spec = launch->spec;

  if (spec->hooks[SPEC_HOOK_PRESTART].n_hooks > 0 ||
      spec->hooks[SPEC_HOOK_CREATE_RUNTIME].n_hooks > 0) {
    struct child_report ask = {.kind = CHILD_HOOKS};
    ssize_t n;
    char go;

    if (write(launch->report_fd, &ask, sizeof(ask)) != (ssize_t)sizeof(ask))
      return oci_error_errno(err, "create: ask for the createRuntime hooks");
    do
      n = read(launch->go_fd, &go, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1)
      _exit(EXIT_RUNTIME_ERROR); /* the parent is gone, or a hook of its failed */
  }
  return run_container_hooks(launch, SPEC_HOOK_CREATE_CONTAINER, err);
}

static bool has_create_hooks(const struct spec *spec)
{
  return spec->hooks[SPEC_HOOK_PRESTART].n_hooks > 0 ||
         spec->hooks[SPEC_HOOK_CREATE_RUNTIME].n_hooks > 0 ||
         spec->hooks[SPEC_HOOK_CREATE_CONTAINER].n_hooks > 0;
}

/* The mount plan (mount_plan.c), pivot_root at its end; paused between
 * the two for create's hooks (child_before_pivot). */
static int apply_mount_plan(struct steps *s, oci_error_t *err)
{
  struct launch *launch = s->launch;
  struct mount_plan_pause pause = {.before_pivot = child_before_pivot, .context = launch};

  return mount_plan_apply_pausing(&launch->plan, has_create_hooks(launch->spec) ? &pause : NULL,
                                  err);
}

/* The root tree was held only for the mount plan: nothing of the host's
 * stays open past pivot_root. */
static int close_root_tree(struct steps *s, oci_error_t *err)
{
  struct launch *launch = s->launch;

  if (launch->root_fd >= 0 && close(launch->root_fd) < 0)
    return oci_error_errno(err, "run: close the root tree");
  launch->root_fd = -1;
  return 0;
}

/* stdio that is /dev/null is the container's own /dev/null. */
static int own_null_devices(struct steps *s, oci_error_t *err)
{
  (void)s;
  return stdio_relay_own_null_devices(err);
}

/* process.terminal: the pty, from the container's devpts, its master sent
 * over the console socket. The container's pid 1 makes it its controlling
 * terminal here; exec's spawned process takes it itself, once it is the
 * one in the container (exec_stub_spawn). */
static int set_up_console(struct steps *s, oci_error_t *err)
{
  struct launch *launch = s->launch;

  if (launch->console_fd < 0)
    return 0;
  if (console_setup(launch->console_fd, &launch->spec->process, launch->host_devpts,
                    s->door == CLEAN_ENTRY_CONTAINER, err) < 0)
    return -1;
  close(launch->console_fd);
  launch->console_fd = -1;
  return 0;
}

/* process.rlimits, after the caller's realtime limits were reset (so a
 * configuration that asks for RLIMIT_RTPRIO gets it). Raising a hard
 * limit needs CAP_SYS_RESOURCE, which the process still holds here. */
static int apply_rlimits(struct steps *s, oci_error_t *err)
{
  const struct spec_process *process = &s->launch->spec->process;

  for (size_t i = 0; i < process->n_rlimits; i++) {
    const struct spec_rlimit *r = &process->rlimits[i];
    struct rlimit limit = {.rlim_cur = r->soft, .rlim_max = r->hard};

    if (setrlimit(r->resource, &limit) < 0)
      return oci_error_errno(err, "process.rlimits: set resource %d to %llu/%llu", r->resource,
                             (unsigned long long)r->soft, (unsigned long long)r->hard);
  }
  return 0;
}

/* process.scheduler and ioPriority, linux.personality and memoryPolicy
 * (process_attrs.c), before the filter can deny their syscalls. */
static int apply_process_attrs(struct steps *s, oci_error_t *err)
{
  return process_attrs_apply(s->launch->spec, err);
}

/* After pivot_root (or in the joined mount namespace): the working
 * directory (from the image's WorkingDir or -w, both untrusted) is
 * resolved inside the root with openat2, then entered with fchdir. A
 * missing one was made by the mount plan's workdir op while the root could
 * still be written (mount/apply.c); exec never makes one (the container's
 * tree is its processes'). */
static int enter_workdir(struct steps *s, oci_error_t *err)
{
  const char *workdir = s->launch->spec->process.cwd;
  cleanup_close int root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int dir_fd = -1;

  if (root_fd < 0)
    return oci_error_errno(err, "run: open the container's root");
  dir_fd = in_root_open(root_fd, workdir, O_PATH | O_DIRECTORY);
  if (dir_fd < 0)
    return oci_error_errno(err,
                           "run: the working directory '%s' (resolved in the container's "
                           "root, never through /proc magic links)",
                           workdir);
  if (fchdir(dir_fd) < 0)
    return oci_error_errno(err, "run: enter the working directory '%s'", workdir);
  return 0;
}

/* In the container's root: HOME from its /etc/passwd for the process's uid
 * when the environment has none (user.c), before the command lookup. */
static int set_home(struct steps *s, oci_error_t *err)
{
  return user_default_home(s->launch->spec->process.uid, &s->launch->envp, err);
}

/* The command, found before the seccomp filter (lookup.c). A command that
 * is not there fails create, not start (as runc's create does): the caller
 * learns it while it still reads this process's report. */
static int find_command(struct steps *s, oci_error_t *err)
{
  return command_find(s->launch, &s->failure, err);
}

/* linux.seccomp.listenerPath: the container process state, made while
 * the host's /proc still answers (its /proc/self is the pid the host and
 * the agent see) and before the filter, which may deny what allocation
 * needs. */
static int prepare_listener_state(struct steps *s, oci_error_t *err)
{
  struct launch *launch = s->launch;
  char self[32];
  ssize_t n;
  long pid;

  if (launch->listener_fd < 0)
    return 0;
  n = readlink("/proc/self", self, sizeof(self) - 1);
  if (n <= 0)
    return oci_error_errno(err, "linux.seccomp.listenerPath: readlink the host's /proc/self");
  self[n] = '\0';
  pid = strtol(self, NULL, 10);
  launch->listener_state = seccomp_listener_state(launch->spec, launch->options->id,
                                                  launch->options->bundle, (pid_t)pid, err);
  return launch->listener_state == NULL ? -1 : 0;
}

/* The filter, and its notify listener straight to the agent: sendmsg is
 * the first call under the filter (seccomp/build.c refuses a profile that
 * notifies it), and the listener and the agent's socket are closed here,
 * both close-on-exec besides: the workload never holds either. exec's
 * processes have no listener_fd: a notified call fails there with ENOSYS. */
static int load_filter(struct launch *launch, oci_error_t *err)
{
  int listener = -1, socket_fd;

  if (seccomp_filter_load_listener(launch->filter, launch->listener_fd >= 0 ? &listener : NULL,
                                   err) < 0)
    return -1;
  if (listener < 0)
    return 0;
  socket_fd = launch->listener_fd;
  launch->listener_fd = -1; /* closed by the send, whatever it returns */
  return seccomp_listener_send(socket_fd, listener, launch->listener_state, err);
}

/* Without no-new-privileges, loading a filter needs CAP_SYS_ADMIN: it goes
 * in before the user switch drops it. */
static int load_seccomp_before_user(struct steps *s, oci_error_t *err)
{
  struct launch *launch = s->launch;

  if (launch->spec->process.no_new_privileges || launch->filter == NULL)
    return 0;
  return load_filter(launch, err);
}

/* The user, its groups and the capability sets (capabilities.c), then the
 * parent-death signal the credential change cleared. */
static int switch_user(struct steps *s, oci_error_t *err)
{
  struct launch *launch = s->launch;
  const struct spec_process *process = &launch->spec->process;

  if (capabilities_switch_user(process->uid, process->gid, launch->set_groups, launch->groups,
                               launch->n_groups, &launch->caps, err) < 0 ||
      rearm_parent_death_signal(launch, err) < 0)
    return -1;
  return 0;
}

static int set_no_new_privileges(struct steps *s, oci_error_t *err)
{
  if (s->launch->spec->process.no_new_privileges && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return oci_error_errno(err, "run: PR_SET_NO_NEW_PRIVS");
  return 0;
}

/* With no-new-privileges, the filter last: nothing after it but the
 * runtime's few last steps and the exec. */
static int load_seccomp(struct steps *s, oci_error_t *err)
{
  struct launch *launch = s->launch;

  if (!launch->spec->process.no_new_privileges || launch->filter == NULL)
    return 0;
  return load_filter(launch, err);
}

/* start, in this process once confined (user, capabilities,
 * no-new-privileges, seccomp) and before the user program: the
 * startContainer hooks. Their paths resolve in the container's root, so
 * what they run is the image's file, which anything already in the
 * container (an `ocirun exec` of a created container) may have replaced:
 * they get exactly the workload's privileges, never this process's
 * earlier ones (runc and crun run them at the same point). */
static int run_start_hooks(struct steps *s, oci_error_t *err)
{
  return run_container_hooks(s->launch, SPEC_HOOK_START_CONTAINER, err);
}

/* start: the program is about to be exec'd ('0' on start's channel); a
 * failure from here on is the report pipe's, not start's. */
static int tell_start(struct steps *s, oci_error_t *err)
{
  int start_fd = s->start_fd;

  if (start_fd < 0)
    return 0;
  s->start_fd = -1;
  if (write(start_fd, "0", 1) != 1)
    return oci_error_errno(err, "start: write the exec fifo");
  close(start_fd);
  return 0;
}

/* The exec stub writes this same report when the workload's exec fails. */
_Static_assert(sizeof(struct child_report) == sizeof(struct exec_stub_report) &&
                   offsetof(struct child_report, message) ==
                       offsetof(struct exec_stub_report, message) &&
                   CHILD_EXEC_FAILED == EXEC_STUB_REPORT_EXEC_FAILED &&
                   CHILD_SETUP_FAILED == EXEC_STUB_REPORT_SETUP_FAILED,
               "struct child_report is the exec stub's report");

/* Execs the command command_find found, through the sealed exec stub: the
 * container's process becomes it; exec's joiner spawns it into the
 * container's pid namespace as a child of `ocirun exec`, which reads its
 * pid from pid_pipe. A failure of the exec proper is the stub's to report. */
static _Noreturn void exec_command(const struct steps *s)
{
  const struct launch *launch = s->launch;
  char message[600];
  int saved;

  if (s->door == CLEAN_ENTRY_EXEC)
    exec_stub_spawn(launch->command_fd, launch->command_path, launch->report_fd, s->pid_pipe,
                    launch->spec->process.terminal, launch->spec->process.args, launch->envp);
  else
    exec_stub_exec(launch->command_fd, launch->command_path, launch->report_fd,
                   launch->spec->process.args, launch->envp);
  saved = errno;
  snprintf(message, sizeof(message), "exec '%s': %s", launch->spec->process.args[0],
           strerror(saved));
  child_report_and_exit(launch, CHILD_EXEC_FAILED, saved, message);
}

static int exec_step(struct steps *s, oci_error_t *err)
{
  (void)err;
  exec_command(s);
}

/* ocirun run, once pid 1 is confined: the workload becomes pid 1's child
 * and pid 1 becomes ocirun's init (exec_stub/init.c), so that the
 * parent-death signal, which ties the run's life to its runner's, is held
 * by a process the workload cannot change; the workload's own (it has
 * none: fork clears it) would be its to clear. Every signal stays blocked
 * across the fork and the init's exec, so none is lost before the init
 * waits for them; the workload empties its mask before its exec. It leads
 * a process group of its own (the init forwards signals to it) and, with
 * a terminal, the terminal's foreground. It execs only once the init is
 * non-dumpable: until then the init, freshly exec'd, could be traced. */
static int start_under_init(struct steps *s, oci_error_t *err)
{
  struct launch *launch = s->launch;
  sigset_t all, none;
  int gate[2];
  pid_t workload;

  if (!launch->init)
    return 0;
  if (sigfillset(&all) < 0 || sigemptyset(&none) < 0 || sigprocmask(SIG_SETMASK, &all, NULL) < 0 ||
      pipe2(gate, O_CLOEXEC) < 0)
    return oci_error_errno(err, "run: prepare the init");
  workload = fork();
  if (workload < 0)
    return oci_error_errno(err, "run: fork the workload under the init");
  if (workload == 0) {
    char go;
    ssize_t n;

    close(gate[1]);
    close(launch->status_fd);
    if (setpgid(0, 0) < 0 || (launch->spec->process.terminal && tcsetpgrp(0, getpid()) < 0)) {
      oci_error_errno(err, "run: the workload's process group");
      child_fail(launch, err);
    }
    do
      n = read(gate[0], &go, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1)
      _exit(EXIT_RUNTIME_ERROR); /* the init failed; it says why */
    close(gate[0]);
    if (sigprocmask(SIG_SETMASK, &none, NULL) < 0) {
      oci_error_errno(err, "run: empty the workload's signal mask");
      child_fail(launch, err);
    }
    exec_command(s);
  }
  close(gate[0]);
  exec_stub_exec_init(workload, launch->status_fd, gate[1]);
  return oci_error_errno(err, "run: exec ocirun's init");
}

/* Which doors take a step. */
enum {
  CONTAINER = 1 << CLEAN_ENTRY_CONTAINER, /* run's and create's pid 1 (child_main) */
  EXEC = 1 << CLEAN_ENTRY_EXEC,           /* exec's joiner (exec_join) */
  BOTH = CONTAINER | EXEC,
};

struct step {
  const char *name; /* the phase's name when timed */
  int (*run)(struct steps *s, oci_error_t *err);
  unsigned doors;
  bool timed; /* its end is a phase of the start-up breakdown (scripts/bench-start) */
};

/* Every step of both doors, in the order each door takes its own, the
 * reason for each at its function above; the order of the syscalls is the
 * boundary's (descriptors closed first, the seccomp filter last before the
 * exec): a row is moved only with a reason. A door's step at a place of
 * its own is a row of its own (exec-stub, session-keyring). */
static const struct step steps[] = {
    {"parent-death-signal", set_parent_death_signal, CONTAINER, false}, /* run: dies with ocirun */
    {"go", wait_for_go, CONTAINER, false},              /* the parent's steps are done (spawn.c) */
    {"oom-score", set_oom_score, EXEC, false},          /* from the host's /proc, while it can */
    {"clean-state", clean_state, BOTH, false},          /* nothing of the caller's goes further */
    {"cpus-initial", set_cpus_initial, EXEC, false},    /* execCPUAffinity, before the cgroup */
    {"exec-stub", prepare_exec_stub, CONTAINER, false}, /* the sealed stub, before the filter */
    {"own-fds", hold_own_fds, CONTAINER, false}, /* create: the fifo's way, from the host's /proc */
    {"listener-state", prepare_listener_state, CONTAINER, false}, /* the host's pid, its /proc */
    {"cgroup", join_cgroup, EXEC, false}, /* the spawned process inherits it */
    {"container-namespaces", join_container_namespaces, EXEC, false}, /* pid 1's, by pidfd */
    {"cpus-final", set_cpus_final, EXEC, false},                      /* once joined */
    {"namespaces", join_namespaces, CONTAINER, false}, /* the configuration's, by path */
    {"become-root", become_root, CONTAINER, false},    /* of its user namespace */
    {"session-keyring", join_new_session_keyring, CONTAINER, false}, /* not the caller's keys */
    {"time-namespace", enter_time_namespace, CONTAINER, false},      /* offsets, then entered */
    {"hostname", set_hostname, CONTAINER, false},                    /* in its uts namespace */
    {"domainname", set_domainname, CONTAINER, false},                /* in its uts namespace */
    {"sysctls", apply_sysctls, CONTAINER, false},      /* in its namespaces, before mounts */
    {"loopback", loopback_up, CONTAINER, false},       /* a new netns has lo down */
    {"mounts", apply_mount_plan, CONTAINER, true},     /* the mount plan, then pivot_root */
    {"close-root", close_root_tree, CONTAINER, false}, /* nothing of the host's past it */
    {"null-devices", own_null_devices, BOTH, false},   /* the container's /dev/null */
    {"exec-stub", prepare_exec_stub, EXEC, false},     /* exec: in the container's mounts */
    {"console", set_up_console, BOTH, false},          /* the pty, of the container's devpts */
    {"session-keyring", join_new_session_keyring, EXEC, false}, /* exec: at its place */
    {"rlimits", apply_rlimits, BOTH, false},                    /* while CAP_SYS_RESOURCE is held */
    {"process-attrs", apply_process_attrs, BOTH, false},  /* scheduler, I/O, personality, NUMA */
    {"workdir", enter_workdir, BOTH, false},              /* resolved in the root */
    {"home", set_home, BOTH, false},                      /* HOME from passwd when env has none */
    {"command", find_command, BOTH, true},                /* before a filter can deny openat2 */
    {"wait-for-start", wait_for_start, CONTAINER, false}, /* create: until `ocirun start` */
    {"seccomp-before-user", load_seccomp_before_user, BOTH, false}, /* without NNP */
    {"user", switch_user, BOTH, false},                             /* user, groups, capabilities */
    {"no-new-privileges", set_no_new_privileges, BOTH, false},      /* with NNP */
    {"seccomp", load_seccomp, BOTH, true},              /* with NNP: last but the exec */
    {"start-hooks", run_start_hooks, CONTAINER, false}, /* with the workload's privileges */
    {"tell-start", tell_start, CONTAINER, false},       /* '0' to `ocirun start` */
    {"init", start_under_init, CONTAINER, false},       /* run: pid 1 becomes ocirun's init */
    {"exec", exec_step, BOTH, false},                   /* through the sealed stub */
};

/* A timed step done: its CLOCK_MONOTONIC and name to the parent, which
 * emits them as phase events (supervise.c: watch_report). Best effort: the
 * seccomp phase is written under the filter, as start's '0' is. */
static void report_phase(const struct launch *launch, const char *name)
{
  struct child_report report = {.kind = CHILD_PHASE};
  ssize_t ignored;

  snprintf(report.message, sizeof(report.message), "%lld %s", (long long)oci_monotonic_ns(), name);
  ignored = write(launch->report_fd, &report, sizeof(report));
  (void)ignored;
}

/* Runs the door's steps in the table's order; the first that fails ends
 * the process with its report (to `ocirun start` once it waits on the
 * exec fifo). The last step execs. */
static _Noreturn void steps_run(struct steps *s)
{
  oci_error_t err = NULL;

  for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
    const struct step *step = &steps[i];

    if (!(step->doors & (1u << s->door)))
      continue;
    s->failure = CHILD_SETUP_FAILED;
    if (step->run(s, &err) < 0) {
      if (s->start_fd >= 0)
        start_fail(s->start_fd, &err);
      child_fail_as(s->launch, s->failure, &err);
    }
    if (step->timed && s->phases)
      report_phase(s->launch, step->name);
  }
  oci_error_set(&err, 0, "run: no step exec'd the command");
  child_fail(s->launch, &err);
}

/* The container's first process (run's and create's pid 1), once cloned:
 * the CONTAINER rows of steps[]. */
_Noreturn void child_main(struct launch *launch)
{
  struct steps s = {.launch = launch,
                    .door = CLEAN_ENTRY_CONTAINER,
                    .start_fd = -1,
                    /* run only: create's parent reads its reports itself */
                    .phases = launch->supervised &&
                              oci_event_wanted(launch->options->events, OCI_EVENT_PHASE),
                    .pidfd = -1,
                    .cgroup_fd = -1,
                    .pid_pipe = -1};

  steps_run(&s);
}

/* The process that joins, forked by `ocirun exec`, never in the container's
 * pid namespace itself: the EXEC rows of steps[]. Only once it runs the
 * sealed stub and is no more privileged than the workload does it spawn
 * the process into the container's pid namespace as a child of `ocirun
 * exec` (exec_stub_spawn), which reads its pid from pid_pipe. A process of
 * the container, even one holding CAP_SYS_PTRACE, never sees a process of
 * ocirun's binary or of the runtime's privileges there. */
_Noreturn void exec_join(struct launch *launch, int pidfd, int ns_flags, int cgroup_fd,
                         int pid_pipe)
{
  struct steps s = {.launch = launch,
                    .door = CLEAN_ENTRY_EXEC,
                    .start_fd = -1,
                    .pidfd = pidfd,
                    .ns_flags = ns_flags,
                    .cgroup_fd = cgroup_fd,
                    .pid_pipe = pid_pipe};

  steps_run(&s);
}
