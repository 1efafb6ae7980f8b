/* The probe's second observer: what the host kernel says about the
 * container's process, read from outside the container (/proc/<pid>, the
 * cgroup's files), so that nothing the image runs can write it. The result
 * is the artifact's "host_observed" (docs/artifact.md). */
#ifndef HOST_OBSERVER_H
#define HOST_OBSERVER_H

#include <stdbool.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

struct host_target {
  pid_t pid;     /* in ocirun's pid namespace */
  int pidfd;     /* refers to pid and was taken before /proc/<pid> is opened */
  int cgroup_fd; /* the process's cgroup directory, or -1: see cgroup_from_proc */
  /* When cgroup_fd is -1: find the cgroup from /proc/<pid>/cgroup under
   * /sys/fs/cgroup (docker), or leave the cgroup values null (direct
   * without a slice). */
  bool cgroup_from_proc;
  /* When set, /proc/<pid>/cgroup must contain it (a Docker container ID):
   * the pid is then that container's on this host, not a remote engine's. */
  const char *cgroup_must_name;
};

/* A host_observed object with every observation null and "missing" saying
 * why. NULL only when out of memory. */
cJSON *host_observed_missing(const char *observer, const char *why);

/* Observes target (alive and unreaped, or held by its pidfd). Returns the
 * host_observed object; when the process is gone or is not the one meant,
 * the object says so in "missing". *not_local is set when /proc/<pid> does
 * not exist or does not name target->cgroup_must_name. NULL only when out
 * of memory. */
cJSON *host_observe_process(const struct host_target *target, const char *observer,
                            bool *not_local);

#endif
