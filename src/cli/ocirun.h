/* The program's commands and the options every command shares. */
#ifndef OCIRUN_H
#define OCIRUN_H

#include <stdbool.h>

#include "oci/error.h"
#include "oci/events.h"
#include "runtime/exit_codes.h"

struct global_options {
  const char *root; /* --root, $OCIRUN_ROOT, or /var/lib/ocirun */
  bool quiet;       /* --quiet: no progress output */
  /* Decided once, here, for every command: ocirun runs without privilege
   * (its store in the user's home, a user namespace, a delegated cgroup). */
  bool rootless;
};

typedef int (*command_fn)(int argc, char **argv, const struct global_options *global);

int command_image(int argc, char **argv, const struct global_options *global);
int command_run(int argc, char **argv, const struct global_options *global);
int command_probe(int argc, char **argv, const struct global_options *global);
int command_compare(int argc, char **argv, const struct global_options *global);
int command_seccomp_profile(int argc, char **argv, const struct global_options *global);
int command_sweep(int argc, char **argv, const struct global_options *global);
int command_volume(int argc, char **argv, const struct global_options *global);
/* The OCI runtime verbs (cli/command_oci*.c). */
int command_oci_create(int argc, char **argv, const struct global_options *global);
int command_oci_start(int argc, char **argv, const struct global_options *global);
int command_oci_state(int argc, char **argv, const struct global_options *global);
int command_oci_kill(int argc, char **argv, const struct global_options *global);
int command_oci_delete(int argc, char **argv, const struct global_options *global);
int command_oci_ps(int argc, char **argv, const struct global_options *global);
int command_oci_pause(int argc, char **argv, const struct global_options *global);
int command_oci_resume(int argc, char **argv, const struct global_options *global);
int command_oci_update(int argc, char **argv, const struct global_options *global);
int command_oci_features(int argc, char **argv, const struct global_options *global);
int command_oci_spec(int argc, char **argv, const struct global_options *global);
int command_oci_exec(int argc, char **argv, const struct global_options *global);

#endif
