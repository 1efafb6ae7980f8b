/* pasta for the run's network namespace (see pasta.h). The namespaces are
 * opened here, from the host's /proc, and handed to pasta as descriptors
 * (/proc/self/fd/N of pasta's own): pasta gives up its privilege before it
 * opens a path, and could not open another process's namespace then.
 * pasta is started from the parent, never from the container: nothing of
 * it exists in the container's namespaces but its tap interface, and its
 * own descriptors are its own (the container was cloned before it). */
#include "config.h"

#include "runtime/pasta.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/clean_state.h"
#include "oci/cleanup.h"

/* pasta writes its pid file once the namespace is connected. */
#define PASTA_READY_MS 10000
#define PASTA_POLL_MS 10
#define PASTA_MAX_OPTIONS 64

/* In the forked child: nothing of ocirun's but the two namespace fds,
 * /dev/null for stdin and stdout, ocirun's stderr for pasta's messages,
 * an empty environment, and killed with ocirun (the parent-death signal
 * survives pasta's exec of itself; a runner killed outright leaves no
 * pasta behind). */
static _Noreturn void pasta_child(const char *program, char *const *argv, pid_t parent, int null_fd,
                                  int net_fd, int user_fd)
{
  static char *const empty[] = {NULL};
  const int keep[] = {net_fd, user_fd};
  struct clean_state state;
  oci_error_t err = NULL;

  clean_state_init(&state, CLEAN_ENTRY_HOOK, NULL, false);
  state.stdio[0] = state.stdio[1] = null_fd;
  state.keep = keep;
  state.n_keep = sizeof(keep) / sizeof(keep[0]);
  if (clean_state_apply(&state, &err) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 ||
      getppid() != parent || fcntl(net_fd, F_SETFD, 0) < 0 ||
      (user_fd >= 0 && fcntl(user_fd, F_SETFD, 0) < 0))
    _exit(126);
  execve(program, argv, empty);
  _exit(127);
}

static const char *find_pasta(void)
{
  static const char *const paths[] = PASTA_PATHS;

  for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
    if (access(paths[i], X_OK) == 0)
      return paths[i];
  }
  return NULL;
}

/* Whether pid_file holds pasta's pid: what pasta writes once ready. */
static bool pid_file_written(const char *pid_file, pid_t pid)
{
  cleanup_close int fd = open(pid_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  char text[24], *end;
  ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);

  if (n <= 0)
    return false;
  text[n] = '\0';
  return strtol(text, &end, 10) == pid && (*end == '\n' || *end == '\0');
}

/* Until pasta is ready, or has exited (reaped: its status is the
 * message), or PASTA_READY_MS have passed (then it is stopped). */
static int wait_ready(struct pasta *pasta, const char *pid_file, oci_error_t *err)
{
  siginfo_t info = {0};
  oci_error_t ignored = NULL;
  bool exited = false;

  for (int waited = 0; !exited && waited < PASTA_READY_MS; waited += PASTA_POLL_MS) {
    struct pollfd done = {.fd = pasta->pidfd, .events = POLLIN};

    if (pid_file_written(pid_file, pasta->pid))
      return 0;
    exited = poll(&done, 1, PASTA_POLL_MS) > 0;
  }
  if (!exited) {
    if (pasta_stop(pasta, &ignored) < 0)
      oci_error_free(&ignored);
    return oci_error_set(err, ETIMEDOUT, "network pasta: not ready within %d s",
                         PASTA_READY_MS / 1000);
  }
  while (waitid(P_PIDFD, (id_t)pasta->pidfd, &info, WEXITED) < 0 && errno == EINTR)
    ;
  close(pasta->pidfd);
  *pasta = PASTA_NONE;
  if (info.si_code == CLD_EXITED)
    return oci_error_set(err, 0, "network pasta: pasta exited %d before the namespace was ready%s",
                         info.si_status,
                         info.si_status == 127 ? " (it could not be executed)" : "");
  return oci_error_set(err, 0, "network pasta: pasta killed by signal %d", info.si_status);
}

int pasta_start(pid_t pid, bool user_ns, const char *const *port_options, const char *pid_file,
                struct pasta *pasta, oci_error_t *err)
{
  const char *program = find_pasta();
  cleanup_close int net_fd = -1, user_fd = -1, null_fd = -1;
  char net_path[64], user_path[64], net_link[64], user_link[64];
  const char *argv[PASTA_MAX_OPTIONS];
  size_t n = 0;
  pid_t parent, child;

  *pasta = PASTA_NONE;
  if (program == NULL)
    return oci_error_set(err, ENOENT,
                         "network pasta: no pasta at /usr/bin/pasta or /usr/local/bin/pasta "
                         "(Debian's passt package)");
  snprintf(net_path, sizeof(net_path), "/proc/%d/ns/net", (int)pid);
  snprintf(user_path, sizeof(user_path), "/proc/%d/ns/user", (int)pid);
  net_fd = open(net_path, O_RDONLY | O_CLOEXEC);
  if (net_fd < 0)
    return oci_error_errno(err, "network pasta: open %s", net_path);
  if (user_ns && (user_fd = open(user_path, O_RDONLY | O_CLOEXEC)) < 0)
    return oci_error_errno(err, "network pasta: open %s", user_path);
  null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd < 0)
    return oci_error_errno(err, "network pasta: open /dev/null");
  snprintf(net_link, sizeof(net_link), "/proc/self/fd/%d", net_fd);
  snprintf(user_link, sizeof(user_link), "/proc/self/fd/%d", user_fd);
  argv[n++] = program;
  argv[n++] = "--quiet";
  argv[n++] = "--foreground";
  argv[n++] = "--config-net";
  argv[n++] = "--netns";
  argv[n++] = net_link;
  if (user_ns) {
    argv[n++] = "--userns";
    argv[n++] = user_link;
  }
  if (geteuid() == 0) {
    argv[n++] = "--runas";
    argv[n++] = "0";
  }
  argv[n++] = "--pid";
  argv[n++] = pid_file;
  argv[n++] = "--no-map-gw";
  argv[n++] = "-T";
  argv[n++] = "none";
  argv[n++] = "-U";
  argv[n++] = "none";
  for (size_t i = 0; port_options != NULL && port_options[i] != NULL; i++) {
    if (n + 1 >= PASTA_MAX_OPTIONS)
      return oci_error_set(err, E2BIG, "network pasta: more than %d options",
                           PASTA_MAX_OPTIONS - 1);
    argv[n++] = port_options[i];
  }
  argv[n] = NULL;
  parent = getpid();
  child = fork();
  if (child < 0)
    return oci_error_errno(err, "network pasta: fork");
  if (child == 0)
    pasta_child(program, (char *const *)argv, parent, null_fd, net_fd, user_fd);
  /* an unreaped child of ocirun's: its pid cannot be reused */
  pasta->pidfd = pidfd_open(child, 0);
  if (pasta->pidfd < 0) {
    oci_error_errno(err, "network pasta: pidfd_open of pasta");
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return -1;
  }
  pasta->pid = child;
  return wait_ready(pasta, pid_file, err);
}

int pasta_stop(struct pasta *pasta, oci_error_t *err)
{
  siginfo_t info = {0};

  if (pasta->pidfd < 0)
    return 0;
  if (pidfd_send_signal(pasta->pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
    return oci_error_errno(err, "network pasta: kill pasta (pid %d)", (int)pasta->pid);
  while (waitid(P_PIDFD, (id_t)pasta->pidfd, &info, WEXITED) < 0) {
    if (errno != EINTR)
      return oci_error_errno(err, "network pasta: reap pasta (pid %d)", (int)pasta->pid);
  }
  /* checked by looking: a reaped process no longer takes a signal */
  if (pidfd_send_signal(pasta->pidfd, 0, NULL, 0) == 0 || errno != ESRCH)
    return oci_error_set(err, 0, "network pasta: pasta (pid %d) is still there", (int)pasta->pid);
  close(pasta->pidfd);
  *pasta = PASTA_NONE;
  return 0;
}
