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
#include <grp.h>
#include <linux/capability.h>
#include <linux/keyctl.h>
#include <linux/magic.h>
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
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "runtime/capabilities.h"
#include "runtime/clean_state.h"
#include "runtime/cgroup.h"
#include "runtime/console.h"
#include "runtime/cgroup_devices.h"
#include "runtime/exec_stub.h"
#include "runtime/exec_stub/protocol.h"
#include "runtime/container.h"
#include "runtime/exit_codes.h"
#include "runtime/hooks.h"
#include "runtime/in_root.h"
#include "runtime/mount_plan.h"
#include "runtime/network.h"
#include "oci/cleanup.h"
#include "oci/io.h"
#include "runtime/state/run_dir.h"
#include "runtime/state/run_state.h"
#include "runtime/process_stat.h"
#include "runtime/seccomp_filter.h"
#include "runtime/stdio_relay.h"
#include "runtime/sysctl.h"
#include "runtime/userns.h"
#include "runtime/writable_layer.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define EXIT_TIMED_OUT 124

/* What the child tells the parent: it failed before execve, or (create)
 * its mounts are made and it waits while the parent runs the prestart and
 * createRuntime hooks (a byte on the go pipe lets it on), or it is ready
 * and waits for `start`. */
enum child_failure {
  CHILD_SETUP_FAILED = 1,
  CHILD_EXEC_FAILED = 2,
  CHILD_READY = 3,
  CHILD_HOOKS = 4
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
  int console_fd;             /* process.terminal: where the pty's master is sent; -1 */
  int status_fd;              /* init: where it reports the workload's status; -1 */
  dev_t host_devpts;          /* ocirun's own devpts: never the container's pty */
  int command_fd;             /* child: process.args[0], found before the seccomp filter */
  char *command_path;         /* child: the name it was found by */
};

static const unsigned long namespace_clone_flag[SPEC_NS_COUNT] = {
    [SPEC_NS_PID] = CLONE_NEWPID,       [SPEC_NS_NETWORK] = CLONE_NEWNET,
    [SPEC_NS_MOUNT] = CLONE_NEWNS,      [SPEC_NS_IPC] = CLONE_NEWIPC,
    [SPEC_NS_UTS] = CLONE_NEWUTS,       [SPEC_NS_USER] = CLONE_NEWUSER,
    [SPEC_NS_CGROUP] = CLONE_NEWCGROUP, [SPEC_NS_TIME] = CLONE_NEWTIME,
};

/* ---- preparation (parent) ---- */

/* New namespaces become clone3 flags; a path is opened now (a namespace
 * file, checked by its filesystem) and joined by the child, but a pid
 * namespace by the parent just around clone3, since only children enter
 * one. ocirun needs its own mount namespace: without one its mounts would
 * be the host's. */
static int prepare_namespaces(struct launch *launch, oci_error_t *err)
{
  const struct spec *spec = launch->spec;

  for (int ns = 0; ns < SPEC_NS_COUNT; ns++) {
    const struct spec_namespace *entry = &spec->namespaces[ns];
    struct statfs fs;

    launch->join_fd[ns] = -1;
    if (!entry->present)
      continue;
    if (entry->path == NULL) {
      launch->clone_flags |= namespace_clone_flag[ns];
      continue;
    }
    launch->join_fd[ns] = open(entry->path, O_RDONLY | O_CLOEXEC);
    if (launch->join_fd[ns] < 0)
      return oci_error_errno(err, "linux.namespaces: open the %s namespace '%s'",
                             spec_namespace_name(ns), entry->path);
    if (fstatfs(launch->join_fd[ns], &fs) < 0 || fs.f_type != NSFS_MAGIC)
      return oci_error_set(err, 0, "linux.namespaces: '%s' is not a namespace file", entry->path);
  }
  if (!spec->namespaces[SPEC_NS_MOUNT].present || spec->namespaces[SPEC_NS_MOUNT].path != NULL)
    return oci_error_set(err, 0,
                         "linux.namespaces: ocirun needs a new mount namespace (a 'mount' entry "
                         "without a path)");
  launch->new_user_ns = (launch->clone_flags & CLONE_NEWUSER) != 0;
  if (launch->options->rootless && !launch->new_user_ns &&
      spec->namespaces[SPEC_NS_USER].path == NULL)
    return oci_error_set(err, 0,
                         "linux.namespaces: without privilege ocirun needs a user namespace");
  return 0;
}

/* The user namespace's maps, and the process's ids must exist in them.
 * Without setgroups (an unprivileged caller's own ids only) the
 * additional groups are left out rather than refused: the kernel would
 * keep the caller's anyway. */
static int prepare_user(struct launch *launch, oci_error_t *err)
{
  const struct spec *spec = launch->spec;
  const struct spec_process *process = &spec->process;
  struct id_range uid[USERNS_MAX_RANGES], gid[USERNS_MAX_RANGES];

  launch->set_groups = true;
  launch->groups = process->additional_gids;
  launch->n_groups = process->n_additional_gids;
  if (!launch->new_user_ns)
    return 0;
  if (spec->n_uid_mappings > USERNS_MAX_RANGES || spec->n_gid_mappings > USERNS_MAX_RANGES)
    return oci_error_set(err, 0, "linux.uidMappings: more than %d entries", USERNS_MAX_RANGES);
  for (size_t i = 0; i < spec->n_uid_mappings; i++)
    uid[i] = (struct id_range){spec->uid_mappings[i].container_id, spec->uid_mappings[i].host_id,
                               spec->uid_mappings[i].size};
  for (size_t i = 0; i < spec->n_gid_mappings; i++)
    gid[i] = (struct id_range){spec->gid_mappings[i].container_id, spec->gid_mappings[i].host_id,
                               spec->gid_mappings[i].size};
  if (userns_map_from_ranges(uid, spec->n_uid_mappings, gid, spec->n_gid_mappings,
                             launch->options->rootless, &launch->map, err) < 0)
    return oci_error_wrap(err, "linux.uidMappings/gidMappings");
  if (!userns_map_has_uid(&launch->map, process->uid) ||
      !userns_map_has_gid(&launch->map, process->gid))
    return oci_error_set(err, 0,
                         "process.user: uid %u gid %u is not mapped by linux.uidMappings and "
                         "linux.gidMappings",
                         (unsigned)process->uid, (unsigned)process->gid);
  if (!userns_map_allows_setgroups(&launch->map)) {
    launch->set_groups = false;
    launch->n_groups = 0;
    return 0;
  }
  for (size_t i = 0; i < launch->n_groups; i++) {
    if (!userns_map_has_gid(&launch->map, launch->groups[i]))
      return oci_error_set(err, 0,
                           "process.user.additionalGids: group %u is not mapped by "
                           "linux.gidMappings",
                           (unsigned)launch->groups[i]);
  }
  return 0;
}

/* The root tree as an fd: ocirun run's cached rootfs (its front end opened
 * it from the checked store), or root.path of the bundle, opened from the
 * bundle's directory. The bundle is the caller's (it wrote config.json);
 * what is inside the root is not, and is resolved inside it later. */
static int prepare_root(struct launch *launch, oci_error_t *err)
{
  const struct runtime_options *options = launch->options;
  cleanup_close int bundle_fd = -1;

  launch->root = options->root;
  if (options->root.root_fd >= 0) {
    launch->root_fd = options->root.root_fd;
    return 0;
  }
  if (options->bundle == NULL)
    return oci_error_set(err, 0, "run: no root tree and no bundle");
  if (launch->spec->root_path[0] == '/') {
    launch->root_fd = open(launch->spec->root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  } else {
    bundle_fd = open(options->bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (bundle_fd < 0)
      return oci_error_errno(err, "open the bundle '%s'", options->bundle);
    launch->root_fd = openat(bundle_fd, launch->spec->root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  if (launch->root_fd < 0)
    return oci_error_errno(err, "root.path: open '%s' (bundle '%s')", launch->spec->root_path,
                           options->bundle);
  launch->root_fd_owned = true;
  launch->root.root_fd = launch->root_fd;
  if (launch->root.root_path == NULL)
    launch->root.root_path = launch->spec->root_path;
  return 0;
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
static int apply_rlimits(const struct spec_process *process, oci_error_t *err)
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
static int join_new_session_keyring(oci_error_t *err)
{
  if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 && errno != ENOSYS)
    return oci_error_errno(err, "run: join a new session keyring (keyctl)");
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

/* Opens path O_PATH inside the root without a /proc magic link (/proc/self/exe
 * would be ocirun's own binary, /proc/self/fd/N whatever that fd is); returns
 * the fd if it is an executable regular file, else -1 with errno set (EACCES
 * for a file execve would refuse, so that a PATH search may go on, as
 * exec.LookPath does for docker). */
static int open_command(int root_fd, const char *path)
{
  struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS};
  struct stat st;
  int fd;

  if (path[0] == '/')
    how.resolve |= RESOLVE_IN_ROOT;
  fd = (int)syscall(SYS_openat2, path[0] == '/' ? root_fd : AT_FDCWD, path, &how, sizeof(how));
  if (fd < 0)
    return -1;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0)
    return fd;
  close(fd);
  errno = EACCES;
  return -1;
}

/* The filesystem ids the lookup's permission checks use; setfsuid and
 * setfsgid return the previous id and never fail loudly: ask again. */
static int set_fs_ids(uid_t uid, gid_t gid, oci_error_t *err)
{
  setfsgid(gid);
  setfsuid(uid);
  if ((gid_t)setfsgid((gid_t)-1) != gid || (uid_t)setfsuid((uid_t)-1) != uid)
    return oci_error_set(err, EPERM, "run: take the filesystem ids %u:%u for the command lookup",
                         (unsigned)uid, (unsigned)gid);
  return 0;
}

/* The exec is by fd, and execveat(fd) checks only the file's own execute
 * bit, never search permission on the directories that led to it: the
 * lookup checks them as the user would, or a uid-1000 workload (or a root
 * one without CAP_DAC_*) ran a program kept in a directory it may not
 * search (a setuid one too). So: the user's fsuid, fsgid and groups (set
 * now, as capabilities_switch_user sets them anyway; a user namespace that
 * denies setgroups keeps the caller's, then and now) and the effective
 * capabilities the user will hold; *runtime_effective gets the runtime's. */
static int lookup_as_user(const struct launch *launch, uint64_t *runtime_effective,
                          oci_error_t *err)
{
  const struct spec_process *process = &launch->spec->process;

  if (launch->set_groups && setgroups(launch->n_groups, launch->groups) < 0)
    return oci_error_errno(err, "run: set the user's groups for the command lookup");
  if (set_fs_ids(process->uid, process->gid, err) < 0)
    return -1;
  return capabilities_set_effective(launch->caps.effective, runtime_effective, err);
}

/* Back to the runtime's credentials after the lookup: the effective set
 * lookup_as_user replaced (setfsuid had already dropped the DAC ones from
 * it), then fsuid 0, which raises those again. */
static int lookup_done(uint64_t runtime_effective, oci_error_t *err)
{
  if (capabilities_set_effective(runtime_effective, NULL, err) < 0)
    return -1;
  return set_fs_ids(geteuid(), getegid(), err);
}

/* child_find_command's search proper; reports and exits on failure. */
static void child_lookup_command(struct launch *launch)
{
  const char *command = launch->spec->process.args[0];
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
    launch->command_fd = open_command(root_fd, command);
    if (launch->command_fd >= 0 && (launch->command_path = strdup(command)) != NULL)
      return;
    last_errno = errno;
  } else {
    for (char *const *s = launch->envp; *s != NULL; s++) {
      if (strncmp(*s, "PATH=", 5) == 0)
        path = *s + 5;
    }
    for (const char *dir = path;; dir++) {
      size_t len = strcspn(dir, ":");
      char candidate[4096];

      if (snprintf(candidate, sizeof(candidate), "%.*s%s%s", (int)len, len > 0 ? dir : ".", "/",
                   command) < (int)sizeof(candidate)) {
        launch->command_fd = open_command(root_fd, candidate);
        if (launch->command_fd >= 0 && (launch->command_path = strdup(candidate)) != NULL)
          return;
        if (launch->command_fd >= 0) {
          last_errno = ENOMEM;
          break;
        }
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

/* execvp's search, with the container's PATH, after pivot_root and BEFORE
 * the seccomp filter: the lookup is the runtime's work, not the workload's,
 * and a profile that does not allow openat2 (runtime-tools' default,
 * Docker's before 2020) would otherwise fail every command. It runs with
 * the user's filesystem ids, groups and effective capabilities
 * (lookup_as_user); the kernel checks the file's execute permission,
 * as the user, at the exec. Reports and exits on failure; on success
 * launch->command_fd and command_path are the command. */
static void child_find_command(struct launch *launch)
{
  const struct spec_process *process = &launch->spec->process;
  uint64_t runtime_effective = 0;
  oci_error_t err = NULL;

  /* (uid_t)-1 is not an id: child_confine refuses it, naming it */
  if (process->uid == (uid_t)-1 || process->gid == (gid_t)-1) {
    child_lookup_command(launch);
    return;
  }
  if (lookup_as_user(launch, &runtime_effective, &err) < 0)
    child_fail(launch, &err);
  child_lookup_command(launch);
  if (lookup_done(runtime_effective, &err) < 0)
    child_fail(launch, &err);
}

/* Execs the command child_find_command found, through the sealed exec stub;
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
 * that works (child_find_command has found the command before it). Without
 * no-new-privileges, loading a filter needs CAP_SYS_ADMIN, so it goes in before the user switch
 * drops it. With it, the user switch, then no-new-privileges, then seccomp last: nothing after the
 * filter but execve. */
static int child_confine(struct launch *launch, oci_error_t *err)
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

static _Noreturn void child_main(struct launch *launch)
{
  const struct spec *spec = launch->spec;
  struct mount_plan_pause pause = {.before_pivot = child_before_pivot, .context = launch};
  oci_error_t err = NULL;
  int start_fd = -1;
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
      enter_workdir(spec->process.cwd, spec->root_readonly, &err) < 0)
    child_fail(launch, &err);
  /* A command that is not there fails create, not start (as runc's create
   * does): the caller learns it while it still reads this process's report. */
  child_find_command(launch);
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
  bool init;                    /* pid is ocirun's init: the workload is its child */
  struct writable_layer *layer; /* measured while pid 1 lives */
};

/* The workload under ocirun's init: the init's one child (it forks
 * nothing else), read from the host's /proc, with a pidfd taken before its
 * parent is checked (so it is that process); -1 when it cannot be told
 * (already gone, or no children file): the observer then looks at the
 * init, whose credentials, capabilities, filter and slice are the
 * workload's. */
static pid_t init_workload(pid_t init, int *pidfd)
{
  char path[64], text[64];
  cleanup_close int fd = -1, child_fd = -1;
  struct process_stat stat;
  oci_error_t ignored = NULL;
  ssize_t n;
  long pid;

  *pidfd = -1;
  snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)init, (int)init);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || (n = read(fd, text, sizeof(text) - 1)) <= 0)
    return -1;
  text[n] = '\0';
  pid = strtol(text, NULL, 10);
  if (pid <= 0 || (child_fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0)) < 0)
    return -1;
  if (process_stat_read((int)pid, &stat, &ignored) < 0 || stat.parent != init) {
    oci_error_free(&ignored);
    return -1;
  }
  *pidfd = steal_fd(&child_fd);
  return (pid_t)pid;
}

/* The init's report, read once it has exited: the workload's own status
 * (an exit code, or the signal that killed it), or why the init failed.
 * Nothing when the init itself was killed (the deadline, a signal to
 * ocirun): result keeps what waitid said. */
static int init_outcome(int status_fd, struct run_result *result, oci_error_t *err)
{
  static const char *const steps[] = {
      [INIT_STEP_ARGUMENTS] = "read its arguments",
      [INIT_STEP_DUMPABLE] = "make itself non-dumpable",
      [INIT_STEP_GATE] = "let the workload go",
      [INIT_STEP_WAIT] = "wait for signals",
  };
  struct init_report report;
  int flags = fcntl(status_fd, F_GETFL);
  ssize_t n;

  if (flags < 0 || fcntl(status_fd, F_SETFL, flags | O_NONBLOCK) < 0)
    return oci_error_errno(err, "run: the init's status pipe");
  do
    n = read(status_fd, &report, sizeof(report));
  while (n < 0 && errno == EINTR);
  if (n != (ssize_t)sizeof(report) || result->timed_out || result->interrupted)
    return 0;
  switch (report.kind) {
  case INIT_REPORT_EXITED:
    result->exited = true;
    result->signal = 0;
    result->exit_code = report.value;
    return 0;
  case INIT_REPORT_SIGNALED:
    result->exited = false;
    result->signal = report.value;
    result->exit_code = 128 + report.value;
    return 0;
  default:
    result->exit_code = EXIT_RUNTIME_ERROR;
    return oci_error_set(err, report.value, "run: ocirun's init could not %s",
                         report.step > 0 && (size_t)report.step < sizeof(steps) / sizeof(steps[0])
                             ? steps[report.step]
                             : "start");
  }
}

/* Reads the report pipe once it is readable: a report means the child
 * failed before exec; end of file without one means execve closed it
 * (CLOEXEC) or the child died. Only a child still running has exec'd. */
static void watch_report(int pidfd, struct child_watch *watch)
{
  ssize_t n;
  siginfo_t info = {0};
  cleanup_close int workload_pidfd = -1;
  pid_t workload;

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
  workload = watch->init ? init_workload(watch->pid, &workload_pidfd) : -1;
  watch->io->on_exec(&(struct run_started){.pid = watch->pid,
                                           .pidfd = pidfd,
                                           .workload_pid = workload > 0 ? workload : watch->pid,
                                           .workload_pidfd = workload > 0 ? workload_pidfd : pidfd,
                                           .cgroup_fd = watch->cgroup_fd},
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
  /* no --timeout (0): no deadline */
  int64_t deadline =
      timeout_seconds > 0 ? monotonic_ms() + (int64_t)(timeout_seconds * 1000) : INT64_MAX;
  siginfo_t info = {0};
  bool exited = false;
  int64_t next_check = INT64_MAX;

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
    if (!exited) {
      int64_t now = monotonic_ms();
      int over = writable_layer_check(watch->layer, pidfd, now, &next_check, err);

      if (over < 0)
        return oci_error_wrap(err, "run: the writable layer could not be measured: killed");
      if (over > 0) {
        result->layer_exceeded = true;
        result->layer_bytes = watch->layer->bytes;
        result->layer_bound = watch->layer->bound;
        break;
      }
      if (next_check - now < remaining)
        remaining = next_check > now ? next_check - now : 0;
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

      if (read(signal_fd, &si, sizeof(si)) != (ssize_t)sizeof(si)) {
        /* nothing read */
      } else if (si.ssi_signo == SIGWINCH) { /* -t: the caller's terminal resized */
        stdio_relay_resize(relay);
      } else {
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
  if ((result->timed_out || result->interrupted || result->layer_exceeded) &&
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
  struct state_root *state;
  const char *name;
  bool record_written;
  bool run_dir_created;
  struct writable_layer layer; /* the run dir's rootfs/ and upper/, held */
  struct cgroup_slice slice;
  bool slice_created;
  /* entries of $ROOT/run that must not exist after teardown (NULL: unused) */
  const char *created_in_store[2];
  const char *created_cgroup; /* absolute; NULL when none */
};

/* Whether $ROOT/run/<entry> exists, looked up from the store's checked run
 * folder without following a symlink; true (with *err) when it cannot be
 * told, or when $ROOT/run no longer leads to that folder. */
static bool store_run_entry_exists(const struct state_root *state, const char *entry,
                                   oci_error_t *err)
{
  int run_fd = state_root_folder(state, STATE_RUN, err);

  /* the path must still lead to the folder the run worked in */
  if (run_fd < 0 || state_root_check_folder(state, STATE_RUN, err) < 0)
    return true;
  if (faccessat(run_fd, entry, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
    return true;
  if (errno == ENOENT)
    return false;
  oci_error_errno(err, "look for '%s/run/%s'", state->path, entry);
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
  writable_layer_close(&res->layer);
  if (res->run_dir_created) {
    if (run_dir_remove(res->state, res->name, &one) < 0) {
      ok = false;
      keep_first_error(err, &one);
    }
    res->run_dir_created = false;
  }
  if (res->record_written) {
    if (run_state_remove(res->state, res->name, &one) < 0) {
      ok = false;
      keep_first_error(err, &one);
    }
    res->record_written = false;
  }
  /* Verified by looking, not by trusting the steps above. */
  for (size_t i = 0; i < sizeof(res->created_in_store) / sizeof(res->created_in_store[0]); i++) {
    if (res->created_in_store[i] != NULL &&
        store_run_entry_exists(res->state, res->created_in_store[i], &one)) {
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
  if (launch->root_fd_owned && launch->root_fd >= 0)
    close(launch->root_fd);
  launch->root_fd = -1;
  for (int ns = 0; ns < SPEC_NS_COUNT; ns++) {
    if (launch->join_fd[ns] >= 0)
      close(launch->join_fd[ns]);
    launch->join_fd[ns] = -1;
  }
  if (launch->exec_fifo_fd >= 0)
    close(launch->exec_fifo_fd);
  launch->exec_fifo_fd = -1;
  if (launch->console_fd >= 0)
    close(launch->console_fd);
  launch->console_fd = -1;
  mount_plan_clear(&launch->plan);
  seccomp_filter_free(launch->filter);
  launch->filter = NULL;
}

static void print_capabilities(const char *set, uint64_t mask, FILE *out)
{
  fprintf(out, "  %-12s", set);
  if (mask == 0)
    fprintf(out, " none");
  for (int cap = 0; cap < 64; cap++) {
    if ((mask & (UINT64_C(1) << cap)) != 0 && capability_name(cap) != NULL)
      fprintf(out, " %s", capability_name(cap));
  }
  fprintf(out, "\n");
}

/* The plan, as the child and the parent will carry it out. */
static void print_plan(const struct launch *launch, const char *slice_path,
                       const struct cgroup_limits *limits, const struct spec_device_rule *rules,
                       size_t n_rules, FILE *out)
{
  const struct spec *spec = launch->spec;
  const struct spec_process *process = &spec->process;
  cleanup_free char *profile = NULL;

  fprintf(out, "plan of '%s': nothing was created or started\n\n", launch->options->id);
  fprintf(out, "namespaces:");
  for (int ns = 0; ns < SPEC_NS_COUNT; ns++) {
    if (spec->namespaces[ns].present)
      fprintf(out, " %s%s%s", spec_namespace_name(ns), spec->namespaces[ns].path ? "=" : "",
              spec->namespaces[ns].path ? spec->namespaces[ns].path : "");
  }
  fprintf(out, "\nhostname: %s\n", spec->hostname != NULL ? spec->hostname : "(unchanged)");
  if (launch->new_user_ns) {
    fprintf(out, "user namespace: ");
    userns_map_print(&launch->map, out);
  }
  fprintf(out, "\nmount plan (root: %s):\n", launch->root.root_path);
  mount_plan_print(&launch->plan, out);
  fprintf(out, "\ncgroup:\n");
  if (slice_path == NULL) {
    fprintf(out, "  NONE (--unsafe-no-cgroup): no limits and no device program are applied\n");
  } else {
    fprintf(out, "  slice: %s\n", slice_path);
    cgroup_limits_print(limits, out, "  ");
  }
  fprintf(out, "\ndevices:\n");
  if (slice_path == NULL || launch->options->rootless)
    fprintf(out, "  no device program (%s): every mount the workload can write is nodev%s\n",
            slice_path == NULL ? "--unsafe-no-cgroup" : "rootless",
            launch->options->rootless ? ", and mknod of a device needs CAP_MKNOD on the host" : "");
  else
    cgroup_devices_print(rules, n_rules, out, "  ");
  fprintf(out, "\ncapabilities:\n");
  print_capabilities("bounding", launch->caps.bounding, out);
  print_capabilities("effective", launch->caps.effective, out);
  print_capabilities("permitted", launch->caps.permitted, out);
  print_capabilities("inheritable", launch->caps.inheritable, out);
  print_capabilities("ambient", launch->caps.ambient, out);
  fprintf(out, "no-new-privileges: %s\n", process->no_new_privileges ? "yes" : "no");
  fprintf(out, "user: uid %u gid %u groups", (unsigned)process->uid, (unsigned)process->gid);
  for (size_t i = 0; i < launch->n_groups; i++)
    fprintf(out, " %u", (unsigned)launch->groups[i]);
  fprintf(out, "\nrlimits:");
  for (size_t i = 0; i < process->n_rlimits; i++)
    fprintf(out, " %d=%llu/%llu", process->rlimits[i].resource,
            (unsigned long long)process->rlimits[i].soft,
            (unsigned long long)process->rlimits[i].hard);
  fprintf(out, "%s\nsysctl:", process->n_rlimits == 0 ? " (inherited)" : "");
  for (size_t i = 0; i < spec->n_sysctl; i++)
    fprintf(out, " %s=%s", spec->sysctl[i].key, spec->sysctl[i].value);
  fprintf(out, "\nseccomp: %s\n",
          launch->filter == NULL                    ? "unconfined"
          : launch->options->seccomp_origin != NULL ? launch->options->seccomp_origin
                                                    : "linux.seccomp");
  if (launch->filter != NULL) {
    profile = seccomp_filter_profile_json(launch->filter);
    if (profile != NULL) {
      size_t groups = 0;
      for (const char *p = profile; (p = strstr(p, "\"names\"")) != NULL; p++)
        groups++;
      fprintf(out, "  %zu rule groups, compiled for this host\n", groups);
    }
  }
  fprintf(out, "workdir: %s\nargv:", process->cwd);
  for (char **a = process->args; *a != NULL; a++)
    fprintf(out, " '%s'", *a);
  fprintf(out, "\nenv:\n");
  for (char *const *e = launch->envp; *e != NULL; e++)
    fprintf(out, "  %s\n", *e);
  if (launch->supervised && launch->options->timeout_seconds > 0)
    fprintf(out, "timeout: %g s\n", launch->options->timeout_seconds);
}

/* Everything the child needs, from the spec: nothing is decided later. */
static int prepare_launch(struct launch *launch, oci_error_t *err)
{
  static char *const no_env[] = {NULL};
  const struct spec *spec = launch->spec;
  const struct spec_process *process = &spec->process;

  if (!spec->has_process)
    return oci_error_set(err, 0, "config.json has no 'process': nothing to run");
  launch->envp = process->env != NULL ? process->env : no_env;
  launch->caps = (struct capability_sets){.bounding = process->cap_bounding,
                                          .effective = process->cap_effective,
                                          .permitted = process->cap_permitted,
                                          .inheritable = process->cap_inheritable,
                                          .ambient = process->cap_ambient};
  /* run relays the terminal itself; create sends it to the caller */
  if (process->terminal && !launch->supervised && launch->options->console_socket == NULL)
    return oci_error_set(err, 0,
                         "process.terminal: a terminal needs a console socket (ocirun create "
                         "--console-socket)");
  if (!process->terminal && launch->options->console_socket != NULL)
    return oci_error_set(err, 0, "--console-socket given but process.terminal is not true");
  if (prepare_namespaces(launch, err) < 0 || prepare_user(launch, err) < 0 ||
      sysctl_check(spec, err) < 0 || prepare_root(launch, err) < 0 ||
      mount_plan_build(spec, &launch->root, launch->new_user_ns, &launch->plan, err) < 0)
    return -1;
  launch->plan.lower_fd = launch->root_fd;
  for (size_t i = 0; launch->options->mount_names != NULL && i < launch->plan.n_ops; i++) {
    struct mount_op *op = &launch->plan.ops[i];
    const char *name = op->mount_index >= 0 && (size_t)op->mount_index < spec->n_mounts
                           ? launch->options->mount_names[op->mount_index]
                           : NULL;

    if (name == NULL)
      continue;
    free(op->what);
    op->what = strdup(name);
    if (op->what == NULL)
      return oci_error_errno(err, "run: allocate");
  }
  if (spec->seccomp == NULL)
    return 0;
  /* Built before clone: the child only loads it. Compiling the profile is
   * the costliest step of a start, so the compiled program is cached. */
  return seccomp_filter_build_oci(spec->seccomp, process->cap_effective,
                                  launch->options->state_root, &launch->filter, err);
}

/* The device rules of the slice: the configuration's, then the spec's
 * default devices, which a container always gets (runtime-spec "Default
 * Devices"): /dev/null, zero, full, random, urandom, tty, and the pty
 * multiplexer and pseudo-terminals of its devpts; last, mknod ('m' only) of
 * each node linux.devices asks for, which the child makes while already in
 * the slice (runc makes them before its rules apply: the same outcome). Who
 * may read or write such a node is still the configuration's to say. */
static int device_rules(const struct spec *spec, struct spec_device_rule **out, size_t *n,
                        oci_error_t *err)
{
  static const struct spec_device_rule defaults[] = {
      {true, 'c', 1, 3, "rwm"}, {true, 'c', 1, 5, "rwm"},    {true, 'c', 1, 7, "rwm"},
      {true, 'c', 1, 8, "rwm"}, {true, 'c', 1, 9, "rwm"},    {true, 'c', 5, 0, "rwm"},
      {true, 'c', 5, 2, "rwm"}, {true, 'c', 136, -1, "rwm"},
  };
  size_t n_defaults = sizeof(defaults) / sizeof(defaults[0]);
  size_t n_spec = spec->has_resources ? spec->resources.n_devices : 0;
  struct spec_device_rule *rules = calloc(n_spec + n_defaults + spec->n_devices, sizeof(*rules));
  size_t k = 0;

  if (rules == NULL)
    return oci_error_errno(err, "devices: allocate");
  for (size_t i = 0; i < n_spec; i++)
    rules[k++] = spec->resources.devices[i];
  for (size_t i = 0; i < n_defaults; i++)
    rules[k++] = defaults[i];
  for (size_t i = 0; i < spec->n_devices; i++) {
    const struct spec_device *d = &spec->devices[i];

    if (d->type == 'p')
      continue; /* a fifo is no device: the program never sees it */
    rules[k++] = (struct spec_device_rule){.allow = true,
                                           .type = d->type == 'b' ? 'b' : 'c',
                                           .major = d->major,
                                           .minor = d->minor,
                                           .access = "m"};
  }
  *out = rules;
  *n = k;
  return 0;
}

/* The container's process, stopped at its go pipe until the parent has
 * mapped its user namespace and set its OOM score, then let go. */
struct spawned {
  pid_t pid;
  int pidfd;
  int report_fd; /* the parent's end of the report pipe */
  int go_fd;     /* the go pipe's write end: its hang-up tells the child ocirun died */
  int status_fd; /* with an init: the read end of its status pipe; -1 */
};

static void spawned_kill(struct spawned *child)
{
  if (child->pidfd < 0)
    return;
  pidfd_send_signal(child->pidfd, SIGKILL, NULL, 0);
  waitid(P_PIDFD, (id_t)child->pidfd, &(siginfo_t){0}, WEXITED);
}

static int spawn_child(struct launch *launch, int cgroup_fd, struct spawned *child,
                       oci_error_t *err)
{
  int go[2] = {-1, -1}, report[2] = {-1, -1};
  cleanup_close int own_pid_ns = -1;
  struct clone_args args = {0};
  int pid_join = launch->join_fd[SPEC_NS_PID];
  long pid;
  int saved;

  *child = (struct spawned){.pid = -1, .pidfd = -1, .report_fd = -1, .go_fd = -1, .status_fd = -1};
  if (launch->init) {
    int status[2];

    if (pipe2(status, O_CLOEXEC) < 0)
      return oci_error_errno(err, "run: pipe");
    child->status_fd = status[0];
    launch->status_fd = status[1];
  }
  if (pipe2(go, O_CLOEXEC) < 0)
    return oci_error_errno(err, "run: pipe");
  child->go_fd = go[1];
  if (pipe2(report, O_CLOEXEC) < 0) {
    close(go[0]);
    return oci_error_errno(err, "run: pipe");
  }
  child->report_fd = report[0];
  launch->go_fd = go[0];
  launch->report_fd = report[1];

  args.flags = CLONE_PIDFD | launch->clone_flags;
  args.pidfd = (uint64_t)(uintptr_t)&child->pidfd;
  args.exit_signal = SIGCHLD;
  if (cgroup_fd >= 0) {
    args.flags |= CLONE_INTO_CGROUP;
    args.cgroup = (uint64_t)cgroup_fd;
  }
  /* A pid namespace is entered only by children: the parent steps in for
   * clone3 and straight back. */
  if (pid_join >= 0) {
    own_pid_ns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
    if (own_pid_ns < 0 || setns(pid_join, CLONE_NEWPID) < 0) {
      close(go[0]);
      close(report[1]);
      return oci_error_errno(err, "linux.namespaces: join the pid namespace '%s'",
                             launch->spec->namespaces[SPEC_NS_PID].path);
    }
  }
  pid = syscall(SYS_clone3, &args, sizeof(args));
  if (pid == 0)
    child_main(launch);
  saved = errno;
  if (own_pid_ns >= 0 && setns(own_pid_ns, CLONE_NEWPID) < 0) {
    /* ocirun's later children would land there: stop here */
    oci_error_errno(err, "linux.namespaces: return to ocirun's own pid namespace");
    abort();
  }
  close(go[0]);
  close(report[1]);
  if (launch->status_fd >= 0)
    close(launch->status_fd); /* the child's: only the init may hold it */
  launch->status_fd = -1;
  if (pid < 0)
    return oci_error_set(err, saved, "run: clone3 into new namespaces%s%s",
                         cgroup_fd >= 0 ? " and the cgroup slice" : "",
                         launch->new_user_ns && (saved == EPERM || saved == ENOSPC)
                             ? " (rootless: does this host allow unprivileged user namespaces? "
                               "see the sysctls kernel.unprivileged_userns_clone and "
                               "user.max_user_namespaces)"
                             : "");
  child->pid = (pid_t)pid;
  /* The child waits on the go pipe while its user namespace is mapped. */
  if ((launch->new_user_ns && userns_map_write(&launch->map, child->pid, err) < 0) ||
      oom_score_adjust(child->pid, &launch->spec->process, err) < 0) {
    spawned_kill(child);
    return -1;
  }
  if (write(child->go_fd, "g", 1) != 1) {
    saved = errno;
    spawned_kill(child);
    return oci_error_set(err, saved, "run: start the container");
  }
  return 0;
}

/* A report the child wrote before exec: the run's outcome and message. */
static int report_failure(const struct child_report *report, struct run_result *result,
                          oci_error_t *err)
{
  if (report->kind == CHILD_EXEC_FAILED) {
    result->exit_code =
        report->errno_value == ENOENT ? EXIT_COMMAND_NOT_FOUND : EXIT_CANNOT_EXECUTE;
    return oci_error_set(err, 0, "run: %s", report->message);
  }
  result->exit_code = EXIT_RUNTIME_ERROR;
  return oci_error_set(err, 0, "run: in the container, before exec: %s", report->message);
}

/* A terminal: the pty's master, which the child sends once it has made
 * the pty (or none: it failed first, and its report says why). */
static int receive_terminal(struct launch *launch, int terminal_socket, struct stdio_relay *relay,
                            oci_error_t *err)
{
  oci_error_t ignored = NULL;
  int master;

  if (launch->console_fd >= 0)
    close(launch->console_fd); /* the child's end: only the child may hold it */
  launch->console_fd = -1;
  if (terminal_socket < 0)
    return 0;
  master = console_receive(terminal_socket, &ignored);
  if (master < 0) {
    oci_error_free(&ignored);
    return 0;
  }
  return stdio_relay_attach_terminal(relay, master, err);
}

static int start_and_wait(struct launch *launch, struct run_resources *res, const struct run_io *io,
                          struct stdio_relay *relay, int terminal_socket, int signal_fd,
                          struct run_result *result, oci_error_t *err)
{
  struct child_watch watch = {.io = io};
  struct spawned child;
  cleanup_close int report_read = -1, status_read = -1;
  int cgroup_fd = res->slice_created ? res->slice.dir_fd : -1;
  int ret;

  for (int i = 0; i < 3; i++)
    launch->stdio[i] = relay->container_fd[i];
  ret = spawn_child(launch, cgroup_fd, &child, err);
  report_read = child.report_fd;
  status_read = child.status_fd;
  /* Only the container may hold the write ends, or output never ends. */
  stdio_relay_close_container_ends(relay);
  if (ret == 0 && receive_terminal(launch, terminal_socket, relay, err) < 0) {
    spawned_kill(&child);
    ret = -1;
  }
  if (ret < 0) {
    if (child.pidfd >= 0)
      close(child.pidfd);
    if (child.go_fd >= 0)
      close(child.go_fd);
    return -1;
  }
  watch.report_fd = report_read;
  watch.pid = child.pid;
  watch.cgroup_fd = cgroup_fd;
  watch.init = launch->init;
  watch.layer = &res->layer;
  if (wait_for_child(child.pidfd, signal_fd, launch->options->timeout_seconds, &watch, relay,
                     result, err) < 0) {
    spawned_kill(&child);
    close(child.pidfd);
    close(child.go_fd);
    return -1;
  }
  if (res->slice_created)
    result->oom_killed = cgroup_slice_oom_killed(&res->slice);

  /* A report still unread when pid 1 exited (it wrote, then died). */
  if (watch.report_fd >= 0 && !watch.reported) {
    int flags = fcntl(watch.report_fd, F_GETFL);
    if (flags >= 0 && fcntl(watch.report_fd, F_SETFL, flags | O_NONBLOCK) == 0)
      watch_report(child.pidfd, &watch);
  }
  close(child.pidfd);
  close(child.go_fd);
  if (watch.reported)
    return report_failure(&watch.report, result, err);
  return launch->init ? init_outcome(status_read, result, err) : 0;
}

/* The slice a configuration asks for, its limits and device rules. */
struct slice_plan {
  char *path; /* NULL: none (--unsafe-no-cgroup) */
  struct cgroup_limits limits;
  struct spec_device_rule *rules;
  size_t n_rules;
};

static void slice_plan_clear(struct slice_plan *slice)
{
  free(slice->path);
  cgroup_limits_clear(&slice->limits);
  free(slice->rules);
  *slice = (struct slice_plan){0};
}

static int slice_plan_build(const struct spec *spec, const struct runtime_options *options,
                            struct slice_plan *slice, oci_error_t *err)
{
  static const struct spec_resources none = {.memory_limit = -1,
                                             .memory_reservation = -1,
                                             .memory_swap = -1,
                                             .cpu_quota = -1,
                                             .pids_limit = -1};

  *slice = (struct slice_plan){0};
  if (options->unsafe_no_cgroup)
    return 0;
  if (cgroup_slice_path(spec->cgroups_path, options->id, options->rootless, &slice->path, err) <
          0 ||
      cgroup_limits_build(spec->has_resources ? &spec->resources : &none, &slice->limits, err) <
          0 ||
      device_rules(spec, &slice->rules, &slice->n_rules, err) < 0) {
    slice_plan_clear(slice);
    return -1;
  }
  return 0;
}

/* The slice itself; rootless, without a device program (an unprivileged
 * caller cannot attach one; nodev on every writable mount keeps devices
 * out). */
static int slice_create(const struct slice_plan *plan, bool rootless, struct cgroup_slice *slice,
                        oci_error_t *err)
{
  return cgroup_slice_create(plan->path, rootless, &plan->limits, rootless ? NULL : plan->rules,
                             rootless ? 0 : plan->n_rules, slice, err);
}

static void launch_init(struct launch *launch, const struct spec *spec,
                        const struct runtime_options *options, bool supervised)
{
  *launch = (struct launch){.spec = spec,
                            .options = options,
                            .supervised = supervised,
                            .root_fd = -1,
                            .go_fd = -1,
                            .report_fd = -1,
                            .exec_fifo_fd = -1,
                            .console_fd = -1,
                            .status_fd = -1,
                            .host_devpts = console_host_devpts()};
  for (int ns = 0; ns < SPEC_NS_COUNT; ns++)
    launch->join_fd[ns] = -1;
}

/* Once the run's pid 1 has exec'd, its record names it, and from then on
 * `ocirun exec NAME` may join it: never earlier, since before pivot_root
 * its mount namespace still shows the host's root. A record that cannot
 * be completed ends the run (an exec would find nothing to join). The
 * caller's own on_exec follows. */
struct exec_recorder {
  const struct run_io *io;
  const struct state_root *state;
  const char *name;
  oci_error_t err;
};

static void record_started(const struct run_started *started, void *context)
{
  struct exec_recorder *recorder = context;

  if (run_state_set_container(recorder->state, recorder->name, started->pid, &recorder->err) < 0)
    pidfd_send_signal(started->pidfd, SIGKILL, NULL, 0);
  if (recorder->io->on_exec != NULL)
    recorder->io->on_exec(started, recorder->io->context);
}

int runtime_run(const struct spec *spec, const struct runtime_options *options,
                const struct run_io *io, struct run_result *result, oci_error_t *err)
{
  struct launch launch;
  struct run_resources res = {
      .root = options->state_root,
      .state = options->state,
      .name = options->id,
      .layer = {.mountpoint_fd = -1, .upper_fd = -1, .walker = -1, .walker_fd = -1},
      .slice = {.dir_fd = -1}};
  struct slice_plan slice = {0};
  cleanup_free char *run_dir = NULL;
  cleanup_free char *record_file = NULL;
  cleanup_close int signal_fd = -1, terminal_socket = -1;
  bool signals_blocked = false, pipe_ignored = false, relay_open = false;
  bool terminal = spec->has_process && spec->process.terminal;
  sigset_t blocked, original_mask;
  struct sigaction ignore_pipe = {.sa_handler = SIG_IGN}, original_pipe;
  struct stdio_relay relay;
  struct runtime_options run_options = *options;
  struct exec_recorder recorder = {.io = io, .state = options->state, .name = options->id};
  struct run_io joinable_io = *io;
  int ret = -1;

  *result = (struct run_result){.exit_code = EXIT_RUNTIME_ERROR};
  if (options->state == NULL)
    return oci_error_set(err, EINVAL, "run: no state root was opened for the run's record");
  /* Hooks belong to the OCI lifecycle (create, start, delete); a hook is
   * refused rather than skipped. */
  for (int kind = 0; kind < SPEC_HOOK_KIND_COUNT; kind++)
    if (spec->hooks[kind].n_hooks > 0)
      return oci_error_set(err, 0, "hooks.%s: ocirun run runs no hooks (ocirun create does)",
                           spec_hook_kind_name((enum spec_hook_kind)kind));
  /* The run's pid 1 is ocirun's init, which holds the run's tie to its
   * runner and reports the workload's status: CAP_SYS_PTRACE over it (of
   * the host's user namespace, or of the run's own, where the init is
   * exec'd) would let the workload trace it, clear its parent-death
   * signal and forge that status. Non-dumpable stops every other tracer.
   * Refused, not weakened. */
  if (spec->has_process && (spec->process.cap_bounding & (UINT64_C(1) << CAP_SYS_PTRACE)) != 0)
    return oci_error_set(err, 0,
                         "process.capabilities: CAP_SYS_PTRACE: the workload could trace ocirun's "
                         "init, its pid 1, and so outlive ocirun and forge the exit status it "
                         "reports; ocirun run refuses it (ocirun create, whose container has no "
                         "init, takes it)");
  /* The run dir holds the scratch of an overlay root: its path is
   * ocirun's layout, derived from the name. */
  if (asprintf(&run_dir, "%s/run/%s", res.root, options->id) < 0) {
    run_dir = NULL;
    return oci_error_errno(err, "run: allocate");
  }
  if (run_options.root.overlay)
    run_options.root.run_dir = run_dir;
  launch_init(&launch, spec, &run_options, true);
  launch.init = true;
  if (options->unsafe_no_cgroup)
    fprintf(stderr, "WARNING: --unsafe-no-cgroup: no memory/cpu/pids limits are applied and "
                    "processes are contained by the pid namespace only; no device cgroup either: "
                    "devices are kept out by nodev on every mount the container can write\n");
  if (prepare_launch(&launch, err) < 0 || slice_plan_build(spec, options, &slice, err) < 0)
    goto out;
  if (options->dry_run) {
    print_plan(&launch, slice.path, &slice.limits, slice.rules, slice.n_rules, stdout);
    *result = (struct run_result){.exit_code = 0, .exited = true, .teardown_verified = true};
    ret = 0;
    goto out;
  }

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
  if (terminal)
    sigaddset(&blocked, SIGWINCH); /* the caller's terminal resized */
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
  if ((terminal ? stdio_relay_open_terminal : stdio_relay_open)(
          &relay, (const int[3]){io->stdin_fd, io->stdout_fd, io->stderr_fd}, err) < 0) {
    stdio_relay_clear(&relay);
    goto out;
  }
  relay_open = true;
  if (terminal) {
    int pair[2];

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) {
      oci_error_errno(err, "run: socketpair for the terminal");
      goto out;
    }
    terminal_socket = pair[0];
    launch.console_fd = pair[1];
  }

  /* The record first: from here on a crash leaves something sweep can find. */
  struct run_record record = {
      .name = (char *)options->id, .cgroup_path = slice.path, .run_dir = run_dir};
  if (asprintf(&record_file, "%s.json", options->id) < 0) {
    record_file = NULL;
    oci_error_errno(err, "run: allocate");
    goto out;
  }
  res.created_in_store[0] = record_file;
  res.created_in_store[1] = options->id;
  res.created_cgroup = slice.path;
  if (run_state_write(res.state, &record, err) < 0)
    goto out;
  res.record_written = true;
  if (run_options.root.overlay) {
    res.run_dir_created =
        writable_layer_create(&res.layer, res.state, options->id, &run_options.root,
                              options->rootless, &launch.plan, err) == 0;
    if (!res.run_dir_created)
      goto teardown;
    if (options->config_json != NULL &&
        run_state_write_config(res.state, options->id, options->config_json, err) < 0)
      goto teardown;
  }
  /* pid 1 in the record, once it has exec'd: what `ocirun exec NAME`
   * joins (with the config.json above), and what `ocirun sweep` kills
   * when this runner is gone. */
  joinable_io.on_exec = record_started;
  joinable_io.context = &recorder;
  if (slice.path != NULL) {
    if (slice_create(&slice, options->rootless, &res.slice, err) < 0)
      goto teardown;
    res.slice_created = true;
  }
  ret =
      start_and_wait(&launch, &res, &joinable_io, &relay, terminal_socket, signal_fd, result, err);
  if (recorder.err != NULL) {
    oci_error_wrap(&recorder.err, "run: record the started process for exec");
    if (*err == NULL)
      *err = recorder.err;
    else
      oci_error_free(&recorder.err);
    ret = -1;
  }

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
  slice_plan_clear(&slice);
  launch_clear(&launch);
  return ret;
}

/* prestart (deprecated) then createRuntime, in the runtime's namespaces
 * (this process's), while the child waits between its mounts and
 * pivot_root; the pid in their state is the child's in ours. */
static int run_runtime_hooks(const struct launch *launch, pid_t pid, oci_error_t *err)
{
  static const enum spec_hook_kind kinds[] = {SPEC_HOOK_PRESTART, SPEC_HOOK_CREATE_RUNTIME};
  const struct spec *spec = launch->spec;
  cleanup_free char *state = container_state_json_for_spec(
      spec, launch->options->id, launch->options->bundle, pid, CONTAINER_CREATED, err);

  if (state == NULL)
    return -1;
  for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
    const struct spec_hooks *list = &spec->hooks[kinds[i]];
    if (hooks_run(list->hooks, list->n_hooks, kinds[i], spec_hook_kind_name(kinds[i]), state,
                  launch->options->hook_log, err) < 0)
      return oci_error_wrap(err, "create");
  }
  return 0;
}

/* Reads the child's reports until it is ready (it waits for `start`):
 * on the way, its call for the runtime's hooks; or why it failed. */
static int wait_until_ready(const struct launch *launch, struct spawned *child, oci_error_t *err)
{
  struct child_report report;
  struct run_result ignored;
  ssize_t n;

  for (;;) {
    do
      n = read(child->report_fd, &report, sizeof(report));
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(report))
      return oci_error_set(err, n < 0 ? errno : 0,
                           "create: the container's process died before it was ready");
    report.message[sizeof(report.message) - 1] = '\0';
    if (report.kind == CHILD_READY)
      return 0;
    if (report.kind != CHILD_HOOKS)
      return report_failure(&report, &ignored, err);
    if (run_runtime_hooks(launch, child->pid, err) < 0)
      return -1;
    if (write(child->go_fd, "h", 1) != 1)
      return oci_error_errno(err, "create: let the container's process go on after its hooks");
  }
}

/* In a new user namespace the child opens the exec fifo as the namespace's
 * root (userns_become_root), whose host ids are not the runtime's: the fifo
 * is given to them (as runc does), else the open fails and the container
 * dies before start. */
static int exec_fifo_for_userns_root(const struct launch *launch, oci_error_t *err)
{
  unsigned uid, gid;

  if (!launch->new_user_ns || !userns_map_host_uid(&launch->map, 0, &uid) ||
      !userns_map_host_gid(&launch->map, 0, &gid))
    return 0;
  if (fchownat(launch->exec_fifo_fd, "", (uid_t)uid, (gid_t)gid, AT_EMPTY_PATH) < 0)
    return oci_error_errno(err, "create: give the exec fifo to the user namespace's root");
  return 0;
}

int runtime_create(const struct spec *spec, const struct runtime_options *options,
                   const char *exec_fifo, pid_t *pid, char **cgroup_path, oci_error_t *err)
{
  struct launch launch;
  struct slice_plan slice = {0};
  struct cgroup_slice created = {.dir_fd = -1};
  bool slice_created = false;
  struct spawned child = {.pid = -1, .pidfd = -1, .report_fd = -1, .go_fd = -1, .status_fd = -1};
  cleanup_close int null_fd = -1;
  int ret = -1;

  *pid = -1;
  *cgroup_path = NULL;
  launch_init(&launch, spec, options, false);
  if (options->root.overlay)
    return oci_error_set(err, 0, "create: an overlay root is only for ocirun run");
  if (prepare_launch(&launch, err) < 0 || slice_plan_build(spec, options, &slice, err) < 0)
    goto out;
  if (options->dry_run) {
    print_plan(&launch, slice.path, &slice.limits, slice.rules, slice.n_rules, stdout);
    ret = 0;
    goto out;
  }
  launch.exec_fifo_fd = open(exec_fifo, O_PATH | O_CLOEXEC | O_NOFOLLOW);
  if (launch.exec_fifo_fd < 0) {
    oci_error_errno(err, "create: open the exec fifo '%s'", exec_fifo);
    goto out;
  }
  if (exec_fifo_for_userns_root(&launch, err) < 0)
    goto out;
  /* The caller's own 0, 1, 2 are pid 1's stdio (the OCI contract: conmon
   * and containerd's shim hand create pipes they made for it), but only
   * pipes, sockets or null devices: create returns at once, so nothing
   * could relay a terminal or a file, which the container would keep. With
   * a terminal, /dev/null until the pty replaces them. */
  if (options->console_socket != NULL) {
    null_fd = open("/dev/null", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (null_fd < 0) {
      oci_error_errno(err, "create: open /dev/null");
      goto out;
    }
  } else if (stdio_relay_check_hand_over((const int[3]){0, 1, 2}, "create", err) < 0) {
    goto out;
  }
  for (int i = 0; i < 3; i++)
    launch.stdio[i] = null_fd >= 0 ? null_fd : i;
  if (options->console_socket != NULL &&
      (launch.console_fd = console_socket_connect(options->console_socket, err)) < 0)
    goto out;
  if (slice.path != NULL) {
    if (slice_create(&slice, options->rootless, &created, err) < 0)
      goto out;
    slice_created = true;
  }
  if (spawn_child(&launch, slice_created ? created.dir_fd : -1, &child, err) < 0 ||
      wait_until_ready(&launch, &child, err) < 0) {
    spawned_kill(&child);
    goto out;
  }
  *pid = child.pid;
  if (slice.path != NULL) {
    *cgroup_path = steal_pointer(&slice.path);
  }
  ret = 0;
out:
  if (child.go_fd >= 0)
    close(child.go_fd);
  if (child.report_fd >= 0)
    close(child.report_fd);
  if (child.pidfd >= 0)
    close(child.pidfd);
  if (slice_created) {
    if (ret < 0) {
      oci_error_t one = NULL;
      if (cgroup_slice_destroy(&created, &one) < 0)
        keep_first_error(err, &one);
    } else {
      /* the slice stays for `delete`; only ocirun's handle goes */
      if (created.dir_fd >= 0)
        close(created.dir_fd);
      free(created.path);
    }
  }
  slice_plan_clear(&slice);
  launch_clear(&launch);
  return ret;
}

/* ---- exec: a second process in a live container ---- */

/* The namespaces of pid that are not ocirun's own: joining one's own user
 * namespace is an error, and the others need not be joined. */
static int namespaces_to_join(pid_t pid, int *flags, oci_error_t *err)
{
  static const struct {
    const char *name;
    int flag;
  } types[] = {{"user", CLONE_NEWUSER},     {"mnt", CLONE_NEWNS},   {"pid", CLONE_NEWPID},
               {"net", CLONE_NEWNET},       {"ipc", CLONE_NEWIPC},  {"uts", CLONE_NEWUTS},
               {"cgroup", CLONE_NEWCGROUP}, {"time", CLONE_NEWTIME}};
  char path[64];

  *flags = 0;
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
    struct stat theirs, ours;

    snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, types[i].name);
    if (stat(path, &theirs) < 0) {
      if (errno == ENOENT && strcmp(types[i].name, "time") == 0)
        continue; /* a kernel without time namespaces */
      return oci_error_errno(err, "exec: %s", path);
    }
    snprintf(path, sizeof(path), "/proc/self/ns/%s", types[i].name);
    if (stat(path, &ours) < 0)
      return oci_error_errno(err, "exec: %s", path);
    if (theirs.st_dev != ours.st_dev || theirs.st_ino != ours.st_ino)
      *flags |= types[i].flag;
  }
  return 0;
}

/* In the exec'd process, in the container's mount namespace and a session
 * of its own: its pty, from the container's devpts. */
static int exec_console(struct launch *launch, oci_error_t *err)
{
  if (console_setup(launch->console_fd, &launch->spec->process, launch->host_devpts, false, err) <
      0)
    return -1;
  close(launch->console_fd);
  launch->console_fd = -1;
  return 0;
}

/* The joiner's first step, still in ocirun's namespaces (clean_state.c):
 * its stdio (vetted by runtime_exec_start, or /dev/null until its pty
 * replaces it), nothing else of the caller's, the exec'd process's state
 * for it to inherit; its OOM score set from the host's /proc just before. */
static int exec_clean_state(struct launch *launch, int pidfd, int cgroup_fd, int pid_pipe,
                            oci_error_t *err)
{
  const int keep[] = {launch->report_fd, launch->console_fd, pidfd, cgroup_fd, pid_pipe};
  struct clean_state state;

  clean_state_init(&state, CLEAN_ENTRY_EXEC, &launch->spec->process, false);
  memcpy(state.stdio, launch->stdio, sizeof(state.stdio));
  state.keep = keep;
  state.n_keep = sizeof(keep) / sizeof(keep[0]);
  return clean_state_apply(&state, err);
}

/* Into the container's slice, by the checked directory's fd: the process
 * the stub spawns inherits it. */
static int exec_join_cgroup(int cgroup_fd, oci_error_t *err)
{
  cleanup_close int procs = -1;

  if (cgroup_fd < 0)
    return 0;
  procs = openat(cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
  if (procs < 0 || oci_write_all(procs, "0", 1) < 0)
    return oci_error_errno(err, "exec: join the container's cgroup");
  return 0;
}

/* The process that joins, forked by `ocirun exec`, never in the container's
 * pid namespace itself: its OOM score and clean state, the container's
 * cgroup, then its namespaces through pid 1's pidfd (the pid namespace only
 * for its children), its pty, rlimits, working directory and command, and
 * its confinement (user, capabilities, no-new-privileges, seccomp). Only
 * then, running the sealed stub and no more privileged than the workload,
 * it spawns the process into the container's pid namespace as a child of
 * `ocirun exec` (exec_stub_spawn), which reads its pid from pid_pipe. A
 * process of the container, even one holding CAP_SYS_PTRACE, never sees a
 * process of ocirun's binary or of the runtime's privileges there. */
static _Noreturn void exec_join(struct launch *launch, int pidfd, int ns_flags, int cgroup_fd,
                                int pid_pipe)
{
  oci_error_t err = NULL;

  if (oom_score_adjust(0, &launch->spec->process, &err) < 0 ||
      exec_clean_state(launch, pidfd, cgroup_fd, pid_pipe, &err) < 0 ||
      exec_join_cgroup(cgroup_fd, &err) < 0)
    child_fail(launch, &err);
  if (setns(pidfd, ns_flags) < 0) {
    oci_error_errno(&err, "exec: join the container's namespaces");
    child_fail(launch, &err);
  }
  close(pidfd);
  if (cgroup_fd >= 0)
    close(cgroup_fd);
  if (stdio_relay_own_null_devices(&err) < 0 || exec_stub_prepare(&err) < 0 ||
      (launch->console_fd >= 0 && exec_console(launch, &err) < 0) ||
      join_new_session_keyring(&err) < 0 || apply_rlimits(&launch->spec->process, &err) < 0 ||
      enter_workdir(launch->spec->process.cwd, true, &err) < 0)
    child_fail(launch, &err);
  child_find_command(launch);
  if (child_confine(launch, &err) < 0)
    child_fail(launch, &err);
  exec_stub_spawn(launch->command_fd, launch->command_path, launch->report_fd, pid_pipe,
                  launch->spec->process.terminal, launch->spec->process.args, launch->envp);
  {
    char message[600];
    int saved = errno;

    snprintf(message, sizeof(message), "exec '%s': %s", launch->spec->process.args[0],
             strerror(saved));
    child_report_and_exit(launch, CHILD_EXEC_FAILED, saved, message);
  }
}

int runtime_exec_start(const struct runtime_exec *exec, pid_t *exec_pid, oci_error_t *err)
{
  struct launch launch;
  struct spec joined = *exec->spec; /* shallow: the container's, with this process */
  cleanup_close int pidfd = -1, cgroup_fd = -1, null_fd = -1;
  int report[2] = {-1, -1}, pid_pipe[2] = {-1, -1};
  cleanup_close int report_read = -1, pid_read = -1;
  struct runtime_options options = {.state_root = exec->state_root, .id = "exec"};
  struct child_report failure;
  pid_t joiner;
  int ns_flags, status;
  ssize_t n;
  int ret = -1;

  *exec_pid = -1;
  joined.process = *exec->process;
  joined.has_process = true;
  launch_init(&launch, &joined, &options, false);
  launch.envp = joined.process.env;
  launch.caps = (struct capability_sets){.bounding = joined.process.cap_bounding,
                                         .effective = joined.process.cap_effective,
                                         .permitted = joined.process.cap_permitted,
                                         .inheritable = joined.process.cap_inheritable,
                                         .ambient = joined.process.cap_ambient};
  launch.groups = joined.process.additional_gids;
  launch.n_groups = joined.process.n_additional_gids;
  launch.set_groups = exec->set_groups;
  if (joined.process.terminal) {
    if (exec->console_fd < 0)
      return oci_error_set(err, 0, "exec: process.terminal: no console socket to send the pty to");
    launch.console_fd = exec->console_fd;
    /* until the pty replaces them: never the caller's descriptors */
    null_fd = open("/dev/null", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (null_fd < 0)
      return oci_error_errno(err, "exec: open /dev/null");
  } else if (stdio_relay_check_hand_over(exec->stdio, "exec", err) < 0) {
    return -1;
  }
  if (exec->pidfd >= 0)
    pidfd = fcntl(exec->pidfd, F_DUPFD_CLOEXEC, 3);
  else
    pidfd = (int)syscall(SYS_pidfd_open, exec->pid, 0);
  if (pidfd < 0)
    return oci_error_errno(err, "exec: the container's process %d", (int)exec->pid);
  if (namespaces_to_join(exec->pid, &ns_flags, err) < 0)
    return -1;
  /* Still alive after /proc/PID/ns was read: that was this process's (a
   * pid is not reused while its process lives). */
  if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
    return oci_error_errno(err, "exec: the container's process %d", (int)exec->pid);
  if (exec->cgroup_path != NULL) {
    cgroup_fd = open(exec->cgroup_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cgroup_fd < 0)
      return oci_error_errno(err, "exec: the container's cgroup '%s'", exec->cgroup_path);
  }
  if (joined.seccomp != NULL &&
      seccomp_filter_build_oci(joined.seccomp, joined.process.cap_effective, exec->state_root,
                               &launch.filter, err) < 0)
    goto out;
  if (pipe2(report, O_CLOEXEC) < 0 || pipe2(pid_pipe, O_CLOEXEC) < 0) {
    oci_error_errno(err, "exec: pipe");
    goto out;
  }
  report_read = report[0];
  pid_read = pid_pipe[0];
  launch.report_fd = report[1];
  for (int i = 0; i < 3; i++)
    launch.stdio[i] = null_fd >= 0 ? null_fd : exec->stdio[i];
  joiner = fork();
  if (joiner == 0) {
    close(report[0]);
    close(pid_pipe[0]);
    exec_join(&launch, pidfd, ns_flags, cgroup_fd, pid_pipe[1]);
  }
  close(report[1]);
  close(pid_pipe[1]);
  if (joiner < 0) {
    oci_error_errno(err, "exec: fork");
    goto out;
  }
  while (waitpid(joiner, &status, 0) < 0 && errno == EINTR)
    ;
  do
    n = read(pid_read, exec_pid, sizeof(*exec_pid));
  while (n < 0 && errno == EINTR);
  if (n != (ssize_t)sizeof(*exec_pid))
    *exec_pid = -1;
  /* End of file: the process exec'd (the write end was close-on-exec);
   * a report: it failed before, and says why. */
  do
    n = read(report_read, &failure, sizeof(failure));
  while (n < 0 && errno == EINTR);
  if (n == (ssize_t)sizeof(failure)) {
    struct run_result ignored;
    failure.message[sizeof(failure.message) - 1] = '\0';
    if (*exec_pid > 0)
      waitpid(*exec_pid, &status, 0);
    *exec_pid = -1;
    report_failure(&failure, &ignored, err);
    ret = failure.kind == CHILD_EXEC_FAILED ? -ignored.exit_code : -1;
    goto out;
  }
  if (*exec_pid <= 0) {
    oci_error_set(err, 0, "exec: the process could not be started in the container");
    goto out;
  }
  ret = 0;
out:
  launch.report_fd = -1;
  launch.console_fd = -1; /* the caller's */
  launch_clear(&launch);
  return ret;
}

int runtime_exec_wait(pid_t exec_pid, int *exit_code, oci_error_t *err)
{
  siginfo_t info = {0};

  while (waitid(P_PID, (id_t)exec_pid, &info, WEXITED) < 0) {
    if (errno != EINTR)
      return oci_error_errno(err, "exec: wait for process %d", (int)exec_pid);
  }
  *exit_code = info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
  return 0;
}

/* The exec'd process is gone: what it (or a process it left holding the
 * pty) still writes is drained for at most this long. */
#define EXEC_DRAIN_MS 500

int runtime_exec_relay(pid_t exec_pid, struct stdio_relay *relay, int *exit_code, oci_error_t *err)
{
  sigset_t handled, original_mask;
  struct sigaction ignore_pipe = {.sa_handler = SIG_IGN}, original_pipe;
  cleanup_close int pidfd = -1, signal_fd = -1;
  int64_t drain_until = -1;
  int ret = -1;

  /* No signal of the caller's ends ocirun with the terminal left raw: the
   * ones a user or a terminal sends go to the process, as runc's callers
   * expect; a caller gone away is a failed write. */
  sigemptyset(&handled);
  sigaddset(&handled, SIGINT);
  sigaddset(&handled, SIGTERM);
  sigaddset(&handled, SIGHUP);
  sigaddset(&handled, SIGQUIT);
  sigaddset(&handled, SIGWINCH);
  if (sigprocmask(SIG_BLOCK, &handled, &original_mask) < 0)
    return oci_error_errno(err, "exec: block the caller's signals");
  sigaction(SIGPIPE, &ignore_pipe, &original_pipe);
  pidfd = (int)syscall(SYS_pidfd_open, exec_pid, 0);
  signal_fd = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
  if (pidfd < 0 || signal_fd < 0) {
    oci_error_errno(err, "exec: watch process %d", (int)exec_pid);
    goto out;
  }
  for (;;) {
    struct pollfd fds[2 + STDIO_RELAY_MAX_POLL] = {
        {.fd = drain_until < 0 ? pidfd : -1, .events = POLLIN},
        {.fd = signal_fd, .events = POLLIN}};
    size_t n_relay = stdio_relay_poll_fds(relay, fds + 2);
    int timeout = -1, ready;

    if (drain_until >= 0) {
      int64_t left = drain_until - monotonic_ms();
      if (left <= 0 || !stdio_relay_output_open(relay))
        break;
      timeout = (int)left;
    }
    ready = poll(fds, 2 + n_relay, timeout);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready < 0) {
      oci_error_errno(err, "exec: poll");
      goto out;
    }
    if (fds[1].revents != 0) {
      struct signalfd_siginfo si;

      while (read(signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGWINCH)
          stdio_relay_resize(relay);
        else
          pidfd_send_signal(pidfd, (int)si.ssi_signo, NULL, 0);
      }
    }
    if (fds[0].revents != 0) {
      drain_until = monotonic_ms() + EXEC_DRAIN_MS;
      stdio_relay_stop_input(relay);
    }
    stdio_relay_step(relay, fds + 2, n_relay);
  }
  ret = runtime_exec_wait(exec_pid, exit_code, err);
out:
  /* a process whose stdio ocirun cannot relay is not left behind */
  if (ret < 0 && pidfd >= 0 && pidfd_send_signal(pidfd, SIGKILL, NULL, 0) == 0)
    waitid(P_PIDFD, (id_t)pidfd, &(siginfo_t){0}, WEXITED);
  stdio_relay_clear(relay);
  sigaction(SIGPIPE, &original_pipe, NULL);
  sigprocmask(SIG_SETMASK, &original_mask, NULL);
  return ret;
}
