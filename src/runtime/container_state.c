/* The runtime spec's state document (see container_state.h). */
#include "config.h"

#include "runtime/container_state.h"

#include <errno.h>

#include "oci/cleanup.h"

const char *container_status_name(enum container_status status)
{
  static const char *const names[] = {
      [CONTAINER_CREATING] = "creating", [CONTAINER_CREATED] = "created",
      [CONTAINER_RUNNING] = "running",   [CONTAINER_PAUSED] = "paused",
      [CONTAINER_STOPPED] = "stopped",
  };
  return names[status];
}

cJSON *container_annotations_json(const struct spec_key_value *annotations, size_t n)
{
  cJSON *object = cJSON_CreateObject();

  for (size_t i = 0; object != NULL && i < n; i++)
    if (cJSON_AddStringToObject(object, annotations[i].key, annotations[i].value) == NULL) {
      cJSON_Delete(object);
      return NULL;
    }
  return object;
}

char *container_state_document(const struct container_state *state, bool pretty, oci_error_t *err)
{
  cleanup_cjson cJSON *json = cJSON_CreateObject();
  char *text = NULL;
  /* The spec wants pid while the process exists (created, running);
   * hooks of a create in progress get it too, as they need it. */
  bool with_pid = state->pid > 0 && state->status != CONTAINER_STOPPED;

  if (json != NULL && cJSON_AddStringToObject(json, "ociVersion", state->oci_version) &&
      cJSON_AddStringToObject(json, "id", state->id) &&
      cJSON_AddStringToObject(json, "status", container_status_name(state->status)) &&
      (!with_pid || cJSON_AddNumberToObject(json, "pid", state->pid)) &&
      cJSON_AddStringToObject(json, "bundle", state->bundle) &&
      cJSON_AddItemToObject(json, "annotations",
                            container_annotations_json(state->annotations, state->n_annotations)))
    text = pretty ? cJSON_Print(json) : cJSON_PrintUnformatted(json);
  if (text == NULL)
    oci_error_set(err, ENOMEM, "container '%s': build the state", state->id);
  return text;
}

char *container_state_json_for_spec(const struct spec *spec, const char *id, const char *bundle,
                                    pid_t pid, enum container_status status, oci_error_t *err)
{
  struct container_state state = {
      .oci_version = spec->oci_version,
      .id = id,
      .status = status,
      .pid = pid,
      .bundle = bundle,
      .annotations = spec->annotations,
      .n_annotations = spec->n_annotations,
  };
  return container_state_document(&state, false, err);
}
