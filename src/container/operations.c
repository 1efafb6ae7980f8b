/* The operations that read or poke a container without moving it along
 * its lifecycle (runtime-spec runtime.md "Operations"): state, kill, ps,
 * pause, resume, update. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "container/container.h"
#include "container/lifecycle.h"
#include "oci/cleanup.h"
#include "runtime/cgroup/limits.h"
#include "runtime/cgroup/slice.h"
#include "runtime/spec/spec.h"

char *container_state_now(const char *root, const char *id, oci_error_t *err)
{
  struct container_handle handle;
  struct container container;
  char *json;

  if (container_load_for_verb("state", root, id, false, &handle, &container, err) < 0)
    return NULL;
  json = container_state_json(&container, container_status(&handle, &container), true, err);
  container_clear(&container);
  container_close(&handle);
  return json;
}

int container_kill(const char *root, const char *id, int sig, bool all, oci_error_t *err)
{
  struct container_handle handle;
  struct container container;
  enum container_status status;
  int ret;

  if (container_load_for_verb("kill", root, id, false, &handle, &container, err) < 0)
    return -1;
  status = container_status(&handle, &container);
  if (status != CONTAINER_CREATED && status != CONTAINER_RUNNING && status != CONTAINER_PAUSED)
    ret = oci_error_set(err, 0, "kill: container '%s' is %s, not created or running", id,
                        container_status_name(status));
  else if (all && container.cgroup_path != NULL)
    ret = container_signal_all(&container, sig, err);
  else
    ret = container_signal(&container, sig, err);
  container_clear(&container);
  container_close(&handle);
  return ret;
}

int container_ps(const char *root, const char *id, pid_t **pids, size_t *n, oci_error_t *err)
{
  struct container_handle handle;
  struct container container;
  int ret;

  *pids = NULL;
  *n = 0;
  if (container_load_for_verb("ps", root, id, false, &handle, &container, err) < 0)
    return -1;
  if (container.cgroup_path == NULL)
    ret = oci_error_set(err, 0,
                        "ps: container '%s' has no cgroup, so its processes cannot be listed", id);
  else
    ret = container_cgroup_pids(&container, pids, n, err);
  container_clear(&container);
  container_close(&handle);
  return ret;
}

/* pause (frozen) or resume: the container must be running or paused. */
static int freeze(const char *root, const char *id, bool frozen, oci_error_t *err)
{
  const char *verb = frozen ? "pause" : "resume";
  enum container_status want = frozen ? CONTAINER_RUNNING : CONTAINER_PAUSED, status;
  struct container_handle handle;
  struct container container;
  int ret;

  if (container_load_for_verb(verb, root, id, true, &handle, &container, err) < 0)
    return -1;
  status = container_status(&handle, &container);
  if (status != want)
    ret = oci_error_set(err, 0, "%s: container '%s' is %s, not %s", verb, id,
                        container_status_name(status), container_status_name(want));
  else if (container.cgroup_path == NULL)
    ret = oci_error_set(err, 0, "%s: container '%s' has no cgroup to freeze", verb, id);
  else
    ret = container_cgroup_freeze(&container, frozen, err);
  container_clear(&container);
  container_close(&handle);
  return ret;
}

int container_pause(const char *root, const char *id, oci_error_t *err)
{
  return freeze(root, id, true, err);
}

int container_resume(const char *root, const char *id, oci_error_t *err)
{
  return freeze(root, id, false, err);
}

/* ---- update ---- */

/* The spec parser reads linux.resources inside a configuration: give it
 * the smallest one that holds the document, and take its resources. */
static int parse_resources(cJSON *resources, struct spec *spec, oci_error_t *err)
{
  cleanup_cjson cJSON *config = cJSON_CreateObject();
  cJSON *root, *linux_object;

  if (config == NULL || !cJSON_AddStringToObject(config, "ociVersion", SPEC_OCI_VERSION) ||
      (root = cJSON_AddObjectToObject(config, "root")) == NULL ||
      !cJSON_AddStringToObject(root, "path", "rootfs") ||
      (linux_object = cJSON_AddObjectToObject(config, "linux")) == NULL)
    return oci_error_set(err, ENOMEM, "update");
  cJSON_AddItemReferenceToObject(linux_object, "resources", resources);
  if (spec_parse(config, spec, err) < 0)
    return oci_error_wrap(err, "update");
  if (spec->resources.n_devices > 0) {
    spec_clear(spec);
    return oci_error_set(err, 0,
                         "update: linux.resources.devices: the device rules are fixed at "
                         "create; ocirun does not update them");
  }
  return 0;
}

/* The limits, as the same builder the runtime uses (cgroup_limits_build)
 * turns them into cgroup files, written by its one loop. */
int container_update(const char *root, const char *id, cJSON *resources, size_t *n_files,
                     oci_error_t *err)
{
  struct container_handle handle;
  struct container container;
  struct spec spec = {0};
  struct cgroup_limits limits = {0};
  enum container_status status;
  cleanup_close int cgroup_fd = -1;
  int ret = -1;

  *n_files = 0;
  if (parse_resources(resources, &spec, err) < 0)
    return -1;
  if (cgroup_limits_build(&spec.resources, &limits, err) < 0) {
    spec_clear(&spec);
    return oci_error_wrap(err, "update");
  }
  if (container_load_for_verb("update", root, id, true, &handle, &container, err) < 0)
    goto out_limits;
  status = container_status(&handle, &container);
  if (status == CONTAINER_STOPPED || status == CONTAINER_CREATING)
    oci_error_set(err, 0, "update: container '%s' is %s", id, container_status_name(status));
  else if (container.cgroup_path == NULL)
    oci_error_set(err, 0, "update: container '%s' has no cgroup", id);
  else if ((cgroup_fd = container_cgroup_open(&container, err)) >= 0 &&
           cgroup_slice_enable(cgroup_fd, container.cgroup_path, geteuid() != 0, &limits, err) ==
               0 &&
           cgroup_limits_write(cgroup_fd, &limits, err) == 0)
    ret = 0;
  if (ret == 0)
    *n_files = limits.n;
  container_clear(&container);
  container_close(&handle);
out_limits:
  cgroup_limits_clear(&limits);
  spec_clear(&spec);
  return ret;
}
