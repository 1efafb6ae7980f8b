/* The direct backend: the probe is an ordinary `ocirun run` workload. The
 * recipe's flag list is parsed by the same parser `ocirun run` uses, and the
 * run goes through the same resolve, unpack and runtime_run calls, with the
 * probe program on stdin and its output captured in memory files. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "runtime/cgroup/slice.h"
#include "probe/host_observer.h"
#include "oci/cleanup.h"
#include "oci/digest.h"
#include "oci/oci.h"
#include "probe/probe_backend.h"
#include "docker_run/run_config.h"
#include "docker_run/docker_run.h"
#include "runtime/seccomp/filter.h"

/* The probe prints one small JSON object; more than this is not read. */
#define PROBE_OUTPUT_MAX ((size_t)1 << 20)

static void store_closep(struct oci_store **store)
{
  if (*store != NULL)
    oci_store_close(*store);
}
static void image_freep(struct oci_image **image)
{
  if (*image != NULL)
    oci_image_free(*image);
}

static char **strv_copy(char *const *list, size_t n)
{
  char **copy = calloc(n + 1, sizeof(char *));
  for (size_t i = 0; copy != NULL && i < n; i++)
    if ((copy[i] = strdup(list[i])) == NULL) {
      cleanup_strv char **free_me = copy;
      return NULL;
    }
  return copy;
}

/* The command line `ocirun run` would be given for this probe:
 * run FLAGS... --interactive --timeout T [--unsafe-no-cgroup] IMAGE_ID python - */
static char **direct_argv(char **flags, const struct probe_request *request, const char *image_id)
{
  size_t n_flags = strv_length(flags);
  char timeout[32];
  char *tail[6];
  size_t n_tail = 0;
  cleanup_strv char **argv = calloc(n_flags + 10, sizeof(char *));

  if (argv == NULL || (argv[0] = strdup("run")) == NULL)
    return NULL;
  for (size_t i = 0; i < n_flags; i++)
    if ((argv[1 + i] = strdup(flags[i])) == NULL)
      return NULL;
  snprintf(timeout, sizeof(timeout), "%g", request->timeout_seconds);
  tail[n_tail++] = "--interactive";
  tail[n_tail++] = "--timeout";
  tail[n_tail++] = timeout;
  if (request->unsafe_no_cgroup)
    tail[n_tail++] = "--unsafe-no-cgroup";
  tail[n_tail++] = (char *)image_id;
  for (size_t i = 0; i < n_tail; i++)
    if ((argv[1 + n_flags + i] = strdup(tail[i])) == NULL)
      return NULL;
  if ((argv[1 + n_flags + n_tail] = strdup("python")) == NULL ||
      (argv[2 + n_flags + n_tail] = strdup("-")) == NULL)
    return NULL;
  return steal_pointer(&argv);
}

/* A memory file for the probe's stdout or stderr, sized PROBE_OUTPUT_MAX
 * and sealed against growing: the relay writes the container's output
 * into it, and its pages are charged to ocirun's cgroup, not the slice, so
 * an unbounded file would let the workload fill the host's memory past
 * the recipe's --memory until the deadline. A write past the end fails
 * (EPERM), which ends that stream as a reader that went away would. */
static int output_memfd(const char *name, oci_error_t *err)
{
  cleanup_close int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

  if (fd < 0)
    return oci_error_errno(err, "memfd_create %s", name);
  if (ftruncate(fd, (off_t)PROBE_OUTPUT_MAX) < 0 ||
      fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0)
    return oci_error_errno(err, "size and seal %s at %zu bytes", name, PROBE_OUTPUT_MAX);
  return steal_fd(&fd);
}

/* What the relay wrote into an output memory file (its file position:
 * the file itself is PROBE_OUTPUT_MAX long), NUL-terminated; its length
 * in *out_length. */
static char *memfd_text(int fd, size_t *out_length)
{
  char *text = malloc(PROBE_OUTPUT_MAX + 1);
  off_t written = lseek(fd, 0, SEEK_CUR);
  size_t length = 0, end = written < 0 ? 0 : (size_t)written;

  if (text == NULL)
    return NULL;
  if (end > PROBE_OUTPUT_MAX)
    end = PROBE_OUTPUT_MAX;
  while (length < end) {
    ssize_t n = pread(fd, text + length, end - length, (off_t)length);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    length += (size_t)n;
  }
  text[length] = '\0';
  *out_length = length;
  return text;
}

/* The host observer's side of a run: the probe program waits in a pipe
 * until the container's process has been observed. `python -` cannot start
 * before its program has reached end of file, so a genuine probe is alive
 * and unreaped when the host looks; an image that exits at once leaves the
 * observation missing, which fails its checks. */
struct host_watch {
  int program_fd; /* the stdin pipe's write end, -1 once closed */
  const unsigned char *program;
  size_t program_length;
  cJSON *observed;
  char *feed_error;
};

static void host_watch_feed(struct host_watch *watch)
{
  ssize_t n;

  /* Non-blocking, into a pipe sized for the whole program: a workload that
   * never reads cannot hold ocirun past its deadline. */
  do
    n = write(watch->program_fd, watch->program, watch->program_length);
  while (n < 0 && errno == EINTR);
  if (n != (ssize_t)watch->program_length &&
      asprintf(&watch->feed_error, "write the probe program to its stdin: %s",
               n < 0 ? strerror(errno) : "short write") < 0)
    watch->feed_error = NULL;
  close(watch->program_fd);
  watch->program_fd = -1;
}

static void host_watch_on_exec(const struct run_started *started, void *context)
{
  struct host_watch *watch = context;
  struct host_target target = {.pid = started->workload_pid,
                               .pidfd = started->workload_pidfd,
                               .cgroup_fd = started->cgroup_fd};
  bool not_local;

  watch->observed = host_observe_process(&target, "procfs", &not_local);
  host_watch_feed(watch);
}

static int host_watch_open(struct host_watch *watch, int *stdin_fd, oci_error_t *err)
{
  int fds[2];
  size_t program_length;

  memset(watch, 0, sizeof(*watch));
  watch->program = probe_program_bytes(&program_length);
  watch->program_length = program_length;
  watch->program_fd = -1;
  if (pipe2(fds, O_CLOEXEC) < 0)
    return oci_error_errno(err, "probe: stdin pipe");
  watch->program_fd = fds[1];
  *stdin_fd = fds[0];
  if (fcntl(fds[1], F_SETPIPE_SZ, (int)program_length) < 0 ||
      fcntl(fds[1], F_SETFL, O_NONBLOCK) < 0)
    return oci_error_errno(err, "probe: size the stdin pipe for %zu bytes", program_length);
  return 0;
}

static void host_watch_close(struct host_watch *watch)
{
  if (watch->program_fd >= 0)
    close(watch->program_fd);
  watch->program_fd = -1;
  cJSON_Delete(watch->observed);
  free(watch->feed_error);
  watch->observed = NULL;
  watch->feed_error = NULL;
}

static int host_cgroup_version(void)
{
  struct statfs fs;
  if (statfs(CGROUP_MOUNT, &fs) < 0)
    return 0;
  if (fs.f_type == CGROUP2_SUPER_MAGIC)
    return 2;
  return fs.f_type == TMPFS_MAGIC ? 1 : 0;
}

/* sha256 hex of the seccomp profile this configuration applies, built the
 * same way the runtime builds it (all capabilities dropped). */
static int seccomp_profile_sha256(const struct run_config *config, char **out, oci_error_t *err)
{
  struct seccomp_filter *filter = NULL;
  cleanup_free char *json = NULL;
  char digest[OCI_DIGEST_LEN];

  *out = NULL;
  if (config->seccomp_unconfined)
    return 0; /* unconfined: no profile */
  if (seccomp_filter_build(config->seccomp_profile_path, 0, &filter, err) < 0)
    return -1;
  if (filter == NULL)
    return 0; /* unconfined: no profile */
  json = seccomp_filter_profile_json(filter);
  seccomp_filter_free(filter);
  if (json == NULL)
    return oci_error_set(err, 0, "print the seccomp profile: out of memory");
  oci_sha256_buffer(json, strlen(json), digest);
  *out = strdup(digest + strlen("sha256:"));
  return *out == NULL ? oci_error_errno(err, "allocate the profile digest") : 0;
}

/* Independent of the runtime's own report: neither the run's cgroup, nor
 * its state record, nor its scratch directory may still exist. */
static bool leftovers_absent(const struct run_config *config, const char *root)
{
  cleanup_free char *parent = NULL;
  oci_error_t ignored = NULL;
  cleanup_close int parent_fd = -1;
  cleanup_free char *record = NULL;
  cleanup_free char *scratch = NULL;
  cleanup_close int root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat st;

  if (cgroup_resolve_parent(config->cgroup_parent, config->rootless, &parent, &ignored) < 0) {
    oci_error_free(&ignored);
    return false;
  }
  parent_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd >= 0 && fstatat(parent_fd, config->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
    return false;
  if (asprintf(&record, "run/%s.json", config->name) < 0)
    return false;
  if (root_fd >= 0 && fstatat(root_fd, record, &st, AT_SYMLINK_NOFOLLOW) == 0)
    return false;
  if (asprintf(&scratch, "run/%s", config->name) < 0)
    return false;
  if (root_fd >= 0 && fstatat(root_fd, scratch, &st, AT_SYMLINK_NOFOLLOW) == 0)
    return false;
  return true;
}

static int set_message(char **field, const char *prefix, oci_error_t *err)
{
  const char *message = (err != NULL && *err != NULL) ? (*err)->message : "unknown error";
  if (asprintf(field, "%s%s", prefix, message) < 0)
    *field = NULL;
  oci_error_free(err);
  return 0;
}

static int run_probe(struct oci_store *store, const struct oci_image *image,
                     const struct probe_request *request, struct probe_outcome *outcome,
                     struct run_config *config, struct host_watch *watch, oci_error_t *err)
{
  cleanup_free char *rootfs = NULL;
  cleanup_close int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;
  cleanup_close int rootfs_hold_fd = -1; /* the rootfs stays in use until the run is over */
  struct oci_unpack_options unpack_options = {.events = request->quiet ? NULL : request->events,
                                              .hold_fd = &rootfs_hold_fd};
  struct run_result result = {0};
  oci_error_t step_err = NULL;
  int next = 0;
  int argc = (int)strv_length(outcome->engine_argv);

  /* The same parser `ocirun run` uses: the flags mean what they mean there. */
  if (run_options_parse(argc, outcome->engine_argv, config, &next, &step_err) < 0)
    return set_message(&outcome->error, "parse the recipe flags: ", &step_err);
  if (next < 0 || next >= argc)
    return oci_error_set(err, 0, "probe: the recipe's command line has no image");
  if (run_config_set_command(config, outcome->engine_argv[next], outcome->engine_argv + next + 1,
                             (size_t)(argc - next - 1), err) < 0)
    return -1;
  config->rootless = request->rootless;
  if (oci_image_unpack(store, image, &unpack_options, &rootfs, &step_err) < 0)
    return set_message(&outcome->error, "unpack: ", &step_err);
  if (seccomp_profile_sha256(config, &outcome->seccomp_profile_sha256, &step_err) < 0)
    return set_message(&outcome->error, "seccomp profile: ", &step_err);

  if (host_watch_open(watch, &stdin_fd, err) < 0 ||
      (stdout_fd = output_memfd("probe-stdout", err)) < 0 ||
      (stderr_fd = output_memfd("probe-stderr", err)) < 0)
    return -1;
  struct run_io io = {.stdin_fd = stdin_fd,
                      .stdout_fd = stdout_fd,
                      .stderr_fd = stderr_fd,
                      .on_exec = host_watch_on_exec,
                      .context = watch,
                      .events = request->events};
  if (docker_run(oci_store_root(store), image, rootfs, config, &io, &result, &step_err) < 0)
    return set_message(&outcome->error, "run: ", &step_err);
  if (result.interrupted &&
      asprintf(&outcome->error, "interrupted by a signal: the probe did not complete") < 0)
    outcome->error = NULL;
  if (watch->feed_error != NULL && outcome->error == NULL)
    outcome->error = steal_pointer(&watch->feed_error);
  outcome->probe_ran = true;
  outcome->probe_exit_code = result.exit_code;
  outcome->timed_out = result.timed_out;
  outcome->teardown_verified = result.teardown_verified && leftovers_absent(config, request->root);
  outcome->probe_stdout = memfd_text(stdout_fd, &outcome->probe_stdout_length);
  outcome->probe_stderr = memfd_text(stderr_fd, &(size_t){0});
  if (outcome->probe_stdout == NULL || outcome->probe_stderr == NULL)
    return oci_error_errno(err, "read the probe's output");
  return 0;
}

int probe_backend_direct(const struct probe_request *request, struct probe_outcome *outcome,
                         oci_error_t *err)
{
  __attribute__((cleanup(store_closep))) struct oci_store *store = NULL;
  __attribute__((cleanup(image_freep))) struct oci_image *image = NULL;
  cleanup_free char *parent = NULL;
  struct run_config config;
  struct host_watch watch = {.program_fd = -1};
  oci_error_t host_err = NULL;
  struct utsname uts;
  int ret;

  memset(outcome, 0, sizeof(*outcome));
  if ((outcome->engine_name = strdup("ocirun-direct")) == NULL ||
      (outcome->engine_version = strdup(PACKAGE_VERSION)) == NULL)
    return oci_error_errno(err, "probe: allocate");
  if (uname(&uts) == 0)
    outcome->kernel = strdup(uts.release);
  outcome->cgroup_version = host_cgroup_version();

  /* 1. The host: cgroup v2 with memory, cpu and pids, or nothing is tried. */
  if (!request->unsafe_no_cgroup &&
      (cgroup_resolve_parent(NULL, request->rootless, &parent, &host_err) < 0 ||
       cgroup_check_host(parent, &host_err) < 0))
    return set_message(&outcome->unsupported, "unsupported: ", &host_err);

  /* 2. The image, resolved to its ID before anything is created; never fetched. */
  if (oci_store_open(request->root, &store, err) < 0 ||
      oci_image_resolve(store, request->image, &image, err) < 0)
    return -1;
  memcpy(outcome->image_id, image->image_id, sizeof(outcome->image_id));
  if ((outcome->manifest_digest = strdup(image->manifest_digest)) == NULL ||
      (outcome->repo_digests = strv_copy(image->repo_digests, strv_length(image->repo_digests))) ==
          NULL)
    return oci_error_errno(err, "probe: allocate");

  /* 3. One uniquely named container from the image ID, the recipe's flags. */
  if (probe_container_name(&outcome->container_name, err) < 0)
    return -1;
  outcome->flags = probe_recipe_flags(outcome->container_name, request);
  if (outcome->flags == NULL ||
      (outcome->engine_argv = direct_argv(outcome->flags, request, image->image_id)) == NULL)
    return oci_error_errno(err, "probe: build the recipe's command line");

  /* 4-5. Run it with the probe on stdin; the runtime tears down. */
  run_config_init(&config);
  ret = run_probe(store, image, request, outcome, &config, &watch, err);
  outcome->host_observed = steal_pointer(&watch.observed);
  if (outcome->host_observed == NULL)
    outcome->host_observed = host_observed_missing(
        "procfs", outcome->probe_ran ? "the container's process had exited before the host could "
                                       "observe it"
                                     : "the probe never ran");
  host_watch_close(&watch);
  if (ret == 0 && !outcome->probe_ran)
    /* Failed before or while building the boundary: verify nothing is left. */
    outcome->teardown_verified = config.name == NULL || leftovers_absent(&config, request->root);
  run_config_clear(&config);
  return ret;
}
