/* The command lookup: execvp's search of the container's PATH inside its
 * root, with the user's credentials, before the seccomp filter. */
#include "config.h"

#include "runtime/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/in_root.h"

/* execvp's and docker's PATH when the environment has none. */
#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* Opens path O_PATH inside the root without a /proc magic link (/proc/self/exe
 * would be ocirun's own binary, /proc/self/fd/N whatever that fd is); returns
 * the fd if it is an executable regular file, else -1 with errno set (EACCES
 * for a file execve would refuse, so that a PATH search may go on, as
 * exec.LookPath does for docker). */
static int open_command(int root_fd, const char *path)
{
  struct stat st;
  int fd = path[0] == '/' ? in_root_open(root_fd, path, O_PATH)
                          : oci_openat2(AT_FDCWD, path, O_PATH, RESOLVE_NO_MAGICLINKS);

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

/* command_find's search proper. */
static int lookup_command(struct launch *launch, int *failure, oci_error_t *err)
{
  const char *command = launch->spec->process.args[0];
  const char *path = DEFAULT_PATH;
  int last_errno = ENOENT;
  bool denied = false;
  cleanup_close int root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

  if (root_fd < 0)
    return oci_error_errno(err, "run: open the container's root");
  if (strchr(command, '/') != NULL) {
    launch->command_fd = open_command(root_fd, command);
    if (launch->command_fd >= 0 && (launch->command_path = strdup(command)) != NULL)
      return 0;
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
          return 0;
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
  *failure = CHILD_EXEC_FAILED;
  if (last_errno == ENOENT && strchr(command, '/') == NULL)
    return oci_error_set(err, last_errno, "exec '%s': executable file not found in $PATH", command);
  if (last_errno == ELOOP)
    return oci_error_set(err, last_errno,
                         "exec '%s': refused: the path goes through a /proc magic link (or a "
                         "symlink loop); the command is resolved inside the container's root",
                         command);
  return oci_error_set(err, last_errno, "exec '%s': %s", command, strerror(last_errno));
}

int command_find(struct launch *launch, int *failure, oci_error_t *err)
{
  const struct spec_process *process = &launch->spec->process;
  uint64_t runtime_effective = 0;
  int ret;

  *failure = CHILD_SETUP_FAILED;
  /* (uid_t)-1 is not an id: the user step refuses it, naming it */
  if (process->uid == (uid_t)-1 || process->gid == (gid_t)-1)
    return lookup_command(launch, failure, err);
  if (lookup_as_user(launch, &runtime_effective, err) < 0)
    return -1;
  ret = lookup_command(launch, failure, err);
  if (ret < 0)
    return ret; /* the process reports it and exits, as the user */
  return lookup_done(runtime_effective, err);
}
