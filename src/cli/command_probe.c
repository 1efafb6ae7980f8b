/* `ocirun probe`: the isolation recipe of docs/docker-path.md against the
 * direct backend (ocirun's own runtime) or a Docker engine, judged on the
 * host, written as the evidence artifact, summarized for people. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/artifact.h"
#include "oci/cleanup.h"
#include "cli/log.h"
#include "cli/ocirun.h"
#include "oci/options.h"
#include "probe/probe_backend.h"
#include "probe/probe_checks.h"

/* The host cannot run the recipe at all (no cgroup v2, no engine). */
#define EXIT_UNSUPPORTED 3

static void usage(FILE *out)
{
  fprintf(out,
          "Usage: ocirun probe [OPTIONS] IMAGE\n"
          "\n"
          "Runs the isolation probe (docs/docker-path.md) in one locked-down container\n"
          "from IMAGE (a name, image ID or NAME@DIGEST already present: never fetched)\n"
          "and writes the evidence artifact (docs/artifact.md).\n"
          "\n"
          "Options:\n"
          "  --backend direct|docker  direct: ocirun's own runtime (default);\n"
          "                           docker: the Docker engine of $DOCKER_HOST via its CLI\n"
          "  -o, --output FILE        write the artifact atomically to FILE (default: stdout)\n"
          "  --timeout SECONDS        deadline for the probe run (default 30)\n"
          "  --unsafe-no-cgroup       direct only, for development hosts without cgroup v2:\n"
          "                           run without the cgroup slice; the artifact always fails\n"
          "  -q, --quiet              no summary table on stderr\n"
          "  -h, --help               this help\n"
          "\n"
          "Test options (they change the recipe; the artifact records them and fails):\n"
          "  --debug-drop-flag FLAG   leave FLAG (e.g. --read-only) out of the recipe's flags\n"
          "  --debug-env NAME=VALUE   add --env NAME=VALUE (the probe honours\n"
          "                           OCIRUN_PROBE_DEBUG_SLEEP=SECONDS by sleeping first)\n"
          "\n"
          "Exit status: 0 every check passed and teardown was verified; 1 a check failed\n"
          "(the artifact and stderr name it); 2 usage; 3 unsupported host (no artifact);\n"
          "125 ocirun could not attempt the probe (no artifact).\n");
}

/* True (after saying why) when FILE's directory cannot take the artifact. */
static bool output_directory_unwritable(const char *file)
{
  cleanup_free char *copy = strdup(file);
  const char *dir = copy ? dirname(copy) : ".";

  if (access(dir, W_OK | X_OK) == 0)
    return false;
  log_error_message("probe: cannot write the artifact into '%s': %s", dir, strerror(errno));
  return true;
}

/* Appends to a NULL-terminated list of borrowed strings. */
static int list_append(char ***list, const char *item)
{
  size_t n = 0;
  while (*list != NULL && (*list)[n] != NULL)
    n++;
  char **grown = realloc(*list, (n + 2) * sizeof(char *));
  if (grown == NULL)
    return -1;
  grown[n] = (char *)item;
  grown[n + 1] = NULL;
  *list = grown;
  return 0;
}

/* Text written inside the container, shown on a terminal: control bytes
 * (escape sequences) are replaced, so the container cannot drive it. */
static void print_container_text(FILE *out, const char *what, const char *text, size_t max)
{
  if (log_is_json()) {
    log_say("info", "probe: %s: %.*s", what, (int)max, text);
    return;
  }
  fprintf(out, "ocirun: probe: %s:\n", what);
  for (size_t i = 0; text[i] != '\0' && i < max; i++) {
    unsigned char c = (unsigned char)text[i];
    fputc(c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f) ? c : '?', out);
  }
  fputc('\n', out);
}

/* "check NAME failed: expected X, seen Y" for every failed check. */
static void report_failures(const cJSON *artifact)
{
  const cJSON *check;
  cJSON_ArrayForEach(check, cJSON_GetObjectItemCaseSensitive(artifact, "checks"))
  {
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(check, "passed")))
      continue;
    cleanup_free char *expected =
        cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(check, "expected"));
    cleanup_free char *seen =
        cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(check, "seen"));
    const cJSON *disagreement = cJSON_GetObjectItemCaseSensitive(check, "disagreement");

    /* The second observer's word first: what the host saw beats the image's. */
    if (cJSON_IsString(disagreement)) {
      log_error_message("probe: check failed: %s", disagreement->valuestring);
      continue;
    }
    log_error_message("probe: check %s failed: expected %s, seen %s",
                      cJSON_GetObjectItemCaseSensitive(check, "name")->valuestring,
                      expected ? expected : "?", seen ? seen : "?");
  }
}

/* What the command line chose beside the request: the lists are the
 * request's debug_drop_flags and debug_env, owned here. */
struct probe_choice {
  const char *backend, *output;
  bool quiet;
  char **drop_flags, **env;
};

static void probe_choice_clear(struct probe_choice *choice)
{
  free(choice->drop_flags);
  free(choice->env);
}

/* The options and IMAGE into request and choice: -1 when the probe is to
 * run, else the exit code (usage, --help, an unwritable -o). */
static int parse_options(int argc, char **argv, struct probe_request *request,
                         struct probe_choice *choice)
{
  static const struct option options[] = {
      {"backend", required_argument, NULL, 'b'},
      {"output", required_argument, NULL, 'o'},
      {"timeout", required_argument, NULL, 't'},
      {"unsafe-no-cgroup", no_argument, NULL, 'U'},
      {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},
      {"debug-drop-flag", required_argument, NULL, 'D'},
      {"debug-env", required_argument, NULL, 'E'},
      {NULL, 0, NULL, 0},
  };
  oci_error_t err = NULL;
  char *end;
  int c;

  while ((c = options_next(argc, argv, "+o:qh", options, &err)) != -1) {
    switch (c) {
    case 'b':
      if (strcmp(optarg, "direct") != 0 && strcmp(optarg, "docker") != 0) {
        log_error_message("probe: --backend must be direct or docker, not '%s'", optarg);
        return EXIT_USAGE;
      }
      choice->backend = optarg;
      break;
    case 'o':
      choice->output = optarg;
      break;
    case 't':
      request->timeout_seconds = strtod(optarg, &end);
      if (*end != '\0' || end == optarg || !(request->timeout_seconds > 0) ||
          request->timeout_seconds > 86400) {
        log_error_message("probe: --timeout needs seconds in (0, 86400], not '%s'", optarg);
        return EXIT_USAGE;
      }
      break;
    case 'U':
      request->unsafe_no_cgroup = true;
      break;
    case 'q':
      choice->quiet = true;
      break;
    case 'h':
      usage(stdout);
      return EXIT_OK;
    case 'D':
    case 'E':
      if (list_append(c == 'D' ? &choice->drop_flags : &choice->env, optarg) < 0) {
        perror("ocirun: probe");
        return EXIT_RUNTIME_ERROR;
      }
      break;
    default:
      oci_error_wrap(&err, "probe");
      log_error(&err);
      usage(stderr);
      return EXIT_USAGE;
    }
  }
  if (optind != argc - 1) {
    log_error_message("probe: exactly one IMAGE is needed");
    usage(stderr);
    return EXIT_USAGE;
  }
  if (request->unsafe_no_cgroup && strcmp(choice->backend, "docker") == 0) {
    log_error_message("probe: --unsafe-no-cgroup is for the direct backend only");
    return EXIT_USAGE;
  }
  /* A run whose artifact cannot be written is wasted: check the place first. */
  if (choice->output != NULL && strcmp(choice->output, "-") != 0 &&
      output_directory_unwritable(choice->output))
    return EXIT_RUNTIME_ERROR;
  request->image = argv[optind];
  request->debug_drop_flags = choice->drop_flags;
  request->debug_env = choice->env;
  return -1;
}

/* What a person reads once the artifact is written: the summary, each
 * failed check, the run's error and the probe's own stderr. The exit
 * status: the artifact's verdict. */
static int report_outcome(const cJSON *artifact, const struct probe_outcome *outcome, bool quiet)
{
  /* The summary is a table for a person; a caller of JSON lines reads
   * the artifact. */
  if (!quiet && !log_is_json())
    artifact_print_summary(artifact, stderr);
  report_failures(artifact);
  if (outcome->error != NULL)
    log_error_message("probe: %s", outcome->error);
  if (outcome->probe_ran && outcome->probe_exit_code != 0 && outcome->probe_stderr != NULL &&
      outcome->probe_stderr[0] != '\0')
    print_container_text(stderr, "the probe's stderr", outcome->probe_stderr, 4000);
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(artifact, "passed")) ? EXIT_OK
                                                                            : EXIT_FAILURE_GENERIC;
}

int command_probe(int argc, char **argv, const struct global_options *global)
{
  struct probe_request request = {.timeout_seconds = 30,
                                  .root = global->root,
                                  .quiet = global->quiet,
                                  .rootless = global->rootless,
                                  .events = log_event_sink()};
  __attribute__((cleanup(probe_choice_clear))) struct probe_choice choice = {
      .backend = "direct", .quiet = global->quiet};
  struct probe_outcome outcome = {0};
  struct probe_verdict verdict = {0};
  cleanup_cjson cJSON *artifact = NULL;
  oci_error_t err = NULL;
  int ret, status;

  ret = parse_options(argc, argv, &request, &choice);
  if (ret >= 0)
    return ret;
  if (request.unsafe_no_cgroup)
    log_say("warning", "probe: WARNING: --unsafe-no-cgroup: no memory, CPU or process limits; "
                       "this artifact cannot pass");

  if (strcmp(choice.backend, "docker") == 0)
    ret = probe_backend_docker(&request, &outcome, &err);
  else
    ret = probe_backend_direct(&request, &outcome, &err);
  if (ret < 0) {
    log_error(&err);
    probe_outcome_clear(&outcome);
    return EXIT_RUNTIME_ERROR;
  }
  if (outcome.unsupported != NULL) {
    log_error_message("probe: %s", outcome.unsupported);
    probe_outcome_clear(&outcome);
    return EXIT_UNSUPPORTED;
  }

  if (probe_checks_evaluate(&request, &outcome, &verdict, &err) < 0 ||
      artifact_build(choice.backend, &request, &outcome, &verdict, &artifact, &err) < 0 ||
      artifact_write(artifact, choice.output, &err) < 0) {
    log_error(&err);
    probe_verdict_clear(&verdict);
    probe_outcome_clear(&outcome);
    return EXIT_RUNTIME_ERROR;
  }
  probe_verdict_clear(&verdict);
  status = report_outcome(artifact, &outcome, choice.quiet);
  probe_outcome_clear(&outcome);
  return status;
}
