/* `ocirun volume create|ls|inspect|rm|prune`: the named volumes under
 * ROOT/volumes (docker_run/volumes.c), as docker's commands of those names
 * manage them. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/log.h"
#include "cli/ocirun.h"
#include "docker_run/volumes.h"
#include "oci/cleanup.h"
#include "oci/options.h"
#include "runtime/exit_codes.h"
#include "runtime/state/root.h"

static void volume_usage(FILE *out)
{
  fprintf(out, "Usage: ocirun volume COMMAND [NAME...]\n"
               "\n"
               "Named volumes: directories ocirun keeps under ROOT/volumes/NAME/_data, bound\n"
               "into a run by -v NAME:/path or --mount type=volume,source=NAME,target=/path\n"
               "(made on first use; an empty volume then starts with a copy of what the image\n"
               "has at that path, unless nocopy / volume-nocopy, or read-only).\n"
               "A NAME is a letter or digit, then letters, digits, '_', '.', '-'.\n"
               "\n"
               "Commands:\n"
               "  create NAME     make the volume (nothing when it exists)\n"
               "  ls [-q]         list the volumes (-q: names only)\n"
               "  inspect NAME... print each volume as JSON (Name, Driver, Mountpoint)\n"
               "  rm NAME...      remove volumes; refused while a live run uses one\n"
               "  prune           remove every volume no live run uses\n");
}

static int usage_error(const char *what)
{
  log_error_message("volume: %s (see 'ocirun volume --help')", what);
  return EXIT_USAGE;
}

static int fail(oci_error_t *err)
{
  log_error(err);
  return EXIT_FAILURE_GENERIC;
}

/* docker volume inspect's array, with the fields ocirun has. */
static int inspect(struct state_root *state, int n, char **wanted, const char *root)
{
  cleanup_strv char **names = NULL;
  cleanup_free char *text = NULL;
  cJSON *array = cJSON_CreateArray();
  oci_error_t err = NULL;
  int status = EXIT_OK;

  if (n < 1) {
    cJSON_Delete(array);
    return usage_error("inspect takes a NAME");
  }
  if (array == NULL || volume_list(state, &names, &err) < 0) {
    cJSON_Delete(array);
    return err != NULL ? fail(&err) : EXIT_FAILURE_GENERIC;
  }
  for (int i = 0; i < n; i++) {
    cleanup_free char *mountpoint = NULL;
    bool found = false;
    cJSON *entry;

    for (char **name = names; *name != NULL && !found; name++)
      found = strcmp(*name, wanted[i]) == 0;
    if (!found) {
      log_error_message("volume inspect: no such volume: %s", wanted[i]);
      status = EXIT_FAILURE_GENERIC;
      continue;
    }
    entry = cJSON_CreateObject();
    if (asprintf(&mountpoint, "%s/volumes/%s/_data", root, wanted[i]) < 0)
      mountpoint = NULL;
    if (entry == NULL || mountpoint == NULL || !cJSON_AddItemToArray(array, entry) ||
        cJSON_AddStringToObject(entry, "Name", wanted[i]) == NULL ||
        cJSON_AddStringToObject(entry, "Driver", "local") == NULL ||
        cJSON_AddStringToObject(entry, "Mountpoint", mountpoint) == NULL) {
      cJSON_Delete(array);
      log_error_message("volume inspect: out of memory");
      return EXIT_FAILURE_GENERIC;
    }
  }
  text = cJSON_Print(array);
  cJSON_Delete(array);
  if (text == NULL) {
    log_error_message("volume inspect: out of memory");
    return EXIT_FAILURE_GENERIC;
  }
  printf("%s\n", text);
  return status;
}

int command_volume(int argc, char **argv, const struct global_options *global)
{
  cleanup_state_root struct state_root state = STATE_ROOT_NONE;
  oci_error_t err = NULL;
  const char *verb = argc > 1 ? argv[1] : NULL;
  int status = EXIT_OK;

  if (verb == NULL)
    return usage_error("a command is needed");
  if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0) {
    volume_usage(stdout);
    return EXIT_OK;
  }
  if (state_root_open(&state, global->root, STATE_VOLUMES, strcmp(verb, "create") == 0, &err) < 0)
    return fail(&err);
  if (strcmp(verb, "create") == 0) {
    bool created;

    if (argc != 3)
      return usage_error("create takes one NAME");
    if (volume_create(&state, argv[2], &created, &err) < 0)
      return fail(&err);
    printf("%s\n", argv[2]);
    return EXIT_OK;
  }
  if (strcmp(verb, "ls") == 0) {
    cleanup_strv char **names = NULL;
    bool quiet = argc == 3 && strcmp(argv[2], "-q") == 0;

    if (argc > 3 || (argc == 3 && !quiet))
      return usage_error("ls takes only -q");
    if (volume_list(&state, &names, &err) < 0)
      return fail(&err);
    if (!quiet)
      printf("%-8s %s\n", "DRIVER", "VOLUME NAME");
    for (char **name = names; *name != NULL; name++)
      quiet ? printf("%s\n", *name) : printf("%-8s %s\n", "local", *name);
    return EXIT_OK;
  }
  if (strcmp(verb, "rm") == 0) {
    if (argc < 3)
      return usage_error("rm takes a NAME");
    for (int i = 2; i < argc; i++) {
      if (volume_remove(&state, argv[i], &err) < 0) {
        log_error(&err);
        status = EXIT_FAILURE_GENERIC;
      } else {
        printf("%s\n", argv[i]);
      }
    }
    return status;
  }
  if (strcmp(verb, "inspect") == 0)
    return inspect(&state, argc - 2, argv + 2, global->root);
  if (strcmp(verb, "prune") == 0) {
    size_t removed;

    if (argc != 2)
      return usage_error("prune takes no argument");
    if (volume_prune(&state, &removed, &err) < 0)
      return fail(&err);
    printf("removed %zu volume%s\n", removed, removed == 1 ? "" : "s");
    return EXIT_OK;
  }
  return usage_error("unknown command (create, ls, inspect, rm, prune)");
}
