/* The docker backend: the recipe as the original client performs it, driving
 * a Docker engine through its CLI (engine from $DOCKER_HOST or the default
 * socket). Every docker command runs with fork/exec, never a shell; the flag
 * list the artifact records is the argv the engine's client received. A run
 * record names the container while it may exist, for `ocirun sweep`. */
#include "config.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "probe/docker_observer.h"
#include "probe/host_observer.h"
#include "oci/cleanup.h"
#include "oci/digest.h"
#include "probe/probe_backend.h"
#include "probe/process_capture.h"
#include "runtime/state/run_state.h"

/* Every docker command except the probe run itself: generous, because an
 * engine under emulation (the CI guest) creates containers slowly. */
#define DOCKER_COMMAND_TIMEOUT 300.0
/* The endpoint the docker CLI uses when DOCKER_HOST is unset or empty. */
#define DOCKER_DEFAULT_HOST "unix:///var/run/docker.sock"

static void capture_clearp(struct process_capture *capture)
{
  process_capture_clear(capture);
}
#define cleanup_capture __attribute__((cleanup(capture_clearp)))

/* Runs `docker ARGS...`; interrupt_fd (or -1) stops the wait early.
 * Returns 0 when it ran (check capture->exit_code), -1 with *err when ocirun
 * could not run it. */
static int docker(int interrupt_fd, char *const args[], const void *input, size_t input_length,
                  double timeout, struct process_capture *capture, oci_error_t *err)
{
  char *argv[64];
  size_t n = 0;

  argv[n++] = "docker";
  for (size_t i = 0; args[i] != NULL && n < 63; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  return process_capture_run(argv, NULL, input, input_length, timeout, interrupt_fd, capture, err);
}

static __attribute__((format(printf, 2, 3))) int set_text(char **field, const char *fmt, ...)
{
  va_list ap;

  free(*field);
  va_start(ap, fmt);
  if (vasprintf(field, fmt, ap) < 0)
    *field = NULL;
  va_end(ap);
  return 0;
}

/* Step 1: a reachable engine running Linux containers on cgroup v2. */
static int check_engine(struct probe_outcome *outcome, oci_error_t *err)
{
  cleanup_capture struct process_capture info = {0};
  cleanup_capture struct process_capture version = {0};
  cleanup_cjson cJSON *json = NULL;
  const cJSON *os_type, *cgroup_version, *kernel, *server_errors;

  if (docker(-1, (char *[]){"info", "--format", "{{json .}}", NULL}, NULL, 0,
             DOCKER_COMMAND_TIMEOUT, &info, err) < 0)
    return -1;
  if (info.exec_failed)
    return set_text(&outcome->unsupported,
                    "unsupported: the docker CLI cannot be run (%s); install docker.io",
                    strerror(info.exec_errno));
  json = cJSON_Parse(info.out);
  server_errors = cJSON_GetObjectItemCaseSensitive(json, "ServerErrors");
  if (info.exit_code != 0 || info.timed_out || !cJSON_IsObject(json) ||
      (cJSON_IsArray(server_errors) && cJSON_GetArraySize(server_errors) > 0))
    return set_text(&outcome->unsupported, "unsupported: no reachable Docker engine: %s",
                    info.timed_out ? "docker info timed out" : process_capture_message(&info));
  os_type = cJSON_GetObjectItemCaseSensitive(json, "OSType");
  cgroup_version = cJSON_GetObjectItemCaseSensitive(json, "CgroupVersion");
  kernel = cJSON_GetObjectItemCaseSensitive(json, "KernelVersion");
  if (cJSON_IsString(kernel))
    outcome->kernel = strdup(kernel->valuestring);
  if (cJSON_IsString(cgroup_version))
    outcome->cgroup_version = atoi(cgroup_version->valuestring);
  if (!cJSON_IsString(os_type) || strcmp(os_type->valuestring, "linux") != 0 ||
      !cJSON_IsString(cgroup_version) || strcmp(cgroup_version->valuestring, "2") != 0)
    return set_text(&outcome->unsupported,
                    "unsupported: requires Linux containers with cgroup v2; this host is "
                    "unsupported (the engine reports OSType %s, CgroupVersion %s)",
                    cJSON_IsString(os_type) ? os_type->valuestring : "unknown",
                    cJSON_IsString(cgroup_version) ? cgroup_version->valuestring : "unknown");

  if (docker(-1, (char *[]){"version", "--format", "{{.Server.Version}}", NULL}, NULL, 0,
             DOCKER_COMMAND_TIMEOUT, &version, err) < 0)
    return -1;
  if (version.exit_code != 0 || version.out[0] == '\0')
    return set_text(&outcome->unsupported, "unsupported: docker version failed: %s",
                    process_capture_message(&version));
  version.out[strcspn(version.out, "\r\n")] = '\0';
  outcome->docker_server = strdup(version.out);
  outcome->engine_version = strdup(version.out);
  if (outcome->docker_server == NULL || outcome->engine_version == NULL)
    return oci_error_errno(err, "probe: allocate");
  return 0;
}

/* Step 2: the image the user named, already in the engine (never pulled),
 * to its ID and the manifest digests the engine knows. */
static int resolve_image(const char *image, struct probe_outcome *outcome, oci_error_t *err)
{
  cleanup_capture struct process_capture inspect = {0};
  cleanup_cjson cJSON *json = NULL;
  const cJSON *id, *repo_digests, *item;
  size_t n = 0;

  if (docker(-1,
             (char *[]){"image", "inspect", "--format", "{{json .}}", "--", (char *)image, NULL},
             NULL, 0, DOCKER_COMMAND_TIMEOUT, &inspect, err) < 0)
    return -1;
  if (inspect.exit_code != 0)
    return oci_error_set(err, 0,
                         "probe: image '%s' is not in the Docker engine (it is never pulled): %s",
                         image, process_capture_message(&inspect));
  json = cJSON_Parse(inspect.out);
  id = cJSON_GetObjectItemCaseSensitive(json, "Id");
  if (!cJSON_IsString(id) || !oci_digest_valid(id->valuestring))
    return oci_error_set(err, 0, "probe: docker image inspect '%s' gave no valid image ID", image);
  snprintf(outcome->image_id, sizeof(outcome->image_id), "%s", id->valuestring);

  repo_digests = cJSON_GetObjectItemCaseSensitive(json, "RepoDigests");
  outcome->repo_digests = calloc((size_t)cJSON_GetArraySize(repo_digests) + 1, sizeof(char *));
  if (outcome->repo_digests == NULL)
    return oci_error_errno(err, "probe: allocate");
  cJSON_ArrayForEach(item, repo_digests)
  {
    const char *at;
    if (!cJSON_IsString(item) || (at = strchr(item->valuestring, '@')) == NULL ||
        !oci_digest_valid(at + 1))
      continue;
    if ((outcome->repo_digests[n++] = strdup(item->valuestring)) == NULL)
      return oci_error_errno(err, "probe: allocate");
    /* Docker keeps one manifest digest per repository; they name the same
     * manifest for an image that was pulled once. */
    if (outcome->manifest_digest == NULL && (outcome->manifest_digest = strdup(at + 1)) == NULL)
      return oci_error_errno(err, "probe: allocate");
  }
  return 0;
}

static char **create_argv(char **flags, const char *image_id)
{
  size_t n_flags = 0;
  while (flags[n_flags] != NULL)
    n_flags++;
  cleanup_strv char **argv = calloc(n_flags + 8, sizeof(char *));
  const char *head[] = {"docker", "create", "--interactive"};
  const char *tail[] = {image_id, "python", "-"};
  size_t n = 0;

  if (argv == NULL)
    return NULL;
  for (size_t i = 0; i < 3; i++)
    if ((argv[n++] = strdup(head[i])) == NULL)
      return NULL;
  for (size_t i = 0; i < n_flags; i++)
    if ((argv[n++] = strdup(flags[i])) == NULL)
      return NULL;
  for (size_t i = 0; i < 3; i++)
    if ((argv[n++] = strdup(tail[i])) == NULL)
      return NULL;
  return steal_pointer(&argv);
}

static void record_error(struct probe_outcome *outcome, const char *step, const char *detail)
{
  if (outcome->error == NULL)
    set_text(&outcome->error, "%s: %s", step, detail);
}

struct observe_context {
  struct probe_outcome *outcome;
  int interrupt_fd;
};

static void observe_before_program(void *context, pid_t starter, double seconds_left)
{
  struct observe_context *observe = context;
  struct probe_outcome *outcome = observe->outcome;

  cJSON_Delete(outcome->host_observed);
  outcome->host_observed = docker_observe_container(outcome->container_name, starter,
                                                    observe->interrupt_fd, seconds_left);
}

/* Steps 4-6: create by ID, start attached with the probe on stdin under the
 * deadline, read the exit code. Failures are recorded in the outcome. */
static int create_and_run(const struct probe_request *request, struct probe_outcome *outcome,
                          int interrupt_fd, oci_error_t *err)
{
  cleanup_capture struct process_capture create = {0};
  cleanup_capture struct process_capture start = {0};
  cleanup_capture struct process_capture inspect = {0};
  size_t program_length;
  const unsigned char *program = probe_program_bytes(&program_length);

  if (process_capture_run(outcome->engine_argv, NULL, NULL, 0, DOCKER_COMMAND_TIMEOUT, interrupt_fd,
                          &create, err) < 0)
    return -1;
  if (create.exit_code != 0 || create.timed_out || create.interrupted) {
    record_error(outcome, "docker create",
                 create.interrupted ? "interrupted"
                 : create.timed_out ? "timed out"
                                    : process_capture_message(&create));
    return 0;
  }
  /* The program is written only once the host has observed the container:
   * until then `python -` waits for it on stdin, alive. */
  if (process_capture_run_hooked(
          (char *[]){"docker", "start", "--attach", "--interactive", outcome->container_name, NULL},
          NULL, program, program_length, request->timeout_seconds, interrupt_fd,
          observe_before_program, &(struct observe_context){outcome, interrupt_fd}, &start,
          err) < 0)
    return -1;
  if (start.interrupted) {
    record_error(outcome, "docker start", "interrupted");
    return 0;
  }
  outcome->probe_ran = true;
  outcome->timed_out = start.timed_out;
  outcome->probe_stdout_length = start.out_length;
  outcome->probe_stdout = steal_pointer(&start.out);
  outcome->probe_stderr = steal_pointer(&start.err);
  if (start.timed_out)
    return 0;
  if (docker(
          -1,
          (char *[]){"inspect", "--format", "{{.State.ExitCode}}", outcome->container_name, NULL},
          NULL, 0, DOCKER_COMMAND_TIMEOUT, &inspect, err) < 0)
    return -1;
  if (inspect.exit_code != 0) {
    record_error(outcome, "docker inspect", process_capture_message(&inspect));
    outcome->probe_exit_code = -1;
    return 0;
  }
  outcome->probe_exit_code = atoi(inspect.out);
  return 0;
}

/* Step 7, always: remove by exact name, then list by exact name; only an
 * empty list verifies the teardown. */
static int teardown(struct probe_outcome *outcome, oci_error_t *err)
{
  cleanup_capture struct process_capture removal = {0};
  cleanup_capture struct process_capture listing = {0};
  cleanup_free char *filter = NULL;

  if (asprintf(&filter, "name=^%s$", outcome->container_name) < 0)
    return oci_error_errno(err, "probe: allocate");
  if (docker(-1, (char *[]){"rm", "--force", outcome->container_name, NULL}, NULL, 0,
             DOCKER_COMMAND_TIMEOUT, &removal, err) < 0)
    return -1;
  if (docker(-1, (char *[]){"ps", "--all", "--filter", filter, "--format", "{{.Names}}", NULL},
             NULL, 0, DOCKER_COMMAND_TIMEOUT, &listing, err) < 0)
    return -1;
  outcome->teardown_verified = listing.exit_code == 0 && !listing.timed_out &&
                               strspn(listing.out, " \r\n") == listing.out_length;
  if (!outcome->teardown_verified)
    record_error(outcome, "cleanup failed",
                 listing.exit_code != 0 ? process_capture_message(&listing)
                                        : "the container is still listed");
  return 0;
}

/* SIGINT, SIGTERM and SIGHUP are held while the engine has our container,
 * and read from a signalfd: an interrupt ends the wait, never the teardown. */
static int hold_interrupts(sigset_t *previous, oci_error_t *err)
{
  sigset_t held;

  sigemptyset(&held);
  sigaddset(&held, SIGINT);
  sigaddset(&held, SIGTERM);
  sigaddset(&held, SIGHUP);
  if (sigprocmask(SIG_BLOCK, &held, previous) < 0)
    return oci_error_errno(err, "probe: block interrupts");
  int fd = signalfd(-1, &held, SFD_CLOEXEC | SFD_NONBLOCK);
  if (fd < 0) {
    oci_error_errno(err, "probe: signalfd");
    sigprocmask(SIG_SETMASK, previous, NULL);
    return -1;
  }
  return fd;
}

/* Consumes a held interrupt, recording it; the artifact then fails. */
static void note_interrupt(int interrupt_fd, struct probe_outcome *outcome)
{
  struct signalfd_siginfo info;
  if (read(interrupt_fd, &info, sizeof(info)) == (ssize_t)sizeof(info)) {
    free(outcome->error);
    outcome->error = NULL;
    set_text(&outcome->error, "interrupted by signal %u: the probe did not complete",
             info.ssi_signo);
  }
}

/* The record first: a runner killed from here on leaves a record naming the
 * container and its engine, and `ocirun sweep` removes both. */
static int record_container(struct state_root *state, const struct probe_outcome *outcome,
                            oci_error_t *err)
{
  char *docker_host = getenv("DOCKER_HOST");
  struct run_record record = {
      .name = outcome->container_name,
      .docker_container = outcome->container_name,
      .docker_host =
          (docker_host != NULL && docker_host[0] != '\0' ? docker_host : DOCKER_DEFAULT_HOST),
  };
  return run_state_write(state, &record, err);
}

/* The record goes only with the container: an unverified teardown keeps it
 * for `ocirun sweep`, and the artifact's error says so. */
static int release_record(const struct state_root *state, struct probe_outcome *outcome,
                          oci_error_t *err)
{
  cleanup_free char *before = NULL;

  if (outcome->teardown_verified)
    return run_state_remove(state, outcome->container_name, err);
  before = steal_pointer(&outcome->error);
  set_text(&outcome->error, "%s; %s/run/%s.json is kept: `ocirun sweep` removes the container",
           before != NULL ? before : "teardown not verified", state->path, outcome->container_name);
  return 0;
}

int probe_backend_docker(const struct probe_request *request, struct probe_outcome *outcome,
                         oci_error_t *err)
{
  struct sigaction ignore = {.sa_handler = SIG_IGN}, previous;
  sigset_t previous_mask;
  cleanup_close int interrupt_fd = -1;
  cleanup_state_root struct state_root state = STATE_ROOT_NONE;
  int ret = -1;

  memset(outcome, 0, sizeof(*outcome));
  if ((outcome->engine_name = strdup("docker")) == NULL)
    return oci_error_errno(err, "probe: allocate");
  /* A docker client that exits early must not kill ocirun with SIGPIPE
   * while the probe is being written to it. */
  if (sigaction(SIGPIPE, &ignore, &previous) < 0)
    return oci_error_errno(err, "probe: ignore SIGPIPE");
  if ((interrupt_fd = hold_interrupts(&previous_mask, err)) < 0) {
    sigaction(SIGPIPE, &previous, NULL);
    return -1;
  }

  if (check_engine(outcome, err) < 0)
    goto out;
  if (outcome->unsupported != NULL) {
    ret = 0;
    goto out;
  }
  if (resolve_image(request->image, outcome, err) < 0 ||
      probe_container_name(&outcome->container_name, err) < 0)
    goto out;
  outcome->flags = probe_recipe_flags(outcome->container_name, request);
  if (outcome->flags == NULL ||
      (outcome->engine_argv = create_argv(outcome->flags, outcome->image_id)) == NULL) {
    oci_error_errno(err, "probe: build the docker command line");
    goto out;
  }
  /* $ROOT's run folder, opened once for the record's life */
  if (state_root_open(&state, request->root, STATE_RUN, false, err) < 0 ||
      record_container(&state, outcome, err) < 0)
    goto out;
  /* From here on something may exist in the engine: teardown always runs. */
  ret = create_and_run(request, outcome, interrupt_fd, err);
  if (outcome->host_observed == NULL)
    outcome->host_observed = host_observed_missing(
        "docker inspect and procfs", "the container never ran with the probe's stdin open");
  if (teardown(outcome, err) < 0)
    ret = -1;
  note_interrupt(interrupt_fd, outcome);
  {
    oci_error_t removal = NULL;
    if (release_record(&state, outcome, &removal) < 0) {
      ret = -1;
      if (*err == NULL)
        *err = removal;
      else
        oci_error_free(&removal);
    }
  }
out:
  sigprocmask(SIG_SETMASK, &previous_mask, NULL);
  sigaction(SIGPIPE, &previous, NULL);
  return ret;
}
