/* docker_run (see docker_run.h): the one place where the docker-run front
 * end meets the runtime. Rootless or not is decided here, once. */
#include "config.h"

#include "docker_run/docker_run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "oci/cleanup.h"
#include "docker_run/run_spec.h"
#include "docker_run/volumes.h"
#include "runtime/cgroup/slice.h"
#include "runtime/exit_codes.h"
#include "runtime/plan.h"
#include "runtime/spec/spec.h"
#include "runtime/state/root.h"
#include "runtime/userns.h"
#include "runtime/writable_layer.h"

static void spec_clearp(struct spec *spec)
{
  spec_clear(spec);
}

static void json_freep(cJSON **json)
{
  cJSON_Delete(*json);
}

static void network_files_clearp(struct run_network_files *files)
{
  run_network_files_clear(files);
}

/* --cgroup-parent P (checked: under /sys/fs/cgroup/, no "..") is the
 * configuration's cgroupsPath /P-relative/NAME; without it ocirun's default
 * parent is the runtime's to choose (NULL). */
static int cgroups_path(const struct run_config *config, char **out, oci_error_t *err)
{
  *out = NULL;
  if (config->unsafe_no_cgroup || config->cgroup_parent == NULL)
    return 0;
  if (asprintf(out, "%s/%s", config->cgroup_parent + strlen(CGROUP_MOUNT), config->name) < 0) {
    *out = NULL;
    return oci_error_errno(err, "run: allocate");
  }
  return 0;
}

static void print_configuration(const cJSON *json, FILE *out)
{
  cleanup_free char *text = cJSON_Print(json);

  fprintf(out,
          "ocirun run --dry-run: nothing was created or started\n\n"
          "configuration (the OCI runtime-spec config.json this run is):\n%s\n\n",
          text != NULL ? text : "(out of memory)");
}

/* --dry-run: the plan that would be carried out, as text after the
 * configuration (printed as soon as it is built, so a refused plan still
 * shows what was refused), or (--log-format json) the two as one JSON
 * object {"configuration": config.json, "plan": the plan's JSON form},
 * printed only once the plan exists. */
static int print_plan(const cJSON *json, const struct runtime_plan *plan, const struct run_io *io,
                      oci_error_t *err)
{
  __attribute__((cleanup(json_freep))) cJSON *object = NULL;
  cleanup_free char *text = NULL;

  if (io->plan_out == NULL)
    return 0;
  if (!io->plan_json) {
    runtime_plan_print(plan, io->plan_out);
    return 0;
  }
  object = cJSON_CreateObject();
  if (object == NULL ||
      !cJSON_AddItemToObject(object, "configuration", cJSON_Duplicate(json, true)) ||
      !cJSON_AddItemToObject(object, "plan", runtime_plan_json(plan)) ||
      (text = cJSON_PrintUnformatted(object)) == NULL)
    return oci_error_set(err, ENOMEM, "run --dry-run: print the plan as JSON");
  fprintf(io->plan_out, "%s\n", text);
  return 0;
}

static int run_with_mounts(const char *state_root, const struct oci_image *image,
                           const char *rootfs, const struct run_config *config,
                           const struct run_io *io, struct run_result *result, oci_error_t *err)
{
  bool rootless = config->rootless;
  cleanup_close int root_fd = -1;
  cleanup_free char *cgroups = NULL;
  cleanup_free char *hostname_file = NULL;
  __attribute__((cleanup(json_freep))) cJSON *json = NULL;
  __attribute__((cleanup(spec_clearp))) struct spec spec = {0};
  struct userns_map map;
  struct run_spec_input input;
  struct mount_file files[3];
  size_t n_files = 2;
  __attribute__((cleanup(network_files_clearp))) struct run_network_files net_files = {0};
  struct mount_file run_dir_files[2];
  cleanup_free char *run_dir = NULL;
  struct runtime_options options;
  cleanup_state_root struct state_root state = STATE_ROOT_NONE;
  cleanup_free const char **mount_names = NULL;
  cleanup_free struct mount_source *sources = NULL;
  cleanup_free char *config_json = NULL;
  cleanup_strv char **pasta_options = NULL;
  cleanup_runtime_plan struct runtime_plan *plan = NULL;
  int ret;

  *result = (struct run_result){.exit_code = EXIT_RUNTIME_ERROR};
  if (run_network_check(&config->network, rootless, err) < 0)
    return -1;
  /* The cache entry's rootfs, reached from the checked store root without
   * following any symlink: the overlay's lower is this fd, never a path. */
  root_fd = oci_image_rootfs_open(state_root, image, err);
  if (root_fd < 0)
    return oci_error_wrap(err, "run");
  if (rootless)
    userns_map_choose(&map);
  if (cgroups_path(config, &cgroups, err) < 0)
    return -1;
  input = (struct run_spec_input){.config = config,
                                  .image = image,
                                  .rootfs_fd = root_fd,
                                  .rootfs_path = rootfs,
                                  .rootless = rootless,
                                  .map = rootless ? &map : NULL,
                                  .cgroups_path = cgroups};
  if (run_spec_build(&input, &json, err) < 0)
    return -1;
  /* the network's generated files (run_network.h), bound from the run dir */
  if (asprintf(&run_dir, "%s/run/%s", state_root, config->name) < 0) {
    run_dir = NULL;
    return oci_error_errno(err, "run: allocate");
  }
  if (run_network_files_build(&config->network, RUN_SPEC_ETC_HOSTS, &net_files, err) < 0 ||
      run_network_files_mount(&net_files, run_dir, json, err) < 0)
    return -1;
  if (spec_parse(json, &spec, err) < 0)
    return oci_error_wrap(err, "run: the configuration built from the options");
  oci_emit(io->events, OCI_EVENT_PHASE, "configuration", config->name, NULL);
  if (config->dry_run && !io->plan_json && io->plan_out != NULL)
    print_configuration(json, io->plan_out);
  /* Kept in the run dir: `ocirun exec NAME` joins the run with it. */
  config_json = config->dry_run ? NULL : cJSON_PrintUnformatted(json);
  if (!config->dry_run && config_json == NULL)
    return oci_error_set(err, ENOMEM, "run: print the configuration");

  /* As docker: the image's /etc/hostname and /etc/hosts describe the run,
   * not the machine the image was built on; written into the overlay's
   * upper layer before a --read-only root is made read-only. */
  if (asprintf(&hostname_file, "%s\n", spec.hostname != NULL ? spec.hostname : "") < 0) {
    hostname_file = NULL;
    return oci_error_errno(err, "run: allocate");
  }
  files[0] = (struct mount_file){"/etc/hostname", hostname_file};
  files[1] = (struct mount_file){"/etc/hosts", RUN_SPEC_ETC_HOSTS};
  /* The options' mounts come last: messages name the flag; a bind's
   * source is the fd opened when the option was parsed, a volume's the
   * one open_volumes opened, which an empty volume's first use fills. */
  mount_names = calloc(spec.n_mounts + 1, sizeof(*mount_names));
  sources = malloc((spec.n_mounts + 1) * sizeof(*sources));
  if (mount_names == NULL || sources == NULL)
    return oci_error_errno(err, "run: allocate");
  for (size_t i = 0; i < spec.n_mounts; i++) {
    size_t first = spec.n_mounts - config->n_mounts;
    const struct run_mount *m = i >= first ? &config->mounts[i - first] : NULL;

    mount_names[i] = m != NULL ? m->option : NULL;
    sources[i] = (struct mount_source){.fd = m != NULL ? m->source_fd : -1,
                                       .copy_up = m != NULL && m->kind == RUN_MOUNT_VOLUME &&
                                                  !m->no_copy && !m->read_only};
  }
  /* the network's binds come first; the files they bind are written into
   * the root too (replacing a link of the image's, never following it), so
   * that each bind lands on a file of the run's own */
  for (size_t i = 0; i < net_files.n; i++) {
    const struct run_network_file *file = &net_files.file[i];

    mount_names[i] = file->option;
    run_dir_files[i] = (struct mount_file){file->name, file->content};
    if (strcmp(file->target, "/etc/hosts") == 0)
      files[1].content = file->content;
    else
      files[n_files++] = (struct mount_file){file->target, file->content};
  }
  options = (struct runtime_options){
      .state_root = state_root,
      .id = config->name,
      .root = {.root_fd = root_fd,
               .root_path = rootfs,
               .overlay = true,
               .layer = config->root_tmpfs ? ROOT_LAYER_TMPFS : ROOT_LAYER_DISK,
               /* docker's --read-only is not nosuid: ocirun's is (setuid
                * files of the image run without their privilege) */
               .read_only_nosuid = config->read_only,
               .files = files,
               .n_files = n_files,
               .sources = sources},
      .rootless = rootless,
      .timeout_seconds = config->timeout_seconds,
      .unsafe_no_cgroup = config->unsafe_no_cgroup,
      .events = io->events,
      .seccomp_origin = run_spec_seccomp_origin(config),
      .mount_names = mount_names,
      .config_json = config_json,
      .run_dir_files = run_dir_files,
      .n_run_dir_files = net_files.n,
  };
  run_resources_stop(&config->resources, &options.stop_signal, &options.stop_timeout_seconds);
  if (config->network.mode == RUN_NETWORK_PASTA) {
    if (run_network_pasta_options(&config->network, &pasta_options, err) < 0)
      return -1;
    options.pasta_options = (const char *const *)pasta_options;
  }
  /* $ROOT's run folder, opened once for the run (its record, its run dir). */
  if (state_root_open(&state, state_root, STATE_RUN, false, err) < 0)
    return oci_error_wrap(err, "run");
  state.events = io->events;
  options.state = &state;
  /* A store where overlayfs cannot keep an upper layer gets the tmpfs,
   * with the tmpfs's bound; the result says so. */
  if (writable_layer_choose(&state, &options.root, err) < 0)
    return -1;
  options.root.layer_bound = config->storage_size > 0                 ? config->storage_size
                             : options.root.layer == ROOT_LAYER_TMPFS ? WRITABLE_LAYER_TMPFS_DEFAULT
                                                                      : WRITABLE_LAYER_DISK_DEFAULT;
  if (runtime_plan_build(&spec, &options, RUNTIME_PLAN_RUN, &plan, err) < 0)
    return -1;
  if (!config->dry_run && config->network.mode == RUN_NETWORK_HOST)
    oci_emit(io->events, OCI_EVENT_WARNING, "network", config->name,
             "--network host: the run shares the host's network (every interface and listening "
             "port, the host's loopback services); it has no network boundary");
  if (config->dry_run) {
    ret = print_plan(json, plan, io, err);
    if (ret == 0)
      *result = (struct run_result){.exit_code = 0, .exited = true, .teardown_verified = true};
  } else {
    ret = runtime_run(plan, io, result, err);
  }
  result->layer_fallback = options.root.layer_fallback;
  return ret;
}

/* Rootless: a bind shows the caller only what the caller could read on
 * the host (the source was opened O_PATH, which reads nothing): the
 * source must be readable, and a directory searchable, by the caller. */
static int check_readable(const struct run_mount *m, oci_error_t *err)
{
  struct stat st;

  if (fstat(m->source_fd, &st) < 0)
    return oci_error_errno(err, "%s %s: the host path %s", m->option, m->path, m->source);
  if (faccessat(m->source_fd, "", R_OK | (S_ISDIR(st.st_mode) ? X_OK : 0),
                AT_EMPTY_PATH | AT_EACCESS) < 0)
    return oci_error_errno(err,
                           "%s %s: rootless, the host path %s must be one the caller can read%s",
                           m->option, m->path, m->source, S_ISDIR(st.st_mode) ? " and search" : "");
  return 0;
}

/* The named volumes of the run opened (made on first use, as docker does)
 * and held for the whole run: each its lock and its _data, the source its
 * mount then has. With --dry-run nothing is made: a volume is shown by
 * its path. Rootless, every bind's source is checked readable. */
static int open_volumes(const char *state_root, struct run_config *config, struct state_root *state,
                        struct volume_use *uses, oci_error_t *err)
{
  for (size_t i = 0; i < config->n_mounts; i++) {
    struct run_mount *m = &config->mounts[i];

    if (m->kind == RUN_MOUNT_BIND && config->rootless && check_readable(m, err) < 0)
      return -1;
    if (m->kind != RUN_MOUNT_VOLUME)
      continue;
    if (config->rootless)
      return oci_error_set(err, 0, "%s %s: a volume is not supported rootless yet", m->option,
                           m->path);
    if (config->dry_run) {
      if (asprintf(&uses[i].path, "%s/volumes/%s/_data", state_root, m->volume) < 0) {
        uses[i].path = NULL;
        return oci_error_errno(err, "run: allocate");
      }
    } else {
      if (state->fd < 0 && state_root_open(state, state_root, STATE_VOLUMES, true, err) < 0)
        return oci_error_wrap(err, "run: ");
      if (volume_use(state, m->volume, &uses[i], err) < 0)
        return oci_error_wrap(err, "%s: ", m->option);
    }
    m->source = uses[i].path;
    m->source_fd = uses[i].data_fd;
  }
  return 0;
}

int docker_run(const char *state_root, const struct oci_image *image, const char *rootfs,
               const struct run_config *config, const struct run_io *io, struct run_result *result,
               oci_error_t *err)
{
  cleanup_state_root struct state_root state = STATE_ROOT_NONE;
  cleanup_free struct volume_use *uses = NULL;
  cleanup_free struct run_mount *mounts = NULL;
  struct run_config resolved = *config;
  int ret;

  if (config->n_mounts == 0)
    return run_with_mounts(state_root, image, rootfs, config, io, result, err);
  /* a copy of the record, whose volumes get their sources; the strings
   * stay the caller's */
  mounts = calloc(config->n_mounts, sizeof(*mounts));
  uses = calloc(config->n_mounts, sizeof(*uses));
  if (mounts == NULL || uses == NULL)
    return oci_error_errno(err, "run: allocate");
  memcpy(mounts, config->mounts, config->n_mounts * sizeof(*mounts));
  resolved.mounts = mounts;
  for (size_t i = 0; i < config->n_mounts; i++)
    uses[i] = (struct volume_use)VOLUME_USE_NONE;
  ret = open_volumes(state_root, &resolved, &state, uses, err);
  if (ret == 0)
    ret = run_with_mounts(state_root, image, rootfs, &resolved, io, result, err);
  for (size_t i = 0; i < config->n_mounts; i++)
    volume_use_release(&uses[i]);
  return ret;
}
