/* Unit tests of the one destroyer (src/container/lifecycle.c,
 * container_destroy), which delete, a failed create and a failed start all
 * end in, on containers without a cgroup: the process killed, the state
 * removed, then the poststop hooks with the state "stopped", their output
 * and failures as events; a step that fails stops it with the record kept
 * and no poststop hook run, so that a later delete finishes the work and
 * the hooks run once; after a failed create or start
 * (container_destroy_failed) its failure is a warning event. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "container/lifecycle.h"
#include "container/record.h"
#include "oci/cleanup.h"
#include "oci/events.h"
#include "oci/file_read.h"
#include "oci/remove_tree.h"
#include "runtime/process_stat.h"
#include "runtime/state/run_state.h"
#include "unit.h"

struct seen {
  enum oci_event_kind kind[16];
  char detail[16][256];
  int n;
};

static void capture(void *context, const struct oci_event *event)
{
  struct seen *seen = context;

  if (seen->n < 16) {
    seen->kind[seen->n] = event->kind;
    /* a hook's line as the command line prints it: "hook WHAT: LINE" */
    if (event->kind == OCI_EVENT_HOOK_LINE)
      snprintf(seen->detail[seen->n], sizeof(seen->detail[0]), "hook %s: %s",
               event->subject != NULL ? event->subject : "?",
               event->detail != NULL ? event->detail : "");
    else
      snprintf(seen->detail[seen->n], sizeof(seen->detail[0]), "%s",
               event->detail != NULL ? event->detail : "");
    seen->n++;
  }
}

static bool seen_event(const struct seen *seen, enum oci_event_kind kind, const char *part)
{
  for (int i = 0; i < seen->n; i++)
    if (seen->kind[i] == kind && strstr(seen->detail[i], part) != NULL)
      return true;
  return false;
}

/* What a poststop hook read on its stdin (NULL: it did not run). */
static cJSON *hook_state(const char *file)
{
  cleanup_free char *text = NULL;
  size_t length;
  oci_error_t err = NULL;

  if (oci_file_read(AT_FDCWD, file, OCI_FILE_NAMED, "hook output", 1 << 16, &text, &length, &err) <
      0) {
    oci_error_free(&err);
    return NULL;
  }
  return cJSON_ParseWithLength(text, length);
}

static bool container_exists(const char *root, const char *id)
{
  struct container_handle handle;
  oci_error_t err = NULL;
  bool exists = container_open_unlocked(root, id, &handle, &err) == 0;

  if (exists)
    container_close(&handle);
  oci_error_free(&err);
  return exists;
}

/* A recorded container "id" for process pid (0: none), with two poststop
 * hooks: one that fails after a line of output, one that writes its stdin
 * to marker once the container's directory is gone. */
static int make_container(const char *root, const char *id, pid_t pid, const char *marker,
                          struct container_handle *handle, struct container *c, char *script,
                          size_t script_size)
{
  static char *fail_args[] = {"sh", "-c", "echo bye; exit 4", NULL};
  static char *args[] = {"sh", "-c", NULL, NULL};
  static struct spec_hook hooks[2];
  oci_error_t err = NULL;

  snprintf(script, script_size, "test ! -e '%s/containers/%s' && cat > '%s'", root, id, marker);
  args[2] = script;
  hooks[0] = (struct spec_hook){.path = "/bin/sh", .args = fail_args};
  hooks[1] = (struct spec_hook){.path = "/bin/sh", .args = args};
  memset(c, 0, sizeof(*c));
  c->id = (char *)id;
  c->oci_version = "1.2.0";
  c->bundle = "/tmp/bundle";
  c->created = "2026-01-01T00:00:00.000000000Z";
  c->pid = pid;
  c->poststop = hooks;
  c->n_poststop = 2;
  if (pid > 0 && process_start_time(pid, &c->pid_start_time, &err) < 0)
    goto fail;
  if (container_new(root, id, handle, &err) < 0 || container_save(handle, c, &err) < 0)
    goto fail;
  return 0;
fail:
  printf("# %s\n", err != NULL ? err->message : "?");
  oci_error_free(&err);
  return -1;
}

/* A child that waits for a signal: the container's process. */
static pid_t sleeper(void)
{
  pid_t child = fork();

  if (child == 0) {
    pause();
    _exit(0);
  }
  return child;
}

static void test_live_process(const char *root)
{
  char marker[512], script[1024];
  struct container_handle handle;
  struct container c;
  struct seen seen = {0};
  struct oci_event_sink sink = {.emit = capture, .context = &seen};
  oci_error_t err = NULL;
  cleanup_cjson cJSON *state = NULL;
  pid_t child = sleeper();
  int status = 0;

  snprintf(marker, sizeof(marker), "%s/live.poststop", root);
  ok(make_container(root, "live", child, marker, &handle, &c, script, sizeof(script)) == 0,
     "a recorded container whose process lives");
  ok(container_destroy(&handle, &c, &sink, &err) == 0, "destroy: succeeds");
  if (err != NULL)
    printf("# %s\n", err->message);
  oci_error_free(&err);
  ok(waitpid(child, &status, 0) == child && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
     "its process was SIGKILLed");
  ok(!container_exists(root, "live"), "its state is gone");
  state = hook_state(marker);
  ok(state != NULL, "the poststop hook ran once the container's directory was gone");
  ok(state != NULL &&
         strcmp(cJSON_GetObjectItemCaseSensitive(state, "status")->valuestring, "stopped") == 0 &&
         cJSON_GetObjectItemCaseSensitive(state, "pid") == NULL,
     "... with the state stopped, no pid");
  ok(seen_event(&seen, OCI_EVENT_REMOVED, "container 'live' destroyed"),
     "an event says the container was removed");
  ok(seen_event(&seen, OCI_EVENT_HOOK_LINE, "hook poststop[0]: bye"),
     "the hook's output is a hook-line event");
  ok(seen_event(&seen, OCI_EVENT_WARNING, "poststop[0] (/bin/sh) exited with status 4"),
     "the failing poststop hook is a warning event, and the next one still ran");
  container_close(&handle);
}

static void test_process_gone(const char *root)
{
  char marker[512], script[1024];
  struct container_handle handle;
  struct container c;
  oci_error_t err = NULL;
  cleanup_cjson cJSON *state = NULL;
  pid_t child = sleeper();
  int made;

  snprintf(marker, sizeof(marker), "%s/gone.poststop", root);
  made = make_container(root, "gone", child, marker, &handle, &c, script, sizeof(script));
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  ok(made == 0, "a recorded container whose process has exited");
  ok(container_destroy(&handle, &c, NULL, &err) == 0, "destroy: succeeds (no sink: no events)");
  oci_error_free(&err);
  ok(!container_exists(root, "gone"), "its state is gone");
  state = hook_state(marker);
  ok(state != NULL, "its poststop hook ran");
  container_close(&handle);
}

static void test_failure_stops(const char *root)
{
  char marker[512], script[1024];
  struct container_handle handle;
  struct container c;
  struct seen seen = {0};
  struct oci_event_sink sink = {.emit = capture, .context = &seen};
  oci_error_t err = NULL;
  cleanup_cjson cJSON *state = NULL;

  snprintf(marker, sizeof(marker), "%s/stuck.poststop", root);
  ok(make_container(root, "stuck", 0, marker, &handle, &c, script, sizeof(script)) == 0,
     "a recorded container with a cgroup that cannot be its (outside /sys/fs/cgroup)");
  c.cgroup_path = "/tmp/not-a-cgroup";
  ok(container_destroy(&handle, &c, NULL, &err) < 0 && err != NULL &&
         strstr(err->message, "not under /sys/fs/cgroup") != NULL,
     "destroy fails at the cgroup, naming why");
  oci_error_free(&err);
  ok(container_exists(root, "stuck"), "... the record stays, for a later delete");
  ok(access(marker, F_OK) < 0, "... and no poststop hook ran: the container is not gone");
  container_destroy_failed(&handle, &c, "create", &sink);
  ok(seen_event(&seen, OCI_EVENT_WARNING, "create: clean up: ") &&
         seen_event(&seen, OCI_EVENT_WARNING, "not under /sys/fs/cgroup"),
     "after a failed create, the destroyer's failure is a warning event naming the verb and why");
  ok(container_exists(root, "stuck") && access(marker, F_OK) < 0,
     "... the record stays, no poststop hook ran");
  c.cgroup_path = NULL;
  ok(container_destroy(&handle, &c, NULL, &err) == 0, "once the cause is gone, destroy finishes");
  oci_error_free(&err);
  ok(!container_exists(root, "stuck"), "... the state is gone");
  state = hook_state(marker);
  ok(state != NULL, "... and the poststop hook ran, once");
  container_close(&handle);
}

int main(void)
{
  char root[] = "/tmp/ocirun-unit-destroy.XXXXXX";
  oci_error_t err = NULL;

  if (mkdtemp(root) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  test_live_process(root);
  test_process_gone(root);
  test_failure_stops(root);
  {
    int parent = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    remove_tree_at(parent, root + strlen("/tmp/"), &err);
    oci_error_free(&err);
    close(parent);
  }
  return unit_done();
}
