/* docker run's resource and process settings -> the OCI properties the
 * runtime implements: each option checked strictly when it is read (a bad
 * value is an error naming the option), and written into the configuration
 * only when it was given, so a run without them is the run it always was. */
#include "config.h"

#include "docker_run/run_resources.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/in_root.h"
#include "oci/size.h"

/* docker refuses a reservation below 6 MiB, as it does a limit */
#define MEMORY_RESERVATION_MINIMUM (6LL * 1024 * 1024)
/* cgroup v1's cpu.shares range, which docker's --cpu-shares is */
#define CPU_SHARES_MIN 2
#define CPU_SHARES_MAX 262144

/* docker's --ulimit names (go-units' table): every rlimit but "as". */
static const struct {
  const char *name, *type;
} ulimit_names[] = {
    {"core", "RLIMIT_CORE"},         {"cpu", "RLIMIT_CPU"},
    {"data", "RLIMIT_DATA"},         {"fsize", "RLIMIT_FSIZE"},
    {"locks", "RLIMIT_LOCKS"},       {"memlock", "RLIMIT_MEMLOCK"},
    {"msgqueue", "RLIMIT_MSGQUEUE"}, {"nice", "RLIMIT_NICE"},
    {"nofile", "RLIMIT_NOFILE"},     {"nproc", "RLIMIT_NPROC"},
    {"rss", "RLIMIT_RSS"},           {"rtprio", "RLIMIT_RTPRIO"},
    {"rttime", "RLIMIT_RTTIME"},     {"sigpending", "RLIMIT_SIGPENDING"},
    {"stack", "RLIMIT_STACK"},
};

#define N_OF(array) (sizeof(array) / sizeof((array)[0]))

/* docker's stop-timeout default, the grace period of `docker stop` */
#define STOP_TIMEOUT_DEFAULT 10
/* a day: a grace period past the longest deadline anyone means */
#define STOP_TIMEOUT_MAX 86400

void run_resources_init(struct run_resources *r)
{
  *r = (struct run_resources){.memory_reservation = -1, .stop_timeout = -1};
}

static void strv_clear(char ***v, size_t *n)
{
  for (size_t i = 0; i < *n; i++)
    free((*v)[i]);
  free(*v);
  *v = NULL;
  *n = 0;
}

void run_resources_clear(struct run_resources *r)
{
  for (size_t i = 0; i < r->n_devices; i++)
    free(r->devices[i].path);
  free(r->devices);
  free(r->device_rules);
  free(r->ulimits);
  free(r->cpuset_cpus);
  free(r->cpuset_mems);
  strv_clear(&r->sysctl, &r->n_sysctl);
  strv_clear(&r->group_add, &r->n_group_add);
  strv_clear(&r->labels, &r->n_labels);
  run_resources_init(r);
}

static int strv_push(char ***v, size_t *n, const char *s, const char *option, oci_error_t *err)
{
  char **grown = reallocarray(*v, *n + 2, sizeof(**v));

  if (grown == NULL)
    return oci_error_errno(err, "run: allocate %s", option);
  *v = grown;
  (*v)[*n] = strdup(s);
  if ((*v)[*n] == NULL)
    return oci_error_errno(err, "run: allocate %s", option);
  (*v)[++*n] = NULL;
  return 0;
}

/* A limit value: a decimal number, or -1 / "unlimited" for RLIM_INFINITY. */
static int parse_rlimit_value(const char *text, uint64_t *out)
{
  char *end;
  unsigned long long value;

  if (strcmp(text, "-1") == 0 || strcmp(text, "unlimited") == 0) {
    *out = UINT64_MAX;
    return 0;
  }
  if (!isdigit((unsigned char)text[0]))
    return -1;
  errno = 0;
  value = strtoull(text, &end, 10);
  /* a JSON number holds it exactly */
  if (errno != 0 || *end != '\0' || value > (1ULL << 53))
    return -1;
  *out = value;
  return 0;
}

/* NAME=SOFT[:HARD], HARD defaulting to SOFT; a later NAME replaces an
 * earlier one, as in docker. Raising a hard limit past the caller's needs
 * CAP_SYS_RESOURCE: the child's setrlimit says so when it is missing. */
static int parse_ulimit(const char *text, struct run_resources *r, oci_error_t *err)
{
  const char *eq = strchr(text, '=');
  size_t name_len = eq != NULL ? (size_t)(eq - text) : 0;
  const char *type = NULL;
  cleanup_free char *values = NULL;
  char *colon;
  struct run_ulimit limit;
  struct run_ulimit *grown;

  for (size_t i = 0; eq != NULL && i < N_OF(ulimit_names); i++) {
    if (strlen(ulimit_names[i].name) == name_len &&
        strncmp(ulimit_names[i].name, text, name_len) == 0)
      type = ulimit_names[i].type;
  }
  if (eq == NULL)
    return oci_error_set(err, 0, "--ulimit '%s': NAME=SOFT[:HARD] is expected", text);
  if (type == NULL)
    return oci_error_set(err, 0,
                         "--ulimit '%s': unknown limit '%.*s' (known: core, cpu, data, fsize, "
                         "locks, memlock, msgqueue, nice, nofile, nproc, rss, rtprio, rttime, "
                         "sigpending, stack)",
                         text, (int)name_len, text);
  values = strdup(eq + 1);
  if (values == NULL)
    return oci_error_errno(err, "run: allocate --ulimit");
  colon = strchr(values, ':');
  if (colon != NULL)
    *colon++ = '\0';
  if (parse_rlimit_value(values, &limit.soft) < 0 ||
      (colon != NULL && parse_rlimit_value(colon, &limit.hard) < 0))
    return oci_error_set(err, 0,
                         "--ulimit '%s': SOFT and HARD are numbers up to 2^53 (-1 or "
                         "'unlimited': no limit)",
                         text);
  if (colon == NULL)
    limit.hard = limit.soft;
  if (limit.soft > limit.hard)
    return oci_error_set(err, 0, "--ulimit '%s': the soft limit is above the hard limit", text);
  limit.type = type;
  for (size_t i = 0; i < r->n_ulimits; i++) {
    if (r->ulimits[i].type == type) {
      r->ulimits[i] = limit;
      return 0;
    }
  }
  grown = reallocarray(r->ulimits, r->n_ulimits + 1, sizeof(*grown));
  if (grown == NULL)
    return oci_error_errno(err, "run: allocate --ulimit");
  r->ulimits = grown;
  r->ulimits[r->n_ulimits++] = limit;
  return 0;
}

/* docker's cpuset syntax: "0-3,8", each range ascending. What the host
 * lacks the kernel refuses when the slice's file is written. */
static int parse_cpuset(const char *option, const char *text, char **slot, oci_error_t *err)
{
  const char *p = text;
  char *copy;

  do {
    char *end;
    unsigned long first, last;

    if (!isdigit((unsigned char)*p))
      goto bad;
    first = last = strtoul(p, &end, 10);
    p = end;
    if (*p == '-') {
      if (!isdigit((unsigned char)p[1]))
        goto bad;
      last = strtoul(p + 1, &end, 10);
      p = end;
    }
    if (first > last || last > 65535)
      goto bad;
  } while (*p == ',' && *++p != '\0');
  if (*p != '\0')
    goto bad;
  copy = strdup(text);
  if (copy == NULL)
    return oci_error_errno(err, "run: allocate %s", option);
  free(*slot);
  *slot = copy;
  return 0;
bad:
  return oci_error_set(err, 0, "%s '%s': a list like 0-3,8 is expected", option, text);
}

static int parse_integer(const char *text, long long min, long long max, long long *out)
{
  char *end;

  errno = 0;
  *out = strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || *out < min || *out > max)
    return -1;
  return 0;
}

static int parse_cpu_shares(const char *text, struct run_resources *r, oci_error_t *err)
{
  long long shares;

  if (parse_integer(text, 0, CPU_SHARES_MAX, &shares) < 0 ||
      (shares != 0 && shares < CPU_SHARES_MIN))
    return oci_error_set(err, 0,
                         "--cpu-shares '%s': a relative weight from %d to %d is expected (0: the "
                         "default, 1024)",
                         text, CPU_SHARES_MIN, CPU_SHARES_MAX);
  r->cpu_shares = (uint64_t)shares;
  return 0;
}

static int parse_memory_reservation(const char *text, struct run_resources *r, oci_error_t *err)
{
  int64_t bytes;

  if (oci_size_option("--memory-reservation", text, &bytes, err) < 0)
    return -1;
  if (bytes < MEMORY_RESERVATION_MINIMUM)
    return oci_error_set(
        err, 0, "--memory-reservation '%s': the minimum memory reservation allowed is 6m", text);
  r->memory_reservation = bytes;
  return 0;
}

static int parse_oom_score_adj(const char *text, struct run_resources *r, oci_error_t *err)
{
  long long score;

  if (parse_integer(text, -1000, 1000, &score) < 0)
    return oci_error_set(err, 0, "--oom-score-adj '%s': a number from -1000 to 1000 is expected",
                         text);
  r->oom_score_adj_set = true;
  r->oom_score_adj = (int)score;
  return 0;
}

/* KEY=VALUE with a non-empty KEY; which keys are allowed (those of the
 * run's own namespaces) the runtime checks before anything is created. */
static int parse_key_value(const char *option, const char *text, bool value_needed, char ***v,
                           size_t *n, oci_error_t *err)
{
  const char *eq = strchr(text, '=');

  if (text[0] == '\0' || eq == text || (value_needed && eq == NULL))
    return oci_error_set(err, 0, "%s '%s': KEY=VALUE is expected", option, text);
  return strv_push(v, n, text, option, err);
}

/* A combination of r, w and m, each once, into access (4 bytes). */
static int parse_access(const char *text, char *access)
{
  bool r = false, w = false, m = false;

  if (text[0] == '\0')
    return -1;
  for (const char *c = text; *c != '\0'; c++) {
    bool *seen = *c == 'r' ? &r : *c == 'w' ? &w : *c == 'm' ? &m : NULL;

    if (seen == NULL || *seen)
      return -1;
    *seen = true;
  }
  snprintf(access, 4, "%s%s%s", r ? "r" : "", w ? "w" : "", m ? "m" : "");
  return 0;
}

/* HOST[:CONTAINER][:PERMS], docker's syntax (HOST:PERMS too). HOST is
 * opened once, symlinks followed then, and what is recorded is that
 * node's type and number: the runtime makes (or, rootless, binds and
 * checks) a node of that number, never the path again, so a path swapped
 * afterwards changes nothing. Anything but a character or block device is
 * refused. */
static int parse_device(const char *text, struct run_resources *r, oci_error_t *err)
{
  cleanup_free char *copy = strdup(text);
  cleanup_free char *normal = NULL;
  cleanup_close int fd = -1;
  char *host, *container = NULL, *perms = NULL;
  struct run_device device = {0};
  struct run_device *grown;
  struct stat st;
  size_t size;

  if (copy == NULL)
    return oci_error_errno(err, "run: allocate --device");
  host = copy;
  if ((container = strchr(host, ':')) != NULL) {
    *container++ = '\0';
    if ((perms = strchr(container, ':')) != NULL)
      *perms++ = '\0';
    else if (strchr(container, '/') == NULL) /* HOST:PERMS */
      perms = steal_pointer(&container);
  }
  if (host[0] != '/' || (container != NULL && container[0] != '/'))
    return oci_error_set(err, 0, "--device '%s': HOST and CONTAINER must be absolute paths", text);
  if (parse_access(perms != NULL ? perms : "rwm", device.access) < 0)
    return oci_error_set(err, 0, "--device '%s': PERMS is a combination of r, w and m", text);
  fd = open(host, O_PATH | O_CLOEXEC);
  if (fd < 0)
    return oci_error_errno(err, "--device '%s': open %s", text, host);
  if (fstat(fd, &st) < 0)
    return oci_error_errno(err, "--device '%s': fstat %s", text, host);
  if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
    return oci_error_set(err, 0, "--device '%s': %s is not a character or block device", text,
                         host);
  size = strlen(container != NULL ? container : host) + 2;
  normal = malloc(size);
  if (normal == NULL)
    return oci_error_errno(err, "run: allocate --device");
  if (in_root_path_normalize(container != NULL ? container : host, 0, normal, size) !=
      IN_ROOT_PATH_NORMAL)
    return oci_error_set(err, 0,
                         "--device '%s': the path in the container must be absolute, without "
                         "'..', and not the root",
                         text);
  device.type = S_ISCHR(st.st_mode) ? 'c' : 'b';
  device.major = major(st.st_rdev);
  device.minor = minor(st.st_rdev);
  device.mode = st.st_mode & 0777;
  device.uid = st.st_uid;
  device.gid = st.st_gid;
  grown = reallocarray(r->devices, r->n_devices + 1, sizeof(*grown));
  if (grown == NULL)
    return oci_error_errno(err, "run: allocate --device");
  r->devices = grown;
  device.path = steal_pointer(&normal);
  r->devices[r->n_devices++] = device;
  return 0;
}

/* MAJOR or MINOR: a number, or '*' for any (-1). */
static const char *parse_device_number(const char *p, int64_t *out)
{
  char *end;
  unsigned long value;

  if (*p == '*') {
    *out = -1;
    return p + 1;
  }
  if (!isdigit((unsigned char)*p))
    return NULL;
  errno = 0;
  value = strtoul(p, &end, 10);
  if (errno != 0 || value > 0xfffff)
    return NULL;
  *out = (int64_t)value;
  return end;
}

/* docker's 'TYPE MAJOR:MINOR PERMS' ('c 1:3 rwm', 'b *:* m', 'a'): one
 * more allow rule. It opens no node by itself: every mount the workload
 * can write is nodev, so only nodes the run was given can be opened. */
static int parse_device_cgroup_rule(const char *text, struct run_resources *r, oci_error_t *err)
{
  struct run_device_rule rule = {.major = -1, .minor = -1};
  struct run_device_rule *grown;
  const char *p = text;

  if (strchr("abc", text[0]) == NULL || text[0] == '\0')
    goto bad;
  rule.type = text[0];
  p++;
  if (rule.type == 'a' && *p == '\0') {
    strcpy(rule.access, "rwm");
  } else {
    if (*p++ != ' ' || (p = parse_device_number(p, &rule.major)) == NULL || *p++ != ':' ||
        (p = parse_device_number(p, &rule.minor)) == NULL || *p++ != ' ' ||
        parse_access(p, rule.access) < 0)
      goto bad;
  }
  grown = reallocarray(r->device_rules, r->n_device_rules + 1, sizeof(*grown));
  if (grown == NULL)
    return oci_error_errno(err, "run: allocate --device-cgroup-rule");
  r->device_rules = grown;
  r->device_rules[r->n_device_rules++] = rule;
  return 0;
bad:
  return oci_error_set(err, 0,
                       "--device-cgroup-rule '%s': 'TYPE MAJOR:MINOR PERMS' is expected (TYPE a, "
                       "b or c; MAJOR and MINOR numbers or '*'; PERMS of r, w and m)",
                       text);
}

/* docker's spellings: a number, NAME or SIGNAME (any case). SIGCHLD is
 * refused: ocirun's init reaps on it and passes it on to nobody. */
static int parse_stop_signal(const char *text, struct run_resources *r, oci_error_t *err)
{
  const char *name = strncasecmp(text, "SIG", 3) == 0 ? text + 3 : text;
  long long number;
  int sig = 0;

  if (parse_integer(text, 1, SIGRTMAX, &number) == 0)
    sig = (int)number;
  for (int s = 1; sig == 0 && name[0] != '\0' && s < SIGRTMIN; s++) {
    if (sigabbrev_np(s) != NULL && strcasecmp(sigabbrev_np(s), name) == 0)
      sig = s;
  }
  if (sig == 0)
    return oci_error_set(err, 0,
                         "--stop-signal '%s': a signal name (TERM, SIGINT) or number is "
                         "expected",
                         text);
  if (sig == SIGCHLD || sig == SIGSTOP)
    return oci_error_set(err, 0,
                         "--stop-signal '%s': %s cannot stop the workload (ocirun's init %s it)",
                         text, sig == SIGCHLD ? "SIGCHLD" : "SIGSTOP",
                         sig == SIGCHLD ? "reaps on" : "would be stopped by");
  r->stop_signal = sig;
  return 0;
}

static int parse_stop_timeout(const char *text, struct run_resources *r, oci_error_t *err)
{
  long long seconds;

  if (parse_integer(text, 0, STOP_TIMEOUT_MAX, &seconds) < 0)
    return oci_error_set(err, 0,
                         "--stop-timeout '%s': whole seconds from 0 to %d are expected (docker's "
                         "-1, no limit, would let the workload outlive the deadline)",
                         text, STOP_TIMEOUT_MAX);
  r->stop_timeout = (double)seconds;
  return 0;
}

void run_resources_stop(const struct run_resources *r, int *stop_signal, double *grace_seconds)
{
  bool asked = r->stop_signal != 0 || r->stop_timeout >= 0;

  *stop_signal = !asked ? 0 : r->stop_signal != 0 ? r->stop_signal : SIGTERM;
  *grace_seconds = !asked ? 0 : r->stop_timeout >= 0 ? r->stop_timeout : STOP_TIMEOUT_DEFAULT;
}

int run_resources_apply(int c, const char *arg, struct run_resources *r, oci_error_t *err)
{
  switch (c) {
  case RUN_RESOURCES_OPT_ULIMIT:
    return parse_ulimit(arg, r, err);
  case RUN_RESOURCES_OPT_CPUSET_CPUS:
    return parse_cpuset("--cpuset-cpus", arg, &r->cpuset_cpus, err);
  case RUN_RESOURCES_OPT_CPUSET_MEMS:
    return parse_cpuset("--cpuset-mems", arg, &r->cpuset_mems, err);
  case RUN_RESOURCES_OPT_CPU_SHARES:
    return parse_cpu_shares(arg, r, err);
  case RUN_RESOURCES_OPT_MEMORY_RESERVATION:
    return parse_memory_reservation(arg, r, err);
  case RUN_RESOURCES_OPT_OOM_SCORE_ADJ:
    return parse_oom_score_adj(arg, r, err);
  case RUN_RESOURCES_OPT_SYSCTL:
    return parse_key_value("--sysctl", arg, true, &r->sysctl, &r->n_sysctl, err);
  case RUN_RESOURCES_OPT_GROUP_ADD:
    if (arg[0] == '\0')
      return oci_error_set(err, 0, "--group-add '': a group name or id is expected");
    return strv_push(&r->group_add, &r->n_group_add, arg, "--group-add", err);
  case RUN_RESOURCES_OPT_LABEL:
    return parse_key_value("--label", arg, false, &r->labels, &r->n_labels, err);
  case RUN_RESOURCES_OPT_SHM_SIZE: {
    int64_t bytes;

    if (oci_size_option("--shm-size", arg, &bytes, err) < 0)
      return -1;
    r->shm_size = (uint64_t)bytes;
    return 0;
  }
  case RUN_RESOURCES_OPT_DEVICE:
    return parse_device(arg, r, err);
  case RUN_RESOURCES_OPT_DEVICE_CGROUP_RULE:
    return parse_device_cgroup_rule(arg, r, err);
  case RUN_RESOURCES_OPT_STOP_SIGNAL:
    return parse_stop_signal(arg, r, err);
  case RUN_RESOURCES_OPT_STOP_TIMEOUT:
    return parse_stop_timeout(arg, r, err);
  case RUN_RESOURCES_OPT_INIT:
    /* docker's --init: ocirun's own init is pid 1 of every run already
     * (runtime/exec_stub/init.c); the flag only says so */
    return 0;
  }
  return oci_error_set(err, 0, "run: internal error: option %d has no handler", c);
}

int run_resources_check(const struct run_resources *r, int64_t memory_bytes, bool unsafe_no_cgroup,
                        oci_error_t *err)
{
  if (r->memory_reservation > 0 && memory_bytes > 0 && r->memory_reservation > memory_bytes)
    return oci_error_set(err, 0, "--memory-reservation must be at most --memory");
  if (unsafe_no_cgroup && (r->cpuset_cpus != NULL || r->cpuset_mems != NULL || r->cpu_shares != 0 ||
                           r->memory_reservation > 0))
    return oci_error_set(err, 0,
                         "--unsafe-no-cgroup cannot apply --cpuset-cpus, --cpuset-mems, "
                         "--cpu-shares or --memory-reservation: remove those options or run on "
                         "a cgroup v2 host");
  return 0;
}

int run_resources_add_groups(const struct run_resources *r, int rootfs_fd,
                             const struct userns_map *map, struct run_user *user, oci_error_t *err)
{
  /* without setgroups in the user namespace there are no supplementary
   * groups at all: refused, not dropped */
  if (r->n_group_add > 0 && map != NULL && !userns_map_allows_setgroups(map))
    return oci_error_set(err, 0,
                         "--group-add: rootless without a range in /etc/subgid (and newgidmap), "
                         "the run cannot have supplementary groups");
  for (size_t i = 0; i < r->n_group_add; i++) {
    gid_t gid, *grown;
    bool known = false;

    if (user_group_resolve(rootfs_fd, r->group_add[i], "--group-add", &gid, err) < 0)
      return -1;
    for (size_t j = 0; j < user->n_groups; j++)
      known = known || user->groups[j] == gid;
    if (known)
      continue;
    grown = reallocarray(user->groups, user->n_groups + 1, sizeof(*grown));
    if (grown == NULL)
      return oci_error_errno(err, "run: allocate --group-add");
    user->groups = grown;
    user->groups[user->n_groups++] = gid;
  }
  return 0;
}

/* ---- into the configuration ---- */

static int no_memory(oci_error_t *err)
{
  return oci_error_set(err, ENOMEM, "run: build the configuration: out of memory");
}

/* object[key], created empty when missing. */
static cJSON *child_object(cJSON *object, const char *key, oci_error_t *err)
{
  cJSON *child = cJSON_GetObjectItemCaseSensitive(object, key);

  if (child == NULL)
    child = cJSON_AddObjectToObject(object, key);
  if (child == NULL)
    no_memory(err);
  return child;
}

static int set_number(cJSON *object, const char *key, double value, oci_error_t *err)
{
  return cJSON_AddNumberToObject(object, key, value) == NULL ? no_memory(err) : 0;
}

static int set_string(cJSON *object, const char *key, const char *value, oci_error_t *err)
{
  return cJSON_AddStringToObject(object, key, value) == NULL ? no_memory(err) : 0;
}

/* A new object at the end of array, NULL (err set) when out of memory. */
static cJSON *push_object(cJSON *array, oci_error_t *err)
{
  cJSON *object = cJSON_CreateObject();

  if (object == NULL || !cJSON_AddItemToArray(array, object)) {
    cJSON_Delete(object);
    no_memory(err);
    return NULL;
  }
  return object;
}

static int rlimits_json(const struct run_resources *r, cJSON *process, oci_error_t *err)
{
  cJSON *array;

  if (r->n_ulimits == 0)
    return 0;
  array = cJSON_AddArrayToObject(process, "rlimits");
  if (array == NULL)
    return no_memory(err);
  for (size_t i = 0; i < r->n_ulimits; i++) {
    cJSON *limit = push_object(array, err);

    if (limit == NULL)
      return -1;
    if (set_string(limit, "type", r->ulimits[i].type, err) < 0 ||
        set_number(limit, "soft", (double)r->ulimits[i].soft, err) < 0 ||
        set_number(limit, "hard", (double)r->ulimits[i].hard, err) < 0)
      return -1;
  }
  return 0;
}

/* -t: TERM=xterm, as docker and podman, unless the image or -e set one. */
static int term_json(bool tty, cJSON *process, oci_error_t *err)
{
  cJSON *env = cJSON_GetObjectItemCaseSensitive(process, "env");
  cJSON *item;

  if (!tty || env == NULL)
    return 0;
  cJSON_ArrayForEach(item, env)
  {
    if (cJSON_IsString(item) && strncmp(item->valuestring, "TERM=", 5) == 0)
      return 0;
  }
  item = cJSON_CreateString("TERM=xterm");
  if (item == NULL || !cJSON_AddItemToArray(env, item)) {
    cJSON_Delete(item);
    return no_memory(err);
  }
  return 0;
}

static int process_json(const struct run_resources *r, bool tty, cJSON *document, oci_error_t *err)
{
  cJSON *process = child_object(document, "process", err);

  if (process == NULL || rlimits_json(r, process, err) < 0 || term_json(tty, process, err) < 0)
    return -1;
  if (r->oom_score_adj_set && set_number(process, "oomScoreAdj", r->oom_score_adj, err) < 0)
    return -1;
  return 0;
}

/* cpu.shares becomes cpu.weight in the runtime (cgroup/limits.c), memory
 * reservation memory.low, cpus and mems cpuset.cpus and cpuset.mems. */
static int resources_json(const struct run_resources *r, cJSON *document, oci_error_t *err)
{
  cJSON *linux_object, *resources, *cpu = NULL, *memory;
  bool cpu_needed = r->cpu_shares != 0 || r->cpuset_cpus != NULL || r->cpuset_mems != NULL;

  if (!cpu_needed && r->memory_reservation < 0)
    return 0;
  if ((linux_object = child_object(document, "linux", err)) == NULL ||
      (resources = child_object(linux_object, "resources", err)) == NULL ||
      (cpu_needed && (cpu = child_object(resources, "cpu", err)) == NULL))
    return -1;
  if ((r->cpu_shares != 0 && set_number(cpu, "shares", (double)r->cpu_shares, err) < 0) ||
      (r->cpuset_cpus != NULL && set_string(cpu, "cpus", r->cpuset_cpus, err) < 0) ||
      (r->cpuset_mems != NULL && set_string(cpu, "mems", r->cpuset_mems, err) < 0))
    return -1;
  if (r->memory_reservation < 0)
    return 0;
  memory = child_object(resources, "memory", err);
  if (memory == NULL || set_number(memory, "reservation", (double)r->memory_reservation, err) < 0)
    return -1;
  return 0;
}

/* "KEY=VALUE" (or "KEY": "") entries as document[key] = {KEY: VALUE};
 * a later KEY replaces an earlier one. */
static int string_map_json(char *const *entries, size_t n, cJSON *parent, const char *key,
                           oci_error_t *err)
{
  cJSON *map;

  if (n == 0)
    return 0;
  map = child_object(parent, key, err);
  if (map == NULL)
    return -1;
  for (size_t i = 0; i < n; i++) {
    const char *eq = strchr(entries[i], '=');
    cleanup_free char *name =
        strndup(entries[i], eq != NULL ? (size_t)(eq - entries[i]) : strlen(entries[i]));

    if (name == NULL)
      return no_memory(err);
    cJSON_DeleteItemFromObjectCaseSensitive(map, name);
    if (set_string(map, name, eq != NULL ? eq + 1 : "", err) < 0)
      return -1;
  }
  return 0;
}

/* --shm-size: the size of the run's own /dev/shm tmpfs (run_spec.c's
 * mount, nosuid,noexec,nodev), the other options as they are. */
static int shm_json(const struct run_resources *r, cJSON *document, oci_error_t *err)
{
  cJSON *mount, *options, *option;
  char size[40];

  if (r->shm_size == 0)
    return 0;
  cJSON_ArrayForEach(mount, cJSON_GetObjectItemCaseSensitive(document, "mounts"))
  {
    cJSON *destination = cJSON_GetObjectItemCaseSensitive(mount, "destination");

    if (cJSON_IsString(destination) && strcmp(destination->valuestring, "/dev/shm") == 0)
      break;
  }
  options = cJSON_GetObjectItemCaseSensitive(mount, "options");
  if (mount == NULL || options == NULL)
    return oci_error_set(err, 0, "--shm-size: the run has no /dev/shm mount to size");
  snprintf(size, sizeof(size), "size=%" PRIu64, r->shm_size);
  cJSON_ArrayForEach(option, options)
  {
    if (cJSON_IsString(option) && strncmp(option->valuestring, "size=", 5) == 0)
      return cJSON_SetValuestring(option, size) == NULL ? no_memory(err) : 0;
  }
  option = cJSON_CreateString(size);
  if (option == NULL || !cJSON_AddItemToArray(options, option)) {
    cJSON_Delete(option);
    return no_memory(err);
  }
  return 0;
}

/* {"allow": true, "type", "major", "minor", "access"}; -1: any (absent). */
static int push_allow_rule(cJSON *rules, char type, int64_t major, int64_t minor,
                           const char *access, oci_error_t *err)
{
  char type_text[2] = {type, '\0'};
  cJSON *rule = push_object(rules, err);

  if (rule == NULL)
    return -1;
  if (cJSON_AddBoolToObject(rule, "allow", true) == NULL ||
      set_string(rule, "type", type_text, err) < 0 ||
      (major >= 0 && set_number(rule, "major", (double)major, err) < 0) ||
      (minor >= 0 && set_number(rule, "minor", (double)minor, err) < 0) ||
      set_string(rule, "access", access, err) < 0)
    return no_memory(err);
  return 0;
}

/* --device: the node (linux.devices) and its one allow rule, after
 * run_spec.c's deny-all and docker's defaults; --device-cgroup-rule: its
 * allow rules after those. */
static int devices_json(const struct run_resources *r, bool device_program, cJSON *document,
                        oci_error_t *err)
{
  cJSON *linux_object, *resources, *rules, *nodes = NULL;

  if (r->n_devices == 0 && r->n_device_rules == 0)
    return 0;
  /* a rule is the device program's: without one (rootless, or
   * --unsafe-no-cgroup) it would say what is not enforced */
  for (size_t i = 0; !device_program && i < r->n_devices; i++) {
    if (strcmp(r->devices[i].access, "rwm") != 0)
      return oci_error_set(err, 0,
                           "--device %s:%s: no device program (rootless or --unsafe-no-cgroup) "
                           "to restrict it to '%s': give rwm or run with a cgroup as root",
                           r->devices[i].path, r->devices[i].access, r->devices[i].access);
  }
  if (!device_program && r->n_device_rules > 0)
    return oci_error_set(err, 0,
                         "--device-cgroup-rule: no device program (rootless or "
                         "--unsafe-no-cgroup) to add it to");
  if ((linux_object = child_object(document, "linux", err)) == NULL ||
      (resources = child_object(linux_object, "resources", err)) == NULL)
    return -1;
  rules = cJSON_GetObjectItemCaseSensitive(resources, "devices");
  if (rules == NULL && (rules = cJSON_AddArrayToObject(resources, "devices")) == NULL)
    return no_memory(err);
  if (r->n_devices > 0 && (nodes = cJSON_AddArrayToObject(linux_object, "devices")) == NULL)
    return no_memory(err);
  for (size_t i = 0; i < r->n_devices; i++) {
    const struct run_device *d = &r->devices[i];
    char type[2] = {d->type, '\0'};
    cJSON *node = push_object(nodes, err);

    if (node == NULL)
      return -1;
    if (set_string(node, "path", d->path, err) < 0 || set_string(node, "type", type, err) < 0 ||
        set_number(node, "major", (double)d->major, err) < 0 ||
        set_number(node, "minor", (double)d->minor, err) < 0 ||
        set_number(node, "fileMode", d->mode, err) < 0 ||
        set_number(node, "uid", d->uid, err) < 0 || set_number(node, "gid", d->gid, err) < 0 ||
        push_allow_rule(rules, d->type, d->major, d->minor, d->access, err) < 0)
      return -1;
  }
  for (size_t i = 0; i < r->n_device_rules; i++) {
    const struct run_device_rule *rule = &r->device_rules[i];

    if (push_allow_rule(rules, rule->type, rule->major, rule->minor, rule->access, err) < 0)
      return -1;
  }
  return 0;
}

int run_resources_spec(const struct run_resources *r, bool tty, bool device_program,
                       cJSON *document, oci_error_t *err)
{
  cJSON *linux_object;

  if (process_json(r, tty, document, err) < 0 || resources_json(r, document, err) < 0 ||
      shm_json(r, document, err) < 0 || devices_json(r, device_program, document, err) < 0)
    return -1;
  if (r->n_sysctl > 0) {
    linux_object = child_object(document, "linux", err);
    if (linux_object == NULL ||
        string_map_json(r->sysctl, r->n_sysctl, linux_object, "sysctl", err) < 0)
      return -1;
  }
  /* docker's labels are the container's metadata: OCI's annotations,
   * which the runtime keeps in the state and hands to hooks, and which
   * change nothing of what the run may do */
  return string_map_json(r->labels, r->n_labels, document, "annotations", err);
}
