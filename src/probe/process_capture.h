/* Runs a helper program (the docker CLI) with bytes on its stdin, its stdout
 * and stderr captured, under a deadline after which it is killed. The
 * program's environment is ocirun's own or the one given; nothing goes
 * through a shell. */
#ifndef PROCESS_CAPTURE_H
#define PROCESS_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "oci/error.h"

/* Output beyond this many bytes per stream is read and discarded. */
#define PROCESS_CAPTURE_MAX ((size_t)4 << 20)

struct process_capture {
  int exit_code;    /* exit status, 128+signal when killed, 127 when exec failed */
  bool exec_failed; /* the program could not be started (errno in exec_errno) */
  int exec_errno;
  bool timed_out;   /* killed at the deadline */
  bool interrupted; /* killed because interrupt_fd became readable */
  char *out;        /* stdout, NUL-terminated */
  size_t out_length;
  char *err; /* stderr, NUL-terminated */
  size_t err_length;
};

/* argv[0] is looked up on ocirun's PATH. envp: the program's environment
 * (NULL: ocirun's own). input may be NULL (stdin is then empty).
 * timeout_seconds <= 0 means no deadline. interrupt_fd (a signalfd, or -1)
 * ends the wait early like the deadline does. With input, the caller ignores
 * SIGPIPE (a program may stop reading early). Returns 0 when the program was
 * waited for (whatever its status; exec failure included), -1 with *err set
 * when ocirun itself could not run it. */
int process_capture_run(char *const argv[], char *const envp[], const void *input,
                        size_t input_length, double timeout_seconds, int interrupt_fd,
                        struct process_capture *result, oci_error_t *err);
/* The same, with before_input (when not NULL) called once the program has
 * started and before any input is written: the program (pid helper, not yet
 * waited for) is then waiting for its stdin. seconds_left is what remains
 * of the deadline (0: none). */
int process_capture_run_hooked(char *const argv[], char *const envp[], const void *input,
                               size_t input_length, double timeout_seconds, int interrupt_fd,
                               void (*before_input)(void *context, pid_t helper,
                                                    double seconds_left),
                               void *context, struct process_capture *result, oci_error_t *err);
void process_capture_clear(struct process_capture *result);
/* The captured stderr with trailing whitespace removed (points into result). */
const char *process_capture_message(struct process_capture *result);

#endif
