/* What `ocirun exec` joins (see exec_target.h): the lookup of an ID or a
 * NAME and the checks that make its pid 1 the process joined. */
#include "config.h"

#include "container/exec_target.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "container/lifecycle.h"
#include "oci/cleanup.h"
#include "runtime/state/root.h"
#include "runtime/state/run_state.h"

void exec_target_clear(struct exec_target *target)
{
  spec_clear(&target->spec);
  free(target->cgroup_path);
  if (target->pidfd >= 0)
    close(target->pidfd);
  *target = (struct exec_target){.pidfd = -1};
}

/* An OCI container by ID, running; its configuration from its bundle. */
static int container_target(struct container_handle *handle, struct container *container,
                            struct exec_target *target, oci_error_t *err)
{
  enum container_status status = container_status(handle, container);
  cleanup_free char *kept = NULL;

  if (status != CONTAINER_RUNNING)
    return oci_error_set(err, 0, "exec: container '%s' is %s, not running", container->id,
                         container_status_name(status));
  /* The configuration create parsed, as it kept it: never the bundle's
   * config.json again, which may have changed since (even from inside,
   * when the container's root is its bundle). */
  if (asprintf(&kept, "%s/containers/%s", handle->root, handle->id) < 0) {
    kept = NULL;
    return oci_error_set(err, ENOMEM, "exec: allocate");
  }
  if (spec_load_bundle(handle->dir_fd, kept, &target->spec, err) < 0)
    return -1;
  if (container->cgroup_path != NULL &&
      (target->cgroup_path = strdup(container->cgroup_path)) == NULL)
    return oci_error_set(err, ENOMEM, "exec: allocate");
  target->pid = container->pid;
  /* The pid is checked right before, and the runtime joins through this
   * pidfd: a reused pid is never joined. */
  target->pidfd = container_pidfd(container, err);
  return target->pidfd < 0 ? -1 : 0;
}

/* A live run by name; its configuration is the config.json its runner
 * kept (checked there: ocirun's own files, pid 1 alive and the runner's). */
static int run_target(const char *name, const struct run_record *run, const char *config,
                      struct exec_target *target, oci_error_t *err)
{
  cleanup_cjson cJSON *json = cJSON_Parse(config);

  if (json == NULL)
    return oci_error_set(err, 0, "exec: run '%s': its config.json is not JSON", name);
  if (spec_parse(json, &target->spec, err) < 0)
    return oci_error_wrap(err, "exec: run '%s': config.json", name);
  if (run->cgroup_path != NULL && (target->cgroup_path = strdup(run->cgroup_path)) == NULL)
    return oci_error_set(err, ENOMEM, "exec: allocate");
  target->pid = run->container_pid;
  target->run = true;
  /* The pidfd first, then the check (start time, the runner's child, in
   * the slice): the runtime joins through that pidfd, so a pid reused
   * after the check is never joined. */
  target->pidfd = (int)syscall(SYS_pidfd_open, run->container_pid, 0);
  if (target->pidfd < 0)
    return oci_error_errno(err, "exec: run '%s': its process %d", name, run->container_pid);
  return run_state_check_container(run, err) < 0 ? oci_error_wrap(err, "exec") : 0;
}

/* ID-or-NAME: an OCI container ID under --root first, then a live `ocirun
 * run --name NAME` in the same root (its run/ folder); a name that is both
 * is refused, naming both. */
int exec_target_resolve(const char *root, const char *id, struct exec_target *target,
                        oci_error_t *err)
{
  cleanup_state_root struct state_root state = STATE_ROOT_NONE;
  struct container_handle handle;
  struct container container;
  struct run_record run = {0};
  cleanup_free char *config = NULL;
  oci_error_t run_err = NULL;
  struct state_name name;
  int found_run, ret;

  /* one rule for both (state/root.h), checked once, here where it enters:
   * the run's lookup and the container's take the checked value */
  if (state_name_take("run name (or container id)", id, &name, err) < 0)
    return -1;
  found_run = state_root_open(&state, root, STATE_RUN, false, &run_err) < 0
                  ? -1
                  : run_state_find_live(&state, &name, &run, &config, &run_err);
  if (container_load_by_id(root, &name, false, &handle, &container, err) == 0) {
    if (found_run > 0)
      ret = oci_error_set(err, 0,
                          "exec: '%s' is both an OCI container ('%s/containers/%s') and a live "
                          "run ('%s/run/%s.json'); refusing to guess",
                          id, root, id, root, id);
    else
      ret = container_target(&handle, &container, target, err);
    container_clear(&container);
    container_close(&handle);
  } else if ((*err)->errno_value != ENOENT) {
    ret = -1;
  } else if (found_run > 0) {
    oci_error_free(err);
    ret = run_target(id, &run, config, target, err);
  } else if (found_run < 0) {
    oci_error_free(err);
    *err = run_err;
    run_err = NULL;
    ret = oci_error_wrap(err, "exec");
  } else {
    oci_error_free(err);
    ret = oci_error_set(
        err, 0, "exec: '%s' is not running: no container or run of that name in '%s'", id, root);
  }
  oci_error_free(&run_err);
  run_record_clear(&run);
  return ret;
}
