/* $ROOT's state folders, opened once per command, and the one rule for a
 * name under them (see root.h). */
#include "config.h"

#include "runtime/state/root.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/oci.h"

static const char *const folder_names[STATE_FOLDER_COUNT] = {
    [STATE_RUN] = "run",
    [STATE_CONTAINERS] = "containers",
    [STATE_VOLUMES] = "volumes",
};

bool state_name_valid(const char *name)
{
  size_t length;

  if (name == NULL || !isalnum((unsigned char)name[0]))
    return false;
  length = strlen(name);
  if (length > STATE_NAME_MAX)
    return false;
  for (size_t i = 1; i < length; i++)
    if (!isalnum((unsigned char)name[i]) && strchr("_.-", name[i]) == NULL)
      return false;
  return true;
}

int state_name_check(const char *kind, const char *name, oci_error_t *err)
{
  if (state_name_valid(name))
    return 0;
  return oci_error_set(err, 0,
                       "invalid %s '%s' (allowed: [a-zA-Z0-9][a-zA-Z0-9_.-]*, at most %d "
                       "characters)",
                       kind, name != NULL ? name : "", STATE_NAME_MAX);
}

int state_name_take(const char *kind, const char *name, struct state_name *checked,
                    oci_error_t *err)
{
  memset(checked->text, 0, sizeof(checked->text));
  if (state_name_check(kind, name, err) < 0)
    return -1;
  memcpy(checked->text, name, strlen(name)); /* at most STATE_NAME_MAX: the NUL stays */
  return 0;
}

int state_name_guard(const struct state_name *name, oci_error_t *err)
{
  if (name != NULL && memchr(name->text, '\0', sizeof(name->text)) != NULL &&
      state_name_valid(name->text))
    return 0;
  return oci_error_set(err, EINVAL, "state: a name that was never checked reached the store");
}

/* True (and *err dropped) when the failure was a missing directory. */
static bool missing(oci_error_t *err)
{
  if (*err == NULL || (*err)->errno_value != ENOENT)
    return false;
  oci_error_free(err);
  return true;
}

int state_root_open(struct state_root *state, const char *root, enum state_folder folder,
                    bool create, oci_error_t *err)
{
  *state = (struct state_root)STATE_ROOT_NONE;
  state->path = strdup(root);
  if (state->path == NULL)
    return oci_error_set(err, ENOMEM, "store: '%s'", root);
  state->fd = oci_store_root_open(root, create, err);
  if (state->fd < 0)
    return !create && missing(err) ? 0 : -1; /* missing: nothing was ever kept there */
  return state_root_open_folder(state, folder, create, err);
}

int state_root_open_folder(struct state_root *state, enum state_folder folder, bool create,
                           oci_error_t *err)
{
  if (state->folder_fd[folder] >= 0)
    return 0;
  if (state->fd < 0) {
    if (!create)
      return 0;
    state->fd = oci_store_root_open(state->path, true, err);
    if (state->fd < 0)
      return -1;
  }
  state->folder_fd[folder] =
      oci_store_dir_open(state->fd, state->path, folder_names[folder], create, err);
  if (state->folder_fd[folder] < 0)
    return !create && missing(err) ? 0 : -1;
  return 0;
}

int state_root_folder(const struct state_root *state, enum state_folder folder, oci_error_t *err)
{
  if (state->folder_fd[folder] >= 0)
    return state->folder_fd[folder];
  if (state->fd < 0)
    return oci_error_set(err, ENOENT, "store: open '%s'", state->path);
  return oci_error_set(err, ENOENT, "store: open '%s/%s'", state->path, folder_names[folder]);
}

int state_root_check_folder(const struct state_root *state, enum state_folder folder,
                            oci_error_t *err)
{
  const char *name = folder_names[folder];
  cleanup_close int root_fd = -1;
  cleanup_close int fd = -1;
  struct stat held, now;
  int held_fd = state_root_folder(state, folder, err);

  if (held_fd < 0)
    return -1;
  root_fd = oci_store_root_open(state->path, false, err);
  if (root_fd < 0)
    return -1;
  fd = oci_store_dir_open(root_fd, state->path, name, false, err);
  if (fd < 0)
    return -1;
  if (fstat(held_fd, &held) < 0 || fstat(fd, &now) < 0)
    return oci_error_errno(err, "store: stat '%s/%s'", state->path, name);
  if (held.st_dev != now.st_dev || held.st_ino != now.st_ino)
    return oci_error_set(err, 0, "store: '%s/%s' is no longer the folder this command opened",
                         state->path, name);
  return 0;
}

void state_root_close(struct state_root *state)
{
  for (int i = 0; i < STATE_FOLDER_COUNT; i++)
    if (state->folder_fd[i] >= 0)
      close(state->folder_fd[i]);
  if (state->fd >= 0)
    close(state->fd);
  free(state->path);
  *state = (struct state_root)STATE_ROOT_NONE;
}
