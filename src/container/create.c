/* create (runtime-spec runtime.md "Lifecycle", steps 1-5): the bundle's
 * config.json parsed into a struct spec, the runtime asked to build
 * everything up to the user program (runtime_create, which runs create's
 * hooks, prestart, createRuntime and createContainer, at their places),
 * the container recorded. A failure at any step once the id is taken ends
 * in the destroyer, so no container is left behind (runtime.md: "If the
 * runtime is unable to create the environment ... it MUST generate an
 * error"). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "container/container.h"
#include "container/lifecycle.h"
#include "oci/cleanup.h"
#include "runtime/plan.h"
#include "runtime/process_stat.h"
#include "runtime/state/run_state.h"
#include "runtime/runtime.h"

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

/* A terminal needs the caller's console socket (where the pty's master
 * goes), and a console socket a terminal; the runtime makes the pty. */
static int check_terminal(const struct spec *spec, const struct container_create_options *options,
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

/* Without a cgroup, a new pid namespace is the one thing that holds every
 * process of the container (its pid 1's death kills them all): without
 * it, a daemon would outlive delete --force, unseen. */
static int check_no_cgroup(const struct spec *spec, const struct container_create_options *options,
                           oci_error_t *err)
{
  if (!options->unsafe_no_cgroup)
    return 0;
  if (!spec->namespaces[SPEC_NS_PID].present || spec->namespaces[SPEC_NS_PID].path != NULL)
    return oci_error_set(err, 0,
                         "create: --unsafe-no-cgroup needs a new pid namespace in "
                         "linux.namespaces: without a cgroup or one, the container's processes "
                         "could not all be found and killed");
  if (spec->has_resources)
    return oci_error_set(err, 0,
                         "create: --unsafe-no-cgroup: config.json sets linux.resources, which "
                         "only a cgroup enforces");
  return 0;
}

/* A path the caller named relative to its working directory, made
 * absolute before create moves to the bundle's (*absolute NULL when path
 * is absolute already). */
static int caller_path(const char *option, const char *path, char **absolute, oci_error_t *err)
{
  char cwd[PATH_MAX];

  *absolute = NULL;
  if (path == NULL || path[0] == '/')
    return 0;
  if (getcwd(cwd, sizeof(cwd)) == NULL || asprintf(absolute, "%s/%s", cwd, path) < 0) {
    *absolute = NULL;
    return oci_error_errno(err, "create: %s '%s'", option, path);
  }
  return 0;
}

/* The runtime's part: the container's process, waiting on the exec FIFO,
 * and its slice, recorded with the process's start time. On failure the
 * runtime has removed what it made and nothing of it is recorded, so the
 * destroyer cannot touch a cgroup that is not this container's. */
static int create_process(const struct spec *spec, const char *root, const char *bundle,
                          const char *console_socket,
                          const struct container_create_options *options,
                          const struct oci_event_sink *events, struct container_handle *handle,
                          struct container *container, oci_error_t *err)
{
  cleanup_free char *fifo = container_exec_fifo_path(handle);
  /* Rootless or not is decided here, once, for the whole runtime. */
  struct runtime_options runtime_options = {
      .state_root = root,
      .id = handle->id,
      .bundle = bundle,
      .root = {.root_fd = -1}, /* root.path, opened by the runtime from the bundle */
      .rootless = geteuid() != 0,
      .unsafe_no_cgroup = options->unsafe_no_cgroup,
      .console_socket = console_socket,
      .events = events,
  };
  struct runtime_plan *plan = NULL;
  pid_t pid = -1;
  char *cgroup_path = NULL;
  int ret;

  if (fifo == NULL)
    return oci_error_set(err, ENOMEM, "create");
  if (runtime_plan_build(spec, &runtime_options, RUNTIME_PLAN_CREATE, &plan, err) < 0)
    return -1;
  ret = runtime_create(plan, fifo, &pid, &cgroup_path, err);
  runtime_plan_clear(&plan); /* the runtime's fds (root, fifo, console) go now */
  if (ret < 0)
    return -1;
  container->pid = pid;
  container->cgroup_path = cgroup_path;
  if (process_start_time(container->pid, &container->pid_start_time, err) < 0)
    return -1;
  return container_save(handle, container, err);
}

int container_create(const char *root, const char *id,
                     const struct container_create_options *options,
                     const struct oci_event_sink *events, pid_t *pid, oci_error_t *err)
{
  struct spec spec = {0};
  struct container container = {0};
  struct container_handle handle = {.containers_fd = -1, .dir_fd = -1};
  cleanup_close int bundle_fd = -1;
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
  if (caller_path("--pid-file", options->pid_file, &pid_file, err) < 0 ||
      caller_path("--console-socket", options->console_socket, &console_socket, err) < 0)
    return -1;
  /* As runc: create works from the bundle, so what is relative in it
   * (root.path, a hook's own relative paths) is the bundle's. */
  if (fchdir(bundle_fd) < 0)
    return oci_error_errno(err, "create: chdir to the bundle '%s'", bundle);
  if (spec_load_bundle_text(bundle_fd, bundle, &spec, &config_text, &config_length, err) < 0 ||
      check_terminal(&spec, options, err) < 0 || check_no_cgroup(&spec, options, err) < 0 ||
      record_from_spec(&spec, id, bundle, &container, err) < 0 ||
      container_new(root, id, &handle, err) < 0)
    goto out;
  made = true;
  /* A first record (no pid): `state` answers "creating" meanwhile. */
  if (container_save_config(&handle, config_text, config_length, err) < 0 ||
      container_save(&handle, &container, err) < 0 ||
      container_exec_fifo_create(&handle, err) < 0 ||
      create_process(&spec, root, bundle,
                     console_socket != NULL ? console_socket : options->console_socket, options,
                     events, &handle, &container, err) < 0 ||
      (options->pid_file != NULL &&
       container_write_pid_file(pid_file != NULL ? pid_file : options->pid_file, container.pid,
                                err) < 0))
    goto out;
  *pid = container.pid;
  oci_emit(events, OCI_EVENT_CREATED, "container", id, "create: container '%s' created, pid %d", id,
           container.pid);
  ret = 0;
out:
  if (ret < 0 && made)
    container_destroy_failed(&handle, &container, "create", events);
  container_close(&handle);
  container_clear(&container);
  spec_clear(&spec);
  return ret;
}
