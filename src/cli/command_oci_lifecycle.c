/* The OCI verbs that move a container along its lifecycle after create
 * (runtime-spec runtime.md "Lifecycle", steps 6-13): start and delete,
 * their options and messages; the library lets the process through, runs
 * the post hooks and destroys (container/lifecycle.c). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <sys/types.h>

#include "cli/command_oci.h"
#include "cli/log.h"

/* ---- start ---- */

int command_oci_start(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] =
      "Usage: ocirun start ID\n"
      "\n"
      "Runs the startContainer hooks in container ID, which must be \"created\" (a\n"
      "second start is an error), then its user program (process.args), then its\n"
      "poststart hooks (a failing poststart hook is a warning). When a startContainer\n"
      "hook fails, start fails and the container is destroyed (its poststop hooks\n"
      "run), as the runtime spec says.\n";
  static const struct option options[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  oci_error_t err = NULL;
  const char *id;
  pid_t pid;
  int c;

  while ((c = options_next(argc, argv, "+h", options, &err)) != -1) {
    if (c != 'h')
      return oci_option_error("start", &err);
    fputs(usage, stdout);
    return EXIT_OK;
  }
  id = oci_take_id("start", argc, argv);
  if (id == NULL)
    return EXIT_USAGE;
  if (container_start(global->root, id, log_event_sink(), &pid, &err) < 0)
    return oci_fail(&err);
  return EXIT_OK;
}

/* ---- delete ---- */

int command_oci_delete(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] =
      "Usage: ocirun delete [--force] ID\n"
      "\n"
      "Deletes container ID: its cgroup and its state; then runs its poststop hooks\n"
      "(a failing one is a warning). The container must be stopped (the runtime\n"
      "spec: a created, running or paused one is an error, left as it is), unless\n"
      "--force, which SIGKILLs every process of it and waits. A missing ID is an\n"
      "error, except with --force (runc's meaning: make sure it is gone).\n"
      "\n"
      "  -f, --force   kill a created, running or paused container first\n";
  static const struct option options[] = {
      {"force", no_argument, NULL, 'f'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  oci_error_t err = NULL;
  bool force = false;
  const char *id;
  int c;

  while ((c = options_next(argc, argv, "+fh", options, &err)) != -1) {
    switch (c) {
    case 'f':
      force = true;
      break;
    case 'h':
      fputs(usage, stdout);
      return EXIT_OK;
    default:
      return oci_option_error("delete", &err);
    }
  }
  id = oci_take_id("delete", argc, argv);
  if (id == NULL)
    return EXIT_USAGE;
  if (container_delete(global->root, id, force, log_event_sink(), &err) < 0)
    return oci_fail(&err);
  return EXIT_OK;
}
