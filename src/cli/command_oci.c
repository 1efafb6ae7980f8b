/* The OCI runtime verbs that read or poke a container without changing
 * its lifecycle: state, kill, ps, pause, resume (their options and
 * messages; the library does the work); and what every OCI verb shares
 * (command_oci.h). */
#include "config.h"

#include "cli/command_oci.h"

#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/log.h"
#include "oci/cleanup.h"

int oci_usage_error(const char *verb, const char *fmt, ...)
{
  cleanup_free char *message = NULL;
  va_list ap;

  va_start(ap, fmt);
  if (vasprintf(&message, fmt, ap) < 0)
    message = NULL;
  va_end(ap);
  log_error_message("%s: %s (see 'ocirun %s --help')", verb, message ? message : "usage error",
                    verb);
  return EXIT_USAGE;
}

int oci_option_error(const char *verb, oci_error_t *err)
{
  int ret = oci_usage_error(verb, "%s", *err != NULL ? (*err)->message : "unknown option");

  oci_error_free(err);
  return ret;
}

int oci_fail(oci_error_t *err)
{
  log_error(err);
  return OCI_EXIT_FAILURE;
}

const char *oci_take_id(const char *verb, int argc, char **argv)
{
  if (optind >= argc) {
    oci_usage_error(verb, "the container id is missing");
    return NULL;
  }
  if (argc - optind > 1) {
    oci_usage_error(verb, "one container id, got %d operands", argc - optind);
    return NULL;
  }
  return argv[optind];
}

/* A verb whose only options are -h/--help: parses them and returns the id
 * (NULL with *exit_code set otherwise). */
static const char *simple_verb(int argc, char **argv, const char *usage, int *exit_code)
{
  static const struct option options[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  oci_error_t err = NULL;
  const char *id;
  int c;

  while ((c = options_next(argc, argv, "+h", options, &err)) != -1) {
    if (c == 'h') {
      fputs(usage, stdout);
      *exit_code = EXIT_OK;
    } else {
      *exit_code = oci_option_error(argv[0], &err);
    }
    return NULL;
  }
  id = oci_take_id(argv[0], argc, argv);
  if (id == NULL)
    *exit_code = EXIT_USAGE;
  return id;
}

/* ---- state ---- */

int command_oci_state(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] =
      "Usage: ocirun state ID\n"
      "\n"
      "Prints the state of container ID as the runtime spec defines it: ociVersion, id,\n"
      "status (creating, created, running, paused or stopped, read from the process and\n"
      "its cgroup now), pid (while the process exists), bundle and annotations.\n"
      "Exits 1 when ID does not exist.\n";
  cleanup_free char *json = NULL;
  oci_error_t err = NULL;
  int exit_code = EXIT_OK;
  const char *id = simple_verb(argc, argv, usage, &exit_code);

  if (id == NULL)
    return exit_code;
  json = container_state_now(global->root, id, &err);
  if (json == NULL)
    return oci_fail(&err);
  printf("%s\n", json);
  return EXIT_OK;
}

/* ---- kill ---- */

int command_oci_kill(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] =
      "Usage: ocirun kill [--all] ID [SIGNAL]\n"
      "\n"
      "Sends SIGNAL (a name with or without SIG, or a number; default SIGTERM) to the\n"
      "process of container ID, which must be created, running or paused. The process\n"
      "is reached through a pidfd and checked to be the one create started, so a\n"
      "reused pid is never signalled.\n"
      "\n"
      "  -a, --all   signal every process of the container's cgroup\n";
  static const struct option options[] = {
      {"all", no_argument, NULL, 'a'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  oci_error_t err = NULL;
  bool all = false;
  int c, sig = SIGTERM;
  const char *id;

  while ((c = options_next(argc, argv, "+ah", options, &err)) != -1) {
    switch (c) {
    case 'a':
      all = true;
      break;
    case 'h':
      fputs(usage, stdout);
      return EXIT_OK;
    default:
      return oci_option_error("kill", &err);
    }
  }
  if (optind >= argc)
    return oci_usage_error("kill", "the container id is missing");
  if (argc - optind > 2)
    return oci_usage_error("kill", "expected ID [SIGNAL], got %d operands", argc - optind);
  id = argv[optind];
  if (argc - optind == 2) {
    sig = container_signal_from_name(argv[optind + 1]);
    if (sig < 0)
      return oci_usage_error("kill", "unknown signal '%s'", argv[optind + 1]);
  }
  if (container_kill(global->root, id, sig, all, &err) < 0)
    return oci_fail(&err);
  log_message("debug", "kill: signal %d to container '%s'%s", sig, id,
              all ? " (all processes)" : "");
  return EXIT_OK;
}

/* ---- ps ---- */

/* /proc/PID/comm, or "?" when the process is gone. The container's
 * processes choose their own comm (prctl, /proc/self/comm): a control byte
 * becomes '?', so no escape sequence reaches the caller's terminal. */
static void process_name(pid_t pid, char *buf, size_t size)
{
  char path[64];
  cleanup_close int fd = -1;
  ssize_t n;

  snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  n = fd >= 0 ? read(fd, buf, size - 1) : -1;
  if (n <= 0) {
    snprintf(buf, size, "?");
    return;
  }
  buf[n] = '\0';
  buf[strcspn(buf, "\n")] = '\0';
  for (char *c = buf; *c != '\0'; c++)
    if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
      *c = '?';
}

int command_oci_ps(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] = "Usage: ocirun ps [--format table|json] ID\n"
                              "\n"
                              "Lists the processes of container ID's cgroup and its children\n"
                              "(cgroup.procs). table: PID and command name; json: an array of\n"
                              "pids (what containerd's shim reads).\n"
                              "\n"
                              "  -f, --format FORMAT   table (default) or json\n";
  static const struct option options[] = {{"format", required_argument, NULL, 'f'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
  cleanup_free pid_t *pids = NULL;
  oci_error_t err = NULL;
  bool json = false;
  size_t n = 0;
  const char *id;
  int c;

  while ((c = options_next(argc, argv, "+f:h", options, &err)) != -1) {
    switch (c) {
    case 'f':
      if (strcmp(optarg, "json") != 0 && strcmp(optarg, "table") != 0)
        return oci_usage_error("ps", "--format: '%s' is neither table nor json", optarg);
      json = strcmp(optarg, "json") == 0;
      break;
    case 'h':
      fputs(usage, stdout);
      return EXIT_OK;
    default:
      return oci_option_error("ps", &err);
    }
  }
  id = oci_take_id("ps", argc, argv);
  if (id == NULL)
    return EXIT_USAGE;
  if (container_ps(global->root, id, &pids, &n, &err) < 0)
    return oci_fail(&err);
  if (json) {
    printf("[");
    for (size_t i = 0; i < n; i++)
      printf("%s%d", i ? "," : "", (int)pids[i]);
    printf("]\n");
    return EXIT_OK;
  }
  printf("%-10s %s\n", "PID", "CMD");
  for (size_t i = 0; i < n; i++) {
    char name[64];
    process_name(pids[i], name, sizeof(name));
    printf("%-10d %s\n", (int)pids[i], name);
  }
  return EXIT_OK;
}

/* ---- pause, resume ---- */

static int freeze_verb(int argc, char **argv, const struct global_options *global, bool frozen)
{
  static const char pause_usage[] =
      "Usage: ocirun pause ID\n"
      "\n"
      "Freezes every process of running container ID (cgroup.freeze); its state\n"
      "is then \"paused\" until 'ocirun resume ID'.\n";
  static const char resume_usage[] = "Usage: ocirun resume ID\n"
                                     "\n"
                                     "Thaws paused container ID (cgroup.freeze).\n";
  oci_error_t err = NULL;
  int exit_code = EXIT_OK;
  const char *id = simple_verb(argc, argv, frozen ? pause_usage : resume_usage, &exit_code);

  if (id == NULL)
    return exit_code;
  if ((frozen ? container_pause(global->root, id, &err)
              : container_resume(global->root, id, &err)) < 0)
    return oci_fail(&err);
  return EXIT_OK;
}

int command_oci_pause(int argc, char **argv, const struct global_options *global)
{
  return freeze_verb(argc, argv, global, true);
}

int command_oci_resume(int argc, char **argv, const struct global_options *global)
{
  return freeze_verb(argc, argv, global, false);
}
