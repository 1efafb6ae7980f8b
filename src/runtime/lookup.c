/* The command lookup: execvp's search of the container's PATH inside its
 * root, with the user's credentials, before the seccomp filter. */
#include "config.h"

#include "runtime/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/cleanup.h"

/* execvp's and docker's PATH when the environment has none. */
#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* Opens path O_PATH inside the root without a /proc magic link (/proc/self/exe
 * would be ocirun's own binary, /proc/self/fd/N whatever that fd is); returns
 * the fd if it is an executable regular file, else -1 with errno set (EACCES
 * for a file execve would refuse, so that a PATH search may go on, as
 * exec.LookPath does for docker). */
static int open_command(int root_fd, const char *path)
{
  struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS};
  struct stat st;
  int fd;

  if (path[0] == '/')
    how.resolve |= RESOLVE_IN_ROOT;
  fd = (int)syscall(SYS_openat2, path[0] == '/' ? root_fd : AT_FDCWD, path, &how, sizeof(how));
  if (fd < 0)
    return -1;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0)
    return fd;
  close(fd);
  errno = EACCES;
  return -1;
}

/* The filesystem ids the lookup's permission checks use; setfsuid and
 * setfsgid return the previous id and never fail loudly: ask again. */
static int set_fs_ids(uid_t uid, gid_t gid, oci_error_t *err)
{
  setfsgid(gid);
  setfsuid(uid);
  if ((gid_t)setfsgid((gid_t)-1) != gid || (uid_t)setfsuid((uid_t)-1) != uid)
    return oci_error_set(err, EPERM, "run: take the filesystem ids %u:%u for the command lookup",
                         (unsigned)uid, (unsigned)gid);
  return 0;
}

/* The exec is by fd, and execveat(fd) checks only the file's own execute
 * bit, never search permission on the directories that led to it: the
 * lookup checks them as the user would, or a uid-1000 workload (or a root
 * one without CAP_DAC_*) ran a program kept in a directory it may not
 * search (a setuid one too). So: the user's fsuid, fsgid and groups (set
 * now, as capabilities_switch_user sets them anyway; a user namespace that
 * denies setgroups keeps the caller's, then and now) and the effective
 * capabilities the user will hold; *runtime_effective gets the runtime's. */
static int lookup_as_user(const struct launch *launch, uint64_t *runtime_effective,
                          oci_error_t *err)
{
  const struct spec_process *process = &launch->spec->process;

  if (launch->set_groups && setgroups(launch->n_groups, launch->groups) < 0)
    return oci_error_errno(err, "run: set the user's groups for the command lookup");
  if (set_fs_ids(process->uid, process->gid, err) < 0)
    return -1;
  return capabilities_set_effective(launch->caps.effective, runtime_effective, err);
}

/* Back to the runtime's credentials after the lookup: the effective set
 * lookup_as_user replaced (setfsuid had already dropped the DAC ones from
 * it), then fsuid 0, which raises those again. */
static int lookup_done(uint64_t runtime_effective, oci_error_t *err)
{
  if (capabilities_set_effective(runtime_effective, NULL, err) < 0)
    return -1;
  return set_fs_ids(geteuid(), getegid(), err);
}

/* child_find_command's search proper; reports and exits on failure. */
static void child_lookup_command(struct launch *launch)
{
  const char *command = launch->spec->process.args[0];
  const char *path = DEFAULT_PATH;
  char message[600];
  int last_errno = ENOENT;
  bool denied = false;
  cleanup_close int root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

  if (root_fd < 0) {
    oci_error_t err = NULL;
    oci_error_errno(&err, "run: open the container's root");
    child_fail(launch, &err);
  }
  if (strchr(command, '/') != NULL) {
    launch->command_fd = open_command(root_fd, command);
    if (launch->command_fd >= 0 && (launch->command_path = strdup(command)) != NULL)
      return;
    last_errno = errno;
  } else {
    for (char *const *s = launch->envp; *s != NULL; s++) {
      if (strncmp(*s, "PATH=", 5) == 0)
        path = *s + 5;
    }
    for (const char *dir = path;; dir++) {
      size_t len = strcspn(dir, ":");
      char candidate[4096];

      if (snprintf(candidate, sizeof(candidate), "%.*s%s%s", (int)len, len > 0 ? dir : ".", "/",
                   command) < (int)sizeof(candidate)) {
        launch->command_fd = open_command(root_fd, candidate);
        if (launch->command_fd >= 0 && (launch->command_path = strdup(candidate)) != NULL)
          return;
        if (launch->command_fd >= 0) {
          last_errno = ENOMEM;
          break;
        }
        if (errno == EACCES)
          denied = true;
        else if (errno != ENOENT && errno != ENOTDIR)
          last_errno = errno;
      }
      dir += len;
      if (*dir == '\0')
        break;
    }
    if (denied)
      last_errno = EACCES;
  }
  if (last_errno == ENOENT && strchr(command, '/') == NULL)
    snprintf(message, sizeof(message), "exec '%s': executable file not found in $PATH", command);
  else if (last_errno == ELOOP)
    snprintf(message, sizeof(message),
             "exec '%s': refused: the path goes through a /proc magic link (or a symlink loop); "
             "the command is resolved inside the container's root",
             command);
  else
    snprintf(message, sizeof(message), "exec '%s': %s", command, strerror(last_errno));
  child_report_and_exit(launch, CHILD_EXEC_FAILED, last_errno, message);
}

/* execvp's search, with the container's PATH, after pivot_root and BEFORE
 * the seccomp filter: the lookup is the runtime's work, not the workload's,
 * and a profile that does not allow openat2 (runtime-tools' default,
 * Docker's before 2020) would otherwise fail every command. It runs with
 * the user's filesystem ids, groups and effective capabilities
 * (lookup_as_user); the kernel checks the file's execute permission,
 * as the user, at the exec. Reports and exits on failure; on success
 * launch->command_fd and command_path are the command. */
void child_find_command(struct launch *launch)
{
  const struct spec_process *process = &launch->spec->process;
  uint64_t runtime_effective = 0;
  oci_error_t err = NULL;

  /* (uid_t)-1 is not an id: child_confine refuses it, naming it */
  if (process->uid == (uid_t)-1 || process->gid == (gid_t)-1) {
    child_lookup_command(launch);
    return;
  }
  if (lookup_as_user(launch, &runtime_effective, &err) < 0)
    child_fail(launch, &err);
  child_lookup_command(launch);
  if (lookup_done(runtime_effective, &err) < 0)
    child_fail(launch, &err);
}
