/* The OCI runtime verbs that read or poke a container without changing
 * its lifecycle: state, kill, ps, pause, resume; and what every OCI verb
 * shares (command_oci.h). */
#include "config.h"

#include "cli/command_oci.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/log.h"
#include "oci/atomic_file.h"
#include "oci/cleanup.h"
#include "runtime/state/root.h"
#include "runtime/state/run_state.h"

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

int oci_container_load(const char *root, const char *id, bool lock, struct container_handle *handle,
                       struct container *container, oci_error_t *err)
{
  memset(container, 0, sizeof(*container));
  if ((lock ? container_open(root, id, handle, err)
            : container_open_unlocked(root, id, handle, err)) < 0)
    return -1;
  if (container_load(handle, container, err) < 0) {
    if (*err != NULL && (*err)->errno_value == ENOENT) {
      oci_error_free(err);
      oci_error_set(err, 0,
                    "container '%s' has no state yet: its create is still running, or died "
                    "(then 'ocirun delete %s' removes what is left)",
                    id, id);
    }
    container_close(handle);
    return -1;
  }
  return 0;
}

int oci_refuse_run(const char *verb, const char *root, const char *id, oci_error_t *err)
{
  cleanup_state_root struct state_root state = STATE_ROOT_NONE;
  struct run_record run = {0};
  cleanup_free char *config = NULL;
  oci_error_t run_err = NULL;
  int found;

  /* an id that is no name under $ROOT is no run's */
  if (*err == NULL || (*err)->errno_value != ENOENT || !state_name_valid(id))
    return -1;
  found = state_root_open(&state, root, STATE_RUN, false, &run_err) < 0
              ? -1
              : run_state_find_live(&state, id, &run, &config, &run_err);
  if (found == 0)
    return -1;
  oci_error_free(err);
  if (found > 0)
    oci_error_set(err, 0,
                  "%s: '%s' is not an OCI container but a live run ('ocirun run --name %s', "
                  "runner pid %d): the OCI verbs act on containers of 'ocirun create' only. "
                  "A run ends with its runner: signal it (kill -TERM %d) or let its --timeout "
                  "expire; 'ocirun exec %s CMD' runs CMD in it",
                  verb, id, id, run.owner_pid, run.owner_pid, id);
  else
    oci_error_set(err, 0,
                  "%s: '%s' is not an OCI container but the name of a run that is not running "
                  "(%s): the OCI verbs act on containers of 'ocirun create' only",
                  verb, id, run_err != NULL && run_err->message ? run_err->message : "?");
  oci_error_free(&run_err);
  run_record_clear(&run);
  return -1;
}

int oci_verb_container_load(const char *verb, const char *root, const char *id, bool lock,
                            struct container_handle *handle, struct container *container,
                            oci_error_t *err)
{
  if (oci_container_load(root, id, lock, handle, container, err) < 0)
    return oci_refuse_run(verb, root, id, err);
  return 0;
}

/* The caller's pid file, whole or not at all (conmon and the shim read
 * it as soon as create returns). */
int oci_write_pid_file(const char *path, pid_t pid, oci_error_t *err)
{
  cleanup_free char *dir = strdup(path);
  cleanup_close int dir_fd = -1;
  char *slash, text[32], what[PATH_MAX + 16];
  const char *name = path;
  struct atomic_file file;

  if (dir == NULL)
    return oci_error_set(err, ENOMEM, "--pid-file");
  slash = strrchr(dir, '/');
  if (slash != NULL) {
    *slash = '\0';
    name = slash + 1;
  }
  dir_fd = open(slash == NULL ? "." : slash == dir ? "/" : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0)
    return oci_error_errno(err, "--pid-file: the directory of '%s'", path);
  snprintf(what, sizeof(what), "'%s'", path);
  snprintf(text, sizeof(text), "%d", (int)pid);
  if (atomic_file_begin(&file, dir_fd, ".ocirun-pid", 0644, what, err) < 0 ||
      atomic_file_write(&file, text, strlen(text), err) < 0 ||
      atomic_file_commit(&file, dir_fd, name, ATOMIC_FILE_REPLACE, err) < 0)
    return oci_error_wrap(err, "--pid-file");
  return 0;
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
  struct container_handle handle;
  struct container container;
  cleanup_free char *json = NULL;
  oci_error_t err = NULL;
  int exit_code = EXIT_OK;
  const char *id = simple_verb(argc, argv, usage, &exit_code);

  if (id == NULL)
    return exit_code;
  if (oci_verb_container_load("state", global->root, id, false, &handle, &container, &err) < 0)
    return oci_fail(&err);
  json = container_state_json(&container, container_status(&handle, &container), true, &err);
  container_clear(&container);
  container_close(&handle);
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
  struct container_handle handle;
  struct container container;
  enum container_status status;
  oci_error_t err = NULL;
  bool all = false;
  int c, sig = SIGTERM, ret;
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
  if (oci_verb_container_load("kill", global->root, id, false, &handle, &container, &err) < 0)
    return oci_fail(&err);
  status = container_status(&handle, &container);
  if (status != CONTAINER_CREATED && status != CONTAINER_RUNNING && status != CONTAINER_PAUSED) {
    oci_error_set(&err, 0, "kill: container '%s' is %s, not created or running", id,
                  container_status_name(status));
    ret = -1;
  } else if (all && container.cgroup_path != NULL) {
    ret = container_signal_all(&container, sig, &err);
  } else {
    ret = container_signal(&container, sig, &err);
  }
  if (ret == 0)
    log_message("debug", "kill: signal %d to container '%s'%s", sig, id,
                all ? " (all processes)" : "");
  container_clear(&container);
  container_close(&handle);
  return ret < 0 ? oci_fail(&err) : EXIT_OK;
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
  struct container_handle handle;
  struct container container;
  cleanup_free pid_t *pids = NULL;
  oci_error_t err = NULL;
  bool json = false;
  size_t n = 0;
  const char *id;
  int c, ret;

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
  if (oci_verb_container_load("ps", global->root, id, false, &handle, &container, &err) < 0)
    return oci_fail(&err);
  if (container.cgroup_path == NULL)
    ret = oci_error_set(&err, 0,
                        "ps: container '%s' has no cgroup, so its processes cannot be listed", id);
  else
    ret = container_cgroup_pids(&container, &pids, &n, &err);
  container_clear(&container);
  container_close(&handle);
  if (ret < 0)
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
  const char *verb = frozen ? "pause" : "resume";
  enum container_status want = frozen ? CONTAINER_RUNNING : CONTAINER_PAUSED, status;
  struct container_handle handle;
  struct container container;
  oci_error_t err = NULL;
  int exit_code = EXIT_OK, ret;
  const char *id = simple_verb(argc, argv, frozen ? pause_usage : resume_usage, &exit_code);

  if (id == NULL)
    return exit_code;
  if (oci_verb_container_load(verb, global->root, id, true, &handle, &container, &err) < 0)
    return oci_fail(&err);
  status = container_status(&handle, &container);
  if (status != want)
    ret = oci_error_set(&err, 0, "%s: container '%s' is %s, not %s", verb, id,
                        container_status_name(status), container_status_name(want));
  else if (container.cgroup_path == NULL)
    ret = oci_error_set(&err, 0, "%s: container '%s' has no cgroup to freeze", verb, id);
  else
    ret = container_cgroup_freeze(&container, frozen, &err);
  container_clear(&container);
  container_close(&handle);
  return ret < 0 ? oci_fail(&err) : EXIT_OK;
}

int command_oci_pause(int argc, char **argv, const struct global_options *global)
{
  return freeze_verb(argc, argv, global, true);
}

int command_oci_resume(int argc, char **argv, const struct global_options *global)
{
  return freeze_verb(argc, argv, global, false);
}
