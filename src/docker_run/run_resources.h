/* docker run's resource and process settings (--ulimit, --cpuset-cpus,
 * --cpu-shares, --memory-reservation, --oom-score-adj, --sysctl,
 * --group-add, --label, -t's TERM, --shm-size, --device,
 * --device-cgroup-rule): parsed into struct run_resources, then
 * written into the configuration run_spec.c built, each as the OCI property
 * the runtime already implements. Nothing is written for an option not
 * given. */
#ifndef RUN_RESOURCES_H
#define RUN_RESOURCES_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "oci/error.h"
#include "runtime/user.h"
#include "runtime/userns.h"

struct run_ulimit {
  const char *type; /* "RLIMIT_NOFILE": the spec's name */
  uint64_t soft, hard;
};

/* --device: the host's node as it was when the option was read (its path
 * resolved once, by the fd opened then), made at path in the container. */
struct run_device {
  char *path; /* in the container */
  char type;  /* 'c' or 'b' */
  int64_t major, minor;
  unsigned mode; /* the host node's permission bits */
  unsigned uid, gid;
  char access[4]; /* a combination of r, w, m */
};

/* --device-cgroup-rule: one more allow rule of the slice's device program. */
struct run_device_rule {
  char type;            /* 'a', 'c' or 'b' */
  int64_t major, minor; /* -1: any */
  char access[4];
};

struct run_resources {
  struct run_ulimit *ulimits;
  size_t n_ulimits;
  char *cpuset_cpus; /* NULL: unset */
  char *cpuset_mems;
  uint64_t cpu_shares;        /* 0: unset (docker's 0 too) */
  int64_t memory_reservation; /* -1: unset */
  bool oom_score_adj_set;
  int oom_score_adj;
  char **sysctl; /* "KEY=VALUE" in order, NULL-terminated */
  size_t n_sysctl;
  char **group_add; /* as given: a gid or a group of the image's /etc/group */
  size_t n_group_add;
  char **labels; /* "KEY=VALUE" in order, NULL-terminated */
  size_t n_labels;
  uint64_t shm_size; /* 0: the default /dev/shm (64m) */
  struct run_device *devices;
  size_t n_devices;
  struct run_device_rule *device_rules;
  size_t n_device_rules;
  int stop_signal;     /* 0: unset (at the deadline SIGKILL at once) */
  double stop_timeout; /* seconds; -1: unset */
};

/* Option ids of this block, apart from run_config.c's own. */
enum {
  RUN_RESOURCES_OPT_FIRST = 1024,
  RUN_RESOURCES_OPT_ULIMIT = RUN_RESOURCES_OPT_FIRST,
  RUN_RESOURCES_OPT_CPUSET_CPUS,
  RUN_RESOURCES_OPT_CPUSET_MEMS,
  RUN_RESOURCES_OPT_CPU_SHARES,
  RUN_RESOURCES_OPT_MEMORY_RESERVATION,
  RUN_RESOURCES_OPT_OOM_SCORE_ADJ,
  RUN_RESOURCES_OPT_SYSCTL,
  RUN_RESOURCES_OPT_GROUP_ADD,
  RUN_RESOURCES_OPT_LABEL,
  RUN_RESOURCES_OPT_SHM_SIZE,
  RUN_RESOURCES_OPT_DEVICE,
  RUN_RESOURCES_OPT_DEVICE_CGROUP_RULE,
  RUN_RESOURCES_OPT_STOP_SIGNAL,
  RUN_RESOURCES_OPT_STOP_TIMEOUT,
  RUN_RESOURCES_OPT_INIT,
  RUN_RESOURCES_OPT_LAST,
};

/* The rows of run_options_parse's table (struct option initializers). */
#define RUN_RESOURCES_OPTIONS                                                                      \
  {"ulimit", required_argument, NULL, RUN_RESOURCES_OPT_ULIMIT},                                   \
      {"cpuset-cpus", required_argument, NULL, RUN_RESOURCES_OPT_CPUSET_CPUS},                     \
      {"cpuset-mems", required_argument, NULL, RUN_RESOURCES_OPT_CPUSET_MEMS},                     \
      {"cpu-shares", required_argument, NULL, RUN_RESOURCES_OPT_CPU_SHARES},                       \
      {"memory-reservation", required_argument, NULL, RUN_RESOURCES_OPT_MEMORY_RESERVATION},       \
      {"oom-score-adj", required_argument, NULL, RUN_RESOURCES_OPT_OOM_SCORE_ADJ},                 \
      {"sysctl", required_argument, NULL, RUN_RESOURCES_OPT_SYSCTL},                               \
      {"group-add", required_argument, NULL, RUN_RESOURCES_OPT_GROUP_ADD},                         \
      {"shm-size", required_argument, NULL, RUN_RESOURCES_OPT_SHM_SIZE},                           \
      {"device", required_argument, NULL, RUN_RESOURCES_OPT_DEVICE},                               \
      {"device-cgroup-rule", required_argument, NULL, RUN_RESOURCES_OPT_DEVICE_CGROUP_RULE},       \
      {"stop-signal", required_argument, NULL, RUN_RESOURCES_OPT_STOP_SIGNAL},                     \
      {"stop-timeout", required_argument, NULL, RUN_RESOURCES_OPT_STOP_TIMEOUT},                   \
      {"init", no_argument, NULL, RUN_RESOURCES_OPT_INIT},                                         \
  {                                                                                                \
    "label", required_argument, NULL, RUN_RESOURCES_OPT_LABEL                                      \
  }

static inline bool run_resources_option(int c)
{
  return c >= RUN_RESOURCES_OPT_FIRST && c < RUN_RESOURCES_OPT_LAST;
}

void run_resources_init(struct run_resources *r);
void run_resources_clear(struct run_resources *r);
/* One option of this block (run_resources_option(c)) and its argument. */
int run_resources_apply(int c, const char *arg, struct run_resources *r, oci_error_t *err);
/* Once every option is known: --memory-reservation against --memory
 * (memory_bytes, -1: unset), and no cgroup setting with --unsafe-no-cgroup. */
int run_resources_check(const struct run_resources *r, int64_t memory_bytes, bool unsafe_no_cgroup,
                        oci_error_t *err);

/* At the deadline (runtime_options): the stop signal, 0 for SIGKILL at
 * once, and the grace period before SIGKILL; docker's defaults (SIGTERM,
 * 10 s) for the one not given when the other is. */
void run_resources_stop(const struct run_resources *r, int *stop_signal, double *grace_seconds);

/* --group-add into the resolved user's supplementary groups (names looked
 * up in the image's /etc/group by rootfs_fd), before the rootless check of
 * the mapping; map: rootless's, else NULL. */
int run_resources_add_groups(const struct run_resources *r, int rootfs_fd,
                             const struct userns_map *map, struct run_user *user, oci_error_t *err);
/* The rest into the built configuration: process.rlimits, oomScoreAdj,
 * TERM (tty), linux.resources.cpu and memory, linux.sysctl, annotations,
 * /dev/shm's size, linux.devices and their allow rules. device_program:
 * the run has one (a slice, not rootless) to hold the rules. */
int run_resources_spec(const struct run_resources *r, bool tty, bool device_program,
                       cJSON *document, oci_error_t *err);

#endif
