/* The state under $ROOT (runtime/state/root.c): the one rule for a name
 * that becomes a path component there, and the one opener of $ROOT's
 * folders: checked, held as fds, looked up again on request. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/error.h"
#include "oci/remove_tree.h"
#include "runtime/state/root.h"
#include "runtime/state/run_state.h"
#include "unit.h"

static void test_names(void)
{
  static const char *const good[] = {
      "a",
      "web",
      "ABC",
      "9lives",
      "my-container_1.2",
      "a..b",
      "x.",
      "ocirun-probe-0123456789ab",       /* the probe's docker containers */
      "ocirun-0123456789ab",             /* the name run generates */
      "nginx-1.25_k8s.default",          /* a containerd identifier */
      "0123456789abcdef0123456789abcdef" /* podman's and CRI's ids: 64 hex */
      "0123456789abcdef0123456789abcdef",
      NULL,
  };
  /* Each refused for a reason of its own. */
  static const struct {
    const char *name, *why;
  } bad[] = {
      {"", "no byte at all"},
      {".", "only a dot"},
      {"..", "only two dots"},
      {".x", "a leading '.'"},
      {"..a", "a leading '..'"},
      {".lock-web", "the shape of a name's lock file"},
      {".tmp-1-x", "the shape of a temporary record"},
      {"-rf", "a leading '-'"},
      {"_x", "a leading '_'"},
      {"a/b", "a '/'"},
      {"/a", "a leading '/'"},
      {"a b", "a space"},
      {"a:b", "a ':'"},
      {"a+b", "a '+'"},
      {"\xc3\xa9", "a byte beyond ASCII"},
      {"a\n", "a newline"},
      {"a\t", "a tab"},
      {"a\\b", "a backslash"},
      {"*", "a glob"},
      {"a\x1b[2J", "an escape sequence"},
  };
  char name[STATE_NAME_MAX + 2];
  oci_error_t err = NULL;

  for (size_t i = 0; good[i] != NULL; i++)
    ok(state_name_valid(good[i]), "'%s' is a name", good[i]);
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    ok(!state_name_valid(bad[i].name), "a name with %s is refused", bad[i].why);
  ok(!state_name_valid(NULL), "no name is refused");

  memset(name, 'a', STATE_NAME_MAX);
  name[STATE_NAME_MAX] = '\0';
  ok(state_name_valid(name), "a name of %d bytes is one", STATE_NAME_MAX);
  name[STATE_NAME_MAX] = 'a';
  name[STATE_NAME_MAX + 1] = '\0';
  ok(!state_name_valid(name), "a name of %d bytes is refused", STATE_NAME_MAX + 1);
  /* The longest name's files fit in a path component. */
  ok(strlen(".lock-") + STATE_NAME_MAX <= NAME_MAX && STATE_NAME_MAX + strlen(".json") <= NAME_MAX,
     "the longest name's lock and record fit in a file name");

  is_int(state_name_check("run name", "web", &err), 0, "check: a good name passes");
  ok(err == NULL, "... leaving no error");
  is_int(state_name_check("run name", ".lock-web", &err), -1, "check: a bad name fails");
  ok(err != NULL && strstr(err->message, "invalid run name '.lock-web'") != NULL,
     "... naming what it is and the name (%s)", err ? err->message : "");
  ok(err != NULL && strstr(err->message, "[a-zA-Z0-9][a-zA-Z0-9_.-]*") != NULL &&
         strstr(err->message, "at most 128") != NULL,
     "... and the rule");
  oci_error_free(&err);
  is_int(state_name_check("container id", NULL, &err), -1, "check: no name fails");
  ok(err != NULL && strstr(err->message, "invalid container id ''") != NULL,
     "... as an empty one (%s)", err ? err->message : "");
  oci_error_free(&err);
}

/* The checked value: taken once where a name enters, a copy (the bytes
 * checked are the bytes used), and guarded where it is handed on. */
static void test_name_taken(void)
{
  struct state_name name, forged;
  char given[STATE_NAME_MAX + 2];
  oci_error_t err = NULL;

  strcpy(given, "web-1");
  is_int(state_name_take("run name", given, &name, &err), 0, "take: a good name");
  given[0] = '.';
  is_str(name.text, "web-1", "... copied: a later change of the caller's string is not seen");
  is_int(state_name_guard(&name, &err), 0, "... and it passes the guard");
  ok(err == NULL, "... leaving no error");
  is_int(state_name_take("container id", "../x", &name, &err), -1, "take: a bad name fails");
  ok(err != NULL && strstr(err->message, "invalid container id '../x'") != NULL,
     "... with the rule's message (%s)", err ? err->message : "");
  oci_error_free(&err);
  is_str(name.text, "", "... and leaves no name");
  is_int(state_name_guard(&name, &err), -1, "... which the guard refuses");
  oci_error_free(&err);
  is_int(state_name_take("run name", ".lock-web", &name, NULL), -1,
         "take without an error: only the answer");
  memset(given, 'a', sizeof(given) - 1);
  given[sizeof(given) - 1] = '\0';
  is_int(state_name_take("run name", given, &name, NULL), -1, "take: one byte too long fails");

  memset(&forged, 0, sizeof(forged));
  strcpy(forged.text, "..");
  is_int(state_name_guard(&forged, &err), -1, "guard: a name built by hand ('..') is refused");
  ok(err != NULL && err->errno_value == EINVAL, "... as EINVAL");
  oci_error_free(&err);
  memset(forged.text, 'a', sizeof(forged.text));
  is_int(state_name_guard(&forged, &err), -1, "guard: one without its NUL is refused");
  oci_error_free(&err);
  is_int(state_name_guard(NULL, &err), -1, "guard: none is refused");
  oci_error_free(&err);

  /* exec's lookup of a run takes the checked value, and is guarded */
  {
    struct state_root state = STATE_ROOT_NONE;
    struct run_record record;
    char *config = NULL;

    state.path = "/nonexistent";
    strcpy(forged.text, "../x");
    is_int(run_state_find_live(&state, &forged, &record, &config, &err), -1,
           "find_live: a name built by hand is refused");
    oci_error_free(&err);
    state_name_take("run name", "web", &name, NULL);
    is_int(run_state_find_live(&state, &name, &record, &config, &err), 0,
           "find_live: a taken name in a root without runs: none");
    oci_error_free(&err);
  }
}

static bool message_has(const oci_error_t err, const char *text)
{
  return err != NULL && err->message != NULL && strstr(err->message, text) != NULL;
}

static mode_t mode_of(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 ? st.st_mode & 07777 : 0;
}

/* path (root or one of its folders) made world-writable: opening root's
 * folder is refused, naming the mode; then path is 0700 again. */
static void refused_world_writable(const char *path, const char *root, enum state_folder folder,
                                   const char *what)
{
  struct state_root state = STATE_ROOT_NONE;
  oci_error_t err = NULL;

  ok(chmod(path, 0777) == 0, "control: %s made world-writable", what);
  is_int(state_root_open(&state, root, folder, false, &err), -1, "... is refused");
  ok(message_has(err, "has mode 0777"), "... naming the mode (%s)", err ? err->message : "");
  oci_error_free(&err);
  state_root_close(&state);
  chmod(path, 0700);
}

static void test_opener(const char *base)
{
  struct state_root state = STATE_ROOT_NONE;
  oci_error_t err = NULL;
  char root[256], run[300], moved[300], text[400];
  struct stat st;

  snprintf(root, sizeof(root), "%s/root", base);
  snprintf(run, sizeof(run), "%s/run", root);
  snprintf(moved, sizeof(moved), "%s/run.moved", root);

  /* A root that does not exist: nothing was ever kept there. */
  is_int(state_root_open(&state, root, STATE_RUN, false, &err), 0,
         "a missing root opens without create");
  ok(err == NULL && state.fd < 0 && state.folder_fd[STATE_RUN] < 0, "... holding nothing");
  ok(stat(root, &st) < 0 && errno == ENOENT, "... and making nothing");
  is_int(state_root_folder(&state, STATE_RUN, &err), -1, "its run folder is asked for");
  ok(err != NULL && err->errno_value == ENOENT && message_has(err, root),
     "... ENOENT, naming the root (%s)", err ? err->message : "");
  oci_error_free(&err);
  state_root_close(&state);

  /* Created: the root and the folder asked for, 0700, and no other. */
  is_int(state_root_open(&state, root, STATE_RUN, true, &err), 0, "create the root and run/");
  ok(state.fd >= 0 && state.folder_fd[STATE_RUN] >= 0, "... both held");
  is_int(mode_of(root), 0700, "... the root 0700");
  is_int(mode_of(run), 0700, "... run/ 0700");
  snprintf(text, sizeof(text), "%s/containers", root);
  ok(state.folder_fd[STATE_CONTAINERS] < 0 && access(text, F_OK) < 0,
     "... containers/ neither opened nor made");
  is_int(state_root_check_folder(&state, STATE_RUN, &err), 0, "run/ looked up again is the same");
  oci_error_free(&err);

  /* A second folder of the same root, missing then created. */
  is_int(state_root_open_folder(&state, STATE_CONTAINERS, false, &err), 0,
         "a missing containers/ opens without create");
  is_int(state_root_folder(&state, STATE_CONTAINERS, &err), -1, "... and is not there");
  snprintf(text, sizeof(text), "'%s/containers'", root);
  ok(err != NULL && err->errno_value == ENOENT && message_has(err, text),
     "... ENOENT, naming it (%s)", err ? err->message : "");
  oci_error_free(&err);
  is_int(state_root_open_folder(&state, STATE_CONTAINERS, true, &err), 0, "containers/ created");
  ok(state.folder_fd[STATE_CONTAINERS] >= 0, "... and held");

  /* The folder swapped under the command: the fd keeps the folder it
   * checked, and a look by path says what the path leads to now. */
  ok(rename(run, moved) == 0 && mkdir(run, 0700) == 0, "control: run/ replaced by another folder");
  is_int(state_root_check_folder(&state, STATE_RUN, &err), -1, "the replacement is seen");
  ok(message_has(err, "is no longer the folder this command opened"), "... and named (%s)",
     err ? err->message : "");
  oci_error_free(&err);
  ok(mkdirat(state.folder_fd[STATE_RUN], "made", 0700) == 0 &&
         faccessat(AT_FDCWD, moved, F_OK, 0) == 0,
     "what the command makes lands in the folder it checked");
  snprintf(text, sizeof(text), "%s/made", moved);
  ok(access(text, F_OK) == 0, "... (%s)", text);
  ok(rmdir(run) == 0 && symlink("run.moved", run) == 0, "control: run/ now a symlink to it");
  is_int(state_root_check_folder(&state, STATE_RUN, &err), -1, "the symlink is refused");
  snprintf(text, sizeof(text), "'%s' is a symlink", run);
  ok(message_has(err, text), "... by name (%s)", err ? err->message : "");
  oci_error_free(&err);
  state_root_close(&state);
  ok(state.fd < 0 && state.folder_fd[STATE_RUN] < 0 && state.folder_fd[STATE_CONTAINERS] < 0 &&
         state.path == NULL,
     "closed: nothing held");
  is_int(state_root_open(&state, root, STATE_RUN, false, &err), -1,
         "a run/ that is a symlink is refused at open");
  ok(message_has(err, text), "... by name (%s)", err ? err->message : "");
  oci_error_free(&err);
  state_root_close(&state);
  unlink(run);
  rename(moved, run);

  /* The ownership checks apply: others may not write the root or a folder. */
  refused_world_writable(run, root, STATE_RUN, "run/");
  refused_world_writable(root, root, STATE_CONTAINERS, "the root");
  is_int(state_root_open(&state, root, STATE_RUN, false, &err), 0, "control: restored, it opens");
  oci_error_free(&err);
  state_root_close(&state);

  is_int(state_root_open(&state, "relative/root", STATE_RUN, true, &err), -1,
         "a relative root is refused");
  ok(access("relative", F_OK) < 0, "... making nothing");
  oci_error_free(&err);
  state_root_close(&state);
}

int main(void)
{
  char base[] = "/tmp/ocirun-unit-state.XXXXXX";
  oci_error_t err = NULL;

  if (mkdtemp(base) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  test_names();
  test_name_taken();
  test_opener(base);
  {
    int parent = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    remove_tree_at(parent, base + strlen("/tmp/"), &err);
    oci_error_free(&err);
    close(parent);
  }
  return unit_done();
}
