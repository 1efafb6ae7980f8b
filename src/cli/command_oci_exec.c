/* `ocirun exec [OPTIONS] ID [COMMAND [ARG...]]`: a second process in a
 * running container, as runc's callers ask for it (containerd's shim and
 * conmon: --process FILE --detach --pid-file F, --tty --console-socket S).
 * The process joins the container's namespaces through its pidfd and its
 * cgroup, and gets the container's seccomp filter; the runtime does it
 * (runtime_exec_start). With a terminal and no console socket, ocirun
 * holds the pty's master and relays it to its own stdin and stdout. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "oci/cleanup.h"
#include "oci/file_read.h"
#include "cli/command_oci.h"
#include "cli/log.h"
#include "container/exec_target.h"
#include "runtime/capabilities.h"
#include "runtime/console.h"
#include "runtime/runtime.h"
#include "runtime/spec/spec.h"
#include "runtime/stdio_relay.h"
#include "runtime/supervise.h"

struct exec_options {
  const char *process_file;
  const char *pid_file;
  const char *cwd;
  const char *user;
  char **env; /* -e, in order */
  size_t n_env;
  uint64_t caps; /* --cap, added to every set but ambient */
  bool no_new_privileges;
  bool detach;
  bool tty;                   /* -t: process.terminal, also over --process */
  bool interactive;           /* -i: a relayed process's stdin is the caller's */
  const char *console_socket; /* where the pty's master goes; NULL: ocirun relays it */
  const char *cgroup;         /* --cgroup: a sub-cgroup of the container's slice */
};

static void spec_clearp(struct spec *spec)
{
  spec_clear(spec);
}

static void json_freep(cJSON **json)
{
  cJSON_Delete(*json);
}

/* --process FILE: a "process" object, read through the bounded reader and
 * parsed by the configuration's own parser (wrapped in a minimal
 * configuration), so it gets every check config.json's process gets. */
static int load_process_file(const char *path, const char *oci_version, struct spec *out,
                             oci_error_t *err)
{
  cleanup_free char *text = NULL;
  __attribute__((cleanup(json_freep))) cJSON *process = NULL;
  __attribute__((cleanup(json_freep))) cJSON *config = NULL;
  size_t length;

  if (oci_file_read(AT_FDCWD, path, OCI_FILE_NAMED, "--process", 1 << 20, &text, &length, err) < 0)
    return -1;
  process = cJSON_ParseWithLength(text, length);
  if (process == NULL || !cJSON_IsObject(process))
    return oci_error_set(err, 0, "--process '%s': not a JSON object", path);
  config = cJSON_CreateObject();
  if (config == NULL || cJSON_AddStringToObject(config, "ociVersion", oci_version) == NULL ||
      cJSON_AddItemToObject(config, "root", cJSON_Parse("{\"path\":\"rootfs\"}")) == 0)
    return oci_error_set(err, ENOMEM, "--process: allocate");
  cJSON_AddItemToObject(config, "process", process);
  process = NULL; /* config owns it */
  if (spec_parse(config, out, err) < 0)
    return oci_error_wrap(err, "--process '%s'", path);
  return 0;
}

/* Replaces a string array's NULL-terminated copy. */
static int strv_set(char ***slot, char *const *values, size_t n)
{
  char **copy = calloc(n + 1, sizeof(*copy));

  if (copy == NULL)
    return -1;
  for (size_t i = 0; i < n; i++) {
    copy[i] = strdup(values[i]);
    if (copy[i] == NULL) {
      cleanup_strvp(&copy);
      return -1;
    }
  }
  cleanup_strvp(slot);
  *slot = copy;
  return 0;
}

/* Without --process: the container's own process, with the command and the
 * options' changes. */
static int process_from_options(struct spec *spec, const struct exec_options *options,
                                char *const *command, size_t n_command, oci_error_t *err)
{
  struct spec_process *p = &spec->process;

  if (n_command == 0)
    return oci_error_set(err, 0, "exec: a COMMAND (or --process FILE) is required");
  if (strv_set(&p->args, command, n_command) < 0)
    return oci_error_set(err, ENOMEM, "exec: allocate");
  if (options->cwd != NULL) {
    char *cwd = strdup(options->cwd);
    if (cwd == NULL)
      return oci_error_set(err, ENOMEM, "exec: allocate");
    free(p->cwd);
    p->cwd = cwd;
  }
  if (options->user != NULL) {
    unsigned uid, gid;
    char extra;
    int n = sscanf(options->user, "%u:%u%c", &uid, &gid, &extra);

    if (n == 1 && sscanf(options->user, "%u%c", &uid, &extra) == 1)
      gid = uid;
    else if (n != 2)
      return oci_error_set(err, 0, "exec: --user '%s': UID[:GID] in numbers is expected",
                           options->user);
    p->uid = uid;
    p->gid = gid;
    p->n_additional_gids = 0;
  }
  if (options->n_env > 0) {
    size_t n = 0;
    char **env;

    while (p->env != NULL && p->env[n] != NULL)
      n++;
    env = reallocarray(p->env, n + options->n_env + 1, sizeof(*env));
    if (env == NULL)
      return oci_error_set(err, ENOMEM, "exec: allocate");
    p->env = env;
    p->env[n] = NULL;
    for (size_t i = 0; i < options->n_env; i++) {
      /* NAME=VALUE replaces the container's NAME (docker exec -e). */
      size_t name_length = strcspn(options->env[i], "=") + 1, slot = 0;
      char *value = strdup(options->env[i]);

      if (value == NULL)
        return oci_error_set(err, ENOMEM, "exec: allocate");
      while (slot < n && strncmp(p->env[slot], value, name_length) != 0)
        slot++;
      if (slot < n) {
        free(p->env[slot]);
        p->env[slot] = value;
        continue;
      }
      p->env[n++] = value;
      p->env[n] = NULL;
    }
  }
  p->cap_bounding |= options->caps;
  p->cap_effective |= options->caps;
  p->cap_permitted |= options->caps;
  p->cap_inheritable |= options->caps;
  if (options->no_new_privileges)
    p->no_new_privileges = true;
  p->terminal = options->tty;
  return 0;
}

/* A terminal wants somewhere for its master: the caller's console socket,
 * or ocirun itself, which then stays to relay it (so not --detach). */
static int check_terminal(const struct spec_process *process, const struct exec_options *options,
                          oci_error_t *err)
{
  if (!process->terminal && options->console_socket != NULL)
    return oci_error_set(err, 0,
                         "exec: --console-socket given but the process has no terminal "
                         "(--tty, or process.terminal in --process)");
  if (process->terminal && options->detach && options->console_socket == NULL)
    return oci_error_set(err, 0,
                         "exec: --detach with a terminal needs --console-socket (else "
                         "ocirun relays the terminal and cannot detach)");
  return 0;
}

/* ocirun relays the terminal: the pty has the caller's window size. */
static void size_from_caller(struct spec_process *process)
{
  static const int fds[] = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO};
  unsigned short rows, cols;

  if (process->console_height == 0 && process->console_width == 0 &&
      console_window_size(fds, 3, &rows, &cols)) {
    process->console_height = rows;
    process->console_width = cols;
  }
}

/* In a user namespace that denies setgroups (an unprivileged caller's own
 * ids only), the process keeps the groups it has. */
static bool setgroups_allowed(pid_t pid)
{
  char path[64], text[16] = "";
  cleanup_close int fd = -1;
  ssize_t n;

  snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || (n = read(fd, text, sizeof(text) - 1)) <= 0)
    return true;
  text[n] = '\0';
  return strncmp(text, "deny", 4) != 0;
}

/* docker exec's rule for a run, as `ocirun run` sets it (run_spec.c):
 * another user than the run's starts with the bounding set held only by
 * uid 0; the --cap additions stay. */
static void run_user_capabilities(struct spec_process *p, const struct exec_options *options)
{
  uint64_t held = p->uid == 0 ? p->cap_bounding : options->caps;

  p->cap_effective = held;
  p->cap_permitted = held;
  p->cap_inheritable = options->caps;
  p->cap_ambient = 0;
}

/* Whose stdio the process gets without a terminal. An OCI caller (conmon,
 * containerd's shim) hands exec pipes it made for the process, and
 * expects the process to hold them: they are handed over as they are
 * when all three are pipes, sockets or null devices. Anything else (a
 * person's terminal, a file) is relayed through ocirun's own pipes, and so
 * is every exec into a live `ocirun run`, which no OCI caller drives. */
static bool hand_over_stdio(const struct exec_target *target)
{
  if (target->run)
    return false;
  for (int fd = 0; fd < 3; fd++) {
    if (!stdio_relay_may_hand_over(fd))
      return false;
  }
  return true;
}

/* on a path that already failed, whose error is the one reported */
static void relay_clearp(struct stdio_relay **relay)
{
  oci_error_t ignored = NULL;

  if (*relay != NULL)
    stdio_relay_clear(*relay, &ignored);
  oci_error_free(&ignored);
}

/* The process has exec'd, before ocirun relays or returns: with ocirun's
 * own terminal, the pty's master received and attached (the caller's
 * terminal raw), then its pid file. A failure kills and reaps it: nothing
 * is left behind, and the caller's terminal comes back with the relay. */
static int exec_started(pid_t pid, const struct exec_options *options, int own_end,
                        struct stdio_relay *relay, oci_error_t *err)
{
  oci_error_t wait_err = NULL;
  int master, ignored;

  if (own_end >= 0 && ((master = console_receive(own_end, err)) < 0 ||
                       stdio_relay_attach_terminal(relay, master, err) < 0))
    oci_error_wrap(err, "exec: a terminal nobody relays: process %d killed", (int)pid);
  else if (options->pid_file != NULL && container_write_pid_file(options->pid_file, pid, err) < 0)
    oci_error_wrap(err, "exec: process %d killed, its pid file '%s' not written", (int)pid,
                   options->pid_file);
  else
    return 0;
  kill(pid, SIGKILL);
  runtime_exec_wait(pid, &ignored, &wait_err);
  oci_error_free(&wait_err);
  return -1;
}

static int exec_supervised(const char *root, const char *id, const struct exec_options *options,
                           char *const *command, size_t n_command,
                           struct supervise_signals *signals, int *exit_code, oci_error_t *err)
{
  struct stdio_relay relay;
  /* &relay while it is open and ocirun's to clear */
  __attribute__((cleanup(relay_clearp))) struct stdio_relay *relaying = NULL;
  __attribute__((cleanup(exec_target_clear))) struct exec_target target = {.pidfd = -1};
  __attribute__((cleanup(spec_clearp))) struct spec from_file = {0};
  cleanup_close int console_fd = -1, own_end = -1;
  struct spec_process *process;
  struct runtime_exec exec;
  bool relays;
  pid_t pid;
  int ret;

  if (exec_target_resolve(root, id, &target, err) < 0)
    return -1;
  /* The target's configuration: the seccomp filter every process of the
   * container gets, and the process that --process replaces. */
  if (options->process_file != NULL) {
    if (load_process_file(options->process_file, target.spec.oci_version, &from_file, err) < 0)
      return -1;
  } else if (process_from_options(&target.spec, options, command, n_command, err) < 0) {
    return -1;
  } else if (target.run && options->user != NULL) {
    run_user_capabilities(&target.spec.process, options);
  }
  process = options->process_file != NULL ? &from_file.process : &target.spec.process;
  if (options->tty)
    process->terminal = true;
  if (check_terminal(process, options, err) < 0)
    return -1;
  /* ocirun waits (relaying or not): from before anything exists until
   * the process is reaped, no signal of the caller's ends ocirun with the
   * process left running and the caller's terminal raw
   * (runtime_exec_relay forwards them); restored by run_exec once the
   * relay is cleared. */
  relays = process->terminal ? options->console_socket == NULL
                             : !options->detach && !hand_over_stdio(&target);
  if (!options->detach &&
      supervise_signals_take(signals, relays && process->terminal, "exec", err) < 0)
    return -1;
  if (process->terminal && options->console_socket != NULL) {
    console_fd = console_socket_connect(options->console_socket, err);
    if (console_fd < 0)
      return -1;
  } else if (process->terminal) {
    int pair[2];

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0)
      return oci_error_errno(err, "exec: socketpair for the terminal");
    own_end = pair[0];
    console_fd = pair[1];
    size_from_caller(process);
    relaying = &relay;
    if (stdio_relay_open_terminal(&relay, (const int[3]){STDIN_FILENO, STDOUT_FILENO, -1}, err) < 0)
      return -1;
  } else if (relays) {
    /* a person's terminal or files: ocirun's pipes, relayed while the
     * process lives (its stdin only with -i, as docker exec's) */
    relaying = &relay;
    if (stdio_relay_open(
            &relay,
            (const int[3]){options->interactive ? STDIN_FILENO : -1, STDOUT_FILENO, STDERR_FILENO},
            err) < 0)
      return -1;
  }
  exec = (struct runtime_exec){
      .spec = &target.spec,
      .process = process,
      .console_fd = console_fd,
      .pid = target.pid,
      .pidfd = target.pidfd,
      .cgroup_path = target.cgroup_path,
      .sub_cgroup = options->cgroup,
      .state_root = root,
      .set_groups = setgroups_allowed(target.pid),
      .stdio = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO},
  };
  if (relaying != NULL && !process->terminal)
    memcpy(exec.stdio, relay.container_fd, sizeof(exec.stdio));
  ret = runtime_exec_start(&exec, &pid, err);
  if (relaying != NULL)
    stdio_relay_close_container_ends(&relay);
  if (ret < 0) {
    *exit_code = ret < -1 ? -ret : OCI_EXIT_FAILURE;
    return -1;
  }
  /* the process has its pty: the master is in the socket (or the caller's) */
  close(console_fd);
  console_fd = -1;
  if (exec_started(pid, options, own_end, &relay, err) < 0)
    return -1;
  if (options->detach) {
    *exit_code = 0;
    return 0;
  }
  relaying = NULL; /* runtime_exec_relay clears it */
  return runtime_exec_relay(pid, relays ? &relay : NULL, signals->fd, exit_code, err);
}

/* The caller's signals, if exec_supervised took them, given back once the
 * process is reaped (or killed) and the caller's terminal restored. */
static int run_exec(const char *root, const char *id, const struct exec_options *options,
                    char *const *command, size_t n_command, int *exit_code, oci_error_t *err)
{
  struct supervise_signals signals = SUPERVISE_SIGNALS_NONE;
  oci_error_t restore_err = NULL;
  int ret = exec_supervised(root, id, options, command, n_command, &signals, exit_code, err);

  if (supervise_signals_restore(&signals, "exec", &restore_err) == 0)
    return ret;
  if (ret < 0) {
    oci_error_free(&restore_err);
    return ret;
  }
  *err = restore_err;
  *exit_code = OCI_EXIT_FAILURE;
  return -1;
}

/* The options into *options (its env has room for argc names): -1 when
 * the process is to run, else the exit code (usage, --help). */
static int parse_exec_options(int argc, char **argv, struct exec_options *options)
{
  static const char usage[] =
      "Usage: ocirun exec [OPTIONS] ID|NAME [COMMAND [ARG...]]\n"
      "\n"
      "Runs a process in a running container: it joins the container's namespaces\n"
      "and cgroup and gets its seccomp filter, with the user, capabilities,\n"
      "rlimits and no-new-privileges of the process given. ID is an OCI container\n"
      "(ocirun create); NAME a live `ocirun run --name NAME` of the same --root,\n"
      "whose environment, user, working directory and capabilities it starts from.\n"
      "\n"
      "  -p, --process FILE   the process, as config.json's \"process\" object\n"
      "                       (COMMAND and the options below are then not used)\n"
      "  -d, --detach         return once it runs; its exit is its parent's to reap\n"
      "      --pid-file FILE  write its pid (the host's pid namespace); one that\n"
      "                       cannot be written kills the process (exit 1)\n"
      "      --cwd DIR        working directory (default: the container's)\n"
      "  -e, --env NAME=VALUE add to the container's environment\n"
      "  -u, --user UID[:GID] run as this user (numbers)\n"
      "  -c, --cap CAP        add a capability\n"
      "      --no-new-privs   set no-new-privileges\n"
      "  -t, --tty            a terminal: a pty of the container's devpts is the\n"
      "                       process's stdio and controlling terminal; ocirun\n"
      "                       relays it to its own stdin and stdout (raw mode)\n"
      "      --console-socket S  with a terminal: send the pty's master to the\n"
      "                       unix socket S instead (SCM_RIGHTS), as runc does\n"
      "  -i, --interactive    relay ocirun's stdin to the process (see below)\n"
      "      --cgroup SUB     run the process in SUB, an existing cgroup under the\n"
      "                       container's slice (plain names: no '..', not absolute),\n"
      "                       as runc and crun do; without it, the slice itself\n"
      "\n"
      "Stdio without a terminal: the process never holds ocirun's caller's terminal\n"
      "or files. When 0, 1 and 2 are all pipes, sockets or /dev/null (what an OCI\n"
      "caller such as conmon or containerd's shim hands over; not a named FIFO)\n"
      "and ID is an OCI container, they are the process's own; otherwise (a\n"
      "terminal, a file, any NAME of a live run) ocirun relays them through pipes\n"
      "of its own while the process lives, stdin only with -i. --detach cannot\n"
      "relay: it takes only pipes, sockets or /dev/null.\n"
      "\n"
      "Exit status: the process's own (128+N for signal N) unless --detach; 126/127\n"
      "when the command cannot run or is not found; 1 when ocirun failed; 2 usage.\n";
  static const struct option long_options[] = {
      {"process", required_argument, NULL, 'p'},
      {"detach", no_argument, NULL, 'd'},
      {"pid-file", required_argument, NULL, 'P'},
      {"cwd", required_argument, NULL, 'w'},
      {"env", required_argument, NULL, 'e'},
      {"user", required_argument, NULL, 'u'},
      {"cap", required_argument, NULL, 'c'},
      {"no-new-privs", no_argument, NULL, 'n'},
      {"tty", no_argument, NULL, 't'},
      {"interactive", no_argument, NULL, 'i'},
      {"console-socket", required_argument, NULL, 's'},
      {"cgroup", required_argument, NULL, 'g'},
      {"preserve-fds", required_argument, NULL, 'F'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  oci_error_t err = NULL;
  int c;

  optind = 0;
  while ((c = options_next(argc, argv, "+p:de:u:c:tih", long_options, &err)) != -1) {
    switch (c) {
    case 'p':
      options->process_file = optarg;
      break;
    case 'd':
      options->detach = true;
      break;
    case 'P':
      options->pid_file = optarg;
      break;
    case 'w':
      options->cwd = optarg;
      break;
    case 'e':
      if (strchr(optarg, '=') == NULL)
        return oci_usage_error("exec", "--env '%s': NAME=VALUE is expected", optarg);
      options->env[options->n_env++] = optarg;
      break;
    case 'u':
      options->user = optarg;
      break;
    case 'c': {
      int cap = capability_from_name(optarg);
      if (cap < 0)
        return oci_usage_error("exec", "--cap '%s': unknown capability", optarg);
      options->caps |= UINT64_C(1) << cap;
      break;
    }
    case 'n':
      options->no_new_privileges = true;
      break;
    case 't':
      options->tty = true;
      break;
    case 'i':
      options->interactive = true;
      break;
    case 's':
      options->console_socket = optarg;
      break;
    case 'g':
      options->cgroup = optarg;
      break;
    case 'F':
      if (strcmp(optarg, "0") != 0)
        return oci_usage_error("exec", "--preserve-fds is not supported by ocirun");
      break;
    case 'h':
      fputs(usage, stdout);
      return EXIT_OK;
    default:
      return oci_option_error("exec", &err);
    }
  }
  if (optind >= argc)
    return oci_usage_error("exec", "the container id is missing");
  if (options->process_file != NULL && optind + 1 < argc)
    return oci_usage_error("exec", "--process and a COMMAND: give one of them");
  return -1;
}

int command_oci_exec(int argc, char **argv, const struct global_options *global)
{
  struct exec_options options = {0};
  cleanup_free char **env = calloc((size_t)argc + 1, sizeof(*env));
  oci_error_t err = NULL;
  const char *id;
  int ret, exit_code = OCI_EXIT_FAILURE;

  if (env == NULL)
    return OCI_EXIT_FAILURE;
  options.env = env;
  ret = parse_exec_options(argc, argv, &options);
  if (ret >= 0)
    return ret;
  id = argv[optind];
  if (run_exec(global->root, id, &options, argv + optind + 1, (size_t)(argc - optind - 1),
               &exit_code, &err) < 0) {
    log_error(&err);
    return exit_code;
  }
  return exit_code;
}
