/* The run's cgroup v2 slice: where it is (linux.cgroupsPath, the parent,
 * a rootless delegation), checked for, and created with its controllers,
 * limits and device program before the process exists. */
#include "config.h"

#include "runtime/cgroup/slice.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "runtime/cgroup/devices.h"
#include "runtime/cgroup/files.h"

/* The controllers a run's limits need. */
static const char *const required_controllers[] = {"memory", "cpu", "pids"};
#define N_REQUIRED_CONTROLLERS (sizeof(required_controllers) / sizeof(required_controllers[0]))

static bool list_has_required(const char *list)
{
  for (size_t i = 0; i < N_REQUIRED_CONTROLLERS; i++)
    if (!cgroup_list_has_word(list, required_controllers[i]))
      return false;
  return true;
}

static int host_unsupported(oci_error_t *err, const char *path, const char *what)
{
  return oci_error_set(err, 0,
                       "cgroup v2 with memory, cpu and pids controllers is required; %s is %s "
                       "(hybrid/v1 host): run inside a cgroup v2 guest (scripts/vm-run) or pass "
                       "--unsafe-no-cgroup for development",
                       path, what);
}

/* Finds the root of the cgroup2 mount holding `existing` (a directory on
 * cgroup2): the highest ancestor on the same device. */
static int cgroup_mount_root(const char *existing, char *root, size_t size, oci_error_t *err)
{
  struct stat st, parent_st;
  char candidate[PATH_MAX];

  if (stat(existing, &st) < 0)
    return oci_error_errno(err, "cgroup: stat '%s'", existing);
  snprintf(root, size, "%s", existing);
  while (strcmp(root, "/") != 0) {
    struct statfs fs;
    snprintf(candidate, sizeof(candidate), "%s", root);
    cgroup_path_parent(candidate);
    if (stat(candidate, &parent_st) < 0 || parent_st.st_dev != st.st_dev ||
        statfs(candidate, &fs) < 0 || fs.f_type != CGROUP2_SUPER_MAGIC)
      break;
    snprintf(root, size, "%s", candidate);
  }
  return 0;
}

int cgroup_check_host(const char *parent, oci_error_t *err)
{
  char existing[PATH_MAX], root[PATH_MAX];
  cleanup_free char *controllers = NULL;
  struct statfs fs;
  cleanup_close int root_fd = -1;

  if (parent == NULL || parent[0] != '/')
    return oci_error_set(err, 0, "cgroup parent '%s' must be an absolute path",
                         parent ? parent : "");
  if (strlen(parent) >= sizeof(existing))
    return oci_error_set(err, ENAMETOOLONG, "cgroup parent '%s'", parent);
  /* The parent may not exist yet: judge the nearest ancestor that does. */
  snprintf(existing, sizeof(existing), "%s", parent);
  while (statfs(existing, &fs) < 0) {
    if (errno != ENOENT || strcmp(existing, "/") == 0)
      return oci_error_errno(err, "cgroup: statfs '%s'", existing);
    cgroup_path_parent(existing);
  }
  if (fs.f_type != CGROUP2_SUPER_MAGIC)
    return host_unsupported(err, existing, cgroup_filesystem_name(fs.f_type));
  if (cgroup_mount_root(existing, root, sizeof(root), err) < 0)
    return -1;
  root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0)
    return oci_error_errno(err, "cgroup: open '%s'", root);
  if (cgroup_file_read(root_fd, root, "cgroup.controllers", &controllers, err) < 0)
    return -1;
  if (!list_has_required(controllers)) {
    cleanup_free char *what = NULL;
    controllers[strcspn(controllers, "\n")] = '\0';
    if (asprintf(&what, "cgroup2 whose root %s offers only '%s'", root, controllers) < 0)
      return oci_error_errno(err, "cgroup: allocate");
    return host_unsupported(err, existing, what);
  }
  return 0;
}

/* The caller's own cgroup: the "0::" line of /proc/self/cgroup, under the
 * cgroup2 mount at CGROUP_MOUNT. */
static int own_cgroup(char *out, size_t size, oci_error_t *err)
{
  cleanup_fclose FILE *f = fopen("/proc/self/cgroup", "re");
  char line[PATH_MAX];

  if (f == NULL)
    return oci_error_errno(err, "cgroup: open /proc/self/cgroup");
  while (fgets(line, sizeof(line), f) != NULL) {
    if (strncmp(line, "0::/", 4) != 0)
      continue;
    line[strcspn(line, "\n")] = '\0';
    if ((size_t)snprintf(out, size, CGROUP_MOUNT "%s",
                         strcmp(line + 3, "/") == 0 ? "" : line + 3) >= size)
      return oci_error_set(err, ENAMETOOLONG, "cgroup: own cgroup '%s'", line + 3);
    return 0;
  }
  return oci_error_set(err, 0, "cgroup: /proc/self/cgroup has no cgroup v2 (\"0::\") line");
}

int cgroup_resolve_parent(const char *requested, bool rootless, char **parent, oci_error_t *err)
{
  char own[PATH_MAX];

  if (requested == NULL && rootless) {
    if (own_cgroup(own, sizeof(own), err) < 0)
      return -1;
    /* The root cgroup has no parent; it is never delegated either. */
    if (strcmp(own, CGROUP_MOUNT) != 0)
      cgroup_path_parent(own);
    requested = own;
  }
  *parent = strdup(requested != NULL ? requested : CGROUP_DEFAULT_PARENT);
  return *parent == NULL ? oci_error_errno(err, "cgroup: allocate") : 0;
}

/* An unprivileged process may create cgroups, write their limits and move
 * a process into one only inside a subtree delegated to it (the directory
 * and its cgroup.procs and cgroup.subtree_control writable), and only
 * between cgroups whose common ancestor is in that subtree: so the parent
 * must be delegated and must hold the caller's own cgroup. */
static int check_delegated(const char *parent, oci_error_t *err)
{
  static const char *const needed[] = {"", "/cgroup.procs", "/cgroup.subtree_control"};
  cleanup_close int dir_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
  char own[PATH_MAX];
  size_t length = strlen(parent);

  if (dir_fd < 0)
    return oci_error_errno(err, "rootless: cgroup parent '%s'", parent);
  for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
    if (faccessat(dir_fd, needed[i][0] != '\0' ? needed[i] + 1 : ".", W_OK, AT_EACCESS) < 0)
      return oci_error_set(
          err, errno,
          "rootless: no delegated cgroup v2 subtree: '%s%s' is not writable by uid %u. Run "
          "ocirun in a cgroup whose parent is delegated to you (as in a systemd user "
          "session), pass --cgroup-parent for a subtree delegated to you, or "
          "--unsafe-no-cgroup (no limits). Nothing was started",
          parent, needed[i], (unsigned)geteuid());
  }
  if (own_cgroup(own, sizeof(own), err) < 0)
    return -1;
  if (strncmp(own, parent, length) != 0 || own[length] != '/')
    return oci_error_set(err, 0,
                         "rootless: this process's cgroup '%s' is not below the cgroup parent "
                         "'%s': an unprivileged process can start a run only in a cgroup that "
                         "shares a delegated ancestor with its own",
                         own, parent);
  return 0;
}

/* --- the slice's path --- */

/* Refuses a relative cgroup path that is not plain names joined by single
 * slashes; field begins the message. */
static int check_plain_path(const char *relative, const char *field, oci_error_t *err)
{
  const char *p = relative;

  if (*p == '\0')
    return oci_error_set(err, 0, "%s: empty path", field);
  while (*p != '\0') {
    size_t len = strcspn(p, "/");
    if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
      return oci_error_set(err, 0,
                           "%s: '%s' has an empty, '.' or '..' component; cgroup paths are "
                           "plain names",
                           field, relative);
    if (len > NAME_MAX)
      return oci_error_set(err, ENAMETOOLONG, "%s: '%s'", field, relative);
    p += len;
    if (*p == '/' && *++p == '\0')
      return oci_error_set(err, 0, "%s: '%s' ends with '/'", field, relative);
  }
  return 0;
}

/* Appends a relative cgroup path to base, refusing what is not a plain
 * name per component. */
static int join_cgroup_path(const char *base, const char *relative, const char *field, char **path,
                            oci_error_t *err)
{
  *path = NULL;
  if (check_plain_path(relative, field, err) < 0)
    return -1;
  if (asprintf(path, "%s/%s", base, relative) < 0) {
    *path = NULL;
    return oci_error_errno(err, "cgroup: allocate path");
  }
  if (strlen(*path) >= PATH_MAX) {
    free(*path);
    *path = NULL;
    return oci_error_set(err, ENAMETOOLONG, "%s: '%s'", field, relative);
  }
  return 0;
}

/* systemd's form is "slice:prefix:name": two colons, no slash. */
static bool is_systemd_form(const char *path)
{
  const char *first = strchr(path, ':');
  return first != NULL && strchr(path, '/') == NULL && strchr(first + 1, ':') != NULL;
}

int cgroup_slice_path(const char *cgroups_path, const char *id, bool rootless, char **path,
                      oci_error_t *err)
{
  cleanup_free char *parent = NULL;

  *path = NULL;
  if (cgroups_path != NULL && is_systemd_form(cgroups_path))
    return oci_error_set(err, 0,
                         "linux.cgroupsPath: '%s' is systemd's slice:prefix:name form; "
                         "--systemd-cgroup is not supported: give a cgroupfs path "
                         "(\"/parent/name\")",
                         cgroups_path);
  if (cgroups_path != NULL && cgroups_path[0] == '/') {
    /* Relative to the cgroups mount, as the spec says. */
    const char *relative = cgroups_path + strspn(cgroups_path, "/");
    if (*relative == '\0')
      return oci_error_set(err, 0,
                           "linux.cgroupsPath: '%s' names the cgroup root; a container needs "
                           "a cgroup of its own",
                           cgroups_path);
    return join_cgroup_path(CGROUP_MOUNT, relative, "linux.cgroupsPath", path, err);
  }
  if (cgroup_resolve_parent(NULL, rootless, &parent, err) < 0)
    return -1;
  if (cgroups_path != NULL)
    return join_cgroup_path(parent, cgroups_path, "linux.cgroupsPath", path, err);
  if (id == NULL || strchr(id, '/') != NULL)
    return oci_error_set(err, 0, "cgroup: invalid container id '%s'", id ? id : "");
  return join_cgroup_path(parent, id, "container id", path, err);
}

int cgroup_open_path(const char *path, oci_error_t *err)
{
  static const char prefix[] = CGROUP_MOUNT "/";
  struct open_how how = {
      .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
      .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };
  cleanup_close int mount_fd = -1, fd = -1;
  char field[PATH_MAX + 16];
  struct statfs fs;

  if (path == NULL || strncmp(path, prefix, strlen(prefix)) != 0)
    return oci_error_set(err, EINVAL, "cgroup '%s' is not under " CGROUP_MOUNT,
                         path != NULL ? path : "");
  snprintf(field, sizeof(field), "cgroup '%s'", path);
  if (check_plain_path(path + strlen(prefix), field, err) < 0)
    return -1;
  mount_fd = open(CGROUP_MOUNT, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (mount_fd < 0)
    return oci_error_errno(err, "cgroup: open " CGROUP_MOUNT);
  fd = (int)syscall(SYS_openat2, mount_fd, path + strlen(prefix), &how, sizeof(how));
  if (fd < 0)
    return oci_error_errno(err, "cgroup '%s'", path);
  if (fstatfs(fd, &fs) < 0)
    return oci_error_errno(err, "cgroup '%s': statfs", path);
  if (fs.f_type != CGROUP2_SUPER_MAGIC)
    return oci_error_set(err, EINVAL, "cgroup '%s' is %s, not a cgroup2 directory", path,
                         cgroup_filesystem_name(fs.f_type));
  return steal_fd(&fd);
}

int cgroup_open_sub(int slice_fd, const char *sub, oci_error_t *err)
{
  struct open_how how = {
      .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
      .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
  };
  char field[PATH_MAX + 32];
  int fd;

  snprintf(field, sizeof(field), "exec --cgroup '%s'", sub);
  if (sub[0] == '/')
    return oci_error_set(err, 0, "%s: an absolute path; SUB is under the container's slice", field);
  if (check_plain_path(sub, field, err) < 0)
    return -1;
  if (slice_fd < 0)
    return oci_error_set(err, 0, "%s: the container has no cgroup slice", field);
  fd = (int)syscall(SYS_openat2, slice_fd, sub, &how, sizeof(how));
  if (fd < 0)
    return oci_error_errno(err, "%s: open beneath the container's slice%s", field,
                           errno == ENOENT ? " (it must exist)" : "");
  return fd;
}

/* --- controllers --- */

/* The controllers a slice needs: memory, cpu and pids always (ocirun
 * accounts every run), plus the controller of every limit file. */
struct controllers {
  const char *names[32];
  const char *needed_by[32]; /* a limit file, or NULL for the always-needed ones */
  size_t n;
};

static void add_controller(struct controllers *c, const char *name, size_t len,
                           const char *needed_by)
{
  for (size_t i = 0; i < c->n; i++)
    if (strlen(c->names[i]) == len && strncmp(c->names[i], name, len) == 0)
      return;
  if (c->n < sizeof(c->names) / sizeof(c->names[0])) {
    c->names[c->n] = strndup(name, len);
    c->needed_by[c->n] = needed_by;
    if (c->names[c->n] != NULL)
      c->n++;
  }
}

static void controllers_clear(struct controllers *c)
{
  for (size_t i = 0; i < c->n; i++)
    free((char *)c->names[i]);
  c->n = 0;
}

static void controllers_for(const struct cgroup_limits *limits, struct controllers *c)
{
  c->n = 0;
  for (size_t i = 0; i < N_REQUIRED_CONTROLLERS; i++)
    add_controller(c, required_controllers[i], strlen(required_controllers[i]), NULL);
  for (size_t i = 0; limits != NULL && i < limits->n; i++) {
    const char *file = limits->items[i].file;
    size_t len = strcspn(file, ".");
    if (len == 6 && strncmp(file, "cgroup", 6) == 0)
      continue; /* core files: every cgroup has them */
    add_controller(c, file, len, file);
  }
}

/* Enables the controllers for the children of `dir_fd` unless they already
 * are (writing subtree_control needlessly can fail with EBUSY); one the
 * directory does not offer is an error naming the limit that needs it. */
static int enable_controllers(int dir_fd, const char *path, const struct controllers *c,
                              oci_error_t *err)
{
  cleanup_free char *enabled = NULL, *available = NULL;
  char request[512] = "";
  size_t used = 0;

  if (cgroup_file_read(dir_fd, path, "cgroup.subtree_control", &enabled, err) < 0)
    return -1;
  for (size_t i = 0; i < c->n; i++) {
    if (cgroup_list_has_word(enabled, c->names[i]))
      continue;
    if (available == NULL &&
        cgroup_file_read(dir_fd, path, "cgroup.controllers", &available, err) < 0)
      return -1;
    if (!cgroup_list_has_word(available, c->names[i])) {
      available[strcspn(available, "\n")] = '\0';
      return oci_error_set(err, 0,
                           "cgroup: the %s controller%s%s%s is not available in '%s' (it offers "
                           "'%s')",
                           c->names[i], c->needed_by[i] ? " (needed by " : "",
                           c->needed_by[i] ? c->needed_by[i] : "", c->needed_by[i] ? ")" : "", path,
                           available);
    }
    used += (size_t)snprintf(request + used, sizeof(request) - used, "%s+%s", used ? " " : "",
                             c->names[i]);
    if (used >= sizeof(request))
      return oci_error_set(err, E2BIG, "cgroup: too many controllers for '%s'", path);
  }
  if (used == 0)
    return 0;
  return cgroup_file_write(dir_fd, path, "cgroup.subtree_control", request, err);
}

/* --- the slice --- */

/* Removes the directories prepare_parent created, deepest first: from
 * `path` up to and including `first_created`. */
static void remove_created_parents(const char *path, const char *first_created)
{
  char dir[PATH_MAX];

  if (first_created[0] == '\0')
    return;
  snprintf(dir, sizeof(dir), "%s", path);
  for (;;) {
    if (rmdir(dir) < 0)
      return; /* in use by now (another run): it stays, as a shared parent */
    if (strcmp(dir, first_created) == 0)
      return;
    cgroup_path_parent(dir);
  }
}

/* A cgroup directory ocirun makes (the slice, a parent): 0755 whatever the
 * caller's umask. A 0700 parent, made first by a caller at umask 077,
 * kept every later container in a user namespace from mounting its own
 * cgroup2 (the kernel walks to the namespace's root as the container's
 * root, whom the host-owned directory refuses: EACCES). */
static int cgroup_mkdir(int dir_fd, const char *name)
{
  if (mkdirat(dir_fd, name, 0755) < 0)
    return -1;
  if (fchmodat(dir_fd, name, 0755, 0) < 0) {
    int saved = errno;

    unlinkat(dir_fd, name, AT_REMOVEDIR);
    errno = saved;
    return -1;
  }
  return 0;
}

/* Creates `parent` (and missing ancestors) below its cgroup2 mount root and
 * enables the controllers down to it, walking from the root by fd (each
 * level opened from the one above, never through a symlink). *parent_fd
 * gets the parent's fd; first_created the topmost directory made here (""
 * when none), for undoing it. */
static int prepare_parent(const char *parent, const struct controllers *c, int *parent_fd,
                          char *first_created, oci_error_t *err)
{
  char existing[PATH_MAX], root[PATH_MAX], partial[PATH_MAX];
  cleanup_close int fd = -1;
  struct stat st;
  size_t root_len;

  first_created[0] = '\0';
  snprintf(existing, sizeof(existing), "%s", parent);
  while (stat(existing, &st) < 0) {
    if (errno != ENOENT || strcmp(existing, "/") == 0)
      return oci_error_errno(err, "cgroup: stat '%s'", existing);
    cgroup_path_parent(existing);
  }
  if (cgroup_mount_root(existing, root, sizeof(root), err) < 0)
    return -1;
  root_len = strlen(root);
  if (strncmp(parent, root, root_len) != 0 || (parent[root_len] != '/' && parent[root_len] != '\0'))
    return oci_error_set(err, 0, "cgroup parent '%s' is not below the cgroup2 mount '%s'", parent,
                         root);
  /* Walk from the mount root down: enable in each level, then descend. */
  snprintf(partial, sizeof(partial), "%s", root);
  fd = open(root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return oci_error_errno(err, "cgroup: open '%s'", root);
  const char *rest = parent + root_len;
  for (;;) {
    char name[NAME_MAX + 1];
    int child_fd;

    if (enable_controllers(fd, partial, c, err) < 0)
      return -1;
    while (*rest == '/')
      rest++;
    if (*rest == '\0') {
      *parent_fd = steal_fd(&fd);
      return 0;
    }
    size_t len = strcspn(rest, "/");
    size_t used = strlen(partial);
    if (len > NAME_MAX || used + 1 + len >= sizeof(partial))
      return oci_error_set(err, ENAMETOOLONG, "cgroup parent '%s'", parent);
    memcpy(name, rest, len);
    name[len] = '\0';
    if (strcmp(partial, "/") != 0)
      partial[used++] = '/';
    memcpy(partial + used, rest, len);
    partial[used + len] = '\0';
    rest += len;
    if (cgroup_mkdir(fd, name) == 0) {
      if (first_created[0] == '\0')
        snprintf(first_created, PATH_MAX, "%s", partial);
    } else if (errno != EEXIST) {
      return oci_error_errno(err, "cgroup: mkdir '%s'", partial);
    }
    child_fd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child_fd < 0)
      return oci_error_errno(err, "cgroup: open '%s'", partial);
    close(fd);
    fd = child_fd;
  }
}

/* Enables c's controllers for the children of the cgroup above dir_fd
 * (path names dir_fd), first further up where that one is not offered one
 * (not rootless: a delegation gives only what it was given). Walked by
 * "..", from a checked fd, never by path; above the cgroup2 mount's root
 * there is nothing to enable. */
static int enable_above(int dir_fd, const char *path, const struct controllers *c, bool rootless,
                        oci_error_t *err)
{
  cleanup_close int parent_fd = openat(dir_fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
  cleanup_free char *available = NULL;
  char parent[PATH_MAX];
  struct statfs fs;
  bool offered = true;

  snprintf(parent, sizeof(parent), "%s", path);
  cgroup_path_parent(parent);
  if (parent_fd < 0 || fstatfs(parent_fd, &fs) < 0)
    return oci_error_errno(err, "cgroup: open '%s'", parent);
  if (fs.f_type != CGROUP2_SUPER_MAGIC)
    return 0;
  if (cgroup_file_read(parent_fd, parent, "cgroup.controllers", &available, err) < 0)
    return -1;
  for (size_t i = 0; i < c->n; i++)
    offered = offered && cgroup_list_has_word(available, c->names[i]);
  if (!offered && !rootless && enable_above(parent_fd, parent, c, rootless, err) < 0)
    return -1;
  return enable_controllers(parent_fd, parent, c, err);
}

int cgroup_slice_enable(int dir_fd, const char *path, bool rootless,
                        const struct cgroup_limits *limits, oci_error_t *err)
{
  struct controllers controllers = {0};
  int ret;

  controllers_for(limits, &controllers);
  ret = enable_above(dir_fd, path, &controllers, rootless, err);
  controllers_clear(&controllers);
  return ret;
}

int cgroup_slice_create(const char *path, bool rootless, const struct cgroup_limits *limits,
                        const struct spec_device_rule *device_rules, size_t n_device_rules,
                        struct cgroup_slice *slice, oci_error_t *err)
{
  cleanup_free char *own_path = NULL;
  cleanup_close int parent_fd = -1, dir_fd = -1;
  char parent[PATH_MAX], first_created[PATH_MAX] = "";
  struct controllers controllers = {0};
  const char *name;
  int ret = -1;

  slice->path = NULL;
  slice->dir_fd = -1;
  if (path == NULL || path[0] != '/' || strlen(path) >= sizeof(parent) ||
      strstr(path, "/../") != NULL || strstr(path, "/./") != NULL || strstr(path, "//") != NULL)
    return oci_error_set(err, 0, "cgroup: invalid slice path '%s'", path ? path : "");
  snprintf(parent, sizeof(parent), "%s", path);
  cgroup_path_parent(parent);
  name = strrchr(path, '/') + 1;
  if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
      strcmp(parent, "/") == 0)
    return oci_error_set(err, 0, "cgroup: invalid slice path '%s'", path);
  if (rootless && device_rules != NULL)
    return oci_error_set(err, EPERM, "cgroup: a device program cannot be attached rootless ('%s')",
                         path);
  if ((own_path = strdup(path)) == NULL)
    return oci_error_errno(err, "cgroup: allocate path");
  if (cgroup_check_host(parent, err) < 0)
    return -1;
  controllers_for(limits, &controllers);
  if (rootless) {
    if (check_delegated(parent, err) < 0)
      goto out;
    parent_fd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (parent_fd < 0) {
      oci_error_errno(err, "cgroup: open '%s'", parent);
      goto out;
    }
    if (enable_controllers(parent_fd, parent, &controllers, err) < 0) {
      oci_error_wrap(err,
                     "rootless: the delegated '%s' cannot give its children the controllers "
                     "the run needs: ",
                     parent);
      goto out;
    }
  } else if (prepare_parent(parent, &controllers, &parent_fd, first_created, err) < 0) {
    remove_created_parents(parent, first_created);
    goto out;
  }
  /* The slice is the run's own: an existing one means a name clash or a
   * crashed runner's leftover (ocirun sweep), never something to share. */
  if (cgroup_mkdir(parent_fd, name) < 0) {
    oci_error_errno(err, "cgroup: mkdir '%s'", path);
    remove_created_parents(parent, first_created);
    goto out;
  }
  dir_fd = openat(parent_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  /* The device program goes on before any process can be in the slice.
   * Rootless: no program (an unprivileged user cannot attach one); the user
   * namespace stands in for it (see devices.c). */
  if (dir_fd < 0 || (limits != NULL && cgroup_limits_write(dir_fd, limits, err) < 0) ||
      (device_rules != NULL &&
       cgroup_devices_attach(dir_fd, path, device_rules, n_device_rules, err) < 0)) {
    if (dir_fd < 0)
      oci_error_errno(err, "cgroup: open '%s'", path);
    if (unlinkat(parent_fd, name, AT_REMOVEDIR) < 0)
      oci_error_wrap(err, "cgroup: (also could not remove '%s': %s) ", path, strerror(errno));
    else
      remove_created_parents(parent, first_created);
    goto out;
  }
  slice->path = steal_pointer(&own_path);
  slice->dir_fd = steal_fd(&dir_fd);
  ret = 0;
out:
  controllers_clear(&controllers);
  return ret;
}
