/* Test helper: applies the mount plan of a bundle's config.json the way the
 * OCI commands will (the bundle's root.path bound as the root), in new
 * mount, pid, net, ipc and cgroup namespaces, then runs a command in it.
 *   mount-plan-apply BUNDLE --print          the plan, nothing applied
 *   mount-plan-apply BUNDLE CMD [ARG...]     125 when the plan fails
 *   mount-plan-apply BUNDLE --userns CMD...  in a user namespace too (root
 *                                            mapped to root, one id) */
#include "config.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/io.h"
#include "runtime/mount/mount_plan.h"
#include "runtime/spec/spec.h"

static int write_file(const char *path, const char *text)
{
  cleanup_close int fd = open(path, O_WRONLY | O_CLOEXEC);

  if (fd < 0 || oci_write_all(fd, text, strlen(text)) < 0) {
    perror(path);
    return -1;
  }
  return 0;
}

static int fail(oci_error_t *err)
{
  fprintf(stderr, "mount-plan-apply: %s\n", (*err)->message);
  oci_error_free(err);
  return 125;
}

int main(int argc, char **argv)
{
  struct spec spec;
  struct mount_plan plan;
  oci_error_t err = NULL;
  cleanup_free char *root_path = NULL;
  int bundle_fd, status;
  bool userns = argc > 3 && strcmp(argv[2], "--userns") == 0;
  pid_t pid;

  if (argc < 3) {
    fprintf(stderr, "usage: mount-plan-apply BUNDLE --print | CMD [ARG...]\n");
    return 2;
  }
  bundle_fd = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (bundle_fd < 0) {
    perror(argv[1]);
    return 125;
  }
  if (spec_load_bundle(bundle_fd, argv[1], &spec, &err) < 0)
    return fail(&err);
  if (asprintf(&root_path, "%s%s%s", spec.root_path[0] == '/' ? "" : argv[1],
               spec.root_path[0] == '/' ? "" : "/", spec.root_path) < 0)
    return 125;
  struct mount_root root = {
      .root_fd = open(root_path, O_PATH | O_DIRECTORY | O_CLOEXEC),
      .root_path = root_path,
      .bundle = argv[1],
  };
  if (root.root_fd < 0) {
    perror(root_path);
    return 125;
  }
  if (userns)
    argv++;
  if (mount_plan_build(&spec, &root, userns, &plan, &err) < 0)
    return fail(&err);
  if (strcmp(argv[2], "--print") == 0) {
    mount_plan_print(&plan, stdout);
    return 0;
  }
  if (userns && (unshare(CLONE_NEWUSER) < 0 || write_file("/proc/self/setgroups", "deny") < 0 ||
                 write_file("/proc/self/uid_map", "0 0 1") < 0 ||
                 write_file("/proc/self/gid_map", "0 0 1") < 0)) {
    perror("user namespace");
    return 125;
  }
  if (unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWCGROUP) < 0) {
    perror("unshare");
    return 125;
  }
  pid = fork();
  if (pid < 0) {
    perror("fork");
    return 125;
  }
  if (pid == 0) {
    if (mount_plan_apply(&plan, &err) < 0)
      _exit(fail(&err));
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    _exit(127);
  }
  if (waitpid(pid, &status, 0) < 0)
    return 125;
  mount_plan_clear(&plan);
  spec_clear(&spec);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
