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

/* `ocirun exec`'s spawn (stub.c spawn_main): argv EXEC_STUB_SPAWN_NAME, the
 * command's fd, the report pipe, the command's path, the pipe the new
 * process's pid (an int, in the spawner's pid namespace) is written to, "t"
 * when fd 0 is a pty to take as the controlling terminal ("-" otherwise),
 * then the workload's argv. */
#define EXEC_STUB_SPAWN_NAME "ocirun-exec-spawn"
#define EXEC_STUB_SPAWN_ARG_PID_FD 4
#define EXEC_STUB_SPAWN_ARG_TERMINAL 5
#define EXEC_STUB_SPAWN_ARG_WORKLOAD 6

/* The layout of the runtime's child report (launch.h) (it asserts so), with the kind
 * that says the exec failed: the parent cannot tell the stub's report from
 * one the child wrote itself. */
#define EXEC_STUB_REPORT_SETUP_FAILED 1
#define EXEC_STUB_REPORT_EXEC_FAILED 2
#define EXEC_STUB_REPORT_MESSAGE_SIZE 1024
struct exec_stub_report {
  int kind;
  int errno_value;
  char message[EXEC_STUB_REPORT_MESSAGE_SIZE];
};

/* The init of `ocirun run` (init.c): the same sealed file, run by another
 * name. argv: INIT_STUB_NAME, the workload's pid (in the container's pid
 * namespace), the status fd (where the init writes one init_report before
 * it exits), the gate fd (one byte on it lets the workload exec, once the
 * init can no longer be traced or read by it). */
#define INIT_STUB_NAME "ocirun-init"
#define INIT_ARG_CHILD 1
#define INIT_ARG_STATUS_FD 2
#define INIT_ARG_GATE_FD 3
#define INIT_ARG_COUNT 4

enum init_report_kind {
  INIT_REPORT_EXITED = 1,   /* value: the workload's exit status */
  INIT_REPORT_SIGNALED = 2, /* value: the signal that killed it */
  INIT_REPORT_FAILED = 3,   /* value: errno of the init's own step `step` */
};
enum init_step { INIT_STEP_ARGUMENTS = 1, INIT_STEP_DUMPABLE, INIT_STEP_GATE, INIT_STEP_WAIT };
struct init_report {
  int kind;
  int value;
  int step;
};

#endif
