/* Unit tests of the one reader, the one writer and the one cgroup.procs
 * parser of runtime/cgroup/ (files.c), of the pid list over a subtree walked
 * by fd and of cgroup_open_path's refusals, against plain files; then, as
 * root where a cgroup2 hierarchy is mounted below CGROUP_MOUNT (the hybrid
 * host's unified mount, the guest's root), the calls that act on a cgroup
 * by its fd in a real one with a nested child cgroup: list, freeze, the
 * kill fallback over the subtree, removal. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "runtime/cgroup/files.h"
#include "runtime/cgroup/slice.h"
#include "unit.h"

/* "1,2,3" for the parsed pids, or "ERROR: message" (then "+N" when the
 * refusal left the list with N pids: it must leave what it found). */
static const char *parsed(const char *content)
{
  static char text[1024];
  struct cgroup_pid_list list = {.pids = NULL};
  oci_error_t err = NULL;
  size_t used = 0;

  text[0] = '\0';
  if (cgroup_procs_parse(content, "cgroup.procs", &list, &err) < 0) {
    snprintf(text, sizeof(text), "ERROR: %s%s", err->message, list.n ? " +" : "");
    oci_error_free(&err);
  }
  for (size_t i = 0; i < list.n; i++)
    used +=
        (size_t)snprintf(text + used, sizeof(text) - used, "%s%d", i ? "," : "", (int)list.pids[i]);
  free(list.pids);
  return text;
}

static void test_procs_parse(void)
{
  static const char *const refused[] = {"1\n\n2\n", " 1\n",         "+1\n",
                                        "-1\n",     "0\n",          "1 2\n",
                                        "1\t\n",    "2147483648\n", "99999999999999999999\n",
                                        "1\nx\n",   "\n",           "1\r\n"};
  struct cgroup_pid_list list = {.pids = NULL};
  oci_error_t err = NULL;

  is_str(parsed(""), "", "procs: an empty listing has no pids");
  is_str(parsed("1\n"), "1", "procs: one pid");
  is_str(parsed("12\n345\n6789\n"), "12,345,6789", "procs: one pid a line, in order");
  is_str(parsed("7"), "7", "procs: the last newline may be missing");
  is_str(parsed("2147483647\n"), "2147483647", "procs: the largest pid_t");
  for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
    char shown[64];
    size_t used = 0;
    for (const char *c = refused[i]; *c != '\0' && used + 3 < sizeof(shown); c++)
      used += (size_t)snprintf(shown + used, sizeof(shown) - used, "%s",
                               *c == '\n'   ? "\\n"
                               : *c == '\t' ? "\\t"
                               : *c == '\r' ? "\\r"
                                            : (char[]){*c, '\0'});
    ok(strncmp(parsed(refused[i]), "ERROR: cgroup.procs: line ", 26) == 0,
       "procs: '%s' is refused, naming the file and the line", shown);
  }
  is_str(parsed("1\n2\nx\n"), "ERROR: cgroup.procs: line 3 is not a pid",
         "procs: the refusal names the line and appends nothing");
  /* Appends: two listings into one list. */
  ok(cgroup_procs_parse("1\n2\n", "a", &list, &err) == 0 &&
         cgroup_procs_parse("3\n", "b", &list, &err) == 0 && list.n == 3 && list.pids[2] == 3,
     "procs: a second listing is appended to the first");
  ok(cgroup_procs_parse("4\nbad\n", "c", &list, &err) < 0 && list.n == 3,
     "procs: a refused listing leaves what was there");
  oci_error_free(&err);
  free(list.pids);
}

static void test_small_parsers(void)
{
  const char *events = "populated 1\nfrozen 0\n";

  is_int(cgroup_flat_key_value(events, "populated"), 1, "flat keys: populated 1");
  is_int(cgroup_flat_key_value(events, "frozen"), 0, "flat keys: frozen 0");
  is_int(cgroup_flat_key_value(events, "froze"), -1, "flat keys: a prefix of a key is not it");
  is_int(cgroup_flat_key_value("oom 3\noom_kill 2\n", "oom_kill"), 2, "flat keys: oom_kill");
  is_int(cgroup_flat_key_value("", "oom_kill"), -1, "flat keys: absent is -1");
  ok(cgroup_list_has_word("cpuset cpu io memory\n", "cpu"), "controllers: cpu in the list");
  ok(cgroup_list_has_word("cpuset cpu io memory\n", "memory"), "controllers: the last word");
  ok(!cgroup_list_has_word("cpuset io memory\n", "cpu"), "controllers: cpuset is not cpu");
  ok(!cgroup_list_has_word("", "cpu"), "controllers: none in an empty list");
}

static void test_read_write(int dir_fd, const char *dir)
{
  char big[10001];
  cleanup_free char *text = NULL;
  oci_error_t err = NULL;

  memset(big, '7', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  unit_write_file(dir_fd, "cgroup.procs", big);
  ok(cgroup_file_read(dir_fd, dir, "cgroup.procs", &text, &err) == 0 && strcmp(text, big) == 0,
     "read: a file of 10000 bytes is read whole (no fixed buffer)");
  free(text);
  text = NULL;
  unit_write_file(dir_fd, "memory.max", "max\n");
  ok(cgroup_file_read(dir_fd, dir, "memory.max", &text, &err) == 0 && strcmp(text, "max\n") == 0,
     "read: the content as the file has it");
  ok(symlinkat("memory.max", dir_fd, "memory.link") == 0, "make a symlink");
  ok(cgroup_file_read(dir_fd, dir, "memory.link", &text, &err) < 0 && err->errno_value == ELOOP,
     "read: a symlink is not followed");
  oci_error_free(&err);
  ok(cgroup_file_read(dir_fd, dir, "nosuch.file", &text, &err) < 0 && err->errno_value == ENOENT &&
         strstr(err->message, "nosuch.file") != NULL && strstr(err->message, dir) != NULL,
     "read: an absent file is ENOENT, naming the directory and the file");
  oci_error_free(&err);

  is_int(cgroup_file_write(dir_fd, dir, "memory.max", "1048576", &err), 0, "write: one value");
  free(text);
  text = NULL;
  ok(cgroup_file_read(dir_fd, dir, "memory.max", &text, &err) == 0 &&
         strncmp(text, "1048576", 7) == 0,
     "write: the file has the value");
  ok(cgroup_file_write(dir_fd, dir, "memory.link", "5", &err) < 0 && err->errno_value == ELOOP,
     "write: a symlink is not followed");
  oci_error_free(&err);
  ok(cgroup_file_write(dir_fd, dir, "io.max", "8:0 rbps=1", &err) < 0 &&
         err->errno_value == ENOENT && strstr(err->message, "set io.max to '8:0 rbps=1'") &&
         strstr(err->message, dir) != NULL && strstr(err->message, "controller is not enabled"),
     "write: an absent file is ENOENT, naming the file, the value, the directory, the controller");
  oci_error_free(&err);
  ok(cgroup_file_write(dir_fd, dir, "cgroup.kill", "1", &err) < 0 &&
         strstr(err->message, "(this kernel does not have it)") != NULL,
     "write: an absent core file: this kernel does not have it");
  oci_error_free(&err);
  ok(cgroup_file_write(dir_fd, NULL, "io.max", "1", &err) < 0 &&
         strstr(err->message, "set io.max to '1': open") != NULL,
     "write: without a directory name the message names the file and the value");
  oci_error_free(&err);
  unlinkat(dir_fd, "memory.link", 0);
  unlinkat(dir_fd, "memory.max", 0);
}

/* A tree of plain files shaped like a cgroup: cgroup.procs at each level,
 * a child and a grandchild, a symlink to a directory outside, a file that
 * is no cgroup. The pids are never signalled: the list is only read. */
static void test_list_tree(int dir_fd, const char *dir)
{
  char outside[] = "/tmp/cgroup_files_outside.XXXXXX";
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  long long sum = 0;
  oci_error_t err = NULL;
  int inner, deeper;
  char many[16 * 2000 + 1];
  size_t used = 0;

  unit_write_file(dir_fd, "cgroup.procs", "11\n12\n");
  mkdirat(dir_fd, "inner", 0755);
  inner = openat(dir_fd, "inner", O_PATH | O_DIRECTORY | O_CLOEXEC);
  unit_write_file(inner, "cgroup.procs", "13\n");
  mkdirat(inner, "deeper", 0755);
  deeper = openat(inner, "deeper", O_PATH | O_DIRECTORY | O_CLOEXEC);
  unit_write_file(deeper, "cgroup.procs", "14\n");
  unit_write_file(dir_fd, "cgroup.events", "populated 1\n");
  if (mkdtemp(outside) != NULL) {
    int outside_fd = open(outside, O_PATH | O_DIRECTORY | O_CLOEXEC);
    unit_write_file(outside_fd, "cgroup.procs", "99\n");
    close(outside_fd);
    symlinkat(outside, dir_fd, "link");
  }
  if (ok(cgroup_list_pids(dir_fd, "label", &pids, &n, &err) == 0, "list: a tree of three levels"))
    for (size_t i = 0; i < n; i++)
      sum += pids[i];
  ok(n == 4 && sum == 11 + 12 + 13 + 14,
     "list: the pids of the cgroup, its child and its grandchild, not the symlink's (%zu)", n);
  free(pids);
  pids = NULL;
  oci_error_free(&err);

  /* The fd decides, never the path: the name given is only for messages. */
  ok(cgroup_list_pids(inner, dir, &pids, &n, &err) == 0 && n == 2,
     "list: from the child's fd, whatever path names it: its own two pids");
  free(pids);
  pids = NULL;

  /* More than the 4 KiB the old fallback read: every pid. */
  for (int i = 0; i < 2000; i++)
    used += (size_t)snprintf(many + used, sizeof(many) - used, "%d\n", 100000 + i);
  unit_write_file(deeper, "cgroup.procs", many);
  ok(cgroup_list_pids(dir_fd, "label", &pids, &n, &err) == 0 && n == 2003,
     "list: a cgroup.procs of %zu bytes is read whole (2000 pids and the 3 above it)", used);
  free(pids);
  pids = NULL;

  unit_write_file(deeper, "cgroup.procs", "14\nbogus\n");
  ok(cgroup_list_pids(dir_fd, "label", &pids, &n, &err) < 0 && n == 0 && pids == NULL &&
         strstr(err->message, "label/inner/deeper") != NULL &&
         strstr(err->message, "line 2 is not a pid") != NULL,
     "list: a listing that is not pids is an error naming the cgroup and the line");
  oci_error_free(&err);

  unlinkat(deeper, "cgroup.procs", 0);
  close(deeper);
  unlinkat(inner, "deeper", AT_REMOVEDIR);
  unlinkat(inner, "cgroup.procs", 0);
  close(inner);
  unlinkat(dir_fd, "inner", AT_REMOVEDIR);
  unlinkat(dir_fd, "link", 0);
  unlinkat(dir_fd, "cgroup.events", 0);
  unlinkat(dir_fd, "cgroup.procs", 0);
  if (outside[0] == '/') {
    char procs[sizeof(outside) + 16];
    snprintf(procs, sizeof(procs), "%s/cgroup.procs", outside);
    unlink(procs);
    rmdir(outside);
  }
}

static const char *open_error(const char *path)
{
  static char text[1024];
  oci_error_t err = NULL;
  int fd = cgroup_open_path(path, &err);

  if (fd >= 0) {
    close(fd);
    return "(opened)";
  }
  snprintf(text, sizeof(text), "%s", err->message);
  oci_error_free(&err);
  return text;
}

static void test_open_path(const char *scratch)
{
  static const char *const not_plain[] = {CGROUP_MOUNT "/a/../b", CGROUP_MOUNT "/a//b",
                                          CGROUP_MOUNT "/./a", CGROUP_MOUNT "/a/",
                                          CGROUP_MOUNT "/.."};

  ok(strstr(open_error(scratch), "is not under " CGROUP_MOUNT) != NULL,
     "open: a directory outside " CGROUP_MOUNT " is refused");
  ok(strstr(open_error(CGROUP_MOUNT), "is not under " CGROUP_MOUNT) != NULL,
     "open: the mount itself is not a cgroup of a container");
  ok(strstr(open_error(CGROUP_MOUNT "/"), "empty path") != NULL, "open: an empty name is refused");
  ok(strstr(open_error(NULL), "is not under") != NULL, "open: no path is refused");
  for (size_t i = 0; i < sizeof(not_plain) / sizeof(not_plain[0]); i++)
    ok(strstr(open_error(not_plain[i]), "cgroup '" CGROUP_MOUNT) != NULL &&
           (strstr(open_error(not_plain[i]), "'.' or '..' component") != NULL ||
            strstr(open_error(not_plain[i]), "ends with '/'") != NULL),
       "open: '%s' is refused before anything is opened", not_plain[i]);
}

/* --- a real cgroup2 hierarchy --- */

/* A child that joins `cgroup` by its fd and waits to be killed; returns once
 * cgroup.procs lists it. */
static pid_t start_in(const char *cgroup)
{
  char want[32];
  pid_t pid = fork();

  if (pid == 0) {
    oci_error_t err = NULL;
    int fd = cgroup_open_path(cgroup, &err);
    if (fd < 0 || cgroup_join(fd, cgroup, &err) < 0)
      _exit(2);
    for (;;)
      pause();
  }
  snprintf(want, sizeof(want), "%d", (int)pid);
  for (int i = 0; i < 500 && pid > 0; i++) {
    cleanup_free char *procs = NULL;
    oci_error_t err = NULL;
    int fd = cgroup_open_path(cgroup, &err);
    bool in = fd >= 0 && cgroup_file_read(fd, cgroup, "cgroup.procs", &procs, &err) == 0 &&
              strstr(procs, want) != NULL;
    oci_error_free(&err);
    if (fd >= 0)
      close(fd);
    if (in)
      break;
    usleep(10000);
  }
  return pid;
}

/* Whether pid ended by SIGKILL (reaped here), waiting at most 10 s. */
static bool killed(pid_t pid)
{
  int status;

  for (int i = 0; i < 1000; i++) {
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid)
      return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    if (got < 0)
      return false;
    usleep(10000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return false;
}

static size_t count_pids(int fd, const char *path)
{
  cleanup_free pid_t *pids = NULL;
  oci_error_t err = NULL;
  size_t n = 0;

  if (cgroup_list_pids(fd, path, &pids, &n, &err) < 0) {
    printf("# %s\n", err->message);
    oci_error_free(&err);
    return (size_t)-1;
  }
  return n;
}

/* The hierarchy below CGROUP_MOUNT where cgroups can be made here, or NULL. */
static const char *cgroup2_hierarchy(void)
{
  static const char *const candidates[] = {CGROUP_MOUNT, CGROUP_MOUNT "/unified"};
  struct statfs fs;

  if (geteuid() != 0)
    return NULL;
  for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
    if (statfs(candidates[i], &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC)
      return candidates[i];
  return NULL;
}

static void test_kernel(void)
{
  const char *hierarchy = cgroup2_hierarchy();
  char base[256], inner[300];
  oci_error_t err = NULL;
  pid_t outer_pid, inner_pid;
  int fd;

  if (hierarchy == NULL) {
    ok(true, "kernel: not run # SKIP needs root and a cgroup2 hierarchy below " CGROUP_MOUNT);
    return;
  }
  snprintf(base, sizeof(base), "%s/ocirun-unit-files.%d", hierarchy, (int)getpid());
  snprintf(inner, sizeof(inner), "%s/inner", base);
  if (!ok(mkdir(base, 0755) == 0 && mkdir(inner, 0755) == 0, "kernel: make %s and a child", base))
    return;
  fd = cgroup_open_path(base, &err);
  if (!ok(fd >= 0, "kernel: open it by cgroup_open_path")) {
    printf("# %s\n", err->message);
    oci_error_free(&err);
    rmdir(inner);
    rmdir(base);
    return;
  }
  outer_pid = start_in(base);
  inner_pid = start_in(inner);
  is_int(count_pids(fd, base), 2, "kernel: the cgroup's process and its child's are listed");

  ok(cgroup_freeze(fd, base, true, &err) == 0 && cgroup_is_frozen(fd, base, &err) == 1,
     "kernel: frozen through the fd, and cgroup.freeze says so");
  ok(cgroup_freeze(fd, base, false, &err) == 0 && cgroup_is_frozen(fd, base, &err) == 0,
     "kernel: thawed");
  oci_error_free(&err);

  /* The fallback of kernels without cgroup.kill, over the whole subtree. */
  ok(cgroup_kill_each(fd, base, &err) == 0, "kernel: the kill fallback returns");
  oci_error_free(&err);
  ok(killed(outer_pid), "kernel: the fallback killed the cgroup's own process");
  ok(killed(inner_pid), "kernel: the fallback killed the process of the child cgroup");
  is_int(count_pids(fd, base), 0, "kernel: and nothing is listed after it");

  outer_pid = start_in(base);
  inner_pid = start_in(inner);
  ok(cgroup_remove(fd, base, &err) == 0, "kernel: remove kills and removes the subtree");
  oci_error_free(&err);
  ok(killed(outer_pid) && killed(inner_pid), "kernel: both processes were killed");
  ok(access(base, F_OK) < 0 && errno == ENOENT, "kernel: the cgroup and its child are gone");
  close(fd);
  rmdir(inner);
  rmdir(base);
}

/* exec --cgroup SUB: "ok" when opened, else the error's message. */
static const char *sub_opened(int slice_fd, const char *sub)
{
  static char text[1024];
  oci_error_t err = NULL;
  int fd = cgroup_open_sub(slice_fd, sub, &err);

  if (fd >= 0) {
    close(fd);
    return "ok";
  }
  snprintf(text, sizeof(text), "%s", err->message);
  oci_error_free(&err);
  return text;
}

static void test_open_sub(int dir_fd)
{
  static const char *const escapes[] = {"../x", "..", "a/../b", "sub/..", ".", "", "a//b", "sub/"};

  ok(mkdirat(dir_fd, "sub", 0700) == 0 && mkdirat(dir_fd, "sub/deeper", 0700) == 0 &&
         symlinkat("sub", dir_fd, "link") == 0,
     "a slice with sub/deeper and a symlink 'link' to sub");
  ok(strcmp(sub_opened(dir_fd, "sub"), "ok") == 0, "exec --cgroup sub: opened");
  ok(strcmp(sub_opened(dir_fd, "sub/deeper"), "ok") == 0, "exec --cgroup sub/deeper: opened");
  ok(strstr(sub_opened(dir_fd, "nope"), "(it must exist)") != NULL,
     "a missing sub-cgroup is refused: it must exist");
  ok(strstr(sub_opened(dir_fd, "link"), "open beneath the container's slice") != NULL,
     "a symlink is not followed (RESOLVE_NO_SYMLINKS)");
  ok(strstr(sub_opened(dir_fd, "/sys/fs/cgroup"), "an absolute path") != NULL,
     "an absolute SUB is refused");
  for (size_t i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++) {
    const char *got = sub_opened(dir_fd, escapes[i]);
    if (!ok(strstr(got, "exec --cgroup") != NULL && strcmp(got, "ok") != 0 &&
                strstr(got, "must exist") == NULL,
            "exec --cgroup '%s' is refused by its name", escapes[i]))
      printf("#   got '%s'\n", got);
  }
  ok(strstr(sub_opened(-1, "sub"), "the container has no cgroup slice") != NULL,
     "no slice: a clear error");
  ok(strstr(sub_opened(-1, "../x"), "plain names") != NULL,
     "no slice, a name with '..': the name is refused first");
  unlinkat(dir_fd, "link", 0);
  unlinkat(dir_fd, "sub/deeper", AT_REMOVEDIR);
  unlinkat(dir_fd, "sub", AT_REMOVEDIR);
}

int main(void)
{
  char dir[] = "/tmp/cgroup_files.XXXXXX";
  int dir_fd;

  test_procs_parse();
  test_small_parsers();
  if (mkdtemp(dir) == NULL || (dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
    ok(false, "make a scratch directory");
    return unit_done();
  }
  test_read_write(dir_fd, dir);
  test_list_tree(dir_fd, dir);
  test_open_path(dir);
  test_open_sub(dir_fd);
  unlinkat(dir_fd, "cgroup.procs", 0);
  close(dir_fd);
  ok(rmdir(dir) == 0, "the scratch directory is left empty");
  test_kernel();
  return unit_done();
}
