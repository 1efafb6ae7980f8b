/* Removes the Docker container of a probe whose runner died, for `ocirun
 * sweep`: `docker rm -f` and a listing by exact name, through the docker CLI
 * with a small environment of its own, under a deadline, never a shell. */
#include "config.h"

#include "docker_remove.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "probe_backend.h"

/* A docker call that has not finished by then is killed: an engine that
 * accepts connections but never answers must not hang sweep. */
#define DOCKER_CALL_TIMEOUT_SECONDS 120
#define DOCKER_OUTPUT_MAX 2048
/* Where the docker CLI is looked for when sweep's own PATH is unset. */
#define DOCKER_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

struct docker_call {
  int status;                  /* exit status, 128+signal, or -1 when killed at the deadline */
  char out[DOCKER_OUTPUT_MAX]; /* stdout, NUL-terminated, the rest discarded */
  char err[DOCKER_OUTPUT_MAX]; /* stderr, the same */
  size_t out_length, err_length;
};

/* Only names `ocirun probe` gives (PROBE_NAME_PREFIX + hex): a record cannot
 * make sweep remove someone else's container, nor pass an option as a name. */
static bool docker_container_valid(const char *name)
{
  size_t prefix = strlen(PROBE_NAME_PREFIX);
  if (strncmp(name, PROBE_NAME_PREFIX, prefix) != 0 || name[prefix] == '\0' || strlen(name) > 64)
    return false;
  for (const char *c = name + prefix; *c != '\0'; c++)
    if (!isxdigit((unsigned char)*c))
      return false;
  return true;
}

static bool docker_host_valid(const char *host)
{
  if (host[0] == '\0' || strlen(host) > 1024)
    return false;
  for (const char *c = host; *c != '\0'; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      return false;
  return true;
}

const char *docker_remove_endpoint(const char *docker_host)
{
  return docker_host != NULL ? docker_host : "the docker CLI's default endpoint";
}

/* Appends what *fd has to text (up to DOCKER_OUTPUT_MAX); closes *fd at EOF. */
static int docker_read(int *fd, char *text, size_t *length, oci_error_t *err)
{
  char chunk[4096];
  ssize_t n = read(*fd, chunk, sizeof(chunk));
  size_t keep;

  if (n < 0)
    return errno == EINTR ? 0 : oci_error_errno(err, "read the docker CLI's output");
  if (n == 0) {
    close(*fd);
    *fd = -1;
    return 0;
  }
  keep = DOCKER_OUTPUT_MAX - 1 - *length;
  if ((size_t)n < keep)
    keep = (size_t)n;
  memcpy(text + *length, chunk, keep);
  *length += keep;
  text[*length] = '\0';
  return 0;
}

static double monotonic_seconds(void)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* Waits for pid while draining its stdout and stderr, killing it at the
 * deadline. */
static int docker_wait(pid_t pid, int *out_fd, int *err_fd, struct docker_call *call,
                       oci_error_t *err)
{
  double deadline = monotonic_seconds() + DOCKER_CALL_TIMEOUT_SECONDS;
  bool timed_out = false, failed = false;
  int status;

  while (*out_fd >= 0 || *err_fd >= 0) {
    struct pollfd fds[2] = {{.fd = *out_fd, .events = POLLIN}, {.fd = *err_fd, .events = POLLIN}};
    double left = deadline - monotonic_seconds();
    int ready = poll(fds, 2, left <= 0 ? 0 : (int)(left * 1000) + 1);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready < 0) {
      oci_error_errno(err, "poll the docker CLI");
      failed = true;
      kill(pid, SIGKILL);
      break;
    }
    if (ready == 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if ((fds[0].revents != 0 && docker_read(out_fd, call->out, &call->out_length, err) < 0) ||
        (fds[1].revents != 0 && docker_read(err_fd, call->err, &call->err_length, err) < 0)) {
      failed = true;
      kill(pid, SIGKILL);
      break;
    }
  }
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return oci_error_errno(err, "wait for the docker CLI");
  if (failed)
    return -1;
  call->status = timed_out             ? -1
                 : WIFEXITED(status)   ? WEXITSTATUS(status)
                 : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                       : -1;
  return 0;
}

/* Runs `docker ARGS...` (looked up on sweep's PATH) with stdin from
 * /dev/null and only PATH, LC_ALL=C and the recorded DOCKER_HOST in its
 * environment: it reaches the engine the record names, whatever else sweep's
 * environment says. -1 with *err when the CLI could not be run at all. */
static int docker_call(const char *docker_host, const char *const args[], struct docker_call *call,
                       oci_error_t *err)
{
  cleanup_free char *path_variable = NULL, *host_variable = NULL;
  cleanup_close int out_read = -1, out_write = -1, err_read = -1, err_write = -1;
  const char *path = getenv("PATH");
  char *argv[12] = {"docker"}, *envp[4] = {NULL};
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  sigset_t none, all;
  size_t n = 1, n_env = 0;
  int pipes[2][2], rc;
  pid_t pid;

  memset(call, 0, sizeof(*call));
  for (size_t i = 0; args[i] != NULL && n < 11; i++)
    argv[n++] = (char *)args[i];
  if (asprintf(&path_variable, "PATH=%s", path != NULL ? path : DOCKER_DEFAULT_PATH) < 0) {
    path_variable = NULL;
    return oci_error_errno(err, "allocate");
  }
  envp[n_env++] = path_variable;
  envp[n_env++] = "LC_ALL=C";
  if (docker_host != NULL) {
    if (asprintf(&host_variable, "DOCKER_HOST=%s", docker_host) < 0) {
      host_variable = NULL;
      return oci_error_errno(err, "allocate");
    }
    envp[n_env++] = host_variable;
  }
  if (pipe2(pipes[0], O_CLOEXEC) < 0)
    return oci_error_errno(err, "create a pipe for the docker CLI");
  out_read = pipes[0][0], out_write = pipes[0][1];
  if (pipe2(pipes[1], O_CLOEXEC) < 0)
    return oci_error_errno(err, "create a pipe for the docker CLI");
  err_read = pipes[1][0], err_write = pipes[1][1];

  /* The child starts with no signal blocked or ignored (a probe runner
   * blocks SIGINT/SIGTERM and ignores SIGPIPE when it sweeps a name). */
  sigemptyset(&none);
  sigfillset(&all);
  if ((rc = posix_spawn_file_actions_init(&actions)) != 0)
    return oci_error_set(err, rc, "prepare the docker CLI");
  if ((rc = posix_spawnattr_init(&attributes)) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return oci_error_set(err, rc, "prepare the docker CLI");
  }
  if ((rc = posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)) ==
          0 &&
      (rc = posix_spawn_file_actions_adddup2(&actions, out_write, STDOUT_FILENO)) == 0 &&
      (rc = posix_spawn_file_actions_adddup2(&actions, err_write, STDERR_FILENO)) == 0 &&
      (rc = posix_spawnattr_setflags(&attributes,
                                     POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)) == 0 &&
      (rc = posix_spawnattr_setsigmask(&attributes, &none)) == 0 &&
      (rc = posix_spawnattr_setsigdefault(&attributes, &all)) == 0)
    rc = posix_spawnp(&pid, "docker", &actions, &attributes, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0)
    return oci_error_set(err, rc, "run the docker CLI");
  close(out_write);
  close(err_write);
  out_write = err_write = -1;
  return docker_wait(pid, &out_read, &err_read, call, err);
}

/* For a message: the first line the CLI wrote on stderr, else its status. */
static const char *docker_said(struct docker_call *call)
{
  call->err[strcspn(call->err, "\r\n")] = '\0';
  if (call->status < 0)
    return "the docker CLI did not answer in time";
  if (call->err[0] == '\0')
    snprintf(call->err, sizeof(call->err), "exit status %d", call->status);
  return call->err;
}

int docker_remove_container(const char *name, const char *docker_host, oci_error_t *err)
{
  const char *endpoint = docker_remove_endpoint(docker_host);
  struct docker_call removal, listing;
  cleanup_free char *filter = NULL;

  if (!docker_container_valid(name))
    return oci_error_set(
        err, 0, "docker container '%s' is not a name ocirun probe gives; not removing", name);
  if (docker_host != NULL && !docker_host_valid(docker_host))
    return oci_error_set(err, 0, "docker container %s: unusable docker_host '%s'; not removing",
                         name, docker_host);
  if (asprintf(&filter, "name=^%s$", name) < 0) {
    filter = NULL;
    return oci_error_errno(err, "allocate");
  }
  if (docker_call(docker_host, (const char *[]){"rm", "-f", name, NULL}, &removal, err) < 0 ||
      docker_call(docker_host,
                  (const char *[]){"ps", "-a", "--filter", filter, "--format", "{{.Names}}", NULL},
                  &listing, err) < 0)
    return oci_error_wrap(err, "docker container %s at %s", name, endpoint);
  if (listing.status == 0 && strspn(listing.out, " \r\n") == listing.out_length)
    return 0;
  if (listing.status == 0)
    return oci_error_set(err, 0,
                         "docker container %s at %s is still listed after docker rm -f (%s)", name,
                         endpoint, docker_said(&removal));
  return oci_error_set(err, 0, "cannot reach the Docker engine at %s to remove container %s (%s)",
                       endpoint, name, docker_said(&listing));
}
