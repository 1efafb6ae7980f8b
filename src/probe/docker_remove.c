/* Removes the Docker container of a probe whose runner died, for `ocirun
 * sweep`: `docker rm -f` and a listing by exact name, through the docker CLI
 * with a small environment of its own, under a deadline, never a shell. */
#include "config.h"

#include "probe/docker_remove.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/cleanup.h"
#include "probe/probe_backend.h"
#include "probe/process_capture.h"

/* A docker call that has not finished by then is killed: an engine that
 * accepts connections but never answers must not hang sweep. */
#define DOCKER_CALL_TIMEOUT_SECONDS 120
/* Where the docker CLI is looked for when sweep's own PATH is unset. */
#define DOCKER_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

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

/* Runs `docker ARGS...` (looked up on sweep's PATH) with stdin empty and
 * only PATH, LC_ALL=C and the recorded DOCKER_HOST in its environment: it
 * reaches the engine the record names, whatever else sweep's environment
 * says. -1 with *err when the CLI could not be run at all. */
static int docker_call(const char *docker_host, const char *const args[],
                       struct process_capture *call, oci_error_t *err)
{
  cleanup_free char *path_variable = NULL, *host_variable = NULL;
  const char *path = getenv("PATH");
  char *argv[12] = {"docker"}, *envp[4] = {NULL};
  size_t n = 1, n_env = 0;

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
  if (process_capture_run(argv, envp, NULL, 0, DOCKER_CALL_TIMEOUT_SECONDS, -1, call, err) < 0)
    return -1;
  if (call->exec_failed) {
    int saved = call->exec_errno;
    process_capture_clear(call);
    return oci_error_set(err, saved, "run the docker CLI");
  }
  return 0;
}

/* For a message: the first line the CLI wrote on stderr, else its status. */
static const char *docker_said(struct process_capture *call, char *buffer, size_t size)
{
  const char *said = process_capture_message(call);

  if (call->timed_out)
    return "the docker CLI did not answer in time";
  if (said[0] == '\0')
    snprintf(buffer, size, "exit status %d", call->exit_code);
  else
    snprintf(buffer, size, "%.*s", (int)strcspn(said, "\r\n"), said);
  return buffer;
}

int docker_remove_container(const char *name, const char *docker_host, oci_error_t *err)
{
  const char *endpoint = docker_remove_endpoint(docker_host);
  struct process_capture removal = {0}, listing = {0};
  cleanup_free char *filter = NULL;
  char said[512];
  int ret;

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
  if (docker_call(docker_host, (const char *[]){"rm", "-f", name, NULL}, &removal, err) < 0)
    return oci_error_wrap(err, "docker container %s at %s", name, endpoint);
  if (docker_call(docker_host,
                  (const char *[]){"ps", "-a", "--filter", filter, "--format", "{{.Names}}", NULL},
                  &listing, err) < 0) {
    process_capture_clear(&removal);
    return oci_error_wrap(err, "docker container %s at %s", name, endpoint);
  }
  if (!listing.timed_out && listing.exit_code == 0 &&
      strspn(listing.out, " \r\n") == listing.out_length)
    ret = 0;
  else if (!listing.timed_out && listing.exit_code == 0)
    ret = oci_error_set(err, 0, "docker container %s at %s is still listed after docker rm -f (%s)",
                        name, endpoint, docker_said(&removal, said, sizeof(said)));
  else
    ret = oci_error_set(err, 0, "cannot reach the Docker engine at %s to remove container %s (%s)",
                        endpoint, name, docker_said(&listing, said, sizeof(said)));
  process_capture_clear(&removal);
  process_capture_clear(&listing);
  return ret;
}

int docker_remove_for_sweep(const char *name, const struct run_record *record, char *what,
                            size_t size, oci_error_t *err)
{
  if (strcmp(record->docker_container, name) != 0)
    return oci_error_set(err, 0,
                         "docker container '%s' is not a name ocirun probe gives this run; not "
                         "removing",
                         record->docker_container);
  if (docker_remove_container(name, record->docker_host, err) < 0)
    return -1;
  snprintf(what, size, "docker container %s at %s", name,
           docker_remove_endpoint(record->docker_host));
  return 0;
}
