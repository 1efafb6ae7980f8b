/* The probe's host observer: reads the container's process from the host's
 * /proc and its cgroup directory, never through anything the image runs.
 * The pidfd is taken before /proc/<pid> is opened and checked after the
 * reads, so every value belongs to that process and not to a reused pid. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe/host_observer.h"
#include "oci/cleanup.h"
#include "oci/in_root.h"
#include "runtime/cgroup/slice.h"

/* /proc files of one process are small; mountinfo of a container too. */
#define PROC_FILE_MAX 65536

/* Reads name under dirfd (no symlink followed) into a NUL-terminated heap
 * buffer of at most PROC_FILE_MAX bytes; NULL when it cannot be read. */
static char *read_small_at(int dirfd, const char *name)
{
  cleanup_close int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  cleanup_free char *text = NULL;
  size_t length = 0;

  if (fd < 0 || (text = malloc(PROC_FILE_MAX + 1)) == NULL)
    return NULL;
  while (length < PROC_FILE_MAX) {
    ssize_t n = read(fd, text + length, PROC_FILE_MAX - length);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return NULL;
    if (n == 0)
      break;
    length += (size_t)n;
  }
  text[length] = '\0';
  return steal_pointer(&text);
}

/* The value after "Name:" on its line of a status file, or NULL. */
static const char *status_value(const char *status, const char *name)
{
  size_t n = strlen(name);
  for (const char *line = status; line != NULL && *line != '\0';
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
    if (strncmp(line, name, n) == 0 && line[n] == ':')
      return line + n + 1 + strspn(line + n + 1, " \t");
  return NULL;
}

static bool status_number(const char *status, const char *name, int base, unsigned long long *out)
{
  const char *value = status_value(status, name);
  char *end;

  if (value == NULL)
    return false;
  errno = 0;
  *out = strtoull(value, &end, base);
  return errno == 0 && end != value;
}

/* The uid inside the process's user namespace for a uid as this process
 * sees it, through /proc/<pid>/uid_map ("inside outside count" lines,
 * outside relative to the reader's namespace); -1 when unmapped. */
static long long uid_inside(int proc_fd, unsigned long long host_uid)
{
  cleanup_free char *map = read_small_at(proc_fd, "uid_map");
  unsigned long long inside, outside, count;
  int used;

  for (const char *line = map; line != NULL && *line != '\0';
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (sscanf(line, " %llu %llu %llu%n", &inside, &outside, &count, &used) != 3)
      continue;
    if (host_uid >= outside && host_uid - outside < count)
      return (long long)(inside + (host_uid - outside));
  }
  return -1;
}

struct mount_line {
  char mount_options[512]; /* per-mount: ro/rw, nosuid, noexec, ... */
  char super_options[512]; /* the filesystem's: ro/rw, size=, mode=, ... */
  bool found;
};

/* The last (topmost) mount at `where` in a mountinfo text. Fields: id parent
 * dev root MOUNT_POINT MOUNT_OPTIONS [optional...] - fstype source SUPER_OPTIONS;
 * mount points are relative to the process's root. */
static void mountinfo_find(const char *mountinfo, const char *where, struct mount_line *out)
{
  char point[4096], options[512], super[512];

  out->found = false;
  for (const char *line = mountinfo; line != NULL && *line != '\0';
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    const char *dash = strstr(line, " - ");
    const char *end = strchr(line, '\n');

    if (sscanf(line, "%*s %*s %*s %*s %4095s %511s", point, options) != 2 || dash == NULL ||
        (end != NULL && dash > end) || sscanf(dash, " - %*s %*s %511s", super) != 1 ||
        strcmp(point, where) != 0)
      continue;
    snprintf(out->mount_options, sizeof(out->mount_options), "%s", options);
    snprintf(out->super_options, sizeof(out->super_options), "%s", super);
    out->found = true;
  }
}

static bool option_present(const char *options, const char *want)
{
  size_t n = strlen(want);
  for (const char *p = options; p != NULL; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (strncmp(p, want, n) == 0 && (p[n] == ',' || p[n] == '\0'))
      return true;
  return false;
}

static bool mount_read_only(const struct mount_line *m)
{
  return option_present(m->mount_options, "ro") || option_present(m->super_options, "ro");
}

/* The options as /proc/mounts prints them (the probe's view): the mount's,
 * then the filesystem's own after its leading ro/rw. */
static cJSON *mount_options_json(const struct mount_line *m)
{
  char text[1100];
  const char *fs = strchr(m->super_options, ',');

  if (!m->found)
    return cJSON_CreateNull();
  snprintf(text, sizeof(text), "%s%s", m->mount_options, fs != NULL ? fs : "");
  return cJSON_CreateString(text);
}

/* The interface names of the process's network namespace, sorted. */
static cJSON *network_interfaces(int proc_fd)
{
  cleanup_free char *dev = read_small_at(proc_fd, "net/dev");
  char names[64][32];
  size_t n = 0;
  cJSON *array;

  if (dev == NULL)
    return cJSON_CreateNull();
  for (const char *line = dev; line != NULL && *line != '\0' && n < 64;
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    const char *colon = strchr(line, ':');
    const char *end = strchr(line, '\n');
    const char *start = line + strspn(line, " ");
    if (colon == NULL || (end != NULL && colon > end) || colon - start <= 0 ||
        colon - start >= 32 || memchr(start, '|', (size_t)(colon - start)) != NULL)
      continue;
    snprintf(names[n], sizeof(names[n]), "%.*s", (int)(colon - start), start);
    n++;
  }
  qsort(names, n, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
  array = cJSON_CreateArray();
  for (size_t i = 0; array != NULL && i < n; i++)
    if (!cJSON_AddItemToArray(array, cJSON_CreateString(names[i]))) {
      cJSON_Delete(array);
      return NULL;
    }
  return array;
}

/* The process's cgroup v2 directory, from "0::PATH" in /proc/<pid>/cgroup,
 * opened below CGROUP_MOUNT without following a symlink (cgroup_open_path);
 * -1 if none. */
static int cgroup_dir_of(int proc_fd)
{
  cleanup_free char *cgroup = read_small_at(proc_fd, "cgroup");
  const char *path = NULL;
  char absolute[4096];
  oci_error_t err = NULL;
  int fd;

  for (const char *line = cgroup; line != NULL && *line != '\0';
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
    if (strncmp(line, "0::/", 4) == 0)
      path = line + 4;
  if (path == NULL)
    return -1;
  snprintf(absolute, sizeof(absolute), CGROUP_MOUNT "/%.*s", (int)strcspn(path, "\n"), path);
  fd = cgroup_open_path(absolute, &err);
  oci_error_free(&err);
  return fd;
}

static cJSON *cgroup_value(int cgroup_fd, const char *name)
{
  cleanup_free char *text = cgroup_fd >= 0 ? read_small_at(cgroup_fd, name) : NULL;
  size_t length;

  if (text == NULL)
    return cJSON_CreateNull();
  length = strlen(text);
  while (length > 0 && strchr(" \t\r\n", text[length - 1]) != NULL)
    text[--length] = '\0';
  return cJSON_CreateString(text + strspn(text, " \t"));
}

/* Whether the process's uid may write into its /tmp: /tmp is a mount of
 * its own, writable (mount and filesystem), and its directory grants the
 * uid write and search (owner, or everyone). Read through the process's
 * root, resolved inside it, no symlink followed. */
static bool tmp_writable(int proc_fd, const struct mount_line *tmp, unsigned long long host_uid)
{
  cleanup_close int root = openat(proc_fd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int dir = -1;
  struct stat st;

  if (!tmp->found || mount_read_only(tmp) || root < 0)
    return false;
  dir = oci_openat2(root, "tmp", O_PATH | O_DIRECTORY,
                    RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
  if (dir < 0 || fstat(dir, &st) < 0)
    return false;
  if (st.st_uid == host_uid)
    return (st.st_mode & (S_IWUSR | S_IXUSR)) == (S_IWUSR | S_IXUSR);
  return (st.st_mode & (S_IWOTH | S_IXOTH)) == (S_IWOTH | S_IXOTH);
}

static bool add(cJSON *object, const char *key, cJSON *value)
{
  return value != NULL && cJSON_AddItemToObject(object, key, value);
}

static cJSON *number_or_null(bool known, double value)
{
  return known ? cJSON_CreateNumber(value) : cJSON_CreateNull();
}

cJSON *host_observed_missing(const char *observer, const char *why)
{
  cleanup_cjson cJSON *object = cJSON_CreateObject();
  cJSON *cgroup = cJSON_CreateObject();
  static const char *const later[] = {"root_read_only", "owned_tmp_write", "network_interfaces",
                                      "no_new_privileges", "capabilities"};

  /* The recipe's order, as in "observed". */
  if (object == NULL || !add(object, "observer", cJSON_CreateString(observer)) ||
      !add(object, "missing", cJSON_CreateString(why)) || !add(object, "uid", cJSON_CreateNull()) ||
      !add(object, "cgroup_v2", cgroup))
    return NULL;
  if (!add(cgroup, "memory.max", cJSON_CreateNull()) ||
      !add(cgroup, "pids.max", cJSON_CreateNull()) || !add(cgroup, "cpu.max", cJSON_CreateNull()))
    return NULL;
  for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++)
    if (!add(object, later[i], cJSON_CreateNull()))
      return NULL;
  return steal_pointer(&object);
}

/* Still the process the pidfd names, alive (not a zombie whose namespaces
 * and mounts are gone): checked after every read. */
static bool still_alive(const struct host_target *target, int proc_fd)
{
  siginfo_t info = {0};
  cleanup_free char *status = NULL;
  const char *state;

  if (waitid(P_PIDFD, (id_t)target->pidfd, &info, WEXITED | WNOHANG | WNOWAIT) == 0) {
    if (info.si_pid != 0)
      return false; /* our child, exited */
  } else if (errno != ECHILD) {
    return false;
  }
  if (pidfd_send_signal(target->pidfd, 0, NULL, 0) < 0)
    return false;
  status = read_small_at(proc_fd, "status");
  state = status != NULL ? status_value(status, "State") : NULL;
  return state != NULL && *state != 'Z' && *state != 'X';
}

static cJSON *observe(const struct host_target *target, const char *observer, int proc_fd,
                      const char *status, const char *mountinfo, int cgroup_fd)
{
  cleanup_cjson cJSON *object = cJSON_CreateObject();
  cJSON *cgroup = cJSON_CreateObject();
  unsigned long long host_uid = 0, cap_eff = 0, cap_bnd = 0, nnp = 0, seccomp = 0;
  bool has_uid = status_number(status, "Uid", 10, &host_uid);
  bool has_cap_eff = status_number(status, "CapEff", 16, &cap_eff);
  bool has_cap_bnd = status_number(status, "CapBnd", 16, &cap_bnd);
  bool has_nnp = status_number(status, "NoNewPrivs", 10, &nnp);
  bool has_seccomp = status_number(status, "Seccomp", 10, &seccomp);
  long long uid = has_uid ? uid_inside(proc_fd, host_uid) : -1;
  struct mount_line root, tmp;

  mountinfo_find(mountinfo, "/", &root);
  mountinfo_find(mountinfo, "/tmp", &tmp);
  if (object == NULL || !add(object, "observer", cJSON_CreateString(observer)) ||
      !add(object, "missing", cJSON_CreateNull()) ||
      !add(object, "pid", cJSON_CreateNumber(target->pid)) ||
      !add(object, "uid", number_or_null(uid >= 0, (double)uid)) ||
      !add(object, "cgroup_v2", cgroup) ||
      !add(cgroup, "memory.max", cgroup_value(cgroup_fd, "memory.max")) ||
      !add(cgroup, "pids.max", cgroup_value(cgroup_fd, "pids.max")) ||
      !add(cgroup, "cpu.max", cgroup_value(cgroup_fd, "cpu.max")) ||
      !add(object, "root_read_only",
           root.found ? cJSON_CreateBool(mount_read_only(&root)) : cJSON_CreateNull()) ||
      !add(object, "owned_tmp_write",
           has_uid ? cJSON_CreateBool(tmp_writable(proc_fd, &tmp, host_uid))
                   : cJSON_CreateNull()) ||
      !add(object, "network_interfaces", network_interfaces(proc_fd)) ||
      !add(object, "no_new_privileges",
           has_nnp ? cJSON_CreateBool(nnp == 1) : cJSON_CreateNull()) ||
      !add(object, "capabilities", number_or_null(has_cap_eff, (double)cap_eff)) ||
      !add(object, "host_uid", number_or_null(has_uid, (double)host_uid)) ||
      !add(object, "cap_bnd", number_or_null(has_cap_bnd, (double)cap_bnd)) ||
      !add(object, "seccomp_mode", number_or_null(has_seccomp, (double)seccomp)) ||
      !add(object, "root_mount_options", mount_options_json(&root)) ||
      !add(object, "tmp_mount_options", mount_options_json(&tmp)))
    return NULL;
  return steal_pointer(&object);
}

cJSON *host_observe_process(const struct host_target *target, const char *observer, bool *not_local)
{
  char path[64], why[256];
  cleanup_close int proc_fd = -1;
  cleanup_close int found_cgroup_fd = -1;
  cleanup_free char *status = NULL;
  cleanup_free char *mountinfo = NULL;
  cleanup_free char *cgroup = NULL;
  cleanup_cjson cJSON *observed = NULL;
  int cgroup_fd = target->cgroup_fd;

  *not_local = false;
  snprintf(path, sizeof(path), "/proc/%d", (int)target->pid);
  if ((proc_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
    *not_local = errno == ENOENT;
    snprintf(why, sizeof(why), "open %s: %s", path, strerror(errno));
    return host_observed_missing(observer, why);
  }
  if (target->cgroup_must_name != NULL && ((cgroup = read_small_at(proc_fd, "cgroup")) == NULL ||
                                           strstr(cgroup, target->cgroup_must_name) == NULL)) {
    *not_local = true;
    snprintf(why, sizeof(why), "%s/cgroup does not name container %.64s", path,
             target->cgroup_must_name);
    return host_observed_missing(observer, why);
  }
  if (cgroup_fd < 0 && target->cgroup_from_proc)
    cgroup_fd = found_cgroup_fd = cgroup_dir_of(proc_fd);
  status = read_small_at(proc_fd, "status");
  mountinfo = read_small_at(proc_fd, "mountinfo");
  if (status == NULL || mountinfo == NULL) {
    snprintf(why, sizeof(why), "read %s/%s: %s", path, status == NULL ? "status" : "mountinfo",
             strerror(errno));
    return host_observed_missing(observer, why);
  }
  observed = observe(target, observer, proc_fd, status, mountinfo, cgroup_fd);
  if (observed == NULL)
    return NULL;
  /* Only now: every value above was read while this very process lived. */
  if (!still_alive(target, proc_fd)) {
    snprintf(why, sizeof(why), "pid %d exited while it was being observed", (int)target->pid);
    return host_observed_missing(observer, why);
  }
  return steal_pointer(&observed);
}
