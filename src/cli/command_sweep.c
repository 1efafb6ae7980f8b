/* `ocirun sweep`: cleans up after runs whose runner crashed (its pid gone or
 * reused): kills and removes their cgroups, run dirs, docker probe containers
 * and records (src/runtime/run_state.c decides what, from the run's name). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/log.h"
#include "cli/ocirun.h"
#include "oci/cleanup.h"
#include "oci/options.h"
#include "probe/docker_remove.h"
#include "runtime/state/root.h"
#include "runtime/state/run_state.h"

static void sweep_usage(FILE *out)
{
  fprintf(out, "Usage: ocirun sweep [--help]\n"
               "\n"
               "Finds run records under ROOT/run whose runner is gone (or whose pid now\n"
               "belongs to another process), kills and removes their cgroup, unmounts and\n"
               "removes their run directory, removes the container a docker probe left\n"
               "(docker rm -f at the recorded DOCKER_HOST, then verified gone), and removes\n"
               "the record. Live runs are left alone. Prints one line per run swept.\n"
               "\n"
               "What is removed is derived from the run's name and ROOT's layout, never\n"
               "taken from the record as a path; a recorded cgroup is used only when it\n"
               "is that run's slice (under /sys/fs/cgroup, last component the name). Each\n"
               "run is swept under its name's lock, and only if its record is still the\n"
               "one judged stale (a new run of that name keeps everything).\n"
               "\n"
               "A record whose leftovers cannot be removed (an engine that does not answer,\n"
               "no docker CLI) is kept for a later sweep; the exit status is then 1.\n");
}

int command_sweep(int argc, char **argv, const struct global_options *global)
{
  static const struct option options[] = {
      {"help", no_argument, NULL, 'h'},
      {NULL, 0, NULL, 0},
  };
  cleanup_state_root struct state_root state = STATE_ROOT_NONE;
  oci_error_t err = NULL;
  int n_swept = 0, c;

  while ((c = options_next(argc, argv, "+h", options, &err)) != -1) {
    switch (c) {
    case 'h':
      sweep_usage(stdout);
      return EXIT_OK;
    default:
      oci_error_wrap(&err, "sweep");
      log_error(&err);
      sweep_usage(stderr);
      return EXIT_USAGE;
    }
  }
  if (optind < argc) {
    log_error_message("sweep: unexpected argument '%s'", argv[optind]);
    sweep_usage(stderr);
    return EXIT_USAGE;
  }
  if (state_root_open(&state, global->root, STATE_RUN, false, &err) < 0) {
    log_error(&err);
    return EXIT_FAILURE_GENERIC;
  }
  state.events = log_event_sink();
  if (run_state_sweep(&state, docker_remove_for_sweep, &n_swept, &err) < 0) {
    log_error(&err);
    return EXIT_FAILURE_GENERIC;
  }
  if (!global->quiet)
    printf("swept %d run%s\n", n_swept, n_swept == 1 ? "" : "s");
  return EXIT_OK;
}
