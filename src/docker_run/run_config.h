/* A run's configuration: what `ocirun run` options (docker run's names and
 * meanings) turn into. The probe builds its flag list and parses it with the
 * same parser, so both paths configure a run the same way. */
#ifndef RUN_CONFIG_H
#define RUN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "docker_run/run_network.h"
#include "oci/error.h"

struct tmpfs_mount {
  char *path;          /* absolute path inside the container */
  uint64_t size_bytes; /* 0: kernel default */
  mode_t mode;         /* 01777 unless mode= given */
  unsigned long flags; /* MS_NOEXEC | MS_NOSUID | MS_NODEV | MS_RDONLY */
  char *options;       /* as given, for printing */
};

struct run_config {
  char *image_reference; /* as typed; resolved before anything is created */
  char *name;            /* --name, or generated "ocirun-<12 hex>" */
  bool name_generated;   /* then the hostname defaults to the 12 hex digits */
  bool read_only;
  /* The root's writable layer: on disk (default) or, with --root-tmpfs, a
   * tmpfs; its bound in bytes from --storage-opt size=, 0: the default of
   * its medium (runtime/writable_layer.h). */
  bool root_tmpfs;
  uint64_t storage_size;
  int64_t memory_bytes;      /* -1: unset */
  int64_t memory_swap_bytes; /* -1: unset (docker: twice memory); -2: unlimited ("-1") */
  int64_t cpu_quota_us;      /* -1: unset; period is cpu_period_us */
  int64_t cpu_period_us;
  int64_t pids_limit; /* -1: unset */
  uint64_t cap_drop;  /* capability bit masks, after resolving ALL */
  uint64_t cap_add;
  bool cap_drop_all;
  bool cap_add_all;
  bool no_new_privileges;
  bool seccomp_unconfined;
  char *seccomp_profile_path; /* NULL: built-in default */
  char *user;                 /* --user as given, NULL: image's */
  struct tmpfs_mount *tmpfs;
  size_t n_tmpfs;
  char **env; /* -e / --env-file in order, NULL-terminated */
  size_t n_env;
  char *workdir;
  char *hostname;
  /* --network, --dns, --add-host, -p/--publish (docker_run/run_network.h) */
  struct run_network network;
  bool interactive; /* -i */
  bool tty;         /* -t: process.terminal, relayed by ocirun */
  /* -t: the pty's size (process.consoleSize), the caller's terminal's; 0:
   * none given */
  unsigned short console_rows, console_cols;
  bool entrypoint_set;
  char *entrypoint;       /* --entrypoint ("" clears the image's) */
  char **command;         /* after IMAGE, NULL-terminated, may be empty */
  double timeout_seconds; /* --timeout, default 30 */
  char *cgroup_parent;    /* --cgroup-parent, default /sys/fs/cgroup/ocirun */
  bool dry_run;           /* --dry-run: print the plan, run nothing */
  /* --unsafe-no-cgroup: development hosts without cgroup v2 controllers.
   * Loud, recorded in every output, never a passing probe. */
  bool unsafe_no_cgroup;
  /* Not a flag: the caller's one decision (cli/ocirun.h global_options). */
  bool rootless;
};

/* Parses docker-run style options up to the first non-option (IMAGE).
 * *next gets the index of IMAGE in argv. Unknown options are errors. */
int run_options_parse(int argc, char **argv, struct run_config *config, int *next,
                      oci_error_t *err);
/* Sets image_reference and command (copies) from what follows the options. */
int run_config_set_command(struct run_config *config, const char *image, char *const *command,
                           size_t n_command, oci_error_t *err);
void run_config_init(struct run_config *config);
void run_config_clear(struct run_config *config);

#endif
