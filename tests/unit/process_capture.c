/* Unit tests of the helper runner (src/probe/process_capture.c): stdin fed
 * and stdout and stderr drained by one loop, the exit status, an exec
 * failure, the deadline, the interrupt fd and the hook before input. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include "probe/process_capture.h"
#include "unit.h"

static void test_input_and_output(void)
{
  char *argv[] = {"sh", "-c", "cat; echo to-stderr >&2; exit 3", NULL};
  struct process_capture result;
  oci_error_t err = NULL;
  /* more than a pipe's buffer each way: the loop must feed and drain together */
  size_t length = 1 << 20;
  char *input = malloc(length);

  ok(input != NULL, "input allocated");
  memset(input, 'x', length);
  is_int(process_capture_run(argv, NULL, input, length, 30, -1, &result, &err), 0,
         "a helper that reads 1 MiB and writes it back runs");
  is_int(result.out_length, length, "all its stdout is captured");
  ok(result.out != NULL && result.out[0] == 'x' && result.out[length - 1] == 'x' &&
         result.out[length] == '\0',
     "stdout is the input, NUL-terminated");
  is_str(process_capture_message(&result), "to-stderr", "stderr, its trailing newline removed");
  is_int(result.exit_code, 3, "its exit status");
  ok(!result.exec_failed && !result.timed_out && !result.interrupted, "no failure flagged");
  process_capture_clear(&result);
  free(input);
}

static void test_no_input(void)
{
  char *argv[] = {"sh", "-c", "cat; echo done", NULL};
  char *envp[] = {"ONLY=this", NULL};
  char *env_argv[] = {"/bin/sh", "-c", "echo \"$ONLY:${HOME-unset}\"", NULL};
  struct process_capture result;
  oci_error_t err = NULL;

  is_int(process_capture_run(argv, NULL, NULL, 0, 30, -1, &result, &err), 0,
         "a helper without input runs");
  is_str(result.out, "done\n", "its stdin is empty (closed at once)");
  process_capture_clear(&result);
  is_int(process_capture_run(env_argv, envp, NULL, 0, 30, -1, &result, &err), 0,
         "a helper with an environment of its own runs");
  is_str(result.out, "this:unset\n", "it sees that environment only");
  process_capture_clear(&result);
}

static void test_exec_failure(void)
{
  char *argv[] = {"ocirun-no-such-helper", NULL};
  struct process_capture result;
  oci_error_t err = NULL;

  is_int(process_capture_run(argv, NULL, "x", 1, 30, -1, &result, &err), 0,
         "a helper that cannot be found is not ocirun's failure");
  ok(result.exec_failed, "exec_failed is set");
  is_int(result.exec_errno, ENOENT, "with execvp's errno");
  is_int(result.exit_code, 127, "exit 127");
  is_str(result.out, "", "an empty stdout, not NULL");
  process_capture_clear(&result);
}

static void test_deadline_and_interrupt(void)
{
  char *argv[] = {"sh", "-c", "echo before; exec sleep 30", NULL};
  struct process_capture result;
  oci_error_t err = NULL;
  int interrupt[2];

  is_int(process_capture_run(argv, NULL, NULL, 0, 0.3, -1, &result, &err), 0,
         "a helper past its deadline is waited for");
  ok(result.timed_out && !result.interrupted, "timed_out is set");
  is_int(result.exit_code, 128 + SIGKILL, "it was killed");
  is_str(result.out, "before\n", "its output until then is kept");
  process_capture_clear(&result);

  ok(pipe(interrupt) == 0 && write(interrupt[1], "", 1) == 1, "an interrupt fd, readable");
  is_int(process_capture_run(argv, NULL, NULL, 0, 30, interrupt[0], &result, &err), 0,
         "an interrupted helper is waited for");
  ok(result.interrupted && !result.timed_out, "interrupted is set");
  is_int(result.exit_code, 128 + SIGKILL, "it was killed");
  process_capture_clear(&result);
  close(interrupt[0]);
  close(interrupt[1]);
}

struct hook_seen {
  int calls;
  pid_t helper;
  double seconds_left;
};

static void hook(void *context, pid_t helper, double seconds_left)
{
  struct hook_seen *seen = context;

  seen->calls++;
  seen->helper = helper;
  seen->seconds_left = seconds_left;
}

static void test_hook(void)
{
  char *argv[] = {"sh", "-c", "cat", NULL};
  char *missing[] = {"ocirun-no-such-helper", NULL};
  struct hook_seen seen = {0};
  struct process_capture result;
  oci_error_t err = NULL;

  is_int(process_capture_run_hooked(argv, NULL, "in", 2, 30, -1, hook, &seen, &result, &err), 0,
         "a hooked helper runs");
  is_int(seen.calls, 1, "the hook ran once");
  ok(seen.helper > 0 && seen.seconds_left > 0 && seen.seconds_left <= 30,
     "with the helper's pid and what is left of the deadline");
  is_str(result.out, "in", "the input was written after it");
  process_capture_clear(&result);
  seen.calls = 0;
  is_int(process_capture_run_hooked(missing, NULL, NULL, 0, 0, -1, hook, &seen, &result, &err), 0,
         "a hooked helper that cannot be found");
  is_int(seen.calls, 0, "the hook does not run for a helper that never started");
  process_capture_clear(&result);
}

int main(void)
{
  signal(SIGPIPE, SIG_IGN);
  test_input_and_output();
  test_no_input();
  test_exec_failure();
  test_deadline_and_interrupt();
  test_hook();
  return unit_done();
}
