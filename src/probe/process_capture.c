/* Runs a helper program with bytes on its stdin and its output captured,
 * under a deadline: fork, execvp, then one poll loop that feeds stdin and
 * drains stdout and stderr, so neither side can block the other. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "probe/process_capture.h"

struct buffer {
  char *data;
  size_t length;
  size_t capacity;
};

static int buffer_append(struct buffer *buffer, const char *data, size_t n)
{
  if (buffer->length >= PROCESS_CAPTURE_MAX)
    return 0;
  if (n > PROCESS_CAPTURE_MAX - buffer->length)
    n = PROCESS_CAPTURE_MAX - buffer->length;
  if (buffer->length + n + 1 > buffer->capacity) {
    size_t capacity = buffer->capacity ? buffer->capacity : 4096;
    while (capacity < buffer->length + n + 1)
      capacity *= 2;
    char *grown = realloc(buffer->data, capacity);
    if (grown == NULL)
      return -1;
    buffer->data = grown;
    buffer->capacity = capacity;
  }
  memcpy(buffer->data + buffer->length, data, n);
  buffer->length += n;
  buffer->data[buffer->length] = '\0';
  return 0;
}

static char *buffer_take(struct buffer *buffer, size_t *length)
{
  if (buffer->data == NULL)
    buffer->data = calloc(1, 1);
  *length = buffer->length;
  char *data = buffer->data;
  buffer->data = NULL;
  return data;
}

static double monotonic_seconds(void)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* In the child: never returns. Reports an exec failure's errno on status_fd
 * (close-on-exec, so the parent reads nothing when execvp succeeds). */
static __attribute__((noreturn)) void child_exec(char *const argv[], char *const envp[], int in_fd,
                                                 int out_fd, int err_fd, int status_fd)
{
  struct sigaction default_action = {.sa_handler = SIG_DFL};
  sigset_t none;
  int saved;

  /* The parent may ignore SIGPIPE; the helper should not inherit that. */
  sigaction(SIGPIPE, &default_action, NULL);
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (dup2(in_fd, STDIN_FILENO) >= 0 && dup2(out_fd, STDOUT_FILENO) >= 0 &&
      dup2(err_fd, STDERR_FILENO) >= 0) {
    if (envp != NULL)
      execvpe(argv[0], argv, envp);
    else
      execvp(argv[0], argv);
  }
  saved = errno;
  if (write(status_fd, &saved, sizeof(saved)) < 0) {
    /* nothing more can be reported */
  }
  _exit(127);
}

static void close_fd(int *fd)
{
  if (*fd >= 0)
    close(*fd);
  *fd = -1;
}

/* Reads what is available on *fd into buffer; closes it at end of file. */
static int drain(int *fd, struct buffer *buffer, oci_error_t *err)
{
  char chunk[16384];
  ssize_t n = read(*fd, chunk, sizeof(chunk));

  if (n < 0) {
    if (errno == EINTR || errno == EAGAIN)
      return 0;
    return oci_error_errno(err, "read helper output");
  }
  if (n == 0) {
    close_fd(fd);
    return 0;
  }
  if (buffer_append(buffer, chunk, (size_t)n) < 0)
    return oci_error_errno(err, "store helper output");
  return 0;
}

int process_capture_run(char *const argv[], char *const envp[], const void *input,
                        size_t input_length, double timeout_seconds, int interrupt_fd,
                        struct process_capture *result, oci_error_t *err)
{
  return process_capture_run_hooked(argv, envp, input, input_length, timeout_seconds, interrupt_fd,
                                    NULL, NULL, result, err);
}

/* One helper between fork and waitpid, seen from the parent: its pipes
 * (the child's ends closed after fork), what is left to feed it and what it
 * wrote. */
struct capture {
  const char *name;
  pid_t pid;
  int in_pipe[2], out_pipe[2], err_pipe[2], status_pipe[2];
  const char *input;
  size_t input_length, written;
  double deadline; /* 0: none */
  struct buffer out, errout;
};

/* The helper's exec errno from the status pipe: 0 when execvp succeeded
 * (the pipe closed on exec with nothing in it). */
static int read_exec_errno(int status_fd)
{
  int child_errno = 0;

  for (;;) {
    ssize_t n = read(status_fd, &child_errno, sizeof(child_errno));
    if (n >= 0 || errno != EINTR)
      return n == (ssize_t)sizeof(child_errno) ? child_errno : 0;
  }
}

/* The one poll loop: feeds the helper's stdin and drains its stdout and
 * stderr until all three are closed. The deadline and interrupt_fd end it
 * early, the helper killed and its output so far kept; an error kills the
 * helper too and returns -1. */
static int capture_exchange(struct capture *capture, int interrupt_fd,
                            struct process_capture *result, oci_error_t *err)
{
  while (capture->in_pipe[1] >= 0 || capture->out_pipe[0] >= 0 || capture->err_pipe[0] >= 0) {
    struct pollfd fds[4] = {
        {.fd = capture->in_pipe[1], .events = POLLOUT},
        {.fd = capture->out_pipe[0], .events = POLLIN},
        {.fd = capture->err_pipe[0], .events = POLLIN},
        {.fd = interrupt_fd, .events = POLLIN},
    };
    int wait_ms = -1;

    if (capture->deadline > 0) {
      double left = capture->deadline - monotonic_seconds();
      wait_ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
    }
    int ready = poll(fds, 4, wait_ms);
    if (ready < 0) {
      if (errno == EINTR)
        continue;
      oci_error_errno(err, "poll %s", capture->name);
      kill(capture->pid, SIGKILL);
      return -1;
    }
    if (ready == 0) {
      /* The deadline: the helper is killed, its output so far is kept. */
      result->timed_out = true;
      kill(capture->pid, SIGKILL);
      return 0;
    }
    if (fds[3].revents != 0) {
      /* SIGINT or SIGTERM to ocirun: stop waiting; the caller still tears down. */
      result->interrupted = true;
      kill(capture->pid, SIGKILL);
      return 0;
    }
    if (fds[0].revents != 0) {
      ssize_t n = write(capture->in_pipe[1], capture->input + capture->written,
                        capture->input_length - capture->written);
      if (n > 0)
        capture->written += (size_t)n;
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || capture->written == capture->input_length)
        close_fd(&capture->in_pipe[1]); /* EPIPE: the helper stopped reading; not ours to judge */
    }
    if ((fds[1].revents != 0 && drain(&capture->out_pipe[0], &capture->out, err) < 0) ||
        (fds[2].revents != 0 && drain(&capture->err_pipe[0], &capture->errout, err) < 0)) {
      kill(capture->pid, SIGKILL);
      return -1;
    }
  }
  return 0;
}

/* The reaped helper's exit and its output, into result. */
static int capture_result(struct capture *capture, int child_errno, int status,
                          struct process_capture *result, oci_error_t *err)
{
  result->exec_failed = child_errno != 0;
  result->exec_errno = child_errno;
  if (WIFEXITED(status))
    result->exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result->exit_code = 128 + WTERMSIG(status);
  result->out = buffer_take(&capture->out, &result->out_length);
  result->err = buffer_take(&capture->errout, &result->err_length);
  if (result->out == NULL || result->err == NULL)
    return oci_error_errno(err, "store %s's output", capture->name);
  return 0;
}

int process_capture_run_hooked(char *const argv[], char *const envp[], const void *input,
                               size_t input_length, double timeout_seconds, int interrupt_fd,
                               void (*before_input)(void *context, pid_t helper,
                                                    double seconds_left),
                               void *context, struct process_capture *result, oci_error_t *err)
{
  struct capture capture = {
      .name = argv[0],
      .in_pipe = {-1, -1},
      .out_pipe = {-1, -1},
      .err_pipe = {-1, -1},
      .status_pipe = {-1, -1},
      .input = input,
      .input_length = input_length,
      .deadline = timeout_seconds > 0 ? monotonic_seconds() + timeout_seconds : 0,
  };
  int child_errno = 0, status = 0, ret = -1;
  bool failed = false;

  memset(result, 0, sizeof(*result));
  if (pipe2(capture.in_pipe, O_CLOEXEC) < 0 || pipe2(capture.out_pipe, O_CLOEXEC) < 0 ||
      pipe2(capture.err_pipe, O_CLOEXEC) < 0 || pipe2(capture.status_pipe, O_CLOEXEC) < 0) {
    oci_error_errno(err, "create pipes for %s", argv[0]);
    goto out;
  }
  capture.pid = fork();
  if (capture.pid < 0) {
    oci_error_errno(err, "fork for %s", argv[0]);
    goto out;
  }
  if (capture.pid == 0)
    child_exec(argv, envp, capture.in_pipe[0], capture.out_pipe[1], capture.err_pipe[1],
               capture.status_pipe[1]);

  close_fd(&capture.in_pipe[0]);
  close_fd(&capture.out_pipe[1]);
  close_fd(&capture.err_pipe[1]);
  close_fd(&capture.status_pipe[1]);
  child_errno = read_exec_errno(capture.status_pipe[0]);
  if (fcntl(capture.in_pipe[1], F_SETFL, O_NONBLOCK) < 0) {
    oci_error_errno(err, "make %s's stdin non-blocking", argv[0]);
    failed = true;
    kill(capture.pid, SIGKILL);
  }
  /* The helper runs and has read nothing yet: the caller looks now. */
  if (before_input != NULL && child_errno == 0 && !failed)
    before_input(context, capture.pid,
                 capture.deadline > 0 ? capture.deadline - monotonic_seconds() : 0);
  if (input == NULL || input_length == 0 || child_errno != 0)
    close_fd(&capture.in_pipe[1]);
  if (child_errno == 0 && !failed && capture_exchange(&capture, interrupt_fd, result, err) < 0)
    failed = true;
  while (waitpid(capture.pid, &status, 0) < 0) {
    if (errno != EINTR) {
      oci_error_errno(err, "wait for %s", argv[0]);
      goto out;
    }
  }
  if (!failed)
    ret = capture_result(&capture, child_errno, status, result, err);
out:
  for (int end = 0; end < 2; end++) {
    close_fd(&capture.in_pipe[end]);
    close_fd(&capture.out_pipe[end]);
    close_fd(&capture.err_pipe[end]);
    close_fd(&capture.status_pipe[end]);
  }
  free(capture.out.data);
  free(capture.errout.data);
  if (ret < 0)
    process_capture_clear(result);
  return ret;
}

void process_capture_clear(struct process_capture *result)
{
  free(result->out);
  free(result->err);
  result->out = NULL;
  result->err = NULL;
}

const char *process_capture_message(struct process_capture *result)
{
  if (result->err == NULL)
    return "";
  while (result->err_length > 0 && strchr(" \t\r\n", result->err[result->err_length - 1]) != NULL)
    result->err[--result->err_length] = '\0';
  return result->err;
}
