/* The runtime core: everything a run needs is prepared in the parent (user,
 * argv, env, caps, seccomp filter, mount plan), then one clone3 into new
 * namespaces and the cgroup slice; the child builds the boundary and execs,
 * the parent waits under the deadline and tears everything down.
 * Run by an ordinary user (rootless), the clone also makes a user namespace
 * whose maps the parent writes (userns.c) before it lets the child go; the
 * child's capabilities then hold only over its own namespaces. */
#include "config.h"

#include "runtime/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/capabilities.h"
#include "runtime/cgroup.h"
#include "runtime/cgroup_devices.h"
#include "runtime/exec_stub.h"
#include "runtime/exec_stub/protocol.h"
#include "runtime/exit_codes.h"
#include "runtime/in_root.h"
#include "runtime/mount_plan.h"
#include "runtime/network.h"
#include "oci/cleanup.h"
#include "oci/io.h"
#include "runtime/run_dir.h"
#include "runtime/run_state.h"
#include "runtime/seccomp_filter.h"
#include "runtime/stdio_relay.h"
#include "runtime/user.h"
#include "runtime/userns.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define EXIT_TIMED_OUT 124

/* What the child tells the parent when it fails before execve. */
enum child_failure { CHILD_SETUP_FAILED = 1, CHILD_EXEC_FAILED = 2 };
struct child_report {
  int kind;
  int errno_value;
  char message[1024];
};

/* Everything the child needs, computed by the parent before clone. */
struct launch {
  const struct run_config *config;
  bool rootless; /* a user namespace, mapped by the parent */
  struct userns_map map;
  bool set_groups; /* false when the user namespace denies setgroups */
  struct mount_plan plan;
  int rootfs_fd; /* the cached rootfs (the overlay's lower), held for the run */
  struct run_user user;
  uint64_t caps;
  struct seccomp_filter *filter;
  char **argv;
  char **envp;
  const char *workdir;
  char hostname[64];
  int stdio[3];  /* the container's ends of the relay's pipes, never a caller's fd */
  int go_fd;     /* child reads one byte: the parent is ready */
  int report_fd; /* child writes a child_report on failure; CLOEXEC */
};

/* ---- preparation (parent) ---- */

static int strv_append(char ***v, size_t *n, const char *s, oci_error_t *err)
{
  char **grown = reallocarray(*v, *n + 2, sizeof(**v));

  if (grown == NULL)
    return oci_error_errno(err, "run: allocate");
  *v = grown;
  (*v)[*n] = strdup(s);
  if ((*v)[*n] == NULL)
    return oci_error_errno(err, "run: allocate");
  (*v)[++*n] = NULL;
  return 0;
}

/* docker's rule: --entrypoint replaces the image's entrypoint and drops its
 * cmd; a command after IMAGE replaces the cmd. */
static int build_argv(const struct run_config *config, const struct oci_image *image, char ***out,
                      oci_error_t *err)
{
  cleanup_strv char **argv = NULL;
  size_t n = 0;
  bool user_command = config->command != NULL && config->command[0] != NULL;
  char *const *cmd = user_command ? config->command : image->defaults.cmd;

  if (config->entrypoint_set) {
    if (config->entrypoint[0] != '\0' && strv_append(&argv, &n, config->entrypoint, err) < 0)
      return -1;
    if (!user_command)
      cmd = NULL;
  } else {
    for (char **s = image->defaults.entrypoint; s != NULL && *s != NULL; s++) {
      if (strv_append(&argv, &n, *s, err) < 0)
        return -1;
    }
  }
  for (char *const *s = cmd; s != NULL && *s != NULL; s++) {
    if (strv_append(&argv, &n, *s, err) < 0)
      return -1;
  }
  if (n == 0)
    return oci_error_set(err, 0, "run: no command given and the image has no entrypoint or cmd");
  /* docker refuses this before it runs anything; exec '' would only fail */
  if (argv[0][0] == '\0') {
    const char *source =
        config->entrypoint_set ? "the command after IMAGE"
        : image->defaults.entrypoint != NULL && image->defaults.entrypoint[0] != NULL
            ? "the image's Entrypoint"
        : user_command ? "the command after IMAGE"
                       : "the image's Cmd";
    return oci_error_set(err, 0, "run: the command to run is an empty string (from %s)", source);
  }
  *out = steal_pointer(&argv);
  return 0;
}

/* Sets NAME=VALUE, replacing an earlier entry of the same name. */
static int env_set(char ***env, size_t *n, const char *entry, oci_error_t *err)
{
  size_t name_len = strcspn(entry, "=");

  for (size_t i = 0; i < *n; i++) {
    if (strncmp((*env)[i], entry, name_len) == 0 && (*env)[i][name_len] == '=') {
      char *copy = strdup(entry);

      if (copy == NULL)
        return oci_error_errno(err, "run: allocate");
      free((*env)[i]);
      (*env)[i] = copy;
      return 0;
    }
  }
  return strv_append(env, n, entry, err);
}

static bool env_has(char **env, const char *name)
{
  size_t len = strlen(name);

  for (char **s = env; s != NULL && *s != NULL; s++) {
    if (strncmp(*s, name, len) == 0 && (*s)[len] == '=')
      return true;
  }
  return false;
}

/* Nothing from ocirun's own environment: PATH and HOSTNAME, the image's
 * env, then -e/--env-file in order, then HOME from passwd if still unset. */
static int build_env(const struct run_config *config, const struct oci_image *image,
                     const char *hostname, const char *home, char ***out, oci_error_t *err)
{
  cleanup_strv char **env = NULL;
  cleanup_free char *hostname_entry = NULL;
  cleanup_free char *home_entry = NULL;
  size_t n = 0;

  if (asprintf(&hostname_entry, "HOSTNAME=%s", hostname) < 0 ||
      asprintf(&home_entry, "HOME=%s", home) < 0) {
    hostname_entry = home_entry = NULL;
    return oci_error_errno(err, "run: allocate");
  }
  if (env_set(&env, &n, "PATH=" DEFAULT_PATH, err) < 0 ||
      env_set(&env, &n, hostname_entry, err) < 0)
    return -1;
  for (char **s = image->defaults.env; s != NULL && *s != NULL; s++) {
    if (strchr(*s, '=') != NULL && env_set(&env, &n, *s, err) < 0)
      return -1;
  }
  for (size_t i = 0; i < config->n_env; i++) {
    if (env_set(&env, &n, config->env[i], err) < 0)
      return -1;
  }
  if (!env_has(env, "HOME") && env_set(&env, &n, home_entry, err) < 0)
    return -1;
  *out = steal_pointer(&env);
  return 0;
}

/* --hostname; else the 12 hex digits of a generated name (docker uses the
 * short container ID); else the name itself, cut to a hostname's length. */
static void pick_hostname(const struct run_config *config, char *out, size_t size)
{
  const char *name = config->name;

  if (config->hostname != NULL)
    name = config->hostname;
  else if (config->name_generated && strncmp(name, "ocirun-", 7) == 0)
    name += 7;
  snprintf(out, size, "%s", name);
}

static uint64_t effective_capabilities(const struct run_config *config)
{
  uint64_t caps = config->cap_drop_all ? 0 : capabilities_docker_default() & ~config->cap_drop;

  return caps | config->cap_add;
}

/* ---- the child ---- */

static _Noreturn void child_report_and_exit(const struct launch *launch, int kind, int errno_value,
                                            const char *message)
{
  struct child_report report = {.kind = kind, .errno_value = errno_value};
  ssize_t ignored;

  snprintf(report.message, sizeof(report.message), "%s", message);
  ignored = write(launch->report_fd, &report, sizeof(report));
  (void)ignored;
  _exit(kind == CHILD_EXEC_FAILED ? EXIT_COMMAND_NOT_FOUND : EXIT_RUNTIME_ERROR);
}

static _Noreturn void child_fail(const struct launch *launch, oci_error_t *err)
{
  child_report_and_exit(launch, CHILD_SETUP_FAILED, (*err)->errno_value, (*err)->message);
}

/* Nothing of ocirun's signal state reaches the workload: dispositions the
 * caller set to ignore (SIGPIPE, SIGQUIT under nohup, even glibc's internal
 * 32 and 33, which its sigaction refuses to touch) survive execve, and so
 * would ocirun's mask (INT, TERM, HUP, QUIT blocked for its signalfd). The
 * raw system call with an all-zero kernel sigaction (SIG_DFL, no flags, an
 * empty mask, whatever the architecture's layout) reaches every signal;
 * only SIGKILL and SIGSTOP cannot be changed. */
static int reset_signals(oci_error_t *err)
{
  const unsigned long default_action[8] = {0};
  sigset_t empty;

  for (int sig = 1; sig < _NSIG; sig++) {
    if (sig == SIGKILL || sig == SIGSTOP)
      continue;
    if (syscall(SYS_rt_sigaction, sig, default_action, NULL, _NSIG / 8) < 0)
      return oci_error_errno(err, "run: reset the disposition of signal %d", sig);
  }
  if (sigemptyset(&empty) < 0 || sigprocmask(SIG_SETMASK, &empty, NULL) < 0)
    return oci_error_errno(err, "run: empty the signal mask");
  return 0;
}

/* The child's very first step once it may go, before any path is resolved
 * or mount made: the relay's pipes onto 0, 1, 2 and every other descriptor
 * closed but those listed here. Anything ocirun's caller or ocirun itself
 * had open (a host directory, a store fd) would otherwise be reachable
 * through /proc/self/fd from the working directory, a mount source or the
 * workload itself. */
static int child_close_fds(struct launch *launch, oci_error_t *err)
{
  /* go and report pipes (CLOEXEC), and the overlay's lower until the mount
   * plan is applied (it may name it /proc/self/fd/N) */
  int keep[3] = {launch->go_fd, launch->report_fd, launch->rootfs_fd};
  unsigned next = 3;
  int copies[3];

  for (int i = 0; i < 3; i++) {
    if (keep[i] >= 0 && keep[i] < 3)
      return oci_error_set(err, 0, "run: internal fd %d collides with stdio", keep[i]);
  }
  /* via fresh copies, so that no dup2 overwrites a source still needed */
  for (int i = 0; i < 3; i++) {
    copies[i] = fcntl(launch->stdio[i], F_DUPFD_CLOEXEC, 3);
    if (copies[i] < 0)
      return oci_error_errno(err, "run: dup stdio fd %d", launch->stdio[i]);
  }
  for (int i = 0; i < 3; i++) {
    if (dup2(copies[i], i) < 0)
      return oci_error_errno(err, "run: dup2 onto fd %d", i);
  }
  for (int i = 1; i < 3; i++) {
    for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
      int t = keep[j];
      keep[j] = keep[j - 1];
      keep[j - 1] = t;
    }
  }
  for (int i = 0; i < 3; i++) {
    if (keep[i] < 0 || (unsigned)keep[i] < next)
      continue;
    if ((unsigned)keep[i] > next && close_range(next, (unsigned)keep[i] - 1, 0) < 0)
      return oci_error_errno(err, "run: close_range %u-%d", next, keep[i] - 1);
    next = (unsigned)keep[i] + 1;
  }
  if (close_range(next, ~0U, 0) < 0)
    return oci_error_errno(err, "run: close_range %u-", next);
  return 0;
}

/* The caller's session keyring (kerberos tickets, fscrypt or ecryptfs keys,
 * anything `keyctl` put there) is inherited across clone and exec, and keys
 * are not namespaced for a root run: a workload whose seccomp profile allows
 * keyctl (unconfined, or a custom profile) would read them. A new anonymous
 * session keyring of the run's own replaces it, as runc and crun do. A
 * kernel without keys has nothing to leak. */
static int join_new_session_keyring(oci_error_t *err)
{
  if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS)
    return oci_error_errno(err, "run: join a new session keyring (keyctl)");
  return 0;
}

/* The scheduling the caller runs with is inherited across clone: a caller
 * at SCHED_FIFO or SCHED_RR, a negative nice value or the realtime I/O
 * class (a service's CPUSchedulingPolicy=, Nice=, IOSchedulingClass=) would
 * hand the workload a priority it could never set itself (CAP_SYS_NICE,
 * CAP_SYS_ADMIN are not in its set), and cpu.max (--cpus) does not throttle
 * realtime tasks at all. Each is brought back to a plain process's; a
 * weaker setting (nice above 0, SCHED_BATCH/IDLE, idle I/O) is the caller's
 * choice and is kept. Lowering a priority needs no privilege. RLIMIT_RTPRIO
 * and RLIMIT_NICE above 0 (limits.conf's rtprio for an audio group, a
 * service's LimitRTPRIO=) would let the workload, of any uid, take a
 * realtime policy or a negative nice value back without privilege: both go
 * to 0, docker's default (lowering a limit needs no privilege either). */
#define IOPRIO_WHO_PROCESS_ 1
#define IOPRIO_CLASS_SHIFT_ 13
#define IOPRIO_CLASS_RT_ 1

static int reset_scheduling(oci_error_t *err)
{
  static const int priority_limits[] = {RLIMIT_RTPRIO, RLIMIT_NICE};
  int policy = sched_getscheduler(0);
  long ioprio;

  if (policy < 0)
    return oci_error_errno(err, "run: sched_getscheduler");
  if (policy != SCHED_OTHER && policy != SCHED_BATCH && policy != SCHED_IDLE &&
      sched_setscheduler(0, SCHED_OTHER, &(struct sched_param){.sched_priority = 0}) < 0)
    return oci_error_errno(err, "run: reset the caller's realtime scheduling policy %d", policy);
  errno = 0;
  if (getpriority(PRIO_PROCESS, 0) < 0 && errno == 0 && setpriority(PRIO_PROCESS, 0, 0) < 0)
    return oci_error_errno(err, "run: reset the caller's negative nice value");
  for (size_t i = 0; i < sizeof(priority_limits) / sizeof(priority_limits[0]); i++) {
    struct rlimit limit;

    if (getrlimit(priority_limits[i], &limit) < 0)
      return oci_error_errno(err, "run: getrlimit %d", priority_limits[i]);
    if ((limit.rlim_cur > 0 || limit.rlim_max > 0) &&
        setrlimit(priority_limits[i], &(struct rlimit){0, 0}) < 0)
      return oci_error_errno(err, "run: set the caller's %s to 0",
                             priority_limits[i] == RLIMIT_RTPRIO ? "RLIMIT_RTPRIO" : "RLIMIT_NICE");
  }
  ioprio = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS_, 0);
  if (ioprio >= 0 && (ioprio >> IOPRIO_CLASS_SHIFT_) == IOPRIO_CLASS_RT_ &&
      syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS_, 0, 0) < 0)
    return oci_error_errno(err, "run: reset the caller's realtime I/O class");
  return 0;
}

/* After pivot_root: the working directory (from the image's WorkingDir or
 * -w, both untrusted) is resolved inside the new root with openat2, then
 * entered with fchdir. */
static int enter_workdir(const char *workdir, bool read_only, oci_error_t *err)
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
                   CHILD_EXEC_FAILED == EXEC_STUB_REPORT_EXEC_FAILED,
               "struct child_report is the exec stub's report");

/* Execs path, through the sealed exec stub, if it resolves inside the root
 * without a /proc magic link (/proc/self/exe would be ocirun's own binary,
 * /proc/self/fd/N whatever that fd is) to an executable file; returns with
 * errno set otherwise. A failure of the exec proper is the stub's to
 * report. */
static void exec_in_root(const struct launch *launch, int root_fd, const char *path)
{
  struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS};
  int fd;
  int saved;

  if (path[0] == '/')
    how.resolve |= RESOLVE_IN_ROOT;
  fd = (int)syscall(SYS_openat2, path[0] == '/' ? root_fd : AT_FDCWD, path, &how, sizeof(how));
  if (fd < 0)
    return;
  exec_stub_exec(fd, path, launch->report_fd, launch->argv, launch->envp);
  saved = errno;
  close(fd);
  errno = saved;
}

/* execvp's search, but with the container's PATH and after pivot_root. */
static _Noreturn void child_exec(const struct launch *launch)
{
  const char *command = launch->argv[0];
  const char *path = DEFAULT_PATH;
  char message[600];
  int last_errno = ENOENT;
  bool denied = false;
  cleanup_close int root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

  if (root_fd < 0) {
    oci_error_t err = NULL;
    oci_error_errno(&err, "run: open the container's root");
    child_fail(launch, &err);
  }
  if (strchr(command, '/') != NULL) {
    exec_in_root(launch, root_fd, command);
    last_errno = errno;
  } else {
    for (char **s = launch->envp; *s != NULL; s++) {
      if (strncmp(*s, "PATH=", 5) == 0)
        path = *s + 5;
    }
    for (const char *dir = path;; dir++) {
      size_t len = strcspn(dir, ":");
      char candidate[4096];

      if (snprintf(candidate, sizeof(candidate), "%.*s%s%s", (int)len, len > 0 ? dir : ".", "/",
                   command) < (int)sizeof(candidate)) {
        exec_in_root(launch, root_fd, candidate);
        if (errno == EACCES)
          denied = true;
        else if (errno != ENOENT && errno != ENOTDIR)
          last_errno = errno;
      }
      dir += len;
      if (*dir == '\0')
        break;
    }
    if (denied)
      last_errno = EACCES;
  }
  if (last_errno == ENOENT && strchr(command, '/') == NULL)
    snprintf(message, sizeof(message), "exec '%s': executable file not found in $PATH", command);
  else if (last_errno == ELOOP)
    snprintf(message, sizeof(message),
             "exec '%s': refused: the path goes through a /proc magic link (or a symlink loop); "
             "the command is resolved inside the container's root",
             command);
  else
    snprintf(message, sizeof(message), "exec '%s': %s", command, strerror(last_errno));
  child_report_and_exit(launch, CHILD_EXEC_FAILED, last_errno, message);
}

static _Noreturn void child_main(struct launch *launch)
{
  oci_error_t err = NULL;
  char go;
  ssize_t n;

  if (reset_signals(&err) < 0)
    child_fail(launch, &err);
  /* If ocirun dies, pid 1 dies, and with it the whole pid namespace. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
    oci_error_errno(&err, "run: PR_SET_PDEATHSIG");
    child_fail(launch, &err);
  }
  do
    n = read(launch->go_fd, &go, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1)
    _exit(EXIT_RUNTIME_ERROR); /* the parent is gone or gave up */
  /* go_fd stays open: its hang-up tells the child that ocirun died */

  if (child_close_fds(launch, &err) < 0 || exec_stub_prepare(&err) < 0)
    child_fail(launch, &err);

  /* A session of its own: ocirun's terminal is not the container's
   * controlling terminal, so TIOCSTI cannot type into the user's shell,
   * and the terminal's signals go to ocirun, which tears the whole run
   * down. (Its stdio is the relay's pipes anyway.) */
  if (setsid() < 0) {
    oci_error_errno(&err, "run: setsid");
    child_fail(launch, &err);
  }
  if (join_new_session_keyring(&err) < 0 || reset_scheduling(&err) < 0)
    child_fail(launch, &err);
  if (sethostname(launch->hostname, strlen(launch->hostname)) < 0) {
    oci_error_errno(&err, "run: sethostname '%s'", launch->hostname);
    child_fail(launch, &err);
  }
  if (network_loopback_up(&err) < 0 || mount_plan_apply(&launch->plan, &err) < 0)
    child_fail(launch, &err);
  if (launch->rootfs_fd >= 0 && close(launch->rootfs_fd) < 0) {
    oci_error_errno(&err, "run: close the overlay's lower");
    child_fail(launch, &err);
  }
  launch->rootfs_fd = -1;
  if (enter_workdir(launch->workdir, launch->config->read_only, &err) < 0)
    child_fail(launch, &err);

  /* Order matters. Without no-new-privileges, loading a filter needs
   * CAP_SYS_ADMIN, so it goes in before the user switch drops it. With it,
   * the user switch, then no-new-privileges, then seccomp last: nothing
   * after the filter but execve. */
  if (!launch->config->no_new_privileges) {
    if (launch->filter != NULL && seccomp_filter_load(launch->filter, &err) < 0)
      child_fail(launch, &err);
    if (capabilities_switch_user(launch->user.uid, launch->user.gid, launch->set_groups,
                                 launch->user.groups, launch->user.n_groups, launch->caps,
                                 &err) < 0 ||
        rearm_parent_death_signal(launch, &err) < 0)
      child_fail(launch, &err);
  } else {
    if (capabilities_switch_user(launch->user.uid, launch->user.gid, launch->set_groups,
                                 launch->user.groups, launch->user.n_groups, launch->caps,
                                 &err) < 0 ||
        rearm_parent_death_signal(launch, &err) < 0)
      child_fail(launch, &err);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
      oci_error_errno(&err, "run: PR_SET_NO_NEW_PRIVS");
      child_fail(launch, &err);
    }
    if (launch->filter != NULL && seccomp_filter_load(launch->filter, &err) < 0)
      child_fail(launch, &err);
  }
  child_exec(launch);
}

/* ---- waiting (parent) ---- */

static int64_t monotonic_ms(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What the parent learns from the report pipe while it waits. */
struct child_watch {
  int report_fd; /* -1 once it reached end of file */
  bool reported; /* the child failed before exec and said why */
  struct child_report report;
  const struct run_io *io;
  pid_t pid;
  int cgroup_fd;
};

/* Reads the report pipe once it is readable: a report means the child
 * failed before exec; end of file without one means execve closed it
 * (CLOEXEC) or the child died. Only a child still running has exec'd. */
static void watch_report(int pidfd, struct child_watch *watch)
{
  ssize_t n;
  siginfo_t info = {0};

  do
    n = read(watch->report_fd, &watch->report, sizeof(watch->report));
  while (n < 0 && errno == EINTR);
  if (n == (ssize_t)sizeof(watch->report)) {
    watch->report.message[sizeof(watch->report.message) - 1] = '\0';
    watch->reported = true;
    return; /* the child exits next; end of file follows */
  }
  watch->report_fd = -1;
  if (watch->reported || watch->io->on_exec == NULL)
    return;
  if (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG | WNOWAIT) < 0 || info.si_pid != 0)
    return; /* gone before anything could look at it */
  watch->io->on_exec(
      &(struct run_started){.pid = watch->pid, .pidfd = pidfd, .cgroup_fd = watch->cgroup_fd},
      watch->io->context);
}

/* Waits for pid 1 under the deadline while relaying stdio, then drains
 * what pid 1 and its namespace left in the output pipes; kills pid 1 (and
 * with it every process of its pid namespace) on expiry or on a signal to
 * ocirun. The relay never blocks on a pipe or socket, so a caller that stops
 * reading cannot hold off the deadline or a signal. */
static int wait_for_child(int pidfd, int signal_fd, double timeout_seconds,
                          struct child_watch *watch, struct stdio_relay *relay,
                          struct run_result *result, oci_error_t *err)
{
  int64_t deadline = monotonic_ms() + (int64_t)(timeout_seconds * 1000);
  siginfo_t info = {0};
  bool exited = false;

  for (;;) {
    struct pollfd fds[3 + STDIO_RELAY_MAX_POLL] = {{.fd = exited ? -1 : pidfd, .events = POLLIN},
                                                   {.fd = signal_fd, .events = POLLIN},
                                                   {.fd = watch->report_fd, .events = POLLIN}};
    size_t n_relay;
    int64_t remaining;
    int ready;

    /* pid 1 is gone, so is every process of its namespace: the pipes'
     * write ends are all closed and the output ends at end of file. */
    if (exited && !stdio_relay_output_open(relay))
      break;
    remaining = deadline - monotonic_ms();
    if (remaining <= 0) {
      result->timed_out = true;
      break;
    }
    n_relay = stdio_relay_poll_fds(relay, fds + 3);
    ready = poll(fds, 3 + n_relay, remaining > 60000 ? 60000 : (int)remaining);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready < 0)
      return oci_error_errno(err, "run: poll the container's pidfd");
    if (fds[2].revents != 0) {
      watch_report(pidfd, watch);
      continue; /* the report comes before the exit it explains */
    }
    if (fds[1].revents != 0) {
      struct signalfd_siginfo si;

      if (read(signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        result->interrupted = true;
        result->signal = (int)si.ssi_signo;
        break;
      }
    }
    if (fds[0].revents != 0) {
      exited = true;
      stdio_relay_stop_input(relay);
    }
    stdio_relay_step(relay, fds + 3, n_relay);
  }
  if ((result->timed_out || result->interrupted) &&
      pidfd_send_signal(pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
    return oci_error_errno(err, "run: kill the container's pid 1");
  while (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED) < 0) {
    if (errno != EINTR)
      return oci_error_errno(err, "run: waitid on the container's pidfd");
  }
  if (info.si_code == CLD_EXITED) {
    result->exited = true;
    result->exit_code = info.si_status;
  } else {
    if (!result->interrupted)
      result->signal = info.si_status;
    result->exit_code = 128 + info.si_status;
  }
  if (result->timed_out)
    result->exit_code = EXIT_TIMED_OUT;
  else if (result->interrupted)
    result->exit_code = 128 + result->signal;
  return 0;
}

/* ---- the run ---- */

/* What exists on the host for this run, in creation order. */
struct run_resources {
  const char *root;
  const char *name;
  bool record_written;
  bool run_dir_created;
  int mountpoint_fd; /* the run dir's rootfs/, where the scratch tmpfs goes */
  struct cgroup_slice slice;
  bool slice_created;
  /* entries of $ROOT/run that must not exist after teardown (NULL: unused) */
  const char *created_in_store[2];
  const char *created_cgroup; /* absolute; NULL when none */
};

/* Whether $ROOT/run/<entry> exists, looked up from the store's checked run
 * folder without following a symlink; true (with *err) when it cannot be
 * told. */
static bool store_run_entry_exists(const char *root, const char *entry, oci_error_t *err)
{
  cleanup_close int root_fd = oci_store_root_open(root, false, err);
  cleanup_close int run_fd =
      root_fd < 0 ? -1 : oci_store_dir_open(root_fd, root, "run", false, err);

  if (run_fd < 0)
    return true;
  if (faccessat(run_fd, entry, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
    return true;
  if (errno == ENOENT)
    return false;
  oci_error_errno(err, "look for '%s/run/%s'", root, entry);
  return true;
}

/* The first failure is the one reported; later ones are dropped. */
static void keep_first_error(oci_error_t *err, oci_error_t *one)
{
  if (*err == NULL) {
    oci_error_wrap(one, "teardown");
    *err = *one;
    *one = NULL;
  } else {
    oci_error_free(one);
  }
}

/* Removes everything, in reverse creation order, and checks it is gone.
 * Keeps going after a failure so one stuck step leaves the least behind. */
static bool teardown(struct run_resources *res, oci_error_t *err)
{
  bool ok = true;
  oci_error_t one = NULL;

  if (res->slice_created) {
    if (cgroup_slice_destroy(&res->slice, &one) < 0) {
      ok = false;
      keep_first_error(err, &one);
    }
    res->slice_created = false;
  }
  if (res->mountpoint_fd >= 0)
    close(res->mountpoint_fd);
  res->mountpoint_fd = -1;
  if (res->run_dir_created) {
    if (run_dir_remove(res->root, res->name, &one) < 0) {
      ok = false;
      keep_first_error(err, &one);
    }
    res->run_dir_created = false;
  }
  if (res->record_written) {
    if (run_state_remove(res->root, res->name, &one) < 0) {
      ok = false;
      keep_first_error(err, &one);
    }
    res->record_written = false;
  }
  /* Verified by looking, not by trusting the steps above. */
  for (size_t i = 0; i < sizeof(res->created_in_store) / sizeof(res->created_in_store[0]); i++) {
    if (res->created_in_store[i] != NULL &&
        store_run_entry_exists(res->root, res->created_in_store[i], &one)) {
      ok = false;
      if (one != NULL)
        keep_first_error(err, &one);
      else
        oci_error_set(err, 0, "teardown: '%s/run/%s' still exists", res->root,
                      res->created_in_store[i]);
    }
  }
  if (res->created_cgroup != NULL && (access(res->created_cgroup, F_OK) == 0 || errno != ENOENT)) {
    ok = false;
    oci_error_set(err, 0, "teardown: '%s' still exists", res->created_cgroup);
  }
  return ok;
}

static void launch_clear(struct launch *launch)
{
  if (launch->rootfs_fd >= 0)
    close(launch->rootfs_fd);
  launch->rootfs_fd = -1;
  mount_plan_clear(&launch->plan);
  user_clear(&launch->user);
  seccomp_filter_free(launch->filter);
  launch->filter = NULL;
  cleanup_strvp(&launch->argv);
  cleanup_strvp(&launch->envp);
}

static void print_dry_run(const struct launch *launch, const char *rootfs,
                          const char *cgroup_parent, FILE *out)
{
  const struct run_config *config = launch->config;
  cleanup_free char *profile = NULL;

  fprintf(out, "ocirun run --dry-run: nothing was created or started\n\n");
  fprintf(out, "name: %s\nhostname: %s\nrootfs (overlay lower, never written): %s\n", config->name,
          launch->hostname, rootfs);
  fprintf(out, "\nmount plan:\n");
  mount_plan_print(&launch->plan, out);
  fprintf(out, "\ncgroup:\n");
  if (config->unsafe_no_cgroup) {
    fprintf(out, "  NONE (--unsafe-no-cgroup): no memory/cpu/pids limits and no device program "
                 "are applied\n");
  } else {
    fprintf(out, "  slice: %s/%s\n", cgroup_parent, config->name);
    fprintf(out, "  memory.max: %lld\n", (long long)config->memory_bytes);
    fprintf(out, "  memory.swap (docker --memory-swap): %lld\n",
            (long long)config->memory_swap_bytes);
    fprintf(out, "  cpu.max: %lld %lld\n", (long long)config->cpu_quota_us,
            (long long)config->cpu_period_us);
    fprintf(out, "  pids.max: %lld\n", (long long)config->pids_limit);
    fprintf(out, "  (-1: max/unset; memory.swap -2: unlimited)\n");
  }
  fprintf(out, "\ndevices:\n");
  if (config->unsafe_no_cgroup || launch->rootless)
    fprintf(out, "  no device program (%s): every mount the workload can write is nodev%s\n",
            config->unsafe_no_cgroup ? "--unsafe-no-cgroup" : "rootless",
            launch->rootless ? ", and mknod of a device needs CAP_MKNOD on the host" : "");
  else
    cgroup_devices_print(out, "  ");
  fprintf(out, "\ncapabilities (bounding/permitted for uid 0): 0x%016llx\n ",
          (unsigned long long)launch->caps);
  for (int cap = 0; cap < 64; cap++) {
    if (launch->caps & ((uint64_t)1 << cap))
      fprintf(out, " %s", capability_name(cap) != NULL ? capability_name(cap) : "?");
  }
  fprintf(out, "\nno-new-privileges: %s\n", config->no_new_privileges ? "true" : "false");
  fprintf(out, "user namespace: ");
  if (launch->rootless)
    userns_map_print(&launch->map, out);
  else
    fprintf(out, "none (ocirun runs as root)\n");
  fprintf(out, "user: uid %u gid %u groups", (unsigned)launch->user.uid,
          (unsigned)launch->user.gid);
  for (size_t i = 0; i < launch->user.n_groups; i++)
    fprintf(out, " %u", (unsigned)launch->user.groups[i]);
  fprintf(out, "\nseccomp: %s\n",
          launch->filter == NULL                 ? "unconfined"
          : config->seccomp_profile_path != NULL ? config->seccomp_profile_path
                                                 : "built-in default (docker's profile)");
  if (launch->filter != NULL) {
    profile = seccomp_filter_profile_json(launch->filter);
    if (profile != NULL) {
      size_t syscalls = 0;
      for (const char *p = profile; (p = strstr(p, "\"names\"")) != NULL; p++)
        syscalls++;
      fprintf(out, "  %zu rule groups; 'ocirun seccomp-profile' prints the default in full\n",
              syscalls);
    }
  }
  fprintf(out, "workdir: %s\nargv:", launch->workdir);
  for (char **s = launch->argv; *s != NULL; s++)
    fprintf(out, " '%s'", *s);
  fprintf(out, "\nenv:\n");
  for (char **s = launch->envp; *s != NULL; s++)
    fprintf(out, "  %s\n", *s);
  fprintf(out, "timeout: %g s\n", config->timeout_seconds);
}

/* Rootless: the run's uid, gid and groups must exist in the user namespace.
 * Without a subordinate range only 0 does, and setgroups is denied, so the
 * image's supplementary groups for root are left out rather than refused. */
static int check_user_mapped(struct launch *launch, const char *user_source, oci_error_t *err)
{
  const char *hint;

  userns_map_choose(&launch->map);
  hint = launch->map.n_ranges > 1
             ? "it is outside the range from /etc/subuid and /etc/subgid"
             : "without a range for this user in /etc/subuid and /etc/subgid (and "
               "newuidmap/newgidmap from the uidmap package) only 0 is mapped";
  if (!userns_map_has_uid(&launch->map, launch->user.uid) ||
      !userns_map_has_gid(&launch->map, launch->user.gid))
    return oci_error_set(err, 0, "run: rootless: %s uid %u gid %u cannot be mapped: %s",
                         user_source, (unsigned)launch->user.uid, (unsigned)launch->user.gid, hint);
  if (!userns_map_allows_setgroups(&launch->map)) {
    launch->set_groups = false;
    launch->user.n_groups = 0;
    return 0;
  }
  for (size_t i = 0; i < launch->user.n_groups; i++) {
    if (!userns_map_has_gid(&launch->map, launch->user.groups[i]))
      return oci_error_set(err, 0, "run: rootless: %s supplementary group %u cannot be mapped: %s",
                           user_source, (unsigned)launch->user.groups[i], hint);
  }
  return 0;
}

static int prepare_launch(const struct oci_image *image, const char *rootfs,
                          const struct run_config *config, const char *state_root,
                          const char *run_dir, struct launch *launch, oci_error_t *err)
{
  const char *user_spec = config->user != NULL ? config->user : image->defaults.user;
  const char *user_source = config->user != NULL ? "--user" : "image config user";

  launch->config = config;
  launch->set_groups = true;
  /* The cache entry's rootfs, reached from the checked store root without
   * following any symlink: the overlay's lower is this fd, never a path. */
  launch->rootfs_fd = oci_image_rootfs_open(state_root, image, err);
  if (launch->rootfs_fd < 0)
    return oci_error_wrap(err, "run");
  if (user_resolve(launch->rootfs_fd, user_spec, user_source, &launch->user, err) < 0)
    return -1;
  if (launch->rootless && check_user_mapped(launch, user_source, err) < 0)
    return -1;
  pick_hostname(config, launch->hostname, sizeof(launch->hostname));
  launch->workdir = config->workdir != NULL ? config->workdir
                    : image->defaults.working_dir != NULL && image->defaults.working_dir[0] == '/'
                        ? image->defaults.working_dir
                        : "/";
  launch->caps = effective_capabilities(config);
  if (build_argv(config, image, &launch->argv, err) < 0 ||
      build_env(config, image, launch->hostname, launch->user.home, &launch->envp, err) < 0 ||
      mount_plan_build(config, rootfs, run_dir, launch->hostname, launch->rootless, &launch->plan,
                       err) < 0)
    return -1;
  launch->plan.lower_fd = launch->rootfs_fd;
  /* Built before clone: the child only loads it. Compiling the profile is
   * the costliest step of a start, so the compiled program is cached. */
  return seccomp_filter_build_cached(config, launch->caps, state_root, &launch->filter, err);
}

/* The child inherits ocirun's oom_score_adj, and a caller started by a
 * service (OOMScoreAdjust=, a daemon's -500 or -999, sshd's -1000) would
 * hand the container a score that makes it the last process the kernel
 * kills, or one it never kills: a global shortage then kills the host's
 * processes first, and under --memory the slice's OOM killer finds no
 * victim. The workload cannot lower its score (CAP_SYS_RESOURCE), so it is
 * raised to docker's 0 here, from the host's /proc, before the child is let
 * go; a score above 0 is the caller's choice and is kept. Raising needs no
 * privilege, so a failure fails the run. */
static int raise_oom_score_adj(pid_t pid, oci_error_t *err)
{
  char text[32], path[64];
  cleanup_close int self = open("/proc/self/oom_score_adj", O_RDONLY | O_CLOEXEC);
  cleanup_close int fd = -1;
  ssize_t n;

  if (self < 0 || (n = read(self, text, sizeof(text) - 1)) <= 0)
    return oci_error_errno(err, "run: read ocirun's /proc/self/oom_score_adj");
  text[n] = '\0';
  if (atoi(text) >= 0)
    return 0;
  snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)pid);
  fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || oci_write_all(fd, "0", 1) < 0)
    return oci_error_errno(err, "run: raise the container's oom_score_adj from %d to 0 (%s)",
                           atoi(text), path);
  return 0;
}

static int start_and_wait(struct launch *launch, struct run_resources *res, const struct run_io *io,
                          struct stdio_relay *relay, int signal_fd, struct run_result *result,
                          oci_error_t *err)
{
  cleanup_close int pidfd = -1;
  int go[2] = {-1, -1}, report[2] = {-1, -1};
  cleanup_close int go_write = -1, report_read = -1;
  struct clone_args args = {0};
  struct child_watch watch = {.io = io};
  long pid;

  for (int i = 0; i < 3; i++)
    launch->stdio[i] = relay->container_fd[i];
  if (pipe2(go, O_CLOEXEC) < 0)
    return oci_error_errno(err, "run: pipe");
  go_write = go[1];
  if (pipe2(report, O_CLOEXEC) < 0) {
    close(go[0]);
    return oci_error_errno(err, "run: pipe");
  }
  report_read = report[0];
  launch->go_fd = go[0];
  launch->report_fd = report[1];

  args.flags = CLONE_PIDFD | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWUTS |
               CLONE_NEWIPC | CLONE_NEWCGROUP;
  if (launch->rootless)
    args.flags |= CLONE_NEWUSER;
  args.pidfd = (uint64_t)(uintptr_t)&pidfd;
  args.exit_signal = SIGCHLD;
  if (res->slice_created && res->slice.dir_fd >= 0) {
    args.flags |= CLONE_INTO_CGROUP;
    args.cgroup = (uint64_t)res->slice.dir_fd;
  }
  pid = syscall(SYS_clone3, &args, sizeof(args));
  if (pid == 0)
    child_main(launch);
  close(go[0]);
  close(report[1]);
  /* Only the container may hold the write ends, or output never ends. */
  stdio_relay_close_container_ends(relay);
  if (pid < 0) {
    int saved = errno;
    return oci_error_set(err, saved, "run: clone3 into new namespaces%s%s",
                         res->slice_created ? " and the cgroup slice" : "",
                         launch->rootless && (saved == EPERM || saved == ENOSPC)
                             ? " (rootless: does this host allow unprivileged user namespaces? "
                               "see the sysctls kernel.unprivileged_userns_clone and "
                               "user.max_user_namespaces)"
                             : "");
  }

  /* The child waits on the go pipe while its user namespace is mapped. */
  if ((launch->rootless && userns_map_write(&launch->map, (pid_t)pid, err) < 0) ||
      raise_oom_score_adj((pid_t)pid, err) < 0) {
    pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
    waitid(P_PIDFD, (id_t)pidfd, &(siginfo_t){0}, WEXITED);
    return -1;
  }
  if (write(go_write, "g", 1) != 1) {
    int saved = errno;
    pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
    waitid(P_PIDFD, (id_t)pidfd, &(siginfo_t){0}, WEXITED);
    return oci_error_set(err, saved, "run: start the container");
  }
  watch.report_fd = report_read;
  watch.pid = (pid_t)pid;
  watch.cgroup_fd = res->slice_created ? res->slice.dir_fd : -1;
  if (wait_for_child(pidfd, signal_fd, launch->config->timeout_seconds, &watch, relay, result,
                     err) < 0) {
    pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
    waitid(P_PIDFD, (id_t)pidfd, &(siginfo_t){0}, WEXITED);
    return -1;
  }
  if (res->slice_created)
    result->oom_killed = cgroup_slice_oom_killed(&res->slice);

  /* A report still unread when pid 1 exited (it wrote, then died). */
  if (watch.report_fd >= 0 && !watch.reported) {
    int flags = fcntl(watch.report_fd, F_GETFL);
    if (flags >= 0 && fcntl(watch.report_fd, F_SETFL, flags | O_NONBLOCK) == 0)
      watch_report(pidfd, &watch);
  }
  if (watch.reported) {
    if (watch.report.kind == CHILD_EXEC_FAILED) {
      result->exit_code =
          watch.report.errno_value == ENOENT ? EXIT_COMMAND_NOT_FOUND : EXIT_CANNOT_EXECUTE;
      return oci_error_set(err, 0, "run: %s", watch.report.message);
    }
    result->exit_code = EXIT_RUNTIME_ERROR;
    return oci_error_set(err, 0, "run: in the container, before exec: %s", watch.report.message);
  }
  return 0;
}

int runtime_run(struct oci_store *store, const struct oci_image *image, const char *rootfs,
                const struct run_config *config, const struct run_io *io, struct run_result *result,
                oci_error_t *err)
{
  /* Rootless is decided once, here: by who runs ocirun. */
  struct launch launch = {.rootless = geteuid() != 0, .rootfs_fd = -1};
  struct run_resources res = {.root = oci_store_root(store),
                              .name = config->name,
                              .mountpoint_fd = -1,
                              .slice = {.dir_fd = -1}};
  cleanup_free char *cgroup_parent = NULL;
  cleanup_free char *run_dir = NULL;
  cleanup_free char *cgroup_path = NULL;
  cleanup_free char *record_file = NULL;
  cleanup_close int signal_fd = -1;
  bool signals_blocked = false, pipe_ignored = false, relay_open = false;
  sigset_t blocked, original_mask;
  struct sigaction ignore_pipe = {.sa_handler = SIG_IGN}, original_pipe;
  struct stdio_relay relay;
  int ret = -1;

  *result = (struct run_result){.exit_code = EXIT_RUNTIME_ERROR};
  if (cgroup_resolve_parent(config->cgroup_parent, launch.rootless, &cgroup_parent, err) < 0)
    return -1;
  if (config->unsafe_no_cgroup)
    fprintf(stderr, "WARNING: --unsafe-no-cgroup: no memory/cpu/pids limits are applied and "
                    "processes are contained by the pid namespace only; no device cgroup either: "
                    "devices are kept out by nodev on every mount the container can write\n");
  if (asprintf(&run_dir, "%s/run/%s", res.root, config->name) < 0 ||
      asprintf(&cgroup_path, "%s/%s", cgroup_parent, config->name) < 0) {
    run_dir = cgroup_path = NULL;
    return oci_error_errno(err, "run: allocate");
  }
  if (prepare_launch(image, rootfs, config, res.root, run_dir, &launch, err) < 0)
    goto out;
  if (config->dry_run) {
    print_dry_run(&launch, rootfs, cgroup_parent, stdout);
    *result = (struct run_result){.exit_code = 0, .exited = true, .teardown_verified = true};
    ret = 0;
    goto out;
  }
  if (!config->unsafe_no_cgroup && cgroup_check_host(cgroup_parent, err) < 0)
    goto out;

  /* From the first thing created until the last removed, the signals that
   * end a process by default and that a user or a terminal sends (INT,
   * TERM, HUP, QUIT) are events on a signalfd, never a death that skips
   * teardown; a caller that went away (SIGPIPE) is an error on a write of
   * the relay. The child resets all of it before exec. */
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGINT);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGHUP);
  sigaddset(&blocked, SIGQUIT);
  if (sigprocmask(SIG_BLOCK, &blocked, &original_mask) < 0) {
    oci_error_errno(err, "run: block SIGINT/SIGTERM/SIGHUP/SIGQUIT");
    goto out;
  }
  signals_blocked = true;
  if (sigaction(SIGPIPE, &ignore_pipe, &original_pipe) < 0) {
    oci_error_errno(err, "run: ignore SIGPIPE");
    goto out;
  }
  pipe_ignored = true;
  signal_fd = signalfd(-1, &blocked, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd < 0) {
    oci_error_errno(err, "run: signalfd for SIGINT/SIGTERM/SIGHUP/SIGQUIT");
    goto out;
  }
  if (stdio_relay_open(&relay, (const int[3]){io->stdin_fd, io->stdout_fd, io->stderr_fd}, err) <
      0) {
    stdio_relay_clear(&relay);
    goto out;
  }
  relay_open = true;

  /* The record first: from here on a crash leaves something sweep can find. */
  struct run_record record = {.name = config->name,
                              .cgroup_path = config->unsafe_no_cgroup ? NULL : cgroup_path,
                              .run_dir = run_dir};
  if (asprintf(&record_file, "%s.json", config->name) < 0) {
    record_file = NULL;
    oci_error_errno(err, "run: allocate");
    goto out;
  }
  res.created_in_store[0] = record_file;
  res.created_in_store[1] = config->name;
  res.created_cgroup = config->unsafe_no_cgroup ? NULL : cgroup_path;
  if (run_state_write(res.root, &record, err) < 0)
    goto out;
  res.record_written = true;
  if (run_dir_create(res.root, config->name, &res.mountpoint_fd, err) < 0)
    goto teardown;
  res.run_dir_created = true;
  /* The scratch goes onto the directory just created, which this fd holds
   * (so its inode stays that directory's) until teardown. */
  {
    struct stat mountpoint;
    if (fstat(res.mountpoint_fd, &mountpoint) < 0) {
      oci_error_errno(err, "run: stat the run dir's mount point");
      goto teardown;
    }
    launch.plan.mountpoint_dev = mountpoint.st_dev;
    launch.plan.mountpoint_ino = mountpoint.st_ino;
  }
  if (!config->unsafe_no_cgroup) {
    if (cgroup_slice_create(cgroup_parent, config->name, launch.rootless, config, &res.slice, err) <
        0)
      goto teardown;
    res.slice_created = true;
  }
  ret = start_and_wait(&launch, &res, io, &relay, signal_fd, result, err);

teardown:
  result->teardown_verified = teardown(&res, err);
  if (!result->teardown_verified)
    ret = -1;
out:
  /* A signal still pending now acts after teardown, as the user meant. */
  if (relay_open)
    stdio_relay_clear(&relay);
  if (pipe_ignored)
    sigaction(SIGPIPE, &original_pipe, NULL);
  if (signals_blocked)
    sigprocmask(SIG_SETMASK, &original_mask, NULL);
  launch_clear(&launch);
  return ret;
}
