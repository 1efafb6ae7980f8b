/* Unit tests of the OCI container state (src/container/record.c), the
 * hook runner (src/runtime/hooks.c) and `ocirun spec`'s document: ids,
 * signal names, the record's round trip, the status read live (a reused
 * pid is stopped and never signalled), the spec's state JSON, and hooks'
 * stdin, exit status, timeout and failure semantics. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "oci/cleanup.h"
#include "oci/remove_tree.h"
#include "container/container.h"
#include "container/lifecycle.h"
#include "container/record.h"
#include "runtime/hooks.h"
#include "runtime/capabilities.h"
#include "runtime/process_stat.h"
#include "runtime/seccomp/rules.h"
#include "runtime/spec/spec.h"
#include "runtime/state/root.h"
#include "unit.h"

static void test_ids(void)
{
  /* the one rule of every name under $ROOT (state/root.h): a letter or a
   * digit first, so never ".", "..", nor one of ocirun's own dot files */
  static const char *const good[] = {"a", "my-container_1.2", "ABC", "0.a", "9-x", NULL};
  static const char *const bad[] = {"",  ".",   "..",  "a/b", "a b", "a:b",
                                    "é", "a\n", "..a", ".x",  "_x",  NULL};
  char long_id[STATE_NAME_MAX + 2];

  for (size_t i = 0; good[i] != NULL; i++)
    ok(container_id_valid(good[i]), "id '%s' is valid", good[i]);
  for (size_t i = 0; bad[i] != NULL; i++)
    ok(!container_id_valid(bad[i]), "bad id %zu (\"%.*s\"...) is refused", i, 1, bad[i]);
  memset(long_id, 'a', STATE_NAME_MAX + 1);
  long_id[STATE_NAME_MAX + 1] = '\0';
  ok(!container_id_valid(long_id), "an id one byte past STATE_NAME_MAX is refused");
  long_id[STATE_NAME_MAX] = '\0';
  ok(container_id_valid(long_id), "an id of STATE_NAME_MAX bytes is valid");
}

static void test_signals(void)
{
  is_int(container_signal_from_name("TERM"), SIGTERM, "TERM");
  is_int(container_signal_from_name("SIGKILL"), SIGKILL, "SIGKILL");
  is_int(container_signal_from_name("sigusr1"), SIGUSR1, "sigusr1 (any case)");
  is_int(container_signal_from_name("9"), 9, "9");
  is_int(container_signal_from_name("RTMIN+2"), SIGRTMIN + 2, "RTMIN+2");
  is_int(container_signal_from_name("SIGRTMAX-1"), SIGRTMAX - 1, "SIGRTMAX-1");
  is_int(container_signal_from_name("FOO"), -1, "FOO is unknown");
  is_int(container_signal_from_name("0"), -1, "0 is refused");
  is_int(container_signal_from_name("65"), -1, "65 is out of range");
  is_int(container_signal_from_name("9x"), -1, "9x is refused");
  is_int(container_signal_from_name("SIG"), -1, "SIG alone is refused");
}

static void fill(struct container *c, const char *id, pid_t pid)
{
  static struct spec_key_value annotations[] = {{"org.example.key", "value"}};
  static char *args[] = {"hook", "--flag", NULL};
  static struct spec_hook poststop[] = {{"/bin/true", args, NULL, 5}};

  memset(c, 0, sizeof(*c));
  c->id = (char *)id;
  c->oci_version = "1.2.0";
  c->bundle = "/tmp/bundle";
  c->pid = pid;
  c->created = "2026-01-01T00:00:00.000000000Z";
  c->annotations = annotations;
  c->n_annotations = 1;
  c->poststop = poststop;
  c->n_poststop = 1;
}

static void test_record(const char *root)
{
  struct container_handle handle, other;
  struct container saved, loaded;
  cleanup_free char *json = NULL;
  oci_error_t err = NULL;
  pid_t child;
  int status;

  ok(container_new(root, "one", &handle, &err) == 0, "container_new one");
  oci_error_free(&err);
  ok(container_new(root, "one", &other, &err) < 0 && err != NULL && err->errno_value == EEXIST,
     "a second create of the same id fails with EEXIST");
  oci_error_free(&err);
  ok(container_open_unlocked(root, "two", &other, &err) < 0 && err != NULL &&
         err->errno_value == ENOENT && strstr(err->message, "'two' does not exist") != NULL,
     "a missing id: ENOENT, 'does not exist'");
  oci_error_free(&err);
  ok(container_open_unlocked(root, "../x", &other, &err) < 0 && err != NULL &&
         strstr(err->message, "invalid container id") != NULL,
     "an invalid id is refused before any path is built");
  oci_error_free(&err);

  fill(&saved, "one", getpid());
  process_start_time(getpid(), &saved.pid_start_time, &err);
  ok(container_save(&handle, &saved, &err) == 0, "save the record");
  oci_error_free(&err);
  ok(container_load(&handle, &loaded, &err) == 0, "load it back");
  oci_error_free(&err);
  is_str(loaded.id, "one", "id round trip");
  is_str(loaded.bundle, "/tmp/bundle", "bundle round trip");
  is_int(loaded.pid, getpid(), "pid round trip");
  ok(loaded.pid_start_time == saved.pid_start_time && loaded.pid_start_time > 0,
     "pid start time round trip");
  ok(loaded.n_annotations == 1 && strcmp(loaded.annotations[0].value, "value") == 0,
     "annotations round trip");
  ok(loaded.n_poststop == 1 && strcmp(loaded.poststop[0].path, "/bin/true") == 0 &&
         strcmp(loaded.poststop[0].args[1], "--flag") == 0 && loaded.poststop[0].timeout == 5,
     "poststop hooks round trip");
  ok(loaded.cgroup_path == NULL, "no cgroup recorded: none loaded");

  /* Status read live. */
  is_str(container_status_name(container_status(&handle, &loaded)), "running",
         "a live process without the exec FIFO is running");
  ok(container_exec_fifo_create(&handle, &err) == 0, "mkfifo exec.fifo");
  oci_error_free(&err);
  is_str(container_status_name(container_status(&handle, &loaded)), "created",
         "with the exec FIFO it is created");
  json = container_state_json(&loaded, CONTAINER_CREATED, false, &err);
  {
    cleanup_cjson cJSON *state = cJSON_Parse(json);
    const cJSON *pid = cJSON_GetObjectItemCaseSensitive(state, "pid");
    ok(state != NULL && cJSON_IsNumber(pid) && pid->valueint == getpid() &&
           strcmp(cJSON_GetObjectItemCaseSensitive(state, "status")->valuestring, "created") == 0 &&
           strcmp(cJSON_GetObjectItemCaseSensitive(state, "ociVersion")->valuestring, "1.2.0") ==
               0 &&
           cJSON_GetObjectItemCaseSensitive(state, "pidStartTime") == NULL,
       "state JSON: the spec's fields (pid while created), no private ones: %s", json);
  }
  free(json);
  json = container_state_json(&loaded, CONTAINER_STOPPED, false, &err);
  ok(json != NULL && strstr(json, "\"pid\"") == NULL, "state JSON: no pid once stopped");
  free(json);
  {
    struct spec spec = {.oci_version = "1.1.0",
                        .annotations = loaded.annotations,
                        .n_annotations = loaded.n_annotations};
    json = container_state_json_for_spec(&spec, "one", "/b", 42, CONTAINER_CREATING, &err);
    is_str(json,
           "{\"ociVersion\":\"1.1.0\",\"id\":\"one\",\"status\":\"creating\",\"pid\":42,"
           "\"bundle\":\"/b\",\"annotations\":{\"org.example.key\":\"value\"}}",
           "state JSON for a create's hooks: creating, with the pid");
  }

  /* A reused pid: same number, another start time. */
  loaded.pid_start_time++;
  is_str(container_status_name(container_status(&handle, &loaded)), "stopped",
         "another start time: stopped");
  ok(container_signal(&loaded, 0, &err) < 0 && err != NULL && err->errno_value == ESRCH,
     "another start time: never signalled (ESRCH)");
  oci_error_free(&err);
  loaded.pid_start_time--;

  /* A process that exited and was reaped. */
  child = fork();
  if (child == 0)
    _exit(0);
  {
    unsigned long long start = 0;
    struct container dead = loaded;
    process_start_time(child, &start, &err);
    oci_error_free(&err);
    waitpid(child, &status, 0);
    dead.pid = child;
    dead.pid_start_time = start;
    is_str(container_status_name(container_status(&handle, &dead)), "stopped",
           "an exited process: stopped");
  }

  ok(container_remove(&handle, &err) == 0, "remove the container");
  oci_error_free(&err);
  container_close(&handle);
  ok(container_open(root, "one", &handle, &err) < 0 && err != NULL && err->errno_value == ENOENT,
     "once removed it does not exist");
  oci_error_free(&err);
  container_clear(&loaded);
}

/* ---- hooks ---- */

struct captured {
  char lines[8][512];
  bool warning[8];
  int n;
};

/* The hooks' events as the command line prints them: a line as
 * "hook WHAT: LINE", a warning as its message. */
static void capture(void *context, const struct oci_event *event)
{
  struct captured *c = context;
  bool warning = event->kind == OCI_EVENT_WARNING;
  if (c->n < 8 && (warning || event->kind == OCI_EVENT_HOOK_LINE)) {
    if (warning)
      snprintf(c->lines[c->n], sizeof(c->lines[0]), "%s", event->detail);
    else
      snprintf(c->lines[c->n], sizeof(c->lines[0]), "hook %s: %s", event->subject, event->detail);
    c->warning[c->n++] = warning;
  }
}

static struct spec_hook sh_hook(char **args, int timeout)
{
  return (struct spec_hook){.path = "/bin/sh", .args = args, .env = NULL, .timeout = timeout};
}

static void test_hooks(const char *dir)
{
  char out_file[512], script[1024], content[256] = "";
  char *cat_args[] = {"sh", "-c", script, NULL};
  char *fail_args[] = {"sh", "-c", "echo about to fail; exit 3", NULL};
  char *sleep_args[] = {"sh", "-c", "sleep 5", NULL};
  char *env_args[] = {"sh", "-c", "echo \"X=$X\"", NULL};
  char *env[] = {"X=from-the-hook-env", NULL};
  struct captured captured = {0};
  struct oci_event_sink log = {.emit = capture, .context = &captured};
  struct spec_hook hook;
  oci_error_t err = NULL;
  struct timespec t0, t1;
  FILE *f;

  snprintf(out_file, sizeof(out_file), "%s/hook-stdin", dir);
  snprintf(script, sizeof(script), "cat > '%s'", out_file);
  hook = sh_hook(cat_args, 0);
  ok(hook_run(&hook, "test[0]", "{\"id\":\"x\"}", &log, &err) == 0, "a hook that exits 0");
  oci_error_free(&err);
  f = fopen(out_file, "r");
  if (f != NULL) {
    if (fgets(content, sizeof(content), f) == NULL)
      content[0] = '\0';
    fclose(f);
  }
  is_str(content, "{\"id\":\"x\"}", "the hook read the state on its stdin");

  hook = sh_hook(fail_args, 0);
  ok(hook_run(&hook, "prestart[0]", "{}", &log, &err) < 0 && err != NULL &&
         strstr(err->message, "exited with status 3") != NULL &&
         strstr(err->message, "prestart[0]") != NULL,
     "a failing hook: its status and name in the error");
  oci_error_free(&err);
  ok(captured.n >= 1 && strstr(captured.lines[captured.n - 1], "about to fail") != NULL &&
         !captured.warning[captured.n - 1],
     "its output reached the log, line by line");

  hook = (struct spec_hook){.path = "/bin/sh", .args = env_args, .env = env};
  captured.n = 0;
  ok(hook_run(&hook, "env", "{}", &log, &err) == 0 && captured.n == 1 &&
         strstr(captured.lines[0], "X=from-the-hook-env") != NULL,
     "the hook's env is the one given");
  oci_error_free(&err);

  hook = sh_hook(sleep_args, 1);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  ok(hook_run(&hook, "slow", "{}", &log, &err) < 0 && err != NULL && err->errno_value == ETIMEDOUT,
     "a hook past its timeout is killed and fails");
  oci_error_free(&err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  ok(t1.tv_sec - t0.tv_sec < 4, "killed at its timeout (1 s), not at its end (5 s)");

  {
    /* A child the hook started, in its process group, dies at the
     * timeout with it; the background sleep's pid is its output. */
    char *group_args[] = {"sh", "-c", "sleep 30 & echo $!; exec sleep 30", NULL};
    pid_t child = 0;
    hook = sh_hook(group_args, 1);
    captured.n = 0;
    ok(hook_run(&hook, "group", "{}", &log, &err) < 0 && err != NULL &&
           err->errno_value == ETIMEDOUT && captured.n == 1 &&
           strrchr(captured.lines[0], ' ') != NULL &&
           (child = (pid_t)atoi(strrchr(captured.lines[0], ' ') + 1)) > 0,
       "a hook that started a child, past its timeout: killed");
    oci_error_free(&err);
    for (int i = 0; i < 50 && child > 0 && kill(child, 0) == 0; i++)
      usleep(100000);
    ok(child > 0 && kill(child, 0) < 0 && errno == ESRCH,
       "... and its child with it (its process group), none left behind");
  }
  {
    /* A descriptor the caller left open without close-on-exec: */
    char *fd_args[] = {"sh", "-c", "[ -e /proc/self/fd/9 ] && echo leaked || echo closed", NULL};
    int fd = open("/dev/null", O_RDONLY);
    hook = sh_hook(fd_args, 0);
    captured.n = 0;
    ok(fd >= 0 && dup2(fd, 9) == 9 && hook_run(&hook, "fds", "{}", &log, &err) == 0 &&
           captured.n == 1 && strcmp(captured.lines[0], "hook fds: closed") == 0,
       "a descriptor of the caller's (9, not close-on-exec) does not reach the hook");
    oci_error_free(&err);
    if (fd >= 0)
      close(fd);
    close(9);
  }
  hook = (struct spec_hook){.path = "/no/such/program"};
  ok(hook_run(&hook, "missing", "{}", &log, &err) < 0 && err != NULL &&
         strstr(err->message, "hook missing: exec '/no/such/program': No such file") != NULL,
     "a program that cannot be exec'd: said so, not as status 127");
  oci_error_free(&err);

  hook = (struct spec_hook){.path = "relative/hook"};
  ok(hook_run(&hook, "rel", "{}", &log, &err) < 0, "a relative hook path is refused");
  oci_error_free(&err);

  ok(hooks_failure_aborts(SPEC_HOOK_PRESTART) && hooks_failure_aborts(SPEC_HOOK_CREATE_RUNTIME) &&
         hooks_failure_aborts(SPEC_HOOK_CREATE_CONTAINER) &&
         hooks_failure_aborts(SPEC_HOOK_START_CONTAINER),
     "prestart, createRuntime, createContainer, startContainer failures abort");
  ok(!hooks_failure_aborts(SPEC_HOOK_POSTSTART) && !hooks_failure_aborts(SPEC_HOOK_POSTSTOP),
     "poststart and poststop failures only warn");
  {
    struct spec_hook list[2] = {sh_hook(fail_args, 0), sh_hook(cat_args, 0)};
    unlink(out_file);
    captured.n = 0;
    ok(hooks_run(list, 2, SPEC_HOOK_POSTSTOP, "poststop", "{\"after\":1}", &log, &err) == 0,
       "poststop: a failure does not fail the list");
    ok(access(out_file, F_OK) == 0, "poststop: the hook after the failed one still ran");
    ok(captured.n >= 2 && captured.warning[captured.n - 1] &&
           strstr(captured.lines[captured.n - 1], "poststop[0]") != NULL,
       "poststop: the failure was logged as a warning");
    unlink(out_file);
    ok(hooks_run(list, 2, SPEC_HOOK_CREATE_RUNTIME, "createRuntime", "{}", &log, &err) < 0 &&
           err != NULL && strstr(err->message, "createRuntime[0]") != NULL,
       "createRuntime: the first failure fails the list");
    oci_error_free(&err);
    ok(access(out_file, F_OK) < 0, "createRuntime: the hooks after it did not run");
  }
}

/* ---- `ocirun spec` ---- */

static const cJSON *at(const cJSON *json, const char *key)
{
  return cJSON_GetObjectItemCaseSensitive(json, key);
}

static bool has_namespace(const cJSON *config, const char *type)
{
  const cJSON *ns;
  cJSON_ArrayForEach(ns, at(at(config, "linux"), "namespaces"))
  {
    if (strcmp(at(ns, "type")->valuestring, type) == 0)
      return true;
  }
  return false;
}

static void test_default_config(void)
{
  cleanup_cjson cJSON *config = container_default_config(false, 0, 0);
  cleanup_cjson cJSON *rootless = container_default_config(true, 1000, 1001);
  const cJSON *mapping;

  ok(config != NULL && rootless != NULL, "both default configurations build");
  is_str(at(config, "ociVersion")->valuestring, SPEC_OCI_VERSION, "ociVersion");
  ok(cJSON_IsFalse(at(at(config, "process"), "terminal")), "terminal false: create runs it as is");
  is_str(at(at(config, "root"), "path")->valuestring, "rootfs", "root.path rootfs");
  ok(has_namespace(config, "network") && !has_namespace(config, "user"),
     "root: a network namespace, no user namespace");
  ok(!has_namespace(rootless, "network") && has_namespace(rootless, "user"),
     "rootless: a user namespace, the host's network");
  mapping = cJSON_GetArrayItem(at(at(rootless, "linux"), "uidMappings"), 0);
  ok(mapping != NULL && at(mapping, "hostID")->valueint == 1000 &&
         at(mapping, "containerID")->valueint == 0 && at(mapping, "size")->valueint == 1,
     "rootless: the caller's uid is 0 inside");
  mapping = cJSON_GetArrayItem(at(at(rootless, "linux"), "gidMappings"), 0);
  ok(mapping != NULL && at(mapping, "hostID")->valueint == 1001, "rootless: the caller's gid");
  ok(at(at(rootless, "linux"), "resources") == NULL,
     "rootless: no device rules (no device program without privilege)");
  for (int i = 0; i < 2; i++) {
    struct spec spec;
    oci_error_t err = NULL;
    int ret = spec_parse(i ? rootless : config, &spec, &err);
    ok(ret == 0, "%s: ocirun's own parser accepts it", i ? "rootless" : "root");
    if (err != NULL)
      printf("#   %s\n", err->message);
    oci_error_free(&err);
    spec_clear(&spec);
  }
}

/* ---- `ocirun features` ---- */

/* Parses a minimal configuration with `fragment` merged in at the top. */
static int parse_with(const char *fragment)
{
  char text[1024];
  cleanup_cjson cJSON *config = NULL;
  struct spec spec;
  oci_error_t err = NULL;
  int ret;

  snprintf(text, sizeof(text), "{\"ociVersion\":\"1.2.0\",\"root\":{\"path\":\"rootfs\"},%s}",
           fragment);
  config = cJSON_Parse(text);
  ret = config != NULL ? spec_parse(config, &spec, &err) : -1;
  oci_error_free(&err);
  if (ret == 0)
    spec_clear(&spec);
  return ret;
}

static bool in_list(const cJSON *array, const char *value)
{
  const cJSON *item;
  cJSON_ArrayForEach(item, array)
  {
    if (cJSON_IsString(item) && strcmp(item->valuestring, value) == 0)
      return true;
  }
  return false;
}

static void test_features(void)
{
  cleanup_cjson cJSON *features = container_features();
  const cJSON *linux_object = at(features, "linux"), *item;
  bool all;
  char fragment[512];
  uint32_t action;

  ok(features != NULL, "features: the document builds");
  is_str(at(features, "ociVersionMax")->valuestring, SPEC_OCI_VERSION, "ociVersionMax");
  is_str(at(features, "ociVersionMin")->valuestring, "1.0.0", "ociVersionMin");
  is_int(parse_with("\"x\":0") == 0 ? 1 : 0, 1, "the parser takes a minimal configuration");
  all = true;
  for (int kind = 0; kind < SPEC_HOOK_KIND_COUNT; kind++)
    all = all && in_list(at(features, "hooks"), spec_hook_kind_name((enum spec_hook_kind)kind)) ==
                     container_hook_kind_supported((enum spec_hook_kind)kind);
  ok(all && cJSON_GetArraySize(at(features, "hooks")) == SPEC_HOOK_KIND_COUNT,
     "hooks: every kind of the spec, which ocirun runs");
  all = true;
  cJSON_ArrayForEach(item, at(features, "mountOptions"))
  {
    snprintf(fragment, sizeof(fragment),
             "\"mounts\":[{\"destination\":\"/x\",\"type\":\"tmpfs\",\"source\":"
             "\"tmpfs\",\"options\":[\"%s\"]}]",
             item->valuestring);
    if (parse_with(fragment) < 0) {
      printf("#   mount option '%s' listed but refused\n", item->valuestring);
      all = false;
    }
  }
  ok(all && cJSON_GetArraySize(at(features, "mountOptions")) > 40,
     "every listed mount option is accepted by the parser");
  ok(in_list(at(features, "mountOptions"), "rbind") &&
         in_list(at(features, "mountOptions"), "idmap") &&
         in_list(at(features, "mountOptions"), "ridmap"),
     "rbind, idmap and ridmap are listed (idmapped binds: mount/idmap.c)");
  ok(parse_with("\"mounts\":[{\"destination\":\"/"
                "x\",\"type\":\"bind\",\"source\":\"/tmp\",\"options\":[\"rbind\",\"idmap\"]}]") ==
         0,
     "... and the parser takes idmap on a bind (the mount plan refuses it elsewhere: "
     "tests/unit/mount_plan.c)");
  all = true;
  cJSON_ArrayForEach(item, at(linux_object, "namespaces"))
  {
    snprintf(fragment, sizeof(fragment), "\"linux\":{\"namespaces\":[{\"type\":\"%s\"}]}",
             item->valuestring);
    all = all && parse_with(fragment) == 0;
  }
  ok(all && cJSON_GetArraySize(at(linux_object, "namespaces")) == SPEC_NS_COUNT,
     "every listed namespace is accepted by the parser");
  all = true;
  cJSON_ArrayForEach(item, at(linux_object, "capabilities"))
  {
    all = all && capability_from_name(item->valuestring) >= 0;
  }
  ok(all && in_list(at(linux_object, "capabilities"), "CAP_SYS_ADMIN"),
     "every listed capability is known, CAP_SYS_ADMIN among them");
  all = true;
  cJSON_ArrayForEach(item, at(at(linux_object, "seccomp"), "actions"))
  {
    all = all && seccomp_action_from_name(item->valuestring, &action) == 0;
  }
  ok(all && in_list(at(at(linux_object, "seccomp"), "actions"), "SCMP_ACT_NOTIFY"),
     "every listed seccomp action is accepted, SCMP_ACT_NOTIFY (with listenerPath) among them");
  ok(in_list(at(at(linux_object, "seccomp"), "operators"), "SCMP_CMP_MASKED_EQ") &&
         in_list(at(at(linux_object, "seccomp"), "archs"), "SCMP_ARCH_X86_64"),
     "seccomp operators and archs");
  ok(cJSON_IsTrue(at(at(linux_object, "cgroup"), "v2")) &&
         cJSON_IsFalse(at(at(linux_object, "cgroup"), "v1")) &&
         cJSON_IsFalse(at(at(linux_object, "cgroup"), "systemd")),
     "cgroup: v2 only, no systemd");
  ok(cJSON_IsFalse(at(at(linux_object, "apparmor"), "enabled")) &&
         cJSON_IsFalse(at(at(linux_object, "selinux"), "enabled")),
     "apparmor and selinux: not enabled");
}

int main(void)
{
  char root[] = "/tmp/ocirun-unit-container.XXXXXX";
  oci_error_t err = NULL;

  if (mkdtemp(root) == NULL) {
    perror("mkdtemp");
    return 1;
  }
  test_ids();
  test_signals();
  test_record(root);
  test_hooks(root);
  test_default_config();
  test_features();
  {
    int parent = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    remove_tree_at(parent, root + strlen("/tmp/"), &err);
    oci_error_free(&err);
    close(parent);
  }
  return unit_done();
}
