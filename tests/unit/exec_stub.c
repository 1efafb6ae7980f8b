/* Unit tests of the exec stub (src/runtime/exec_stub.c and exec_stub/stub.c):
 * what is refused before anything is exec'd, the report the stub writes when
 * the exec proper fails, the fds the command gets, and that a
 * "#!/proc/self/exe" interpreter is the sealed stub. Each case runs in a
 * forked child, as the container's child would. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/close_range.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/exec_stub.h"
#include "runtime/exec_stub/protocol.h"
#include "unit.h"

#define RETURNED 200 /* exit code base: exec_stub_exec returned with errno */

extern char **environ;

static char dir[] = "/tmp/exec-stub-unit.XXXXXX";

struct outcome {
  int status;
  bool reported;
  struct exec_stub_report report;
  char out[512];
};

static const char *in_dir(const char *name)
{
  static char path[PATH_MAX];

  snprintf(path, sizeof(path), "%s/%s", dir, name);
  return path;
}

static void write_file(const char *name, const char *text, mode_t mode)
{
  int fd = open(in_dir(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) < 0 ||
      chmod(in_dir(name), mode) < 0) {
    perror(name);
    exit(99);
  }
}

static size_t read_all(int fd, void *buffer, size_t size)
{
  size_t got = 0;
  ssize_t n;

  while (got < size && (n = read(fd, (char *)buffer + got, size - got)) > 0)
    got += (size_t)n;
  return got;
}

/* Execs path (argv) through the stub in a child, prepared or not. */
static struct outcome run(const char *path, char **argv, bool prepare)
{
  struct outcome o = {.status = -1};
  int report[2], out[2];
  pid_t pid;

  if (pipe2(report, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
    exit(99);
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    oci_error_t err = NULL;
    int fd;

    /* as in the container's child: nothing inherited but 0-2 */
    if (dup2(out[1], 1) < 0 || dup2(out[1], 2) < 0 || close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
      _exit(98);
    if (prepare && exec_stub_prepare(&err) < 0)
      _exit(97);
    fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
      _exit(96);
    exec_stub_exec(fd, path, report[1], argv, environ);
    _exit(RETURNED + errno);
  }
  close(report[1]);
  close(out[1]);
  o.reported = read_all(report[0], &o.report, sizeof(o.report)) == sizeof(o.report);
  o.out[read_all(out[0], o.out, sizeof(o.out) - 1)] = '\0';
  close(report[0]);
  close(out[0]);
  if (waitpid(pid, &o.status, 0) == pid && WIFEXITED(o.status))
    o.status = WEXITSTATUS(o.status);
  return o;
}

/* In a prepared child: 0 when it is non-dumpable and holds the stub in a
 * memfd with every write seal. */
static int prepared_state(void)
{
  pid_t pid = fork();
  int status;

  if (pid == 0) {
    oci_error_t err = NULL;
    int sealed = 0;

    if (exec_stub_prepare(&err) < 0)
      _exit(97);
    /* (non-dumpable is the clean state's step, tests/unit/clean_state.c) */
    for (int fd = 3; fd < 64; fd++) {
      char link[64], target[128];
      ssize_t n;
      int seals = fcntl(fd, F_GET_SEALS);

      snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
      n = readlink(link, target, sizeof(target) - 1);
      if (n <= 0)
        continue;
      target[n] = '\0';
      if (strncmp(target, "/memfd:ocirun-exec-stub", 23) == 0 && seals >= 0 &&
          (seals & (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)) ==
              (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) &&
          (fcntl(fd, F_GETFD) & FD_CLOEXEC))
        sealed = 1;
    }
    _exit(sealed ? 0 : 2);
  }
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
  struct outcome o;
  char message[PATH_MAX + 16];

  if (mkdtemp(dir) == NULL)
    return 99;
  write_file("script", "#!/bin/sh\necho ran \"$0\" \"$1\"\n", 0755);
  write_file("data", "not a program\n", 0644);
  write_file("garbage", "not a program either\n", 0755);
  write_file("lost", "#!/nonexistent/interpreter\n", 0755);
  write_file("self", "#!/proc/self/exe\n", 0755);

  /* fail closed */
  o = run("/bin/true", (char *[]){"true", NULL}, false);
  is_int(o.status, RETURNED + EBADF, "not prepared: nothing is exec'd (EBADF)");

  is_int(prepared_state(), 0, "prepared: the stub in a sealed close-on-exec memfd");

  o = run("/bin/echo", (char *[]){"echo", "hello", NULL}, true);
  ok(o.status == 0 && !o.reported && strcmp(o.out, "hello\n") == 0,
     "an ELF command runs with its argv, no report (status %d, out '%s')", o.status, o.out);
  o = run("/bin/ls", (char *[]){"ls", "/proc/self/fd", NULL}, true);
  is_str(o.out, "0\n1\n2\n3\n",
         "the command holds 0-2 only (3 is ls's own directory): no O_PATH fd, no report pipe");
  o = run(in_dir("script"), (char *[]){"script", "arg", NULL}, true);
  snprintf(message, sizeof(message), "ran %s arg\n", in_dir("script"));
  ok(o.status == 0 && strcmp(o.out, message) == 0,
     "a script runs by its path, with its argument (out '%s')", o.out);

  /* refused before any exec: a PATH search can go on */
  o = run(in_dir("data"), (char *[]){"data", NULL}, true);
  is_int(o.status, RETURNED + EACCES, "a file without an x bit: EACCES, nothing exec'd");
  o = run(dir, (char *[]){"dir", NULL}, true);
  is_int(o.status, RETURNED + EACCES, "a directory: EACCES, nothing exec'd");

  /* the exec proper fails: the stub reports, in the child report's layout */
  o = run(in_dir("garbage"), (char *[]){"garbage", NULL}, true);
  ok(o.reported && o.report.kind == EXEC_STUB_REPORT_EXEC_FAILED &&
         o.report.errno_value == ENOEXEC && o.status == 126,
     "an executable that is no program: ENOEXEC reported, 126");
  is_str(o.report.message, "exec 'garbage': Exec format error", "its message");
  o = run(in_dir("lost"), (char *[]){"lost", NULL}, true);
  ok(o.reported && o.report.errno_value == ENOENT && o.status == 127,
     "a script whose interpreter is missing: ENOENT reported, 127");
  is_str(o.report.message, "exec 'lost': No such file or directory", "its message");

  /* the reason the stub exists */
  o = run(in_dir("self"), (char *[]){"self", NULL}, true);
  ok(o.status == 126 && !o.reported && strstr(o.out, "ocirun-exec-stub: not a program") != NULL,
     "a #!/proc/self/exe script's interpreter is the stub, which refuses (status %d, out '%s')",
     o.status, o.out);

  for (size_t i = 0; i < 5; i++)
    unlink(in_dir((const char *[]){"script", "data", "garbage", "lost", "self"}[i]));
  rmdir(dir);
  return unit_done();
}
