/* What ocirun's child and its exec stub (stub.c) agree on: the stub's
 * arguments and the report it writes when the workload's exec fails. No
 * libc here: the stub is built without one. */
#ifndef EXEC_STUB_PROTOCOL_H
#define EXEC_STUB_PROTOCOL_H

/* argv: EXEC_STUB_NAME, the command's O_PATH fd, the report pipe's fd, the
 * command's path (for a script), then the workload's own argv. */
#define EXEC_STUB_NAME "ocirun-exec-stub"
#define EXEC_STUB_ARG_FD 1
#define EXEC_STUB_ARG_REPORT_FD 2
#define EXEC_STUB_ARG_PATH 3
#define EXEC_STUB_ARG_WORKLOAD 4

/* The layout of runtime.c's child report (it asserts so), with the kind
 * that says the exec failed: the parent cannot tell the stub's report from
 * one the child wrote itself. */
#define EXEC_STUB_REPORT_EXEC_FAILED 2
#define EXEC_STUB_REPORT_MESSAGE_SIZE 1024
struct exec_stub_report {
  int kind;
  int errno_value;
  char message[EXEC_STUB_REPORT_MESSAGE_SIZE];
};

#endif
