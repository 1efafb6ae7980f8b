/* The hook runner: one program at a time, the state on stdin from a
 * memfd (a hook that never reads cannot block the runtime on a full pipe),
 * its output read line by line while a pidfd says when it has exited and
 * a monotonic deadline kills it. */
#include "config.h"

#include "runtime/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/in_root.h"
#include "runtime/clean_state.h"
#include "runtime/exec_stub.h"
#include "runtime/exec_stub/protocol.h"

/* A longer line is passed on in pieces. */
#define HOOK_LINE_MAX 4096

struct output {
  const struct oci_event_sink *events;
  const char *what;
  char line[HOOK_LINE_MAX + 1];
  size_t length;
};

static void flush_line(struct output *out)
{
  if (out->length == 0)
    return;
  out->line[out->length] = '\0';
  oci_emit(out->events, OCI_EVENT_HOOK_LINE, "hook", out->what, "%s", out->line);
  out->length = 0;
}

static void take_output(struct output *out, const char *data, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (data[i] == '\n') {
      flush_line(out);
      continue;
    }
    out->line[out->length++] = data[i];
    if (out->length == HOOK_LINE_MAX)
      flush_line(out);
  }
}

/* Reads what is there now; 1 at end of file, 0 when more may come. */
static int drain(int fd, struct output *out)
{
  char buf[4096];

  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      take_output(out, buf, (size_t)n);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    return n == 0 ? 1 : 0;
  }
}

static int state_memfd(const char *state_json, oci_error_t *err)
{
  cleanup_close int fd = memfd_create("ocirun-hook-state", MFD_CLOEXEC);
  size_t length = strlen(state_json), done = 0;

  if (fd < 0)
    return oci_error_errno(err, "hook: memfd_create");
  while (done < length) {
    ssize_t n = write(fd, state_json + done, length - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return oci_error_errno(err, "hook: write the state");
    done += (size_t)n;
  }
  if (lseek(fd, 0, SEEK_SET) < 0)
    return oci_error_errno(err, "hook: rewind the state");
  return steal_fd(&fd);
}

static long long now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What the forked hook process writes to the report pipe when it cannot
 * exec its program: the exec stub's report (the stub writes the same one
 * when its own exec of the program fails). Nothing: it exec'd. */
static _Noreturn void exec_failed(int report_fd, const char *path, int error)
{
  struct exec_stub_report report = {.kind = EXEC_STUB_REPORT_EXEC_FAILED, .errno_value = error};
  ssize_t ignored;

  snprintf(report.message, sizeof(report.message), "exec '%s': %s", path, strerror(error));
  ignored = write(report_fd, &report, sizeof(report));
  (void)ignored;
  _exit(127);
}

/* The forked process: the clean state of every process ocirun starts
 * (clean_state.c): a session of its own (no controlling terminal of the
 * caller's; the timeout kills its whole process group, so a hook's
 * children are not left behind), default signals, the state on stdin, its
 * output on stdout and stderr, no other descriptor of the runner's but the
 * report pipe and its program (close-on-exec: only a fd the exec stub
 * hands on explicitly survives exec). A host hook's OOM score is raised
 * from the caller's, as a container's; one in the container inherits the
 * score its pid 1 was given. */
static _Noreturn void hook_child(const struct spec_hook *hook, bool in_container, int program_fd,
                                 int stdin_fd, int output_fd, int report_fd)
{
  static char *const empty[] = {NULL};
  char *const default_argv[] = {hook->path, NULL};
  char *const *argv = hook->args != NULL && hook->args[0] != NULL ? hook->args : default_argv;
  char *const *envp = hook->env != NULL ? hook->env : empty;
  const int keep[] = {report_fd, program_fd, exec_stub_fd()};
  struct clean_state state;
  oci_error_t err = NULL;

  clean_state_init(&state, CLEAN_ENTRY_HOOK, NULL, false);
  state.stdio[0] = stdin_fd;
  state.stdio[1] = state.stdio[2] = output_fd;
  state.keep = keep;
  state.n_keep = sizeof(keep) / sizeof(keep[0]);
  if ((!in_container && oom_score_adjust(0, NULL, &err) < 0) ||
      clean_state_apply(&state, &err) < 0) {
    int error = err != NULL && err->errno_value != 0 ? err->errno_value : EPERM;
    oci_error_free(&err);
    exec_failed(report_fd, hook->path, error);
  }
  if (program_fd >= 0)
    exec_stub_exec(program_fd, hook->path, report_fd, argv, envp);
  else
    execve(hook->path, argv, envp);
  exec_failed(report_fd, hook->path, errno);
}

/* In the container's process, the program is opened first: never through
 * a /proc magic link (/proc/self/exe there is ocirun's binary), and exec'd
 * from that fd through the sealed exec stub, so that neither the program
 * nor a "#!/proc/self/exe" interpreter of a script can be ocirun's binary
 * (CVE-2019-5736). */
static int spawn(const struct spec_hook *hook, const char *what, bool in_container, int stdin_fd,
                 int output_fd, int report_fd, pid_t *pid, oci_error_t *err)
{
  cleanup_close int program_fd = -1;

  if (in_container) {
    program_fd = oci_openat2(AT_FDCWD, hook->path, O_PATH, RESOLVE_NO_MAGICLINKS);
    if (program_fd < 0)
      return oci_error_errno(err, "hook %s: open '%s'%s", what, hook->path,
                             errno == ELOOP ? " (never through a /proc magic link)" : "");
  }
  *pid = fork();
  if (*pid < 0)
    return oci_error_errno(err, "hook %s: fork", what);
  if (*pid == 0)
    hook_child(hook, in_container, program_fd, stdin_fd, output_fd, report_fd);
  /* The child's setsid makes its group (a setpgid here would race it and
   * make it a group leader, which setsid refuses); a timeout that comes
   * first kills the hook itself through its pidfd. */
  return 0;
}

/* SIGKILL to the hook's process group and to the hook itself (through its
 * pidfd, in case it left the group), then reaps it. */
static void kill_hook(pid_t pid, int pidfd, siginfo_t *info)
{
  kill(-pid, SIGKILL);
  pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
  while (waitid(P_PIDFD, (id_t)pidfd, info, WEXITED) < 0 && errno == EINTR)
    ;
}

/* Waits for the hook, passing its output on, until it exits or the
 * deadline (0: none) passes; then reaps it. */
static int wait_hook(pid_t pid, int pidfd, int output_fd, struct output *out, long long deadline,
                     siginfo_t *info, const struct spec_hook *hook, oci_error_t *err)
{
  bool exited = false, output_done = output_fd < 0;

  while (!exited) {
    struct pollfd fds[2] = {{.fd = pidfd, .events = POLLIN},
                            {.fd = output_done ? -1 : output_fd, .events = POLLIN}};
    long long left = deadline > 0 ? deadline - now_ms() : -1;
    int ready;

    if (deadline > 0 && left <= 0) {
      kill_hook(pid, pidfd, info);
      if (!output_done)
        drain(output_fd, out);
      flush_line(out);
      return oci_error_set(err, ETIMEDOUT, "hook %s (%s) killed after its timeout of %d s",
                           out->what, hook->path, hook->timeout);
    }
    ready = poll(fds, 2, left > 60000 || left < 0 ? 60000 : (int)left);
    if (ready < 0 && errno != EINTR) {
      oci_error_errno(err, "hook %s: poll", out->what);
      kill_hook(pid, pidfd, info);
      return -1;
    }
    if (ready <= 0)
      continue;
    if (fds[1].revents != 0 && drain(output_fd, out) == 1)
      output_done = true;
    if (fds[0].revents != 0)
      exited = true;
  }
  /* What it wrote before exiting; a background child of the hook that
   * keeps the pipe open is not waited for. */
  if (!output_done)
    drain(output_fd, out);
  flush_line(out);
  while (waitid(P_PIDFD, (id_t)pidfd, info, WEXITED) < 0)
    if (errno != EINTR)
      return oci_error_errno(err, "hook %s: wait for pid %d", out->what, (int)pid);
  return 0;
}

/* The hook's outcome: a report of a failed exec first (its process then
 * exits 127, which says less), else its exit status. */
static int hook_outcome(const siginfo_t *info, int report_fd, const char *what,
                        const struct spec_hook *hook, oci_error_t *err)
{
  struct exec_stub_report report;
  ssize_t n = read(report_fd, &report, sizeof(report));

  if (n == (ssize_t)sizeof(report) && report.kind == EXEC_STUB_REPORT_EXEC_FAILED) {
    report.message[sizeof(report.message) - 1] = '\0';
    return oci_error_set(err, report.errno_value, "hook %s: %s", what, report.message);
  }
  if (info->si_code == CLD_EXITED && info->si_status == 0)
    return 0;
  if (info->si_code == CLD_EXITED)
    return oci_error_set(err, 0, "hook %s (%s) exited with status %d", what, hook->path,
                         info->si_status);
  return oci_error_set(err, 0, "hook %s (%s) killed by signal %d", what, hook->path,
                       info->si_status);
}

static int run_one(const struct spec_hook *hook, const char *what, const char *state_json,
                   const struct oci_event_sink *events, bool in_container, oci_error_t *err)
{
  cleanup_close int stdin_fd = -1;
  cleanup_close int pidfd = -1;
  cleanup_close int report_read = -1;
  cleanup_close int report_write = -1;
  cleanup_close int output_read = -1;
  cleanup_close int output_write = -1;
  struct output out = {.events = events, .what = what};
  long long deadline = hook->timeout > 0 ? now_ms() + (long long)hook->timeout * 1000 : 0;
  siginfo_t info = {0};
  int fds[2];
  pid_t pid = -1;

  if (hook->path == NULL || hook->path[0] != '/')
    return oci_error_set(err, 0, "hook %s: path '%s' is not absolute", what,
                         hook->path ? hook->path : "");
  stdin_fd = state_memfd(state_json, err);
  if (stdin_fd < 0)
    return -1;
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
    return oci_error_errno(err, "hook %s: pipe", what);
  report_read = fds[0];
  report_write = fds[1];
  /* Without a sink the hook writes straight to the runner's stderr. */
  if (events != NULL && events->emit != NULL) {
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
      return oci_error_errno(err, "hook %s: pipe", what);
    output_read = fds[0];
    output_write = fds[1];
  }
  if (spawn(hook, what, in_container, stdin_fd, output_write >= 0 ? output_write : 2, report_write,
            &pid, err) < 0)
    return -1;
  close(steal_fd(&report_write));
  if (output_write >= 0)
    close(steal_fd(&output_write));
  pidfd = pidfd_open(pid, 0);
  if (pidfd < 0) {
    /* Our own unreaped child: pidfd_open only fails for want of fds. */
    oci_error_errno(err, "hook %s: pidfd_open", what);
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
  }
  if (wait_hook(pid, pidfd, output_read, &out, deadline, &info, hook, err) < 0)
    return -1;
  return hook_outcome(&info, report_read, what, hook, err);
}

int hook_run(const struct spec_hook *hook, const char *what, const char *state_json,
             const struct oci_event_sink *events, oci_error_t *err)
{
  return run_one(hook, what, state_json, events, false, err);
}

bool hooks_failure_aborts(enum spec_hook_kind kind)
{
  return kind != SPEC_HOOK_POSTSTART && kind != SPEC_HOOK_POSTSTOP;
}

int hooks_run(const struct spec_hook *hooks, size_t n, enum spec_hook_kind kind,
              const char *kind_name, const char *state_json, const struct oci_event_sink *events,
              oci_error_t *err)
{
  for (size_t i = 0; i < n; i++) {
    char what[128];
    oci_error_t failure = NULL;

    snprintf(what, sizeof(what), "%s[%zu]", kind_name, i);
    if (hook_run(&hooks[i], what, state_json, events, &failure) == 0)
      continue;
    if (hooks_failure_aborts(kind)) {
      if (*err == NULL)
        *err = failure;
      else
        oci_error_free(&failure);
      return -1;
    }
    oci_emit(events, OCI_EVENT_WARNING, "hook", what, "%s",
             failure != NULL ? failure->message : "out of memory");
    oci_error_free(&failure);
  }
  return 0;
}

int hooks_run_in_container(const struct spec_hooks *list, enum spec_hook_kind kind,
                           const char *state_json, oci_error_t *err)
{
  for (size_t i = 0; i < list->n_hooks; i++) {
    char what[128];

    snprintf(what, sizeof(what), "%s[%zu]", spec_hook_kind_name(kind), i);
    if (run_one(&list->hooks[i], what, state_json, NULL, true, err) < 0)
      return -1;
  }
  return 0;
}
