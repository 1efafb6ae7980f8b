/* `ocirun run` options -> struct run_config: docker run's option names and
 * value syntax, checked strictly. A malformed value is an error naming the
 * option; nothing is guessed and nothing is ignored. */
#include "config.h"

#include "docker_run/run_config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "docker_run/run_mounts.h"
#include "runtime/capabilities.h"
#include "runtime/state/root.h"
#include "oci/cleanup.h"
#include "oci/file_read.h"
#include "oci/options.h"
#include "oci/size.h"

#define CPU_PERIOD_US 100000
/* docker refuses memory limits below 6 MiB: the runtime itself needs that. */
#define MEMORY_MINIMUM_BYTES (6LL * 1024 * 1024)
#define HOSTNAME_MAX_LEN 63
/* docker reads any size; a megabyte of NAME=VALUE lines is far past real use. */
#define ENV_FILE_MAX ((size_t)1 << 20)

enum {
  OPT_NAME = 256,
  OPT_NETWORK,
  OPT_READ_ONLY,
  OPT_ROOT_TMPFS,
  OPT_STORAGE_OPT,
  OPT_MEMORY_SWAP,
  OPT_CPUS,
  OPT_PIDS_LIMIT,
  OPT_CAP_DROP,
  OPT_CAP_ADD,
  OPT_SECURITY_OPT,
  OPT_TMPFS,
  OPT_MOUNT,
  OPT_ENV_FILE,
  OPT_HOSTNAME,
  OPT_ENTRYPOINT,
  OPT_TIMEOUT,
  OPT_CGROUP_PARENT,
  OPT_DRY_RUN,
  OPT_UNSAFE_NO_CGROUP,
  OPT_RM,
  OPT_HELP,
  /* the network's block (run_network.c) */
  OPT_DNS,
  OPT_ADD_HOST,
};

void run_config_init(struct run_config *config)
{
  *config = (struct run_config){
      .memory_bytes = -1,
      .memory_swap_bytes = -1,
      .cpu_quota_us = -1,
      .cpu_period_us = CPU_PERIOD_US,
      .pids_limit = -1,
      .timeout_seconds = 30,
  };
  run_resources_init(&config->resources);
}

void run_config_clear(struct run_config *config)
{
  free(config->image_reference);
  free(config->name);
  free(config->seccomp_profile_path);
  free(config->user);
  run_mounts_clear(config);
  for (size_t i = 0; i < config->n_env; i++)
    free(config->env[i]);
  free(config->env);
  free(config->workdir);
  free(config->hostname);
  run_network_clear(&config->network);
  free(config->entrypoint);
  if (config->command != NULL) {
    for (char **s = config->command; *s != NULL; s++)
      free(*s);
    free(config->command);
  }
  free(config->cgroup_parent);
  run_resources_clear(&config->resources);
  run_config_init(config);
}

static int replace_string(char **slot, const char *value, oci_error_t *err)
{
  char *copy = strdup(value);

  if (copy == NULL)
    return oci_error_errno(err, "run: strdup");
  free(*slot);
  *slot = copy;
  return 0;
}

/* A decimal number with nothing after it. */
static int parse_decimal(const char *text, double *out)
{
  char *end;

  errno = 0;
  if (!isdigit((unsigned char)text[0]) && text[0] != '.')
    return -1;
  *out = strtod(text, &end);
  if (errno != 0 || end == text || *end != '\0' || !isfinite(*out))
    return -1;
  return 0;
}

static int parse_cpus(const char *text, struct run_config *config, oci_error_t *err)
{
  double cpus;
  long online = sysconf(_SC_NPROCESSORS_ONLN);

  if (parse_decimal(text, &cpus) < 0 || cpus <= 0)
    return oci_error_set(err, 0, "--cpus '%s': a positive decimal number of CPUs is expected",
                         text);
  if (cpus < 0.01 || (online > 0 && cpus > (double)online))
    return oci_error_set(err, 0,
                         "--cpus '%s': the range of CPUs is from 0.01 to %ld, as there are "
                         "only %ld CPUs available",
                         text, online, online);
  config->cpu_quota_us = (int64_t)(cpus * CPU_PERIOD_US + 0.5);
  config->cpu_period_us = CPU_PERIOD_US;
  return 0;
}

static int parse_pids_limit(const char *text, struct run_config *config, oci_error_t *err)
{
  char *end;
  long long value;

  errno = 0;
  value = strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || (value < 1 && value != -1))
    return oci_error_set(err, 0,
                         "--pids-limit '%s': a positive number of processes (or -1 for "
                         "unlimited) is expected",
                         text);
  config->pids_limit = value;
  return 0;
}

static int parse_capability(const char *option, const char *text, uint64_t *mask, bool *all,
                            oci_error_t *err)
{
  int cap = capability_from_name(text);

  if (cap == CAPABILITY_ALL) {
    if (all != NULL)
      *all = true;
    *mask = ~(uint64_t)0;
    return 0;
  }
  if (cap < 0 || cap > 63)
    return oci_error_set(err, 0, "%s '%s': unknown capability", option, text);
  *mask |= (uint64_t)1 << cap;
  return 0;
}

static int parse_security_opt(const char *text, struct run_config *config, oci_error_t *err)
{
  /* docker accepts both "key=value" and the older "key:value". */
  size_t key_len = strcspn(text, "=:");
  const char *value = text[key_len] != '\0' ? text + key_len + 1 : NULL;

  if (key_len == strlen("no-new-privileges") && strncmp(text, "no-new-privileges", key_len) == 0) {
    if (value == NULL || strcmp(value, "true") == 0)
      config->no_new_privileges = true;
    else if (strcmp(value, "false") == 0)
      config->no_new_privileges = false;
    else
      return oci_error_set(err, 0, "--security-opt '%s': no-new-privileges takes true or false",
                           text);
    return 0;
  }
  if (key_len == strlen("seccomp") && strncmp(text, "seccomp", key_len) == 0 && value != NULL &&
      value[0] != '\0') {
    free(config->seccomp_profile_path);
    config->seccomp_profile_path = NULL;
    config->seccomp_unconfined = strcmp(value, "unconfined") == 0;
    if (config->seccomp_unconfined)
      return 0;
    return replace_string(&config->seccomp_profile_path, value, err);
  }
  return oci_error_set(err, 0,
                       "--security-opt '%s': unsupported; ocirun knows no-new-privileges[=BOOL], "
                       "seccomp=PROFILE.json and seccomp=unconfined",
                       text);
}

/* docker's --storage-opt size=BYTES (the only key of its overlay2 driver),
 * the bound of the root's writable layer. */
static int parse_storage_opt(const char *text, struct run_config *config, oci_error_t *err)
{
  int64_t size;

  if (strncmp(text, "size=", 5) != 0)
    return oci_error_set(err, 0,
                         "--storage-opt '%s': unsupported; ocirun knows size=BYTES (the bound of "
                         "the root's writable layer)",
                         text);
  if (oci_size_option("--storage-opt size=", text + 5, &size, err) < 0)
    return -1;
  config->storage_size = (uint64_t)size;
  return 0;
}

static bool valid_env_name(const char *name, size_t len)
{
  if (len == 0)
    return false;
  for (size_t i = 0; i < len; i++) {
    if (name[i] == '\0' || isspace((unsigned char)name[i]))
      return false;
  }
  return true;
}

/* NAME=VALUE as given. NAME alone copies ocirun's own value of NAME, as
 * docker does: the user named it explicitly, so nothing leaks implicitly;
 * an unset NAME adds nothing. */
static int add_env(const char *option, const char *text, struct run_config *config,
                   oci_error_t *err)
{
  const char *eq = strchr(text, '=');
  size_t name_len = eq != NULL ? (size_t)(eq - text) : strlen(text);
  char *entry;
  char **grown;

  if (!valid_env_name(text, name_len))
    return oci_error_set(err, 0, "%s '%s': expected NAME=VALUE or NAME", option, text);
  if (eq != NULL) {
    entry = strdup(text);
  } else {
    const char *host_value = getenv(text);

    if (host_value == NULL)
      return 0;
    if (asprintf(&entry, "%s=%s", text, host_value) < 0)
      entry = NULL;
  }
  if (entry == NULL)
    return oci_error_errno(err, "run: allocate %s", option);
  grown = reallocarray(config->env, config->n_env + 2, sizeof(*grown));
  if (grown == NULL) {
    free(entry);
    return oci_error_errno(err, "run: allocate %s", option);
  }
  config->env = grown;
  config->env[config->n_env++] = entry;
  config->env[config->n_env] = NULL;
  return 0;
}

/* docker's env-file format: one NAME=VALUE (or NAME) per line, lines
 * starting with '#' and blank lines skipped, no quoting. Read through the
 * bounded reader: a FIFO, a device (/dev/zero) or a directory is refused
 * before a byte is read, and so is a file over ENV_FILE_MAX. */
static int parse_env_file(const char *path, struct run_config *config, oci_error_t *err)
{
  cleanup_free char *what = NULL;
  cleanup_free char *text = NULL;
  size_t length;
  char *line;

  if (asprintf(&what, "--env-file '%s'", path) < 0) {
    what = NULL;
    return oci_error_errno(err, "run: allocate --env-file");
  }
  if (oci_file_read(AT_FDCWD, path, OCI_FILE_NAMED, what, ENV_FILE_MAX, &text, &length, err) < 0)
    return -1;
  if (memchr(text, '\0', length) != NULL)
    return oci_error_set(err, 0, "%s: contains a NUL byte: not a text file", what);
  for (line = text; line < text + length;) {
    char *end = strchrnul(line, '\n');
    char *next = *end == '\0' ? end : end + 1;
    char *start = line;

    *end = '\0';
    while (end > line && end[-1] == '\r')
      *--end = '\0';
    while (isspace((unsigned char)*start))
      start++;
    line = next;
    if (*start == '\0' || *start == '#')
      continue;
    if (add_env("--env-file", start, config, err) < 0)
      return oci_error_wrap(err, "'%s': ", path);
  }
  return 0;
}

static bool valid_hostname(const char *name)
{
  size_t len = strlen(name);

  if (len == 0 || len > HOSTNAME_MAX_LEN)
    return false;
  for (size_t i = 0; i < len; i++) {
    if (!isalnum((unsigned char)name[i]) && strchr("-.", name[i]) == NULL)
      return false;
  }
  return true;
}

static int generate_name(struct run_config *config, oci_error_t *err)
{
  unsigned char bytes[6];

  if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes))
    return oci_error_errno(err, "run: getrandom for the container name");
  if (asprintf(&config->name, "ocirun-%02x%02x%02x%02x%02x%02x", bytes[0], bytes[1], bytes[2],
               bytes[3], bytes[4], bytes[5]) < 0) {
    config->name = NULL;
    return oci_error_errno(err, "run: allocate the container name");
  }
  config->name_generated = true;
  return 0;
}

/* Checks that only make sense once every option is known. */
static int check_combination(struct run_config *config, oci_error_t *err)
{
  if (config->memory_swap_bytes != -1 && config->memory_bytes == -1)
    return oci_error_set(err, 0, "--memory-swap needs --memory as well (as in docker)");
  if (config->memory_swap_bytes >= 0 && config->memory_swap_bytes < config->memory_bytes)
    return oci_error_set(err, 0, "--memory-swap must be at least --memory: it is memory plus swap");
  /* Refused rather than warned about: a limit that is silently not applied
   * would make the command line lie. */
  if (config->unsafe_no_cgroup && (config->memory_bytes != -1 || config->memory_swap_bytes != -1 ||
                                   config->cpu_quota_us != -1 || config->pids_limit != -1))
    return oci_error_set(err, 0,
                         "--unsafe-no-cgroup cannot apply --memory, --memory-swap, --cpus or "
                         "--pids-limit: remove those options or run on a cgroup v2 host");
  if (config->unsafe_no_cgroup && config->cgroup_parent != NULL)
    return oci_error_set(err, 0, "--unsafe-no-cgroup and --cgroup-parent contradict each other");
  if (run_resources_check(&config->resources, config->memory_bytes, config->unsafe_no_cgroup, err) <
      0)
    return -1;
  if (config->seccomp_unconfined && config->seccomp_profile_path != NULL)
    return oci_error_set(err, 0, "--security-opt: seccomp given twice");
  if (run_network_check(&config->network, false, err) < 0)
    return -1;
  if (config->name == NULL)
    return generate_name(config, err);
  return 0;
}

static int parse_timeout(const char *text, struct run_config *config, oci_error_t *err)
{
  double seconds;

  if (parse_decimal(text, &seconds) < 0 || seconds <= 0 || seconds > 365.0 * 24 * 3600)
    return oci_error_set(err, 0, "--timeout '%s': a positive number of seconds is expected", text);
  config->timeout_seconds = seconds;
  return 0;
}

static int parse_cgroup_parent(const char *text, struct run_config *config, oci_error_t *err)
{
  if (strncmp(text, "/sys/fs/cgroup/", strlen("/sys/fs/cgroup/")) != 0 ||
      strstr(text, "..") != NULL)
    return oci_error_set(err, 0,
                         "--cgroup-parent '%s': an absolute path under /sys/fs/cgroup/ without "
                         "'..' is expected",
                         text);
  return replace_string(&config->cgroup_parent, text, err);
}

/* One option and its argument into config; the switch is the option table. */
static int apply_option(int c, const char *arg, struct run_config *config, oci_error_t *err)
{
  if (c == 'l') /* docker's -l, --label */
    c = RUN_RESOURCES_OPT_LABEL;
  if (run_resources_option(c))
    return run_resources_apply(c, arg, &config->resources, err);
  switch (c) {
  case OPT_NAME:
    /* docker's container name rule, which is every name's under $ROOT */
    if (state_name_check("container name", arg, err) < 0)
      return oci_error_wrap(err, "--name");
    config->name_generated = false;
    return replace_string(&config->name, arg, err);
  case OPT_NETWORK:
    return run_network_set_mode(&config->network, arg, err);
  case OPT_DNS:
    return run_network_add_dns(&config->network, arg, err);
  case OPT_ADD_HOST:
    return run_network_add_host(&config->network, arg, err);
  case 'p':
    return run_network_add_port(&config->network, arg, err);
  case OPT_READ_ONLY:
    config->read_only = true;
    return 0;
  case OPT_ROOT_TMPFS:
    config->root_tmpfs = true;
    return 0;
  case OPT_STORAGE_OPT:
    return parse_storage_opt(arg, config, err);
  case 'm':
    if (oci_size_option("--memory", arg, &config->memory_bytes, err) < 0)
      return -1;
    if (config->memory_bytes < MEMORY_MINIMUM_BYTES)
      return oci_error_set(err, 0, "--memory '%s': the minimum memory limit allowed is 6m", arg);
    return 0;
  case OPT_MEMORY_SWAP:
    if (strcmp(arg, "-1") == 0) {
      config->memory_swap_bytes = -2;
      return 0;
    }
    return oci_size_option("--memory-swap", arg, &config->memory_swap_bytes, err);
  case OPT_CPUS:
    return parse_cpus(arg, config, err);
  case OPT_PIDS_LIMIT:
    return parse_pids_limit(arg, config, err);
  case OPT_CAP_DROP:
    return parse_capability("--cap-drop", arg, &config->cap_drop, &config->cap_drop_all, err);
  case OPT_CAP_ADD:
    return parse_capability("--cap-add", arg, &config->cap_add, &config->cap_add_all, err);
  case OPT_SECURITY_OPT:
    return parse_security_opt(arg, config, err);
  case 'u':
    if (arg[0] == '\0' || arg[0] == ':')
      return oci_error_set(err, 0, "--user '%s': expected UID[:GID] or NAME[:GROUP]", arg);
    return replace_string(&config->user, arg, err);
  case OPT_TMPFS:
    return run_mount_parse_tmpfs(arg, config, err);
  case 'v':
    return run_mount_parse_volume(arg, config, err);
  case OPT_MOUNT:
    return run_mount_parse_mount(arg, config, err);
  case 'e':
    return add_env("--env", arg, config, err);
  case OPT_ENV_FILE:
    return parse_env_file(arg, config, err);
  case 'w':
    if (arg[0] != '/')
      return oci_error_set(err, 0, "--workdir '%s': the working directory must be absolute", arg);
    return replace_string(&config->workdir, arg, err);
  case OPT_HOSTNAME:
    if (!valid_hostname(arg))
      return oci_error_set(err, 0,
                           "--hostname '%s': 1 to %d letters, digits, '-' or '.' are expected", arg,
                           HOSTNAME_MAX_LEN);
    return replace_string(&config->hostname, arg, err);
  case 'i':
    config->interactive = true;
    return 0;
  case 't':
    config->tty = true;
    return 0;
  case OPT_ENTRYPOINT:
    config->entrypoint_set = true;
    return replace_string(&config->entrypoint, arg, err);
  case OPT_TIMEOUT:
    return parse_timeout(arg, config, err);
  case OPT_CGROUP_PARENT:
    return parse_cgroup_parent(arg, config, err);
  case OPT_DRY_RUN:
    config->dry_run = true;
    return 0;
  case OPT_UNSAFE_NO_CGROUP:
    config->unsafe_no_cgroup = true;
    return 0;
  case OPT_RM: /* always the case: nothing outlives a run */
    return 0;
  }
  return oci_error_set(err, 0, "run: internal error: option %d has no handler", c);
}

int run_options_parse(int argc, char **argv, struct run_config *config, int *next, oci_error_t *err)
{
  static const struct option options[] = {
      {"name", required_argument, NULL, OPT_NAME},
      {"network", required_argument, NULL, OPT_NETWORK},
      {"net", required_argument, NULL, OPT_NETWORK},
      {"read-only", no_argument, NULL, OPT_READ_ONLY},
      {"root-tmpfs", no_argument, NULL, OPT_ROOT_TMPFS},
      {"storage-opt", required_argument, NULL, OPT_STORAGE_OPT},
      {"memory", required_argument, NULL, 'm'},
      {"memory-swap", required_argument, NULL, OPT_MEMORY_SWAP},
      {"cpus", required_argument, NULL, OPT_CPUS},
      {"pids-limit", required_argument, NULL, OPT_PIDS_LIMIT},
      {"cap-drop", required_argument, NULL, OPT_CAP_DROP},
      {"cap-add", required_argument, NULL, OPT_CAP_ADD},
      {"security-opt", required_argument, NULL, OPT_SECURITY_OPT},
      {"user", required_argument, NULL, 'u'},
      {"tmpfs", required_argument, NULL, OPT_TMPFS},
      {"volume", required_argument, NULL, 'v'},
      {"mount", required_argument, NULL, OPT_MOUNT},
      {"env", required_argument, NULL, 'e'},
      {"env-file", required_argument, NULL, OPT_ENV_FILE},
      {"workdir", required_argument, NULL, 'w'},
      {"hostname", required_argument, NULL, OPT_HOSTNAME},
      {"interactive", no_argument, NULL, 'i'},
      {"tty", no_argument, NULL, 't'},
      {"entrypoint", required_argument, NULL, OPT_ENTRYPOINT},
      {"timeout", required_argument, NULL, OPT_TIMEOUT},
      {"cgroup-parent", required_argument, NULL, OPT_CGROUP_PARENT},
      {"dry-run", no_argument, NULL, OPT_DRY_RUN},
      {"unsafe-no-cgroup", no_argument, NULL, OPT_UNSAFE_NO_CGROUP},
      {"rm", no_argument, NULL, OPT_RM},
      {"help", no_argument, NULL, OPT_HELP},
      RUN_RESOURCES_OPTIONS,
      {"dns", required_argument, NULL, OPT_DNS},
      {"add-host", required_argument, NULL, OPT_ADD_HOST},
      {"publish", required_argument, NULL, 'p'},
      {NULL, 0, NULL, 0},
  };
  int c;

  optind = 0;
  /* '+': stop at IMAGE; what follows belongs to the command. docker's -h
   * (hostname) is not taken, so -h cannot be mistaken for help. */
  while ((c = options_next(argc, argv, "+m:u:e:w:v:itl:p:", options, err)) != -1) {
    if (c == '?') {
      oci_error_t refusal = steal_pointer(err);
      oci_error_set(err, 0, "run: %s (see 'ocirun run --help')", refusal->message);
      oci_error_free(&refusal);
      return -1;
    }
    if (c == OPT_HELP) {
      *next = -1; /* the caller prints help */
      return 0;
    }
    if (apply_option(c, optarg, config, err) < 0)
      return -1;
  }
  *next = optind;
  return check_combination(config, err);
}

int run_config_set_command(struct run_config *config, const char *image, char *const *command,
                           size_t n_command, oci_error_t *err)
{
  char **copy = calloc(n_command + 1, sizeof(*copy));

  if (copy == NULL)
    return oci_error_errno(err, "run: allocate the command");
  for (size_t i = 0; i < n_command; i++) {
    copy[i] = strdup(command[i]);
    if (copy[i] == NULL) {
      cleanup_strv char **free_me = copy;
      return oci_error_errno(err, "run: allocate the command");
    }
  }
  if (replace_string(&config->image_reference, image, err) < 0) {
    cleanup_strv char **free_me = copy;
    return -1;
  }
  if (config->command != NULL) {
    cleanup_strv char **old = config->command;
  }
  config->command = copy;
  return 0;
}
