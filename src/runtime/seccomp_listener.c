/* linux.seccomp.listenerPath: the notify listener to the caller's agent.
 * The child sends it itself, once the filter is loaded, over the socket
 * the parent connected before clone3: create's parent is gone by the time
 * `ocirun start` lets the child load its filter, so no ocirun process is
 * left to relay it. */
#include "config.h"

#include "runtime/seccomp_listener.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "oci/cleanup.h"
#include "runtime/console.h"
#include "runtime/container_state.h"

int seccomp_listener_connect(const char *path, oci_error_t *err)
{
  return unix_socket_connect(path, "linux.seccomp.listenerPath", err);
}

char *seccomp_listener_state(const struct spec *spec, const char *id, const char *bundle, pid_t pid,
                             oci_error_t *err)
{
  cleanup_free char *state_text =
      container_state_json_for_spec(spec, id, bundle, pid, CONTAINER_CREATING, err);
  cleanup_cjson cJSON *message = cJSON_CreateObject();
  cJSON *state = state_text != NULL ? cJSON_Parse(state_text) : NULL, *fds;
  char *text = NULL;

  if (state_text == NULL) {
    cJSON_Delete(state);
    return NULL;
  }
  if (message != NULL && state != NULL &&
      cJSON_AddStringToObject(message, "ociVersion", spec->oci_version) != NULL &&
      (fds = cJSON_AddArrayToObject(message, "fds")) != NULL &&
      cJSON_AddItemToArray(fds, cJSON_CreateString("seccompFd")) &&
      cJSON_AddNumberToObject(message, "pid", pid) != NULL &&
      (spec->seccomp_listener_metadata == NULL ||
       cJSON_AddStringToObject(message, "metadata", spec->seccomp_listener_metadata) != NULL) &&
      cJSON_AddItemToObject(message, "state", state)) {
    state = NULL;
    text = cJSON_PrintUnformatted(message);
  }
  cJSON_Delete(state);
  if (text == NULL)
    oci_error_set(err, ENOMEM, "linux.seccomp.listenerPath: build the container process state");
  return text;
}

int seccomp_listener_send(int socket_fd, int listener, const char *state, oci_error_t *err)
{
  int ret = unix_send_fd(socket_fd, listener, state, strlen(state));
  int saved = errno;

  close(listener);
  close(socket_fd);
  if (ret < 0)
    return oci_error_set(err, saved,
                         "linux.seccomp.listenerPath: send the seccomp listener to the agent");
  return 0;
}
