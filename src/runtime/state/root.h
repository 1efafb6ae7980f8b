/* Where what runs keeps its state: $ROOT/run (`ocirun run`'s records and
 * run dirs) and $ROOT/containers (the OCI verbs' containers), opened once
 * per command through the store's ownership checks and handed down as
 * checked fds; and the one rule for every name that becomes a path
 * component there (a run's name, a container's id). */
#ifndef STATE_ROOT_H
#define STATE_ROOT_H

#include <stdbool.h>

#include "oci/error.h"
#include "oci/events.h"

/* A name under $ROOT: a letter or a digit, then letters, digits, '_', '.'
 * and '-', at most STATE_NAME_MAX bytes. The first byte keeps it apart
 * from ocirun's own files beside it (.lock-NAME, .tmp-...), and from "."
 * and ".."; the bound leaves room for the name's files
 * (".lock-" + NAME, NAME + ".json") in a path component. Every name a
 * caller makes fits: docker's and podman's container names, the 64 hex
 * digits of their IDs, containerd's identifiers (at most 76). */
#define STATE_NAME_MAX 128
bool state_name_valid(const char *name);
/* 0, or -1 with *err "invalid KIND 'NAME' (allowed: ...)"; kind says what
 * the name is ("run name", "container id"). */
int state_name_check(const char *kind, const char *name, oci_error_t *err);
/* A name checked where it entered, passed down as this value rather than
 * checked again by every function it reaches: made only by state_name_take,
 * which copies it (the bytes checked are the bytes used, whatever the
 * caller's string does later). */
struct state_name {
  char text[STATE_NAME_MAX + 1];
};
/* state_name_check, then the copy into *checked; err may be NULL (a caller
 * that only asks whether name is one). */
int state_name_take(const char *kind, const char *name, struct state_name *checked,
                    oci_error_t *err);
/* For a function handed a state_name whose callers are outside its file:
 * the guard that one built by hand, never by state_name_take, cannot
 * become a path component (fail-closed). Not the rule's check: the name's
 * error was given, naming what it is, where it entered. */
int state_name_guard(const struct state_name *name, oci_error_t *err);

enum state_folder { STATE_RUN, STATE_CONTAINERS, STATE_VOLUMES, STATE_FOLDER_COUNT };

/* $ROOT as one command holds it. */
struct state_root {
  char *path;                        /* absolute, as given: names files in messages */
  int fd;                            /* $ROOT, checked; -1 when it does not exist */
  int folder_fd[STATE_FOLDER_COUNT]; /* each folder, checked; -1 when not opened or missing */
  /* where the state's functions report what they did (a dead run swept);
   * set by the command, NULL drops it */
  const struct oci_event_sink *events;
};

/* What a state_root holds before it is opened and after it is closed. */
#define STATE_ROOT_NONE                                                                            \
  {                                                                                                \
    .fd = -1, .folder_fd = { [0 ... STATE_FOLDER_COUNT - 1] = -1 }                                 \
  }
#define cleanup_state_root __attribute__((cleanup(state_root_close)))

/* Opens root (absolute) and one of its folders, each refused unless only
 * the caller can change it (oci_store_root_open, oci_store_dir_open), and
 * created 0700 with create. Without create, a root or folder that does not
 * exist is no error: its fd is -1 (nothing was ever kept there). */
int state_root_open(struct state_root *state, const char *root, enum state_folder folder,
                    bool create, oci_error_t *err);
/* Another folder of the same root; nothing when it is open already. */
int state_root_open_folder(struct state_root *state, enum state_folder folder, bool create,
                           oci_error_t *err);
/* The folder's fd; -1 with *err (ENOENT) when it does not exist. */
int state_root_folder(const struct state_root *state, enum state_folder folder, oci_error_t *err);
/* The folder looked up again from the root's path, through the same
 * checks: 0 when the path still leads to the folder held; -1 with *err
 * naming what it leads to now (a symlink, another directory, nothing).
 * What a command verifies by looking once its work is done. */
int state_root_check_folder(const struct state_root *state, enum state_folder folder,
                            oci_error_t *err);
/* Closes what state holds (nothing for STATE_ROOT_NONE). */
void state_root_close(struct state_root *state);

#endif
