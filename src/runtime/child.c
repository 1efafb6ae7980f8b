/* The container's first process, in the order its steps run: child_main is
 * the table of contents, each step a function with the reason beside it
 * (runc keeps its init sequence the same way). ocirun exec's joiner takes
 * the same named steps (exec.c). */
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
#include "oci/cleanup.h"
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

/* The child's first step once it may go, before any path is resolved or
 * mount made (clean_state.c): the relay's pipes (run) or the caller's
 * vetted stdio (create) onto 0, 1, 2, every other descriptor closed but
 * these, signals, session, personality, umask, scheduling, parent-death
 * signal and dumpability all the runtime's, none the caller's. */
static int child_clean_state(struct launch *launch, oci_error_t *err)
{
  /* go and report pipes (CLOEXEC), the root tree until the mount plan is
   * applied (it may name it /proc/self/fd/N), the exec fifo, the console
   * socket, the init's status pipe, and the namespaces to join */
  int keep[6 + SPEC_NS_COUNT];
  size_t n_keep = 0;
  struct clean_state state;

  keep[n_keep++] = launch->go_fd;
  keep[n_keep++] = launch->report_fd;
  keep[n_keep++] = launch->root_fd;
  keep[n_keep++] = launch->exec_fifo_fd;
  keep[n_keep++] = launch->console_fd;
  keep[n_keep++] = launch->status_fd;
  for (int ns = 0; ns < SPEC_NS_COUNT; ns++)
    keep[n_keep++] = launch->join_fd[ns];
  clean_state_init(&state, CLEAN_ENTRY_CONTAINER, &launch->spec->process, launch->supervised);
  memcpy(state.stdio, launch->stdio, sizeof(state.stdio));
  state.keep = keep;
  state.n_keep = n_keep;
  return clean_state_apply(&state, err);
}

/* Joins the namespaces the configuration names by path: the user
 * namespace first (the others may belong to it), the pid namespace was
 * entered by the parent for its child. */
static int join_namespaces(const struct launch *launch, oci_error_t *err)
{
  static const enum spec_namespace_type order[] = {SPEC_NS_USER,    SPEC_NS_IPC,    SPEC_NS_UTS,
                                                   SPEC_NS_NETWORK, SPEC_NS_CGROUP, SPEC_NS_TIME};

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

/* process.rlimits, after the caller's realtime limits were reset (so a
 * configuration that asks for RLIMIT_RTPRIO gets it). Raising a hard
 * limit needs CAP_SYS_RESOURCE, which the child still holds here. */
int apply_rlimits(const struct spec_process *process, oci_error_t *err)
{
  for (size_t i = 0; i < process->n_rlimits; i++) {
    const struct spec_rlimit *r = &process->rlimits[i];
    struct rlimit limit = {.rlim_cur = r->soft, .rlim_max = r->hard};

    if (setrlimit(r->resource, &limit) < 0)
      return oci_error_errno(err, "process.rlimits: set resource %d to %llu/%llu", r->resource,
                             (unsigned long long)r->soft, (unsigned long long)r->hard);
  }
  return 0;
}

/* create: tell the parent the container is ready, then block until
 * `ocirun start` opens the fifo for reading (the open for writing returns
 * then). The fd is start's channel: its first byte is '0' when the user
 * program is about to be exec'd, or 'E' and the reason this process
 * failed instead (a startContainer hook). */
static int wait_for_start(struct launch *launch, oci_error_t *err)
{
  struct child_report ready = {.kind = CHILD_READY};
  char path[64];
  int fd;

  if (write(launch->report_fd, &ready, sizeof(ready)) != (ssize_t)sizeof(ready))
    return oci_error_errno(err, "create: report ready");
  snprintf(path, sizeof(path), "/proc/self/fd/%d", launch->exec_fifo_fd);
  do
    fd = open(path, O_WRONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return oci_error_errno(err, "create: open the exec fifo");
  close(launch->exec_fifo_fd);
  launch->exec_fifo_fd = -1;
  return fd;
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
  cleanup_free char *state = NULL;

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
  if (spec->hooks[SPEC_HOOK_CREATE_CONTAINER].n_hooks == 0)
    return 0;
  /* The pid as the container sees it: the spec's rule for hooks run in
   * the container namespace. */
  state = container_state_json_for_spec(spec, launch->options->id, launch->options->bundle,
                                        getpid(), CONTAINER_CREATED, err);
  if (state == NULL)
    return -1;
  return hooks_run_in_container(&spec->hooks[SPEC_HOOK_CREATE_CONTAINER],
                                SPEC_HOOK_CREATE_CONTAINER, state, err);
}

static bool has_create_hooks(const struct spec *spec)
{
  return spec->hooks[SPEC_HOOK_PRESTART].n_hooks > 0 ||
         spec->hooks[SPEC_HOOK_CREATE_RUNTIME].n_hooks > 0 ||
         spec->hooks[SPEC_HOOK_CREATE_CONTAINER].n_hooks > 0;
}

/* start, in this process once confined (user, capabilities,
 * no-new-privileges, seccomp) and before the user program: the
 * startContainer hooks. Their paths resolve in the container's root, so
 * what they run is the image's file, which anything already in the
 * container (an `ocirun exec` of a created container) may have replaced:
 * they get exactly the workload's privileges, never this process's
 * earlier ones (runc and crun run them at the same point). */
static int run_start_hooks(const struct launch *launch, oci_error_t *err)
{
  const struct spec *spec = launch->spec;
  cleanup_free char *state = NULL;

  if (spec->hooks[SPEC_HOOK_START_CONTAINER].n_hooks == 0)
    return 0;
  state = container_state_json_for_spec(spec, launch->options->id, launch->options->bundle,
                                        getpid(), CONTAINER_CREATED, err);
  if (state == NULL)
    return -1;
  return hooks_run_in_container(&spec->hooks[SPEC_HOOK_START_CONTAINER], SPEC_HOOK_START_CONTAINER,
                                state, err);
}

/* The caller's session keyring (kerberos tickets, fscrypt or ecryptfs keys,
 * anything `keyctl` put there) is inherited across clone and exec, and keys
 * are not namespaced for a root run: a workload whose seccomp profile allows
 * keyctl (unconfined, or a custom profile) would read them. A new anonymous
 * session keyring of the run's own replaces it, as runc and crun do. A
 * kernel without keys has nothing to leak. */
int join_new_session_keyring(oci_error_t *err)
{
  if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS)
    return oci_error_errno(err, "run: join a new session keyring (keyctl)");
  return 0;
}

/* After pivot_root: the working directory (from the image's WorkingDir or
 * -w, both untrusted) is resolved inside the new root with openat2, then
 * entered with fchdir. */
int enter_workdir(const char *workdir, bool read_only, oci_error_t *err)
{
  cleanup_close int root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int dir_fd = -1;

  if (root_fd < 0)
    return oci_error_errno(err, "run: open the container's root");
  /* docker creates a missing working directory; so do we, unless the root
   * is read-only, one component at a time inside the root. */
  dir_fd = in_root_open(root_fd, workdir, O_PATH | O_DIRECTORY);
  if (dir_fd < 0 && errno == ENOENT && !read_only)
    dir_fd = in_root_make_directories(root_fd, workdir);
  if (dir_fd < 0)
    return oci_error_errno(err,
                           "run: the working directory '%s' (resolved in the container's "
                           "root, never through /proc magic links)",
                           workdir);
  if (fchdir(dir_fd) < 0)
    return oci_error_errno(err, "run: enter the working directory '%s'", workdir);
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

/* The exec stub writes this same report when the workload's exec fails. */
_Static_assert(sizeof(struct child_report) == sizeof(struct exec_stub_report) &&
                   offsetof(struct child_report, message) ==
                       offsetof(struct exec_stub_report, message) &&
                   CHILD_EXEC_FAILED == EXEC_STUB_REPORT_EXEC_FAILED &&
                   CHILD_SETUP_FAILED == EXEC_STUB_REPORT_SETUP_FAILED,
               "struct child_report is the exec stub's report");

/* Execs the command command_find found, through the sealed exec stub;
 * a failure of the exec proper is the stub's to report. */
static _Noreturn void child_exec(const struct launch *launch)
{
  char message[600];
  int saved;

  exec_stub_exec(launch->command_fd, launch->command_path, launch->report_fd,
                 launch->spec->process.args, launch->envp);
  saved = errno;
  snprintf(message, sizeof(message), "exec '%s': %s", launch->spec->process.args[0],
           strerror(saved));
  child_report_and_exit(launch, CHILD_EXEC_FAILED, saved, message);
}

/* Sets the user, capabilities, no-new-privileges and seccomp in the order
 * that works (command_find has found the command before it). Without
 * no-new-privileges, loading a filter needs CAP_SYS_ADMIN, so it goes in before the user switch
 * drops it. With it, the user switch, then no-new-privileges, then seccomp last: nothing after the
 * filter but execve. */
int child_confine(struct launch *launch, oci_error_t *err)
{
  const struct spec_process *process = &launch->spec->process;

  if (!process->no_new_privileges && launch->filter != NULL &&
      seccomp_filter_load(launch->filter, err) < 0)
    return -1;
  if (capabilities_switch_user(process->uid, process->gid, launch->set_groups, launch->groups,
                               launch->n_groups, &launch->caps, err) < 0 ||
      rearm_parent_death_signal(launch, err) < 0)
    return -1;
  if (!process->no_new_privileges)
    return 0;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return oci_error_errno(err, "run: PR_SET_NO_NEW_PRIVS");
  return launch->filter != NULL ? seccomp_filter_load(launch->filter, err) : 0;
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
static _Noreturn void child_start_under_init(struct launch *launch)
{
  sigset_t all, none;
  oci_error_t err = NULL;
  int gate[2];
  pid_t workload;

  if (sigfillset(&all) < 0 || sigemptyset(&none) < 0 || sigprocmask(SIG_SETMASK, &all, NULL) < 0 ||
      pipe2(gate, O_CLOEXEC) < 0) {
    oci_error_errno(&err, "run: prepare the init");
    child_fail(launch, &err);
  }
  workload = fork();
  if (workload < 0) {
    oci_error_errno(&err, "run: fork the workload under the init");
    child_fail(launch, &err);
  }
  if (workload == 0) {
    char go;
    ssize_t n;

    close(gate[1]);
    close(launch->status_fd);
    if (setpgid(0, 0) < 0 || (launch->spec->process.terminal && tcsetpgrp(0, getpid()) < 0)) {
      oci_error_errno(&err, "run: the workload's process group");
      child_fail(launch, &err);
    }
    do
      n = read(gate[0], &go, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1)
      _exit(EXIT_RUNTIME_ERROR); /* the init failed; it says why */
    close(gate[0]);
    if (sigprocmask(SIG_SETMASK, &none, NULL) < 0) {
      oci_error_errno(&err, "run: empty the workload's signal mask");
      child_fail(launch, &err);
    }
    child_exec(launch);
  }
  close(gate[0]);
  exec_stub_exec_init(workload, launch->status_fd, gate[1]);
  oci_error_errno(&err, "run: exec ocirun's init");
  child_fail(launch, &err);
}

_Noreturn void child_main(struct launch *launch)
{
  const struct spec *spec = launch->spec;
  struct mount_plan_pause pause = {.before_pivot = child_before_pivot, .context = launch};
  oci_error_t err = NULL;
  int start_fd = -1, failure;
  char go;
  ssize_t n;

  /* If ocirun dies while this waits, so does this process. */
  if (launch->supervised && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
    oci_error_errno(&err, "run: PR_SET_PDEATHSIG");
    child_fail(launch, &err);
  }
  do
    n = read(launch->go_fd, &go, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1)
    _exit(EXIT_RUNTIME_ERROR); /* the parent is gone or gave up */
  /* go_fd stays open: its hang-up tells the child that ocirun died */

  if (child_clean_state(launch, &err) < 0 || exec_stub_prepare(&err) < 0)
    child_fail(launch, &err);
  if (join_namespaces(launch, &err) < 0 ||
      ((launch->new_user_ns || launch->join_fd[SPEC_NS_USER] >= 0) &&
       (userns_become_root(&err) < 0 || rearm_parent_death_signal(launch, &err) < 0)) ||
      join_new_session_keyring(&err) < 0)
    child_fail(launch, &err);
  if (spec->hostname != NULL && sethostname(spec->hostname, strlen(spec->hostname)) < 0) {
    oci_error_errno(&err, "hostname: sethostname '%s'", spec->hostname);
    child_fail(launch, &err);
  }
  if (spec->domainname != NULL && setdomainname(spec->domainname, strlen(spec->domainname)) < 0) {
    oci_error_errno(&err, "domainname: setdomainname '%s'", spec->domainname);
    child_fail(launch, &err);
  }
  if (sysctl_apply(spec, &err) < 0 ||
      ((launch->clone_flags & CLONE_NEWNET) && network_loopback_up(&err) < 0) ||
      mount_plan_apply_pausing(&launch->plan, has_create_hooks(spec) ? &pause : NULL, &err) < 0)
    child_fail(launch, &err);
  if (launch->root_fd >= 0 && close(launch->root_fd) < 0) {
    oci_error_errno(&err, "run: close the root tree");
    child_fail(launch, &err);
  }
  launch->root_fd = -1;
  if (stdio_relay_own_null_devices(&err) < 0)
    child_fail(launch, &err);
  if (launch->console_fd >= 0) {
    if (console_setup(launch->console_fd, &spec->process, launch->host_devpts, true, &err) < 0)
      child_fail(launch, &err);
    close(launch->console_fd);
    launch->console_fd = -1;
  }
  if (apply_rlimits(&spec->process, &err) < 0 ||
      enter_workdir(spec->process.cwd, spec->root_readonly, &err) < 0 ||
      user_default_home(spec->process.uid, &launch->envp, &err) < 0)
    child_fail(launch, &err);
  /* A command that is not there fails create, not start (as runc's create
   * does): the caller learns it while it still reads this process's report. */
  if (command_find(launch, &failure, &err) < 0)
    child_fail_as(launch, failure, &err);
  if (launch->exec_fifo_fd >= 0 && (start_fd = wait_for_start(launch, &err)) < 0)
    child_fail(launch, &err);
  if (child_confine(launch, &err) < 0 || run_start_hooks(launch, &err) < 0) {
    if (start_fd >= 0)
      start_fail(start_fd, &err);
    child_fail(launch, &err);
  }
  if (start_fd >= 0) {
    if (write(start_fd, "0", 1) != 1) {
      oci_error_errno(&err, "start: write the exec fifo");
      child_fail(launch, &err);
    }
    close(start_fd);
  }
  if (launch->init)
    child_start_under_init(launch);
  child_exec(launch);
}
