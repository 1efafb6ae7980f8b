/* `ocirun update`: new limits for a live container. The document (a
 * linux.resources object from --resources, then the flags on top) is built
 * here; the library checks it with the spec parser itself, exactly as
 * create checks config.json, and writes it (container_update). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command_oci.h"
#include "cli/log.h"
#include "oci/cleanup.h"
#include "oci/file_read.h"
#include "oci/size.h"

#define RESOURCES_MAX_SIZE (1 << 20)

/* A flag and where it goes in linux.resources. */
struct resource_flag {
  const char *name;
  const char *section; /* "memory", "cpu", "pids", "blockIO" */
  const char *key;
  bool is_string; /* cpuset lists */
  bool size;      /* a size: k, m, g units (oci/size.h), or -1 */
};

static const struct resource_flag flags[] = {
    {"memory", "memory", "limit", false, true},
    {"memory-reservation", "memory", "reservation", false, true},
    {"memory-swap", "memory", "swap", false, true},
    {"cpu-quota", "cpu", "quota", false, false},
    {"cpu-period", "cpu", "period", false, false},
    {"cpu-burst", "cpu", "burst", false, false},
    {"cpu-share", "cpu", "shares", false, false},
    {"cpuset-cpus", "cpu", "cpus", true, false},
    {"cpuset-mems", "cpu", "mems", true, false},
    {"pids-limit", "pids", "limit", false, false},
    {"blkio-weight", "blockIO", "weight", false, false},
};
enum { N_FLAGS = sizeof(flags) / sizeof(flags[0]) };

/* A size flag: a size (oci/size.h), or -1 for unlimited; any other flag a
 * whole number, at most 2^53 (what a JSON number holds exactly). */
static int parse_number(const char *text, bool size, double *out)
{
  char *end;
  long long value;
  int64_t bytes;

  if (size && strcmp(text, "-1") != 0) {
    if (oci_size_parse(text, &bytes) < 0)
      return -1;
    *out = (double)bytes;
    return 0;
  }
  errno = 0;
  value = strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value > OCI_SIZE_MAX)
    return -1;
  *out = (double)value;
  return 0;
}

static int set_flag(cJSON *resources, const struct resource_flag *flag, const char *value,
                    oci_error_t *err)
{
  cJSON *section = cJSON_GetObjectItemCaseSensitive(resources, flag->section);
  cJSON *item;
  double number;

  if (section == NULL)
    section = cJSON_AddObjectToObject(resources, flag->section);
  if (!cJSON_IsObject(section))
    return oci_error_set(err, 0, "update: linux.resources.%s is not an object", flag->section);
  if (flag->is_string) {
    item = cJSON_CreateString(value);
  } else {
    if (parse_number(value, flag->size, &number) < 0)
      return oci_error_set(err, 0, "update: --%s: '%s' is not a number%s", flag->name, value,
                           flag->size ? " (k, m, g suffixes allowed)" : "");
    item = cJSON_CreateNumber(number);
  }
  cJSON_DeleteItemFromObjectCaseSensitive(section, flag->key);
  if (item == NULL || !cJSON_AddItemToObject(section, flag->key, item))
    return oci_error_set(err, ENOMEM, "update");
  return 0;
}

static cJSON *read_resources(const char *source, oci_error_t *err)
{
  cleanup_free char *text = NULL;
  size_t length;
  cJSON *json;

  if (source == NULL)
    return cJSON_CreateObject();
  if ((strcmp(source, "-") == 0
           ? oci_file_read_fd(0, "--resources (stdin)", RESOURCES_MAX_SIZE, &text, &length, err)
           : oci_file_read(AT_FDCWD, source, OCI_FILE_NAMED, "--resources", RESOURCES_MAX_SIZE,
                           &text, &length, err)) < 0)
    return NULL;
  json = cJSON_ParseWithLength(text, length);
  if (!cJSON_IsObject(json)) {
    cJSON_Delete(json);
    oci_error_set(err, 0, "update: --resources: not a JSON object (linux.resources)");
    return NULL;
  }
  return json;
}

int command_oci_update(int argc, char **argv, const struct global_options *global)
{
  static const char usage[] =
      "Usage: ocirun update [OPTIONS] ID\n"
      "\n"
      "Writes new limits into the cgroup of created, running or paused container ID.\n"
      "The limits are a linux.resources object (memory, cpu, pids, blockIO,\n"
      "hugepageLimits, unified) from --resources, with the flags below on top;\n"
      "checked as create checks config.json. Device rules cannot be updated.\n"
      "\n"
      "  -r, --resources FILE        linux.resources as JSON ('-': stdin)\n"
      "  --memory BYTES              memory.limit (k, m, g suffixes)\n"
      "  --memory-reservation BYTES  memory.reservation\n"
      "  --memory-swap BYTES         memory.swap (memory + swap; -1: unlimited)\n"
      "  --cpu-quota USEC            cpu.quota (-1: unlimited)\n"
      "  --cpu-period USEC           cpu.period\n"
      "  --cpu-burst USEC            cpu.burst (cpu.max.burst: at most the quota)\n"
      "  --cpu-share SHARES          cpu.shares\n"
      "  --cpuset-cpus LIST          cpu.cpus (\"0-3,7\")\n"
      "  --cpuset-mems LIST          cpu.mems\n"
      "  --pids-limit N              pids.limit (0 or -1: unlimited)\n"
      "  --blkio-weight N            blockIO.weight, 10..1000 (io.weight, and\n"
      "                              io.bfq.weight where the kernel has BFQ)\n";
  struct option options[N_FLAGS + 3];
  const char *values[N_FLAGS] = {0};
  const char *resources_source = NULL;
  cleanup_cjson cJSON *resources = NULL;
  oci_error_t err = NULL;
  size_t n_files;
  const char *id;
  int c;

  for (size_t i = 0; i < N_FLAGS; i++)
    options[i] = (struct option){flags[i].name, required_argument, NULL, 256 + (int)i};
  options[N_FLAGS] = (struct option){"resources", required_argument, NULL, 'r'};
  options[N_FLAGS + 1] = (struct option){"help", no_argument, NULL, 'h'};
  options[N_FLAGS + 2] = (struct option){NULL, 0, NULL, 0};
  while ((c = options_next(argc, argv, "+r:h", options, &err)) != -1) {
    if (c >= 256 && c < 256 + N_FLAGS) {
      values[c - 256] = optarg;
    } else if (c == 'r') {
      resources_source = optarg;
    } else if (c == 'h') {
      fputs(usage, stdout);
      return EXIT_OK;
    } else {
      return oci_option_error("update", &err);
    }
  }
  id = oci_take_id("update", argc, argv);
  if (id == NULL)
    return EXIT_USAGE;
  resources = read_resources(resources_source, &err);
  if (resources == NULL)
    return oci_fail(&err);
  for (size_t i = 0; i < N_FLAGS; i++)
    if (values[i] != NULL && set_flag(resources, &flags[i], values[i], &err) < 0)
      return oci_fail(&err);
  if (container_update(global->root, id, resources, &n_files, &err) < 0)
    return oci_fail(&err);
  log_message("debug", "update: %zu cgroup files written for container '%s'", n_files, id);
  return EXIT_OK;
}
