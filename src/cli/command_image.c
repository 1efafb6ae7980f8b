/* `ocirun image`: import, ls, inspect, rm and unpack on the image store.
 * Each subcommand parses its own options, calls the image library and
 * turns its error into a message and an exit code. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oci/cleanup.h"
#include "oci/oci.h"
#include "cli/log.h"
#include "cli/ocirun.h"
#include "oci/options.h"

struct image_command {
  const char *name;
  int (*fn)(int argc, char **argv, const struct global_options *global);
  const char *usage;
  const char *help;
};

static const struct image_command *find_command(const char *name);

/* Parses the options every subcommand shares (--help, and --json or --name
 * where they apply). Returns -1 to go on, or an exit code. */
static int parse_options(int argc, char **argv, const char *subcommand, const char **name,
                         bool *json)
{
  static const struct option options[] = {
      {"help", no_argument, NULL, 'h'},
      {"name", required_argument, NULL, 'n'},
      {"json", no_argument, NULL, 'j'},
      {NULL, 0, NULL, 0},
  };
  const struct image_command *command = find_command(subcommand);
  oci_error_t err = NULL;
  int c;

  optind = 0;
  while ((c = options_next(argc, argv, "h", options, &err)) != -1) {
    switch (c) {
    case 'h':
      printf("Usage: ocirun image %s\n\n%s", command->usage, command->help);
      return EXIT_OK;
    case 'n':
      if (name == NULL)
        goto usage;
      *name = optarg;
      break;
    case 'j':
      if (json == NULL)
        goto usage;
      *json = true;
      break;
    default:
      oci_error_wrap(&err, "image %s", subcommand);
      log_error(&err);
      goto usage;
    }
  }
  return -1;
usage:
  fprintf(stderr, "Usage: ocirun image %s\n", command->usage);
  return EXIT_USAGE;
}

static int wrong_arguments(const char *subcommand)
{
  fprintf(stderr, "Usage: ocirun image %s\n", find_command(subcommand)->usage);
  return EXIT_USAGE;
}

static int open_store(const struct global_options *global, struct oci_store **store)
{
  oci_error_t err = NULL;
  if (oci_store_open(global->root, store, &err) < 0) {
    log_error(&err);
    return -1;
  }
  return 0;
}

static int failed(oci_error_t *err, struct oci_store *store)
{
  log_error(err);
  oci_store_close(store);
  return EXIT_FAILURE_GENERIC;
}

static void print_size(int64_t size, char *out, size_t length)
{
  static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
  double value = (double)size;
  size_t unit = 0;

  if (size < 0) {
    snprintf(out, length, "?");
    return;
  }
  while (value >= 1000 && unit < sizeof(units) / sizeof(units[0]) - 1) {
    value /= 1000;
    unit++;
  }
  snprintf(out, length, unit ? "%.1f %s" : "%.0f %s", value, units[unit]);
}

/* A copy safe for a terminal: control characters become '?'. */
static char *printable(const char *text)
{
  char *copy = strdup(text);
  for (char *p = copy; p != NULL && *p != '\0'; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      *p = '?';
  return copy;
}

/* The image ID an entry of the listing before the import had, by its
 * manifest digest (the digest itself when its image was unreadable). */
static const char *image_before(const struct oci_image_summary *before, size_t n_before,
                                const char *manifest_digest)
{
  for (size_t i = 0; i < n_before; i++)
    if (strcmp(before[i].manifest_digest, manifest_digest) == 0)
      return before[i].image_id[0] ? before[i].image_id : manifest_digest;
  return manifest_digest;
}

/* What the import did, on stdout: which name now points at which image,
 * what each name was before, and which blobs were new. An archive names
 * its image as it likes (docker save's RepoTags), and a name already in
 * the store moves to the imported image, as with docker load: that is
 * also said on stderr, naming the image that had it, so a tarball that
 * takes over busybox:latest does not do it silently. */
static void report_import(const struct oci_import_report *report,
                          const struct oci_image_summary *before, size_t n_before)
{
  char size[32];

  print_size(report->bytes_new, size, sizeof(size));
  for (size_t i = 0; report->names[i] != NULL; i++) {
    cleanup_free char *name = printable(report->names[i]);
    const char *replaced = report->replaced[i];
    const char *was = replaced != NULL ? image_before(before, n_before, replaced) : NULL;

    if (replaced == NULL)
      printf("%s: image %.19s (manifest %.19s), a new name\n", name ? name : "?", report->image_id,
             report->manifest_digest);
    else if (strcmp(replaced, report->manifest_digest) == 0)
      printf("%s: image %.19s (manifest %.19s), as before\n", name ? name : "?", report->image_id,
             report->manifest_digest);
    else
      printf("%s: image %.19s (manifest %.19s), moved from image %.19s\n", name ? name : "?",
             report->image_id, report->manifest_digest, was);
    if (replaced != NULL && strcmp(replaced, report->manifest_digest) != 0)
      log_say("warning", "image import: '%s' now names image %.19s (it named %.19s)",
              name ? name : "?", report->image_id, was);
  }
  if (report->names[0] == NULL)
    printf("(no name): image %.19s (manifest %.19s)\n", report->image_id, report->manifest_digest);
  printf("blobs: %zu new (%s), %zu already in the store\n", report->blobs_new, size,
         report->blobs_present);
}

static int image_import(int argc, char **argv, const struct global_options *global)
{
  const char *name = NULL;
  struct oci_store *store = NULL;
  struct oci_image_summary *before = NULL;
  struct oci_import_report report;
  size_t n_before = 0;
  oci_error_t err = NULL;
  int ret = parse_options(argc, argv, "import", &name, NULL);

  if (ret >= 0)
    return ret;
  if (argc - optind != 1)
    return wrong_arguments("import");
  if (open_store(global, &store) < 0)
    return EXIT_FAILURE_GENERIC;
  if (oci_image_list(store, &before, &n_before, &err) < 0)
    oci_error_free(&err); /* only the report's image IDs are lost */
  if (oci_image_import(store, argv[optind], name, &report, &err) < 0) {
    oci_image_summaries_free(before, n_before);
    return failed(&err, store);
  }
  report_import(&report, before, n_before);
  oci_import_report_clear(&report);
  oci_image_summaries_free(before, n_before);
  oci_store_close(store);
  return EXIT_OK;
}

static int image_ls(int argc, char **argv, const struct global_options *global)
{
  bool json = false;
  struct oci_store *store = NULL;
  struct oci_image_summary *list = NULL;
  size_t n = 0;
  oci_error_t err = NULL;
  int ret = parse_options(argc, argv, "ls", NULL, &json);

  if (ret >= 0)
    return ret;
  if (argc != optind)
    return wrong_arguments("ls");
  if (open_store(global, &store) < 0)
    return EXIT_FAILURE_GENERIC;
  if (oci_image_list(store, &list, &n, &err) < 0)
    return failed(&err, store);
  if (json) {
    cJSON *array = cJSON_CreateArray();
    cleanup_free char *text = NULL;
    for (size_t i = 0; array != NULL && i < n; i++) {
      cJSON *item = cJSON_CreateObject();
      cJSON_AddItemToObject(item, "Name",
                            list[i].ref_name ? cJSON_CreateString(list[i].ref_name)
                                             : cJSON_CreateNull());
      cJSON_AddItemToObject(item, "Id",
                            list[i].image_id[0] ? cJSON_CreateString(list[i].image_id)
                                                : cJSON_CreateNull());
      cJSON_AddStringToObject(item, "ManifestDigest", list[i].manifest_digest);
      cJSON_AddNumberToObject(item, "Size", (double)list[i].size);
      cJSON_AddItemToArray(array, item);
    }
    text = cJSON_Print(array);
    cJSON_Delete(array);
    if (text != NULL)
      printf("%s\n", text);
  } else {
    printf("%-40s %-12s %-12s %s\n", "NAME", "IMAGE ID", "MANIFEST", "SIZE");
    for (size_t i = 0; i < n; i++) {
      char size[32];
      print_size(list[i].size, size, sizeof(size));
      cleanup_free char *name = printable(list[i].ref_name ? list[i].ref_name : "<none>");
      printf("%-40s %-12.12s %-12.12s %s\n", name ? name : "?",
             list[i].image_id[0] ? list[i].image_id + 7 : "<unreadable>",
             list[i].manifest_digest + 7, size);
    }
  }
  oci_image_summaries_free(list, n);
  oci_store_close(store);
  return EXIT_OK;
}

static int image_inspect(int argc, char **argv, const struct global_options *global)
{
  struct oci_store *store = NULL;
  struct oci_image *image = NULL;
  cleanup_free char *text = NULL;
  cJSON *json;
  oci_error_t err = NULL;
  int ret = parse_options(argc, argv, "inspect", NULL, NULL);

  if (ret >= 0)
    return ret;
  if (argc - optind != 1)
    return wrong_arguments("inspect");
  if (open_store(global, &store) < 0)
    return EXIT_FAILURE_GENERIC;
  if (oci_image_resolve(store, argv[optind], &image, &err) < 0)
    return failed(&err, store);
  json = oci_image_inspect_json(image);
  text = json ? cJSON_Print(json) : NULL;
  cJSON_Delete(json);
  oci_image_free(image);
  oci_store_close(store);
  if (text == NULL) {
    log_error_message("image inspect: out of memory");
    return EXIT_FAILURE_GENERIC;
  }
  printf("%s\n", text);
  return EXIT_OK;
}

static int image_rm(int argc, char **argv, const struct global_options *global)
{
  struct oci_store *store = NULL;
  int ret = parse_options(argc, argv, "rm", NULL, NULL);

  if (ret >= 0)
    return ret;
  if (argc - optind < 1)
    return wrong_arguments("rm");
  if (open_store(global, &store) < 0)
    return EXIT_FAILURE_GENERIC;
  ret = EXIT_OK;
  for (int i = optind; i < argc; i++) {
    struct oci_remove_report report;
    oci_error_t err = NULL;
    char size[32];

    if (oci_image_remove(store, argv[i], &report, &err) < 0) {
      log_error(&err);
      ret = EXIT_FAILURE_GENERIC;
      continue;
    }
    print_size(report.bytes_removed, size, sizeof(size));
    printf("removed %s (%zu blobs collected, %s)\n", argv[i], report.blobs_removed, size);
    if (report.blobs_kept_unnamed > 0)
      printf("kept %zu blobs no image names yet: written in the last %d hours, they may be a "
             "copy into the store that is still running (skopeo's); a later image rm "
             "collects them\n",
             report.blobs_kept_unnamed, OCI_UNNAMED_BLOB_GRACE_SECONDS / 3600);
  }
  oci_store_close(store);
  return ret;
}

static int image_unpack(int argc, char **argv, const struct global_options *global)
{
  struct oci_store *store = NULL;
  struct oci_image *image = NULL;
  struct oci_unpack_options options = {.events = global->quiet ? NULL : log_event_sink()};
  cleanup_free char *rootfs = NULL;
  oci_error_t err = NULL;
  int ret = parse_options(argc, argv, "unpack", NULL, NULL);

  if (ret >= 0)
    return ret;
  if (argc - optind != 1)
    return wrong_arguments("unpack");
  if (open_store(global, &store) < 0)
    return EXIT_FAILURE_GENERIC;
  /* Resolved first: the unpack uses the image ID, not the name typed. */
  if (oci_image_resolve(store, argv[optind], &image, &err) < 0)
    return failed(&err, store);
  ret = oci_image_unpack(store, image, &options, &rootfs, &err);
  oci_image_free(image);
  if (ret < 0)
    return failed(&err, store);
  printf("%s\n", rootfs);
  oci_store_close(store);
  return EXIT_OK;
}

static const struct image_command commands[] = {
    {"import", image_import, "import SOURCE [--name NAME]",
     "Copies an image into the store, verifying every blob (size and sha256) on the\n"
     "way in; the store's index is replaced atomically and a failure leaves nothing.\n"
     "\n"
     "SOURCE is one of:\n"
     "  oci:PATH[:REF]             an OCI image layout directory\n"
     "  oci-archive:FILE[:REF]     a tarball of an OCI image layout\n"
     "  docker-archive:FILE[:REF]  a `docker save` tarball\n"
     "  PATH                       a layout directory or either kind of tarball\n"
     "\n"
     "Names are stored as docker shows them: docker.io/library/busybox is\n"
     "busybox:latest, and it replaces that name in any other spelling. Prints, for\n"
     "each name, the image ID it now points at and what it pointed at before, and\n"
     "how many blobs were new.\n"
     "\n"
     "Options:\n"
     "  --name NAME  store the image under NAME (default: its name in the source)\n"
     "  -h, --help   this help\n"},
    {"ls", image_ls, "ls [--json]",
     "Lists the images in the store: one line per name, with the image ID (the\n"
     "config digest), the manifest digest and the compressed size of the layers.\n"
     "\n"
     "Options:\n"
     "  --json      print a JSON array instead of a table\n"
     "  -h, --help  this help\n"},
    {"inspect", image_inspect, "inspect IMAGE",
     "Prints an image as JSON: ID, manifest digest, names, repo digests, platform,\n"
     "layers (digest, size, diff ID, media type) and the config's user, env,\n"
     "entrypoint, cmd and working directory.\n"
     "\n"
     "IMAGE is a name in the store (busybox:latest), an image ID (sha256:... or at\n"
     "least 12 of its hex digits), NAME@sha256:<manifest digest>, or oci:PATH[:REF].\n"
     "\n"
     "Options:\n"
     "  -h, --help  this help\n"},
    {"rm", image_rm, "rm IMAGE...",
     "Removes a name from the store (an image ID removes every name of that image),\n"
     "then deletes the blobs no remaining image uses, but for blobs no image named\n"
     "before either that were written in the last 24 hours: a copy into the store\n"
     "that takes no lock (skopeo's) names its blobs only at its end.\n"
     "\n"
     "Options:\n"
     "  -h, --help  this help\n"},
    {"unpack", image_unpack, "unpack IMAGE",
     "Applies the image's verified layers into the rootfs cache (a second unpack is a\n"
     "cache hit) and prints the rootfs path.\n"
     "\n"
     "Options:\n"
     "  -h, --help  this help\n"},
};

static const struct image_command *find_command(const char *name)
{
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    if (strcmp(commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

static void usage(FILE *out)
{
  fprintf(out, "Usage: ocirun image COMMAND [ARGS...]\n\nManage the image store.\n\nCommands:\n");
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    fprintf(out, "  %s\n", commands[i].usage);
  fprintf(out, "\nRun 'ocirun image COMMAND --help' for a command's options.\n");
}

int command_image(int argc, char **argv, const struct global_options *global)
{
  const struct image_command *command;

  if (argc < 2) {
    usage(stderr);
    return EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    usage(stdout);
    return EXIT_OK;
  }
  command = find_command(argv[1]);
  if (command == NULL) {
    log_error_message("image: unknown command '%s'", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
  }
  return command->fn(argc - 1, argv + 1, global);
}
