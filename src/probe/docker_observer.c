/* The docker backend's host observer. The engine's word (`docker inspect`)
 * is recorded as it came ("engine_config"); when the container's process is
 * on this host, its host_observed values are the kernel's (/proc/<pid>),
 * otherwise (a remote engine) they are derived from the engine's word. A
 * container whose process is gone before it was seen is a missing
 * observation, never a fallback. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe/docker_observer.h"
#include "probe/host_observer.h"
#include "oci/cleanup.h"
#include "probe/process_capture.h"
#include "runtime/json_strict.h"

/* One `docker inspect` must answer within this many seconds. */
#define INSPECT_TIMEOUT 60.0

static double now_seconds(void)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* `docker inspect` of the container, or NULL with why. */
static cJSON *inspect(const char *name, double timeout, char *why, size_t why_size)
{
  char *argv[] = {"docker",   "inspect",    "--type",     "container",
                  "--format", "{{json .}}", (char *)name, NULL};
  struct process_capture capture = {0};
  oci_error_t err = NULL;
  cJSON *json;

  if (process_capture_run(argv, NULL, NULL, 0, timeout, -1, &capture, &err) < 0) {
    snprintf(why, why_size, "docker inspect: %s", err != NULL ? err->message : "failed");
    oci_error_free(&err);
    return NULL;
  }
  /* The engine's word is read as strictly as the probe's: its values reach
   * the artifact (engine_config). */
  json = NULL;
  if (capture.exit_code != 0 || capture.timed_out) {
    snprintf(why, why_size, "docker inspect %s: %s", name,
             capture.timed_out ? "timed out" : process_capture_message(&capture));
  } else if (json_parse_strict(capture.out, capture.out_length, &json, &err) < 0) {
    snprintf(why, why_size, "docker inspect %s: %s", name, err != NULL ? err->message : "refused");
    oci_error_free(&err);
  } else if (!cJSON_IsObject(json)) {
    snprintf(why, why_size, "docker inspect %s: not a JSON object", name);
    cJSON_Delete(json);
    json = NULL;
  }
  process_capture_clear(&capture);
  return json;
}

static const cJSON *member(const cJSON *json, const char *object, const char *key)
{
  return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(json, object), key);
}

static long long state_pid(const cJSON *json)
{
  const cJSON *running = member(json, "State", "Running");
  const cJSON *pid = member(json, "State", "Pid");
  return cJSON_IsTrue(running) && cJSON_IsNumber(pid) && pid->valuedouble > 0
             ? (long long)pid->valuedouble
             : 0;
}

/* What the engine says it configured, under the engine's own names. */
static cJSON *engine_config(const cJSON *json)
{
  static const char *const host_config_keys[] = {
      "Memory",      "MemorySwap",     "NanoCpus", "CpuQuota", "CpuPeriod",
      "PidsLimit",   "ReadonlyRootfs", "CapAdd",   "CapDrop",  "Privileged",
      "SecurityOpt", "NetworkMode",    "Tmpfs"};
  cJSON *config = cJSON_CreateObject();
  const cJSON *value;

  for (size_t i = 0; config != NULL && i < sizeof(host_config_keys) / sizeof(host_config_keys[0]);
       i++)
    if ((value = member(json, "HostConfig", host_config_keys[i])) != NULL &&
        !cJSON_AddItemToObject(config, host_config_keys[i], cJSON_Duplicate(value, true)))
      goto oom;
  if (config != NULL && (value = member(json, "Config", "User")) != NULL &&
      !cJSON_AddItemToObject(config, "User", cJSON_Duplicate(value, true)))
    goto oom;
  if (config != NULL && (value = member(json, "State", "Pid")) != NULL &&
      !cJSON_AddItemToObject(config, "Pid", cJSON_Duplicate(value, true)))
    goto oom;
  return config;
oom:
  cJSON_Delete(config);
  return NULL;
}

static bool string_listed(const cJSON *array, const char *const *accepted)
{
  const cJSON *item;
  cJSON_ArrayForEach(item, array)
  {
    for (size_t i = 0; cJSON_IsString(item) && accepted[i] != NULL; i++)
      if (strcasecmp(item->valuestring, accepted[i]) == 0)
        return true;
  }
  return false;
}

static long long number_of(const cJSON *value)
{
  return cJSON_IsNumber(value) ? (long long)value->valuedouble : 0;
}

/* A limit as the cgroup v2 file shows it: the number, or "max". */
static cJSON *limit_text(long long value)
{
  char text[32];
  if (value > 0)
    snprintf(text, sizeof(text), "%lld", value);
  else
    snprintf(text, sizeof(text), "max");
  return cJSON_CreateString(text);
}

static cJSON *cpu_text(const cJSON *json)
{
  long long nano = number_of(member(json, "HostConfig", "NanoCpus"));
  long long quota = number_of(member(json, "HostConfig", "CpuQuota"));
  long long period = number_of(member(json, "HostConfig", "CpuPeriod"));
  char text[64];

  if (period <= 0)
    period = 100000; /* the kernel's default period, which Docker uses */
  if (nano > 0)
    quota = nano * period / 1000000000LL;
  if (quota > 0)
    snprintf(text, sizeof(text), "%lld %lld", quota, period);
  else
    snprintf(text, sizeof(text), "max %lld", period);
  return cJSON_CreateString(text);
}

static bool add(cJSON *object, const char *key, cJSON *value)
{
  return value != NULL && cJSON_AddItemToObject(object, key, value);
}

static void replace(cJSON *object, const char *key, cJSON *value)
{
  if (value != NULL && !cJSON_ReplaceItemInObjectCaseSensitive(object, key, value))
    cJSON_Delete(value);
}

/* The recipe's observations as the engine's configuration implies them: the
 * weaker observer, used only when the process is not on this host. A value
 * the configuration does not determine stays null. */
static cJSON *derive_from_engine(const cJSON *json, const char *why_not_procfs)
{
  static const char *const no_new_privileges[] = {"no-new-privileges", "no-new-privileges:true",
                                                  "no-new-privileges=true", NULL};
  static const char *const all[] = {"ALL", NULL};
  cleanup_cjson cJSON *object = host_observed_missing("docker inspect", "");
  const cJSON *user = member(json, "Config", "User");
  const cJSON *network = member(json, "HostConfig", "NetworkMode");
  const cJSON *tmp = cJSON_GetObjectItemCaseSensitive(member(json, "HostConfig", "Tmpfs"), "/tmp");
  const cJSON *cap_add = member(json, "HostConfig", "CapAdd");
  cJSON *cgroup = cJSON_GetObjectItemCaseSensitive(object, "cgroup_v2");
  char *end;

  if (object == NULL || cgroup == NULL)
    return NULL;
  replace(object, "missing", cJSON_CreateNull());
  if (cJSON_IsString(user)) {
    long uid = strtol(user->valuestring, &end, 10);
    if (end != user->valuestring && (*end == '\0' || *end == ':'))
      replace(object, "uid", cJSON_CreateNumber((double)uid));
  }
  replace(cgroup, "memory.max", limit_text(number_of(member(json, "HostConfig", "Memory"))));
  replace(cgroup, "pids.max", limit_text(number_of(member(json, "HostConfig", "PidsLimit"))));
  replace(cgroup, "cpu.max", cpu_text(json));
  replace(object, "root_read_only",
          cJSON_CreateBool(cJSON_IsTrue(member(json, "HostConfig", "ReadonlyRootfs"))));
  replace(object, "owned_tmp_write", cJSON_CreateBool(cJSON_IsString(tmp)));
  if (cJSON_IsString(network) && strcmp(network->valuestring, "none") == 0)
    replace(object, "network_interfaces", cJSON_Parse("[\"lo\"]"));
  replace(object, "no_new_privileges",
          cJSON_CreateBool(
              string_listed(member(json, "HostConfig", "SecurityOpt"), no_new_privileges)));
  if (string_listed(member(json, "HostConfig", "CapDrop"), all) &&
      cJSON_GetArraySize(cap_add) == 0 && !cJSON_IsTrue(member(json, "HostConfig", "Privileged")))
    replace(object, "capabilities", cJSON_CreateNumber(0));
  if (cJSON_IsString(tmp) &&
      !add(object, "tmp_mount_options", cJSON_CreateString(tmp->valuestring)))
    return NULL;
  if (!add(object, "procfs_unavailable", cJSON_CreateString(why_not_procfs)))
    return NULL;
  return steal_pointer(&object);
}

/* Whether the poll should stop: the starting CLI is gone (the container
 * will not start) or ocirun was interrupted. */
static bool give_up(pid_t starter, int interrupt_fd, char *why, size_t why_size)
{
  siginfo_t info = {0};
  struct pollfd interrupt = {.fd = interrupt_fd, .events = POLLIN};

  if (waitid(P_PID, (id_t)starter, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0) {
    snprintf(why, why_size, "docker start exited before the container ran");
    return true;
  }
  if (interrupt_fd >= 0 && poll(&interrupt, 1, 0) > 0) {
    snprintf(why, why_size, "interrupted before the container ran");
    return true;
  }
  return false;
}

/* Polls until the container runs; its inspect document, or NULL with why. */
static cJSON *inspect_running(const char *name, pid_t starter, int interrupt_fd, double deadline,
                              char *why, size_t why_size)
{
  for (;;) {
    double left = deadline - now_seconds();
    cJSON *json;
    const cJSON *status;

    if (left <= 0) {
      snprintf(why, why_size, "container %s was not running before the deadline", name);
      return NULL;
    }
    if (give_up(starter, interrupt_fd, why, why_size))
      return NULL;
    if ((json = inspect(name, left < INSPECT_TIMEOUT ? left : INSPECT_TIMEOUT, why, why_size)) ==
        NULL)
      return NULL;
    if (state_pid(json) > 0)
      return json;
    status = member(json, "State", "Status");
    if (!cJSON_IsString(status) || strcmp(status->valuestring, "created") != 0) {
      snprintf(why, why_size,
               "the container's process had exited (State.Status %s) before the host could "
               "observe it",
               cJSON_IsString(status) ? status->valuestring : "unknown");
      cJSON_Delete(json);
      return NULL;
    }
    cJSON_Delete(json);
    nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
  }
}

cJSON *docker_observe_container(const char *name, pid_t starter, int interrupt_fd,
                                double seconds_left)
{
  double deadline = now_seconds() + (seconds_left > 0 ? seconds_left : INSPECT_TIMEOUT);
  char why[512], why_not_procfs[512];
  cleanup_cjson cJSON *json =
      inspect_running(name, starter, interrupt_fd, deadline, why, sizeof(why));
  cleanup_cjson cJSON *again = NULL;
  cleanup_cjson cJSON *observed = NULL;
  cleanup_close int pidfd = -1;
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(json, "Id");
  long long pid = state_pid(json);
  bool not_local = true;

  if (json == NULL)
    return host_observed_missing("docker inspect and procfs", why);
  if (!cJSON_IsString(id) || strlen(id->valuestring) < 12)
    return host_observed_missing("docker inspect and procfs",
                                 "docker inspect gave no container ID");

  /* The pidfd first: what /proc/<pid> shows afterwards is this process's
   * while the pidfd says it lives, and its cgroup must name the container. */
  pidfd = pidfd_open((pid_t)pid, 0);
  if (pidfd >= 0) {
    struct host_target target = {.pid = (pid_t)pid,
                                 .pidfd = pidfd,
                                 .cgroup_fd = -1,
                                 .cgroup_from_proc = true,
                                 .cgroup_must_name = id->valuestring};
    observed = host_observe_process(&target, "docker inspect and procfs", &not_local);
    if (observed == NULL)
      return NULL;
    snprintf(why_not_procfs, sizeof(why_not_procfs), "%s",
             cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(observed, "missing"))
                 ?: "unknown");
  } else {
    snprintf(why_not_procfs, sizeof(why_not_procfs), "pid %lld: pidfd_open: %s", pid,
             strerror(errno));
  }
  if (!not_local) {
    if (!add(observed, "engine_config", engine_config(json)))
      return NULL;
    return steal_pointer(&observed);
  }
  /* Not found here: a remote engine, or a process that already exited. Only
   * an engine still running that same pid means the former. */
  again = inspect(name, INSPECT_TIMEOUT, why, sizeof(why));
  if (again == NULL || state_pid(again) != pid) {
    snprintf(why, sizeof(why),
             "the container's process (pid %lld) exited before the host could observe it", pid);
    return host_observed_missing("docker inspect and procfs", why);
  }
  cJSON_Delete(observed);
  observed = derive_from_engine(json, why_not_procfs);
  if (observed == NULL || !add(observed, "engine_config", engine_config(json)))
    return NULL;
  return steal_pointer(&observed);
}
