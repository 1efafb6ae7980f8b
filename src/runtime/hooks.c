/* The hook runner: one program at a time, the state on stdin from a
 * memfd (a hook that never reads cannot block the runtime on a full pipe),
 * its output read line by line while a pidfd says when it has exited and
 * a monotonic deadline kills it. */
#include "config.h"

#include "runtime/hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oci/cleanup.h"

/* A longer line is passed on in pieces. */
#define HOOK_LINE_MAX 4096

struct output {
  const struct hook_log *log;
  const char *what;
  char line[HOOK_LINE_MAX + 1];
  size_t length;
};

static void emit(const struct hook_log *log, bool warning, const char *message)
{
  if (log != NULL && log->line != NULL)
    log->line(log->context, warning, message);
  else
    fprintf(stderr, "ocirun: %s%s\n", warning ? "warning: " : "", message);
}

static void flush_line(struct output *out)
{
  char message[HOOK_LINE_MAX + 256];

  if (out->length == 0)
    return;
  out->line[out->length] = '\0';
  snprintf(message, sizeof(message), "hook %s: %s", out->what, out->line);
  emit(out->log, false, message);
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

static int spawn(const struct spec_hook *hook, int stdin_fd, int output_fd, pid_t *pid,
                 oci_error_t *err)
{
  static char *const empty[] = {NULL};
  char *const default_argv[] = {hook->path, NULL};
  posix_spawn_file_actions_t actions;
  int status;

  if (posix_spawn_file_actions_init(&actions) != 0)
    return oci_error_set(err, ENOMEM, "hook %s", hook->path);
  /* dup2 clears close-on-exec on the copies: stdin, stdout, stderr only. */
  status = posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
  if (status == 0)
    status = posix_spawn_file_actions_adddup2(&actions, output_fd, 1);
  if (status == 0)
    status = posix_spawn_file_actions_adddup2(&actions, output_fd, 2);
  if (status == 0)
    status = posix_spawn(pid, hook->path, &actions, NULL,
                         hook->args != NULL && hook->args[0] != NULL ? hook->args : default_argv,
                         hook->env != NULL ? hook->env : empty);
  posix_spawn_file_actions_destroy(&actions);
  if (status != 0)
    return oci_error_set(err, status, "hook %s: spawn", hook->path);
  return 0;
}

/* Waits for the hook, passing its output on, until it exits or the
 * deadline (0: none) passes; then reaps it. */
static int wait_hook(pid_t pid, int pidfd, int output_fd, struct output *out, long long deadline,
                     const struct spec_hook *hook, oci_error_t *err)
{
  bool exited = false, output_done = output_fd < 0;
  siginfo_t info = {0};

  while (!exited) {
    struct pollfd fds[2] = {{.fd = pidfd, .events = POLLIN},
                            {.fd = output_done ? -1 : output_fd, .events = POLLIN}};
    long long left = deadline > 0 ? deadline - now_ms() : -1;
    int ready;

    if (deadline > 0 && left <= 0) {
      pidfd_send_signal(pidfd, SIGKILL, NULL, 0);
      while (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED) < 0 && errno == EINTR)
        ;
      if (!output_done)
        drain(output_fd, out);
      flush_line(out);
      return oci_error_set(err, ETIMEDOUT, "hook %s (%s) killed after its timeout of %d s",
                           out->what, hook->path, hook->timeout);
    }
    ready = poll(fds, 2, left > 60000 || left < 0 ? 60000 : (int)left);
    if (ready < 0 && errno != EINTR)
      return oci_error_errno(err, "hook %s: poll", out->what);
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
  while (waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED) < 0)
    if (errno != EINTR)
      return oci_error_errno(err, "hook %s: wait for pid %d", out->what, (int)pid);
  if (info.si_code == CLD_EXITED && info.si_status == 0)
    return 0;
  if (info.si_code == CLD_EXITED)
    return oci_error_set(err, 0, "hook %s (%s) exited with status %d", out->what, hook->path,
                         info.si_status);
  return oci_error_set(err, 0, "hook %s (%s) killed by signal %d", out->what, hook->path,
                       info.si_status);
}

int hook_run(const struct spec_hook *hook, const char *what, const char *state_json,
             const struct hook_log *log, oci_error_t *err)
{
  cleanup_close int stdin_fd = -1;
  cleanup_close int pidfd = -1;
  int pipe_fds[2] = {-1, -1};
  struct output out = {.log = log, .what = what};
  long long deadline = hook->timeout > 0 ? now_ms() + (long long)hook->timeout * 1000 : 0;
  pid_t pid;
  int ret;

  if (hook->path == NULL || hook->path[0] != '/')
    return oci_error_set(err, 0, "hook %s: path '%s' is not absolute", what,
                         hook->path ? hook->path : "");
  stdin_fd = state_memfd(state_json, err);
  if (stdin_fd < 0)
    return -1;
  /* Without a log the hook writes straight to ocirun's stderr. */
  if (log != NULL && log->line != NULL && pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) < 0)
    return oci_error_errno(err, "hook %s: pipe", what);
  if (spawn(hook, stdin_fd, pipe_fds[1] >= 0 ? pipe_fds[1] : 2, &pid, err) < 0) {
    if (pipe_fds[0] >= 0) {
      close(pipe_fds[0]);
      close(pipe_fds[1]);
    }
    return oci_error_wrap(err, "hook %s", what);
  }
  if (pipe_fds[1] >= 0)
    close(pipe_fds[1]);
  pidfd = pidfd_open(pid, 0);
  if (pidfd < 0) {
    /* Our own unreaped child: pidfd_open only fails for want of fds. */
    ret = oci_error_errno(err, "hook %s: pidfd_open", what);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
  } else {
    ret = wait_hook(pid, pidfd, pipe_fds[0], &out, deadline, hook, err);
  }
  if (pipe_fds[0] >= 0)
    close(pipe_fds[0]);
  return ret;
}

bool hooks_failure_aborts(enum spec_hook_kind kind)
{
  return kind != SPEC_HOOK_POSTSTART && kind != SPEC_HOOK_POSTSTOP;
}

int hooks_run(const struct spec_hook *hooks, size_t n, enum spec_hook_kind kind,
              const char *kind_name, const char *state_json, const struct hook_log *log,
              oci_error_t *err)
{
  for (size_t i = 0; i < n; i++) {
    char what[128];
    oci_error_t failure = NULL;

    snprintf(what, sizeof(what), "%s[%zu]", kind_name, i);
    if (hook_run(&hooks[i], what, state_json, log, &failure) == 0)
      continue;
    if (hooks_failure_aborts(kind)) {
      if (*err == NULL)
        *err = failure;
      else
        oci_error_free(&failure);
      return -1;
    }
    emit(log, true, failure != NULL ? failure->message : "out of memory");
    oci_error_free(&failure);
  }
  return 0;
}
