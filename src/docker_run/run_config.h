/* A run's configuration: what `ocirun run` options (docker run's names and
 * meanings) turn into. The probe builds its flag list and parses it with the
 * same parser, so both paths configure a run the same way. */
#ifndef RUN_CONFIG_H
#define RUN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "docker_run/run_resources.h"
#include "docker_run/run_network.h"
#include "oci/error.h"

/* One mount the options add (--tmpfs, -v/--volume, --mount): a tmpfs or a
 * bind of a host path, in the order given, after the run's own mounts. */
enum run_mount_kind {
  RUN_MOUNT_TMPFS,
  RUN_MOUNT_BIND,
  RUN_MOUNT_VOLUME, /* a named volume: a bind of $ROOT/volumes/NAME/_data (docker_run/volumes.h) */
};

struct run_mount {
  enum run_mount_kind kind;
  const char *option;  /* the flag it came from ("--tmpfs", "--volume", "--mount"), for messages */
  char *path;          /* the target: absolute inside the container, in normal form */
  uint64_t size_bytes; /* tmpfs: 0: kernel default */
  mode_t mode;         /* tmpfs: 01777 unless mode= given */
  unsigned long flags; /* tmpfs: MS_NOEXEC | MS_NOSUID | MS_NODEV | MS_RDONLY */
  char *options;       /* tmpfs: as given, for printing */
  /* bind: the host path as given (absolute, no ".."), and that path
   * opened once (O_PATH) when the option was parsed: what is mounted is
   * this object, never the path looked up again; -1 for a tmpfs. */
  char *source;
  int source_fd;
  bool read_only;          /* recursively: every submount too */
  bool recursive;          /* rbind (docker's default), else the top mount alone */
  const char *propagation; /* "rprivate" (default), "private", "rslave", ... */
  /* volume: its name (source and source_fd are set when the run opens
   * it), and whether a first use leaves out the image's content at the
   * target (docker's nocopy); otherwise an empty volume starts with it */
  char *volume;
  bool no_copy;
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
  struct run_mount *mounts;   /* --tmpfs, -v/--volume, --mount in order (run_mounts.c) */
  size_t n_mounts;
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
  /* --ulimit, --cpuset-*, --cpu-shares, ... (run_resources.h) */
  struct run_resources resources;
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
