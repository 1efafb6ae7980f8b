/* `ocirun create`: the bundle's config.json parsed into a struct spec,
 * the runtime asked to build everything up to the user program
 * (runtime_create, which runs create's hooks, prestart, createRuntime and
 * createContainer, at their places), the container recorded. A failure at
 * any step leaves
 * no container behind: the process is killed, its cgroup and its state
 * removed (runtime.md: "If the runtime is unable to create the
 * environment ... it MUST generate an error"). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/command_oci.h"
#include "cli/log.h"
#include "oci/atomic_file.h"
#include "oci/cleanup.h"
#include "runtime/cgroup.h"
#include "runtime/hooks.h"
#include "runtime/process_stat.h"
#include "runtime/runtime.h"

struct create_options {
  const char *bundle;
  const char *pid_file;
  const char *console_socket;
  bool unsafe_no_cgroup;
};

static char *now_rfc3339(void)
{
  struct timespec ts;
  struct tm tm;
  char buf[64], seconds[32];

  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  strftime(seconds, sizeof(seconds), "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(buf, sizeof(buf), "%s.%09ldZ", seconds, ts.tv_nsec);
  return strdup(buf);
}

static char **strv_copy(char **v)
{
  size_t n = strv_length(v);
  char **copy;

  if (v == NULL)
    return NULL;
  copy = calloc(n + 1, sizeof(char *));
  for (size_t i = 0; copy != NULL && i < n; i++)
    if ((copy[i] = strdup(v[i])) == NULL) {
      strv_free(copy);
      return NULL;
    }
  return copy;
}

static int hooks_copy(const struct spec_hooks *from, struct spec_hook **to, size_t *n)
{
  *n = 0;
  *to = calloc(from->n_hooks + 1, sizeof(**to));
  if (*to == NULL)
    return -1;
  for (size_t i = 0; i < from->n_hooks; i++, (*n)++) {
    struct spec_hook *hook = &(*to)[i];
    hook->timeout = from->hooks[i].timeout;
    if ((hook->path = strdup(from->hooks[i].path)) == NULL ||
        (from->hooks[i].args != NULL && (hook->args = strv_copy(from->hooks[i].args)) == NULL) ||
        (from->hooks[i].env != NULL && (hook->env = strv_copy(from->hooks[i].env)) == NULL)) {
      (*n)++;
      return -1;
    }
  }
  return 0;
}

/* What the record keeps of the spec: the state's fields and the hooks
 * that run after create (config.json may change meanwhile). */
static int record_from_spec(const struct spec *spec, const char *id, const char *bundle,
                            struct container *container, oci_error_t *err)
{
  memset(container, 0, sizeof(*container));
  container->id = strdup(id);
  container->oci_version = strdup(spec->oci_version);
  container->bundle = strdup(bundle);
  container->created = now_rfc3339();
  container->owner = geteuid();
  container->annotations = calloc(spec->n_annotations + 1, sizeof(*container->annotations));
  if (container->id == NULL || container->oci_version == NULL || container->bundle == NULL ||
      container->created == NULL || container->annotations == NULL)
    return oci_error_set(err, ENOMEM, "create: record container '%s'", id);
  for (size_t i = 0; i < spec->n_annotations; i++, container->n_annotations++) {
    struct spec_key_value *kv = &container->annotations[i];
    if ((kv->key = strdup(spec->annotations[i].key)) == NULL ||
        (kv->value = strdup(spec->annotations[i].value)) == NULL) {
      container->n_annotations++;
      return oci_error_set(err, ENOMEM, "create: record container '%s'", id);
    }
  }
  if (hooks_copy(&spec->hooks[SPEC_HOOK_POSTSTART], &container->poststart,
                 &container->n_poststart) < 0 ||
      hooks_copy(&spec->hooks[SPEC_HOOK_POSTSTOP], &container->poststop, &container->n_poststop) <
          0)
    return oci_error_set(err, ENOMEM, "create: record container '%s'", id);
  return 0;
}

/* Undoes what create made after runtime_create returned: the process, its
 * cgroup, the container's directory. Errors are logged: the first failure
 * is the one the caller reports. */
static void destroy(struct container_handle *handle, const struct container *container)
{
  oci_error_t err = NULL;

  if (container->pid > 0 && container_signal(container, SIGKILL, &err) == 0)
    container_wait_gone(container, 10000, &err);
  oci_error_free(&err);
  if (container->cgroup_path != NULL && cgroup_remove_path(container->cgroup_path, &err) < 0)
    log_message("warning", "create: clean up: %s", err->message);
  oci_error_free(&err);
  if (container_remove(handle, &err) < 0)
    log_message("warning", "create: clean up: %s", err->message);
  oci_error_free(&err);
}

/* A terminal needs the caller's console socket (where the pty's master
 * goes), and a console socket a terminal; the runtime makes the pty. */
static int check_terminal(const struct spec *spec, const struct create_options *options,
                          oci_error_t *err)
{
  bool terminal = spec->has_process && spec->process.terminal;

  if (terminal && options->console_socket == NULL)
    return oci_error_set(err, 0, "create: process.terminal is true: --console-socket is required");
  if (!terminal && options->console_socket != NULL)
    return oci_error_set(err, 0,
                         "create: --console-socket given but process.terminal is not "
                         "true");
  return 0;
}

/* Every kind of the spec: the runtime runs each at its place. */
bool oci_hook_kind_supported(enum spec_hook_kind kind)
{
  return (unsigned)kind < SPEC_HOOK_KIND_COUNT;
}

static int create(const char *root, const char *id, const struct create_options *options,
                  oci_error_t *err)
{
  struct spec spec = {0};
  struct container container = {0};
  struct container_handle handle = {.containers_fd = -1, .dir_fd = -1};
  cleanup_close int bundle_fd = -1;
  cleanup_free char *fifo = NULL;
  cleanup_free char *pid_file = NULL;
  cleanup_free char *console_socket = NULL;
  cleanup_free char *config_text = NULL;
  size_t config_length = 0;
  char bundle[PATH_MAX];
  bool made = false;
  int ret = -1;

  if (realpath(options->bundle, bundle) == NULL)
    return oci_error_errno(err, "create: bundle '%s'", options->bundle);
  bundle_fd = open(bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (bundle_fd < 0)
    return oci_error_errno(err, "create: bundle '%s'", bundle);
  /* A relative --pid-file is the caller's working directory's, named
   * before create moves to the bundle's. */
  if (options->pid_file != NULL && options->pid_file[0] != '/') {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof(cwd)) == NULL ||
        asprintf(&pid_file, "%s/%s", cwd, options->pid_file) < 0) {
      pid_file = NULL;
      return oci_error_errno(err, "create: --pid-file '%s'", options->pid_file);
    }
  }
  if (options->console_socket != NULL) {
    char cwd[PATH_MAX];
    if (options->console_socket[0] == '/')
      console_socket = strdup(options->console_socket);
    else if (getcwd(cwd, sizeof(cwd)) == NULL ||
             asprintf(&console_socket, "%s/%s", cwd, options->console_socket) < 0)
      console_socket = NULL;
    if (console_socket == NULL)
      return oci_error_errno(err, "create: --console-socket '%s'", options->console_socket);
  }
  /* As runc: create works from the bundle, so what is relative in it
   * (root.path, a hook's own relative paths) is the bundle's. */
  if (fchdir(bundle_fd) < 0)
    return oci_error_errno(err, "create: chdir to the bundle '%s'", bundle);
  if (spec_load_bundle_text(bundle_fd, bundle, &spec, &config_text, &config_length, err) < 0 ||
      check_terminal(&spec, options, err) < 0)
    goto out;
  /* Without a cgroup, a new pid namespace is the one thing that holds
   * every process of the container (its pid 1's death kills them all):
   * without it, a daemon would outlive delete --force, unseen. */
  if (options->unsafe_no_cgroup &&
      (!spec.namespaces[SPEC_NS_PID].present || spec.namespaces[SPEC_NS_PID].path != NULL)) {
    oci_error_set(err, 0,
                  "create: --unsafe-no-cgroup needs a new pid namespace in linux.namespaces: "
                  "without a cgroup or one, the container's processes could not all be found "
                  "and killed");
    goto out;
  }
  if (options->unsafe_no_cgroup && spec.has_resources) {
    oci_error_set(err, 0,
                  "create: --unsafe-no-cgroup: config.json sets linux.resources, which "
                  "only a cgroup enforces");
    goto out;
  }
  if (record_from_spec(&spec, id, bundle, &container, err) < 0)
    goto out;
  if (container_new(root, id, &handle, err) < 0)
    goto out;
  made = true;
  /* A first record (no pid): `state` answers "creating" meanwhile. */
  if (container_save_config(&handle, config_text, config_length, err) < 0 ||
      container_save(&handle, &container, err) < 0 || container_exec_fifo_create(&handle, err) < 0)
    goto out;
  fifo = container_exec_fifo_path(&handle);
  if (fifo == NULL) {
    oci_error_set(err, ENOMEM, "create");
    goto out;
  }
  {
    /* Rootless or not is decided here, once, for the whole runtime. */
    struct runtime_options runtime_options = {
        .state_root = root,
        .id = id,
        .bundle = bundle,
        .root = {.root_fd = -1}, /* root.path, opened by the runtime from the bundle */
        .rootless = geteuid() != 0,
        .unsafe_no_cgroup = options->unsafe_no_cgroup,
        .console_socket = console_socket,
        .hook_log = log_hook_sink(),
    };
    pid_t pid = -1;
    char *cgroup_path = NULL;
    /* On failure the runtime has removed what it made and nothing of it
     * is recorded, so destroy() cannot touch a cgroup that is not this
     * container's. */
    if (runtime_create(&spec, &runtime_options, fifo, &pid, &cgroup_path, err) < 0)
      goto out;
    container.pid = pid;
    container.cgroup_path = cgroup_path;
  }
  if (process_start_time(container.pid, &container.pid_start_time, err) < 0 ||
      container_save(&handle, &container, err) < 0 ||
      (options->pid_file != NULL &&
       oci_write_pid_file(pid_file != NULL ? pid_file : options->pid_file, container.pid, err) < 0))
    goto out;
  log_message("debug", "create: container '%s' created, pid %d", id, container.pid);
  ret = 0;
out:
  if (ret < 0 && made) {
    destroy(&handle, &container);
    /* The spec's step 12-13: after a failed create, the poststop hooks. */
    if (container.n_poststop > 0) {
      cleanup_free char *state = container_state_json(&container, CONTAINER_STOPPED, false, NULL);
      oci_error_t hook_err = NULL;
      if (state != NULL)
        hooks_run(container.poststop, container.n_poststop, SPEC_HOOK_POSTSTOP, "poststop", state,
                  log_hook_sink(), &hook_err);
      oci_error_free(&hook_err);
    }
  }
  container_close(&handle);
  container_clear(&container);
  spec_clear(&spec);
  return ret;
}

int command_oci_create(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] =
      "Usage: ocirun create [OPTIONS] ID\n"
      "\n"
      "Creates container ID from the bundle's config.json: namespaces, cgroup,\n"
      "mounts, root, user, capabilities and seccomp, everything up to the user\n"
      "program, which runs at 'ocirun start ID'; the prestart, createRuntime and\n"
      "createContainer hooks run before pivot_root. stdio: ocirun's own 0, 1 and 2,\n"
      "or with process.terminal a pty\n"
      "whose master is sent to --console-socket.\n"
      "\n"
      "  -b, --bundle DIR         the bundle (default: the current directory)\n"
      "  --pid-file FILE          write the container's pid (host's pid namespace)\n"
      "  --console-socket SOCKET  a unix socket the pty's master is sent to\n"
      "                           (SCM_RIGHTS) when process.terminal is true\n"
      "  --unsafe-no-cgroup       no cgroup at all (hosts without cgroup v2): refused\n"
      "                           when config.json sets linux.resources; no pause,\n"
      "                           ps or kill --all\n"
      "  --no-pivot               refused: ocirun always pivot_roots\n"
      "  --no-new-keyring         refused: ocirun always gives the container a new\n"
      "                           session keyring\n"
      "  --preserve-fds N         only 0: ocirun passes no extra fds\n";
  static const struct option options[] = {
      {"bundle", required_argument, NULL, 'b'},
      {"pid-file", required_argument, NULL, 'p'},
      {"console-socket", required_argument, NULL, 'c'},
      {"unsafe-no-cgroup", no_argument, NULL, 'U'},
      {"no-pivot", no_argument, NULL, 'P'},
      {"no-new-keyring", no_argument, NULL, 'K'},
      {"preserve-fds", required_argument, NULL, 'F'},
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  struct create_options create_options = {.bundle = "."};
  oci_error_t err = NULL;
  const char *id;
  int c;

  while ((c = options_next(argc, argv, "+b:h", options, &err)) != -1) {
    switch (c) {
    case 'b':
      create_options.bundle = optarg;
      break;
    case 'p':
      create_options.pid_file = optarg;
      break;
    case 'c':
      create_options.console_socket = optarg;
      break;
    case 'U':
      create_options.unsafe_no_cgroup = true;
      break;
    case 'P':
      return oci_usage_error("create", "--no-pivot is not supported: ocirun always uses "
                                       "pivot_root (a ramdisk root cannot be run)");
    case 'K':
      return oci_usage_error("create", "--no-new-keyring is not supported: ocirun always gives "
                                       "the container a session keyring of its own");
    case 'F':
      if (strcmp(optarg, "0") != 0)
        return oci_usage_error("create",
                               "--preserve-fds %s: ocirun passes no extra fds to the "
                               "container (only 0 is accepted)",
                               optarg);
      break;
    case 'h':
      fputs(usage, stdout);
      return EXIT_OK;
    default:
      return oci_option_error("create", &err);
    }
  }
  id = oci_take_id("create", argc, argv);
  if (id == NULL)
    return EXIT_USAGE;
  if (!container_id_valid(id))
    return oci_usage_error("create", "invalid container id '%s'", id);
  if (create(global->root, id, &create_options, &err) < 0)
    return oci_fail(&err);
  return EXIT_OK;
}
