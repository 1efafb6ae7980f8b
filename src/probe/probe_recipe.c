/* The recipe both backends follow (docs/docker-path.md): its flag list as
 * data, the container name, and the embedded probe program. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "oci/cleanup.h"
#include "probe/probe_backend.h"
#include "src/probe/probe_embedded.h"

/* In the recipe's order. NULL value: a flag without an argument. The name's
 * value is filled in per run. cgroup_limit: set through the cgroup slice,
 * so left out (and the artifact fails) under --unsafe-no-cgroup, which
 * `ocirun run` refuses to combine with limits it cannot apply. */
static const struct {
  const char *flag;
  const char *value;
  bool cgroup_limit;
} recipe_flags[] = {
    {"--name", NULL, false},          {"--network", "none", false},
    {"--read-only", NULL, false},     {"--memory", "128m", true},
    {"--memory-swap", "128m", true}, /* equal to --memory: no swap */
    {"--cpus", "0.5", true},          {"--pids-limit", "32", true},
    {"--cap-drop", "ALL", false},     {"--security-opt", "no-new-privileges", false},
    {"--user", "65534:65534", false}, {"--tmpfs", "/tmp:rw,noexec,nosuid,size=1048576", false},
};

static bool listed(char **list, const char *item)
{
  for (size_t i = 0; list != NULL && list[i] != NULL; i++)
    if (strcmp(list[i], item) == 0)
      return true;
  return false;
}

char **probe_recipe_flags(const char *name, const struct probe_request *request)
{
  size_t n_recipe = sizeof(recipe_flags) / sizeof(recipe_flags[0]);
  size_t capacity = 2 * n_recipe + 2 * strv_length(request->debug_env) + 1;
  cleanup_strv char **flags = calloc(capacity, sizeof(char *));
  size_t n = 0;

  if (flags == NULL)
    return NULL;
  for (size_t i = 0; i < n_recipe; i++) {
    const char *value = i == 0 ? name : recipe_flags[i].value;
    if (listed(request->debug_drop_flags, recipe_flags[i].flag) ||
        (request->unsafe_no_cgroup && recipe_flags[i].cgroup_limit))
      continue;
    if ((flags[n++] = strdup(recipe_flags[i].flag)) == NULL)
      return NULL;
    if (value != NULL && (flags[n++] = strdup(value)) == NULL)
      return NULL;
  }
  for (size_t i = 0; request->debug_env != NULL && request->debug_env[i] != NULL; i++) {
    if ((flags[n++] = strdup("--env")) == NULL ||
        (flags[n++] = strdup(request->debug_env[i])) == NULL)
      return NULL;
  }
  return steal_pointer(&flags);
}

int probe_container_name(char **out, oci_error_t *err)
{
  unsigned char random_bytes[6];
  char name[sizeof(PROBE_NAME_PREFIX) + 12];
  size_t got = 0;

  while (got < sizeof(random_bytes)) {
    ssize_t n = getrandom(random_bytes + got, sizeof(random_bytes) - got, 0);
    if (n < 0)
      return oci_error_errno(err, "getrandom for the container name");
    got += (size_t)n;
  }
  snprintf(name, sizeof(name), "%s%02x%02x%02x%02x%02x%02x", PROBE_NAME_PREFIX, random_bytes[0],
           random_bytes[1], random_bytes[2], random_bytes[3], random_bytes[4], random_bytes[5]);
  *out = strdup(name);
  if (*out == NULL)
    return oci_error_errno(err, "allocate the container name");
  return 0;
}

const unsigned char *probe_program_bytes(size_t *length)
{
  *length = probe_program_length;
  return probe_program;
}

const char *probe_program_sha256_hex(void)
{
  return probe_program_sha256;
}

void probe_outcome_clear(struct probe_outcome *outcome)
{
  free(outcome->unsupported);
  free(outcome->error);
  free(outcome->manifest_digest);
  strv_free(outcome->repo_digests);
  free(outcome->container_name);
  strv_free(outcome->flags);
  strv_free(outcome->engine_argv);
  free(outcome->docker_server);
  free(outcome->engine_name);
  free(outcome->engine_version);
  free(outcome->kernel);
  free(outcome->seccomp_profile_sha256);
  free(outcome->probe_stdout);
  free(outcome->probe_stderr);
  cJSON_Delete(outcome->host_observed);
  memset(outcome, 0, sizeof(*outcome));
}
