/* ocirun run: the plan carried out and supervised. Everything created for
 * the run (record, run dir and writable layer, slice) is created before
 * clone3 and removed after pid 1 is gone, in reverse, and checked gone. */
#include "config.h"

#include "runtime/launch.h"
#include "runtime/supervise.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/console.h"
#include "runtime/exit_codes.h"
#include "oci/cleanup.h"
#include "runtime/state/run_dir.h"
#include "runtime/state/run_state.h"

/* What exists on the host for this run, in creation order. */
struct run_resources {
  const char *root;
  struct state_root *state;
  const char *name;
  bool record_written;
  bool run_dir_created;
  struct writable_layer layer; /* the run dir's rootfs/ and upper/, held */
  struct cgroup_slice slice;
  bool slice_created;
  /* entries of $ROOT/run that must not exist after teardown (NULL: unused) */
  const char *created_in_store[2];
  const char *created_cgroup; /* absolute; NULL when none */
  struct pasta *pasta;        /* the network's pasta, the last made (launch.pasta) */
};

/* Whether $ROOT/run/<entry> exists, looked up from the store's checked run
 * folder without following a symlink; true (with *err) when it cannot be
 * told, or when $ROOT/run no longer leads to that folder. */
static bool store_run_entry_exists(const struct state_root *state, const char *entry,
                                   oci_error_t *err)
{
  int run_fd = state_root_folder(state, STATE_RUN, err);

  /* the path must still lead to the folder the run worked in */
  if (run_fd < 0 || state_root_check_folder(state, STATE_RUN, err) < 0)
    return true;
  if (faccessat(run_fd, entry, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
    return true;
  if (errno == ENOENT)
    return false;
  oci_error_errno(err, "look for '%s/run/%s'", state->path, entry);
  return true;
}

/* The first failure is the one reported; later ones are dropped. */
void keep_first_error(oci_error_t *err, oci_error_t *one)
{
  if (*err == NULL) {
    oci_error_wrap(one, "teardown");
    *err = *one;
    *one = NULL;
  } else {
    oci_error_free(one);
  }
}

/* Removes everything, in reverse creation order, and checks it is gone.
 * Keeps going after a failure so one stuck step leaves the least behind. */
static bool teardown(struct run_resources *res, oci_error_t *err)
{
  bool ok = true;
  oci_error_t one = NULL;

  if (res->pasta != NULL && pasta_stop(res->pasta, &one) < 0) {
    ok = false;
    keep_first_error(err, &one);
  }
  if (res->slice_created) {
    if (cgroup_slice_destroy(&res->slice, &one) < 0) {
      ok = false;
      keep_first_error(err, &one);
    }
    res->slice_created = false;
  }
  writable_layer_close(&res->layer);
  if (res->run_dir_created) {
    if (run_dir_remove(res->state, res->name, &one) < 0) {
      ok = false;
      keep_first_error(err, &one);
    }
    res->run_dir_created = false;
  }
  if (res->record_written) {
    if (run_state_remove(res->state, res->name, &one) < 0) {
      ok = false;
      keep_first_error(err, &one);
    }
    res->record_written = false;
  }
  /* Verified by looking, not by trusting the steps above. */
  for (size_t i = 0; i < sizeof(res->created_in_store) / sizeof(res->created_in_store[0]); i++) {
    if (res->created_in_store[i] != NULL &&
        store_run_entry_exists(res->state, res->created_in_store[i], &one)) {
      ok = false;
      if (one != NULL)
        keep_first_error(err, &one);
      else
        oci_error_set(err, 0, "teardown: '%s/run/%s' still exists", res->root,
                      res->created_in_store[i]);
    }
  }
  if (res->created_cgroup != NULL && (access(res->created_cgroup, F_OK) == 0 || errno != ENOENT)) {
    ok = false;
    oci_error_set(err, 0, "teardown: '%s' still exists", res->created_cgroup);
  }
  return ok;
}

/* A terminal: the pty's master, which the child sends once it has made
 * the pty (or none: it failed first, and its report says why). */
static int receive_terminal(struct launch *launch, int terminal_socket, struct stdio_relay *relay,
                            oci_error_t *err)
{
  oci_error_t ignored = NULL;
  int master;

  if (launch->console_fd >= 0)
    close(launch->console_fd); /* the child's end: only the child may hold it */
  launch->console_fd = -1;
  if (terminal_socket < 0)
    return 0;
  master = console_receive(terminal_socket, &ignored);
  if (master < 0) {
    oci_error_free(&ignored);
    return 0;
  }
  return stdio_relay_attach_terminal(relay, master, err);
}

static int start_and_wait(struct launch *launch, struct run_resources *res, const struct run_io *io,
                          struct stdio_relay *relay, int terminal_socket, int signal_fd,
                          struct run_result *result, oci_error_t *err)
{
  struct child_watch watch = {.io = io};
  struct spawned child;
  cleanup_close int report_read = -1, status_read = -1;
  int cgroup_fd = res->slice_created ? res->slice.dir_fd : -1;
  int ret;

  for (int i = 0; i < 3; i++)
    launch->stdio[i] = relay->container_fd[i];
  ret = spawn_child(launch, cgroup_fd, &child, err);
  oci_emit(launch->options->events, OCI_EVENT_PHASE, "spawned", launch->options->id, NULL);
  report_read = child.report_fd;
  status_read = child.status_fd;
  /* Only the container may hold the write ends, or output never ends. */
  stdio_relay_close_container_ends(relay);
  if (ret == 0 && receive_terminal(launch, terminal_socket, relay, err) < 0) {
    spawned_kill(&child);
    ret = -1;
  }
  if (ret < 0) {
    if (child.pidfd >= 0)
      close(child.pidfd);
    if (child.go_fd >= 0)
      close(child.go_fd);
    return -1;
  }
  watch.report_fd = report_read;
  watch.pid = child.pid;
  watch.cgroup_fd = cgroup_fd;
  watch.init = launch->init;
  watch.layer = &res->layer;
  if (wait_for_child(child.pidfd, signal_fd, launch->options, &watch, relay, result, err) < 0) {
    spawned_kill(&child);
    close(child.pidfd);
    close(child.go_fd);
    return -1;
  }
  if (res->slice_created)
    result->oom_killed = cgroup_slice_oom_killed(&res->slice);

  /* A report still unread when pid 1 exited (it wrote, then died). */
  if (watch.report_fd >= 0 && !watch.reported) {
    int flags = fcntl(watch.report_fd, F_GETFL);
    if (flags >= 0 && fcntl(watch.report_fd, F_SETFL, flags | O_NONBLOCK) == 0)
      watch_report(child.pidfd, &watch);
  }
  close(child.pidfd);
  close(child.go_fd);
  if (watch.reported)
    return report_failure(&watch.report, result, err);
  return launch->init ? init_outcome(status_read, result, err) : 0;
}

/* The slice itself; rootless, without a device program (an unprivileged
 * caller cannot attach one; nodev on every writable mount keeps devices
 * out). */
int slice_create(const struct slice_plan *plan, bool rootless, struct cgroup_slice *slice,
                 oci_error_t *err)
{
  return cgroup_slice_create(plan->path, rootless, &plan->limits, rootless ? NULL : plan->rules,
                             rootless ? 0 : plan->n_rules, slice, err);
}

/* Once the run's pid 1 has exec'd, its record names it, and from then on
 * `ocirun exec NAME` may join it: never earlier, since before pivot_root
 * its mount namespace still shows the host's root. A record that cannot
 * be completed ends the run (an exec would find nothing to join). The
 * caller's own on_exec follows. */
struct exec_recorder {
  const struct run_io *io;
  const struct state_root *state;
  const char *name;
  oci_error_t err;
};

static void record_started(const struct run_started *started, void *context)
{
  struct exec_recorder *recorder = context;

  if (run_state_set_container(recorder->state, recorder->name, started->pid, &recorder->err) < 0)
    pidfd_send_signal(started->pidfd, SIGKILL, NULL, 0);
  if (recorder->io->on_exec != NULL)
    recorder->io->on_exec(started, recorder->io->context);
}

/* What the run makes on the host before its child: the record first (from
 * here on a crash leaves something sweep can find), the run dir with the
 * root's writable layer and the configuration `exec NAME` joins with, then
 * the slice. -1: nothing was made; -2: something was, tear it down. */
static int run_resources_create(struct run_resources *res, struct runtime_plan *plan,
                                const char *record_file, oci_error_t *err)
{
  const struct runtime_options *options = &plan->options;
  struct slice_plan *slice = &plan->slice;
  struct run_record record = {
      .name = (char *)options->id, .cgroup_path = slice->path, .run_dir = plan->run_dir};

  res->created_in_store[0] = record_file;
  res->created_in_store[1] = options->id;
  res->created_cgroup = slice->path;
  if (run_state_write(res->state, &record, err) < 0)
    return -1;
  res->record_written = true;
  if (options->root.overlay) {
    res->run_dir_created =
        writable_layer_create(&res->layer, res->state, options->id, &options->root,
                              options->rootless, &plan->launch.plan, err) == 0;
    if (!res->run_dir_created)
      return -2;
    if (options->config_json != NULL &&
        run_state_write_config(res->state, options->id, options->config_json, err) < 0)
      return -2;
    for (size_t i = 0; i < options->n_run_dir_files; i++) {
      if (run_state_write_file(res->state, options->id, options->run_dir_files[i].path, 0644,
                               options->run_dir_files[i].content, err) < 0)
        return -2;
    }
  }
  if (slice->path != NULL) {
    if (slice_create(slice, options->rootless, &res->slice, err) < 0)
      return -2;
    res->slice_created = true;
  }
  return 0;
}

int runtime_run(struct runtime_plan *plan, const struct run_io *io, struct run_result *result,
                oci_error_t *err)
{
  const struct runtime_options *options = &plan->options;
  const struct spec *spec = plan->launch.spec;
  struct launch *launch = &plan->launch;
  struct run_resources res = {
      .root = options->state_root,
      .state = options->state,
      .name = options->id,
      .layer = {.mountpoint_fd = -1, .upper_fd = -1, .walker = -1, .walker_fd = -1},
      .slice = {.dir_fd = -1},
      .pasta = &plan->launch.pasta};
  cleanup_free char *record_file = NULL;
  cleanup_close int terminal_socket = -1;
  struct supervise_signals signals = SUPERVISE_SIGNALS_NONE;
  bool relay_open = false;
  bool terminal = spec->has_process && spec->process.terminal;
  struct stdio_relay relay;
  struct exec_recorder recorder = {.io = io, .state = options->state, .name = options->id};
  struct run_io joinable_io = *io;
  int ret = -1, made;

  *result = (struct run_result){.exit_code = EXIT_RUNTIME_ERROR};
  if (plan->mode != RUNTIME_PLAN_RUN)
    return oci_error_set(err, EINVAL, "run: the plan was not made for ocirun run");
  if (asprintf(&record_file, "%s.json", options->id) < 0) {
    record_file = NULL;
    return oci_error_errno(err, "run: allocate");
  }

  /* from the first thing created until the last removed */
  if (supervise_signals_take(&signals, terminal, "run", err) < 0)
    goto out;
  if ((terminal ? stdio_relay_open_terminal : stdio_relay_open)(
          &relay, (const int[3]){io->stdin_fd, io->stdout_fd, io->stderr_fd}, err) < 0) {
    stdio_relay_clear(&relay, err);
    goto out;
  }
  relay_open = true;
  if (terminal) {
    int pair[2];

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) < 0) {
      oci_error_errno(err, "run: socketpair for the terminal");
      goto out;
    }
    terminal_socket = pair[0];
    launch->console_fd = pair[1];
  }

  made = run_resources_create(&res, plan, record_file, err);
  if (made == -1)
    goto out;
  if (made < 0)
    goto teardown;
  oci_emit(options->events, OCI_EVENT_PHASE, "slice", options->id, NULL);
  /* pid 1 in the record, once it has exec'd: what `ocirun exec NAME`
   * joins (with the config.json above), and what `ocirun sweep` kills
   * when this runner is gone. */
  joinable_io.on_exec = record_started;
  joinable_io.context = &recorder;
  ret =
      start_and_wait(launch, &res, &joinable_io, &relay, terminal_socket, signals.fd, result, err);
  oci_emit(options->events, OCI_EVENT_PHASE, "exited", options->id, NULL);
  if (recorder.err != NULL) {
    oci_error_wrap(&recorder.err, "run: record the started process for exec");
    if (*err == NULL)
      *err = recorder.err;
    else
      oci_error_free(&recorder.err);
    ret = -1;
  }

teardown:
  result->teardown_verified = teardown(&res, err);
  oci_emit(options->events, OCI_EVENT_PHASE, "teardown", options->id, NULL);
  if (!result->teardown_verified)
    ret = -1;
out:
  if (relay_open && stdio_relay_clear(&relay, err) < 0)
    ret = -1;
  if (supervise_signals_restore(&signals, "run", err) < 0)
    ret = -1;
  return ret;
}
