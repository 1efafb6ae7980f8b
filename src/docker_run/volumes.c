/* Named volumes under $ROOT/volumes (see volumes.h). Every path is one
 * checked name below the folder's fd, opened without following a link;
 * a volume appears whole (made under a temporary name, then renamed into
 * place without replacing) and is removed under its exclusive lock after
 * it is renamed aside, so a run never opens one half removed. */
#include "config.h"

#include "docker_run/volumes.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/atomic_file.h"
#include "oci/cleanup.h"
#include "oci/remove_tree.h"

#define DATA "_data"

static int folder(struct state_root *state, bool create, oci_error_t *err)
{
  if (state_root_open_folder(state, STATE_VOLUMES, create, err) < 0)
    return -1;
  return state_root_folder(state, STATE_VOLUMES, err);
}

int volume_create(struct state_root *state, const char *name, bool *created, oci_error_t *err)
{
  char temp[256];
  int dir_fd;

  *created = false;
  if (state_name_check("volume name", name, err) < 0 || (dir_fd = folder(state, true, err)) < 0)
    return -1;
  if (oci_temp_name(temp, sizeof(temp), ".tmp-volume") < 0)
    return oci_error_errno(err, "volume: a temporary name");
  if (mkdirat(dir_fd, temp, 0700) < 0)
    return oci_error_errno(err, "volume %s: mkdir %s/volumes/%s", name, state->path, temp);
  {
    cleanup_close int temp_fd = openat(dir_fd, temp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (temp_fd < 0 || mkdirat(temp_fd, DATA, 0755) < 0) {
      oci_error_errno(err, "volume %s: make %s/volumes/%s/" DATA, name, state->path, temp);
      remove_tree_at(dir_fd, temp, NULL);
      return -1;
    }
  }
  if (renameat2(dir_fd, temp, dir_fd, name, RENAME_NOREPLACE) == 0) {
    *created = true;
    return 0;
  }
  {
    int saved = errno;

    remove_tree_at(dir_fd, temp, NULL);
    if (saved == EEXIST)
      return 0;
    errno = saved;
  }
  return oci_error_errno(err, "volume %s: rename into %s/volumes", name, state->path);
}

void volume_use_release(struct volume_use *use)
{
  if (use->lock_fd >= 0)
    close(use->lock_fd);
  if (use->data_fd >= 0)
    close(use->data_fd);
  free(use->path);
  *use = (struct volume_use)VOLUME_USE_NONE;
}

/* NAME's directory, locked as how says (LOCK_SH or LOCK_EX, never
 * waiting), and checked to be still the entry NAME once locked. */
static int open_locked(int dir_fd, const char *name, int how, const char *root, oci_error_t *err)
{
  cleanup_close int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat held, now;

  if (fd < 0)
    return oci_error_errno(err, "volume %s: open %s/volumes/%s", name, root, name);
  if (flock(fd, how | LOCK_NB) < 0) {
    if (errno == EWOULDBLOCK)
      return oci_error_set(err, EBUSY, "volume %s: %s", name,
                           how == LOCK_EX ? "in use by a live run: refused"
                                          : "being removed: try again");
    return oci_error_errno(err, "volume %s: lock %s/volumes/%s", name, root, name);
  }
  if (fstat(fd, &held) < 0 || fstatat(dir_fd, name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
      held.st_ino != now.st_ino || held.st_dev != now.st_dev)
    return oci_error_set(err, ESTALE, "volume %s: removed meanwhile", name);
  return steal_fd(&fd);
}

int volume_use(struct state_root *state, const char *name, struct volume_use *use, oci_error_t *err)
{
  bool created;
  int dir_fd;

  *use = (struct volume_use)VOLUME_USE_NONE;
  if (volume_create(state, name, &created, err) < 0 || (dir_fd = folder(state, false, err)) < 0)
    return -1;
  use->fresh = created;
  use->lock_fd = open_locked(dir_fd, name, LOCK_SH, state->path, err);
  if (use->lock_fd < 0)
    goto fail;
  use->data_fd = openat(use->lock_fd, DATA, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (use->data_fd < 0) {
    oci_error_errno(err, "volume %s: open %s/volumes/%s/" DATA, name, state->path, name);
    goto fail;
  }
  if (asprintf(&use->path, "%s/volumes/%s/" DATA, state->path, name) < 0) {
    use->path = NULL;
    oci_error_errno(err, "volume: allocate");
    goto fail;
  }
  return 0;
fail:
  volume_use_release(use);
  return -1;
}

static int compare_names(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int volume_list(struct state_root *state, char ***names, oci_error_t *err)
{
  cleanup_strv char **list = calloc(1, sizeof(*list));
  cleanup_dir DIR *dir = NULL;
  struct dirent *entry;
  size_t n = 0;
  int dir_fd, list_fd;

  *names = NULL;
  if (list == NULL)
    return oci_error_errno(err, "volume ls: allocate");
  if (state_root_open_folder(state, STATE_VOLUMES, false, err) < 0)
    return -1;
  dir_fd = state->folder_fd[STATE_VOLUMES];
  if (dir_fd < 0) {
    *names = steal_pointer(&list);
    return 0;
  }
  list_fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (list_fd < 0 || (dir = fdopendir(list_fd)) == NULL) {
    if (list_fd >= 0)
      close(list_fd);
    return oci_error_errno(err, "volume ls: read %s/volumes", state->path);
  }
  while ((errno = 0, entry = readdir(dir)) != NULL) {
    char **grown;

    if (!state_name_valid(entry->d_name))
      continue; /* ".", "..", ".tmp-..." */
    grown = reallocarray(list, n + 2, sizeof(*list));
    if (grown == NULL)
      return oci_error_errno(err, "volume ls: allocate");
    list = grown;
    list[n] = strdup(entry->d_name);
    if (list[n] == NULL)
      return oci_error_errno(err, "volume ls: allocate");
    list[++n] = NULL;
  }
  if (errno != 0)
    return oci_error_errno(err, "volume ls: read %s/volumes", state->path);
  qsort(list, n, sizeof(*list), compare_names);
  *names = steal_pointer(&list);
  return 0;
}

/* Locked exclusive (no run holds it), renamed aside, then removed. */
static int remove_locked(struct state_root *state, int dir_fd, const char *name, oci_error_t *err)
{
  cleanup_close int lock_fd = open_locked(dir_fd, name, LOCK_EX, state->path, err);
  char aside[256];

  if (lock_fd < 0)
    return -1;
  if (oci_temp_name(aside, sizeof(aside), ".tmp-volume-rm") < 0)
    return oci_error_errno(err, "volume: a temporary name");
  if (renameat2(dir_fd, name, dir_fd, aside, RENAME_NOREPLACE) < 0)
    return oci_error_errno(err, "volume %s: rename aside in %s/volumes", name, state->path);
  return remove_tree_at(dir_fd, aside, err);
}

int volume_remove(struct state_root *state, const char *name, oci_error_t *err)
{
  int dir_fd;

  if (state_name_check("volume name", name, err) < 0)
    return -1;
  if (state_root_open_folder(state, STATE_VOLUMES, false, err) < 0)
    return -1;
  dir_fd = state->folder_fd[STATE_VOLUMES];
  if (dir_fd < 0)
    return oci_error_set(err, ENOENT, "volume %s: no such volume", name);
  if (faccessat(dir_fd, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
    return oci_error_set(err, ENOENT, "volume %s: no such volume", name);
  return remove_locked(state, dir_fd, name, err);
}

int volume_prune(struct state_root *state, size_t *removed, oci_error_t *err)
{
  cleanup_strv char **names = NULL;

  *removed = 0;
  if (volume_list(state, &names, err) < 0)
    return -1;
  for (char **name = names; *name != NULL; name++) {
    oci_error_t busy = NULL;

    if (remove_locked(state, state->folder_fd[STATE_VOLUMES], *name, &busy) < 0) {
      if (busy->errno_value != EBUSY) {
        *err = busy;
        return -1;
      }
      oci_error_free(&busy);
      continue;
    }
    (*removed)++;
  }
  return 0;
}
