/* Builds and writes the evidence artifact. The recipe's keys come first
 * with the recipe's types, so one reader serves the recipe's own artifacts
 * and both backends'; ocirun's extra keys follow (docs/artifact.md). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe/artifact.h"
#include "probe/host_observer.h"
#include "oci/atomic_file.h"
#include "oci/cleanup.h"
#include "oci/io.h"
#include "oci/digest.h"
#include "runtime/json_strict.h"
#include "src/probe/build_info.h"

/* What the evidence does not cover, stated in every artifact. */
static const char *const exclusions[] = {
    "host escape resistance",
    "resource exhaustion stress",
    "network allowlist enforcement",
    "production credentials",
    "passing is not proof against escape or kernel flaws",
};

/* Descriptive tags from the Agent Sandbox Taxonomy's vocabulary: what each
 * observation is about, never a score. */
static const struct {
  const char *key;
  const char *tags[3];
} taxonomy_tags[] = {
    {"uid", {"process", "authentication/authorization"}},
    {"cgroup_v2", {"isolation", "process"}},
    {"root_read_only", {"filesystem", "escape-prevention"}},
    {"owned_tmp_write", {"filesystem"}},
    {"network_interfaces", {"network", "isolation"}},
    {"no_new_privileges", {"process", "escape-prevention"}},
    {"capabilities", {"process", "authentication/authorization", "escape-prevention"}},
    {"teardown_verified", {"isolation", "audit/logging"}},
    {"seccomp_mode", {"process", "escape-prevention"}},
    {"cap_bnd", {"process", "escape-prevention"}},
    {"hostname", {"isolation"}},
    {"pid", {"process", "isolation"}},
    {"pid1_comm", {"process", "isolation"}},
    {"masked_paths", {"filesystem", "escape-prevention"}},
    {"root_mount_options", {"filesystem"}},
    {"tmp_mount_options", {"filesystem", "escape-prevention"}},
};

static cJSON *string_or_null(const char *value)
{
  return value != NULL ? cJSON_CreateString(value) : cJSON_CreateNull();
}

/* ocirun's whole command line (global options included), from the kernel. */
static cJSON *own_command_line(void)
{
  cleanup_close int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  cleanup_cjson cJSON *array = cJSON_CreateArray();
  char buffer[65536];
  size_t length = 0;
  ssize_t n;

  if (fd < 0 || array == NULL)
    return NULL;
  while (length < sizeof(buffer) - 1 &&
         (n = read(fd, buffer + length, sizeof(buffer) - 1 - length)) != 0) {
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return NULL;
    }
    length += (size_t)n;
  }
  buffer[length] = '\0';
  for (size_t at = 0; at < length; at += strlen(buffer + at) + 1)
    if (!cJSON_AddItemToArray(array, cJSON_CreateString(buffer + at)))
      return NULL;
  return steal_pointer(&array);
}

/* sha256 hex of the running binary, or NULL when it cannot be read. */
static cJSON *own_binary_sha256(void)
{
  cleanup_close int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  struct oci_sha256 *hash;
  char digest[OCI_DIGEST_LEN];
  char buffer[65536];
  ssize_t n;

  if (fd < 0 || (hash = oci_sha256_new()) == NULL)
    return cJSON_CreateNull();
  while ((n = read(fd, buffer, sizeof(buffer))) != 0) {
    if (n < 0) {
      if (errno == EINTR)
        continue;
      oci_sha256_free(hash);
      return cJSON_CreateNull();
    }
    oci_sha256_update(hash, buffer, (size_t)n);
  }
  oci_sha256_final(hash, digest);
  oci_sha256_free(hash);
  return cJSON_CreateString(digest + strlen("sha256:"));
}

static cJSON *build_provenance(const struct probe_outcome *outcome)
{
  cleanup_cjson cJSON *provenance = cJSON_CreateObject();
  cJSON *configuration, *runner, *identities, *list;

  if (provenance == NULL ||
      cJSON_AddStringToObject(provenance, "schema", "arena.evidence/v1") == NULL ||
      !cJSON_AddItemToObject(provenance, "command", own_command_line()) ||
      cJSON_AddStringToObject(provenance, "commit", OCIRUN_BUILD_COMMIT) == NULL ||
      cJSON_AddStringToObject(provenance, "tracked_changes", OCIRUN_BUILD_TRACKED_CHANGES) ==
          NULL ||
      cJSON_AddStringToObject(provenance, "mode", "offline-fixture") == NULL ||
      (configuration = cJSON_AddObjectToObject(provenance, "configuration")) == NULL ||
      cJSON_AddStringToObject(configuration, "image_id", outcome->image_id) == NULL ||
      !cJSON_AddItemToObject(configuration, "flags", json_string_array(outcome->flags)) ||
      cJSON_AddNumberToObject(provenance, "repetitions", 1) == NULL ||
      /* ocirun is not Python: the runner object names what ran the recipe. */
      cJSON_AddNullToObject(provenance, "python") == NULL ||
      (runner = cJSON_AddObjectToObject(provenance, "runner")) == NULL ||
      cJSON_AddStringToObject(runner, "name", "ocirun") == NULL ||
      cJSON_AddStringToObject(runner, "version", PACKAGE_VERSION) == NULL ||
      (identities = cJSON_AddObjectToObject(provenance, "identities")) == NULL ||
      cJSON_AddStringToObject(identities, "src/probe/probe.py", probe_program_sha256_hex()) ==
          NULL ||
      !cJSON_AddItemToObject(identities, "ocirun", own_binary_sha256()) ||
      !cJSON_AddItemToObject(identities, "seccomp-profile",
                             string_or_null(outcome->seccomp_profile_sha256)) ||
      (list = cJSON_AddArrayToObject(provenance, "exclusions")) == NULL)
    return NULL;
  for (size_t i = 0; i < sizeof(exclusions) / sizeof(exclusions[0]); i++)
    if (!cJSON_AddItemToArray(list, cJSON_CreateString(exclusions[i])))
      return NULL;
  return steal_pointer(&provenance);
}

static cJSON *build_engine(const char *backend, const struct probe_request *request,
                           const struct probe_outcome *outcome)
{
  cleanup_cjson cJSON *engine = cJSON_CreateObject();
  bool direct = strcmp(backend, "direct") == 0;

  if (engine == NULL ||
      cJSON_AddStringToObject(engine, "name",
                              outcome->engine_name ? outcome->engine_name : backend) == NULL ||
      !cJSON_AddItemToObject(engine, "version", string_or_null(outcome->engine_version)) ||
      !cJSON_AddItemToObject(engine, "kernel", string_or_null(outcome->kernel)) ||
      !cJSON_AddItemToObject(engine, "cgroup_version",
                             outcome->cgroup_version > 0
                                 ? cJSON_CreateNumber(outcome->cgroup_version)
                                 : cJSON_CreateNull()))
    return NULL;
  /* The libraries are ocirun's: they describe the engine only when ocirun
   * is the engine. */
  if (direct) {
    const struct scmp_version *seccomp = seccomp_version();
    char version[64];
    snprintf(version, sizeof(version), "%u.%u.%u", seccomp->major, seccomp->minor, seccomp->micro);
    if (cJSON_AddStringToObject(engine, "libseccomp", version) == NULL ||
        cJSON_AddStringToObject(engine, "libcap", OCIRUN_LIBCAP_VERSION) == NULL ||
        cJSON_AddStringToObject(engine, "libarchive", OCIRUN_LIBARCHIVE_VERSION) == NULL ||
        /* ocirun ran the probe as an ordinary user, in a user namespace */
        cJSON_AddBoolToObject(engine, "rootless", request->rootless) == NULL)
      return NULL;
  }
  if (cJSON_AddBoolToObject(engine, "unsafe_no_cgroup", request->unsafe_no_cgroup) == NULL)
    return NULL;
  return steal_pointer(&engine);
}

static cJSON *build_taxonomy_tags(void)
{
  cleanup_cjson cJSON *map = cJSON_CreateObject();

  if (map == NULL)
    return NULL;
  for (size_t i = 0; i < sizeof(taxonomy_tags) / sizeof(taxonomy_tags[0]); i++) {
    cJSON *tags = cJSON_AddArrayToObject(map, taxonomy_tags[i].key);
    if (tags == NULL)
      return NULL;
    for (size_t t = 0; t < 3 && taxonomy_tags[i].tags[t] != NULL; t++)
      if (!cJSON_AddItemToArray(tags, cJSON_CreateString(taxonomy_tags[i].tags[t])))
        return NULL;
  }
  return steal_pointer(&map);
}

/* Every string of the artifact is UTF-8, so every reader reads the file as
 * ocirun does: the probe's output was refused unless it was, and what else
 * comes from outside (a command-line argument, an engine's message, a name
 * the kernel prints) is written with its bytes escaped (\xNN) when it is
 * not. The keys are ocirun's own; one that is not UTF-8 is a bug, refused. */
static int escape_invalid_text(cJSON *item, oci_error_t *err)
{
  if (item->string != NULL && !json_utf8_valid(item->string, strlen(item->string))) {
    cleanup_free char *key = json_escape_bytes(item->string, strlen(item->string));
    return oci_error_set(err, 0, "build the artifact: the key '%s' is not UTF-8",
                         key != NULL ? key : "?");
  }
  if (cJSON_IsString(item) && !json_utf8_valid(item->valuestring, strlen(item->valuestring))) {
    cleanup_free char *escaped = json_escape_bytes(item->valuestring, strlen(item->valuestring));
    if (escaped == NULL || cJSON_SetValuestring(item, escaped) == NULL)
      return oci_error_set(err, 0, "build the artifact: out of memory");
  }
  for (cJSON *child = item->child; child != NULL; child = child->next)
    if (escape_invalid_text(child, err) < 0)
      return -1;
  return 0;
}

int artifact_build(const char *backend, const struct probe_request *request,
                   const struct probe_outcome *outcome, struct probe_verdict *verdict, cJSON **out,
                   oci_error_t *err)
{
  cleanup_cjson cJSON *artifact = cJSON_CreateObject();
  bool passed = verdict->passed && outcome->teardown_verified && outcome->error == NULL;

  if (artifact == NULL ||
      /* the recipe's keys */
      !cJSON_AddItemToObject(artifact, "observed", steal_pointer(&verdict->observed)) ||
      cJSON_AddStringToObject(artifact, "image_id", outcome->image_id) == NULL ||
      !cJSON_AddItemToObject(artifact, "repo_digests", json_string_array(outcome->repo_digests)) ||
      !cJSON_AddItemToObject(artifact, "docker_server", string_or_null(outcome->docker_server)) ||
      !cJSON_AddItemToObject(artifact, "flags", json_string_array(outcome->flags)) ||
      !cJSON_AddItemToObject(artifact, "provenance", build_provenance(outcome)) ||
      cJSON_AddBoolToObject(artifact, "teardown_verified", outcome->teardown_verified) == NULL ||
      /* ocirun's */
      cJSON_AddStringToObject(artifact, "backend", backend) == NULL ||
      !cJSON_AddItemToObject(artifact, "engine", build_engine(backend, request, outcome)) ||
      !cJSON_AddItemToObject(artifact, "engine_argv", json_string_array(outcome->engine_argv)) ||
      !cJSON_AddItemToObject(artifact, "container_name", string_or_null(outcome->container_name)))
    return oci_error_set(err, 0, "build the artifact: out of memory");
  if (outcome->manifest_digest != NULL &&
      cJSON_AddStringToObject(artifact, "manifest_digest", outcome->manifest_digest) == NULL)
    return oci_error_set(err, 0, "build the artifact: out of memory");
  if (!cJSON_AddItemToObject(artifact, "probe_exit_code",
                             outcome->probe_ran && !outcome->timed_out
                                 ? cJSON_CreateNumber(outcome->probe_exit_code)
                                 : cJSON_CreateNull()) ||
      !cJSON_AddItemToObject(artifact, "checks", steal_pointer(&verdict->checks)) ||
      !cJSON_AddItemToObject(artifact, "observed_extra", steal_pointer(&verdict->observed_extra)) ||
      !cJSON_AddItemToObject(artifact, "host_observed",
                             outcome->host_observed != NULL
                                 ? cJSON_Duplicate(outcome->host_observed, true)
                                 : host_observed_missing("none", "no host observation was made")) ||
      !cJSON_AddItemToObject(artifact, "taxonomy_tags", build_taxonomy_tags()) ||
      cJSON_AddBoolToObject(artifact, "passed", passed) == NULL ||
      !cJSON_AddItemToObject(artifact, "failed_checks", steal_pointer(&verdict->failed_checks)) ||
      !cJSON_AddItemToObject(artifact, "error", string_or_null(outcome->error)))
    return oci_error_set(err, 0, "build the artifact: out of memory");
  if (escape_invalid_text(artifact, err) < 0)
    return -1;
  *out = steal_pointer(&artifact);
  return 0;
}

/* Replaces path whole: a reader sees the old artifact or the new one. */
static int write_to_file(const char *text, const char *path, oci_error_t *err)
{
  cleanup_free char *dir_copy = strdup(path);
  cleanup_free char *base_copy = strdup(path);
  cleanup_close int dir_fd = -1;
  struct atomic_file file;
  char prefix[256], what[PATH_MAX + 16];
  const char *base;

  if (dir_copy == NULL || base_copy == NULL)
    return oci_error_errno(err, "write the artifact %s", path);
  base = basename(base_copy);
  dir_fd = open(dirname(dir_copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0)
    return oci_error_errno(err, "open the directory of the artifact %s", path);
  /* The temporary name is a dot file beside the artifact, named after it. */
  snprintf(prefix, sizeof(prefix), ".%.200s", base);
  snprintf(what, sizeof(what), "the artifact %s", path);
  if (atomic_file_begin(&file, dir_fd, prefix, 0644, what, err) < 0 ||
      atomic_file_write(&file, text, strlen(text), err) < 0 ||
      atomic_file_write(&file, "\n", 1, err) < 0 ||
      atomic_file_commit(&file, dir_fd, base, ATOMIC_FILE_REPLACE, err) < 0)
    return -1;
  return 0;
}

int artifact_write(const cJSON *artifact, const char *path, int out_fd, oci_error_t *err)
{
  cleanup_free char *text = cJSON_Print(artifact);

  if (text == NULL)
    return oci_error_set(err, 0, "print the artifact: out of memory");
  if (path == NULL || strcmp(path, "-") == 0) {
    if (oci_write_all(out_fd, text, strlen(text)) < 0 || oci_write_all(out_fd, "\n", 1) < 0)
      return oci_error_errno(err, "write the artifact to stdout");
    return 0;
  }
  return write_to_file(text, path, err);
}

/* A JSON value on one line, cut to width characters. */
static void print_cell(FILE *out, const cJSON *value, int width)
{
  cleanup_free char *json = value ? cJSON_PrintUnformatted(value) : NULL;
  /* A value may be the container's: no byte of it may drive the terminal. */
  cleanup_free char *text = json ? json_escape_bytes(json, strlen(json)) : NULL;
  const char *shown = text ? text : "-";
  int length = (int)strlen(shown);

  if (length > width)
    fprintf(out, " %-*.*s...", width - 3, width - 3, shown);
  else
    fprintf(out, " %-*s", width, shown);
}

void artifact_print_summary(const cJSON *artifact, FILE *out)
{
  const cJSON *checks = cJSON_GetObjectItemCaseSensitive(artifact, "checks");
  const cJSON *check;
  const cJSON *passed = cJSON_GetObjectItemCaseSensitive(artifact, "passed");
  const cJSON *error = cJSON_GetObjectItemCaseSensitive(artifact, "error");

  fprintf(out, "%-20s %-24s %-24s %-24s %s\n", "check", "expected", "seen", "host saw", "result");
  cJSON_ArrayForEach(check, checks)
  {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(check, "name");
    fprintf(out, "%-20s", cJSON_IsString(name) ? name->valuestring : "?");
    print_cell(out, cJSON_GetObjectItemCaseSensitive(check, "expected"), 24);
    print_cell(out, cJSON_GetObjectItemCaseSensitive(check, "seen"), 24);
    print_cell(out, cJSON_GetObjectItemCaseSensitive(check, "host_seen"), 24);
    fprintf(out, " %s\n",
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(check, "passed")) ? "pass" : "FAIL");
  }
  if (cJSON_IsString(error)) {
    cleanup_free char *text = json_escape_bytes(error->valuestring, strlen(error->valuestring));
    fprintf(out, "error: %s\n", text != NULL ? text : "?");
  }
  fprintf(out, "probe: %s\n", cJSON_IsTrue(passed) ? "PASSED" : "FAILED");
}
