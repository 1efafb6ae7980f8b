/* The user namespace of a rootless run (see userns.h). The caller's own uid
 * and gid become 0 inside. A subordinate range is used only when
 * /etc/subuid and /etc/subgid both grant the caller one and the setuid
 * helpers exist: the helpers check the grant themselves, so ocirun never
 * needs a privilege of its own to write a range. */
#include "config.h"

#include "runtime/userns.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/io.h"

#define NEWUIDMAP "/usr/bin/newuidmap"
#define NEWGIDMAP "/usr/bin/newgidmap"

/* The first "name:start:count" or "uid:start:count" line for this user. */
static bool find_subordinate_range(const char *file, const char *name, unsigned id,
                                   struct id_range *out)
{
  cleanup_fclose FILE *f = fopen(file, "re");
  char line[512], id_text[16];

  if (f == NULL)
    return false;
  snprintf(id_text, sizeof(id_text), "%u", id);
  while (fgets(line, sizeof(line), f) != NULL) {
    char *save = NULL;
    char *owner = strtok_r(line, ":\n", &save);
    char *start = strtok_r(NULL, ":\n", &save);
    char *count = strtok_r(NULL, ":\n", &save);
    unsigned long long first, length;
    char *end;

    if (owner == NULL || start == NULL || count == NULL)
      continue;
    if (strcmp(owner, id_text) != 0 && (name == NULL || strcmp(owner, name) != 0))
      continue;
    errno = 0;
    first = strtoull(start, &end, 10);
    if (errno != 0 || *end != '\0')
      continue;
    length = strtoull(count, &end, 10);
    if (errno != 0 || *end != '\0' || length == 0 || first + length > 0xffffffffULL)
      continue;
    *out = (struct id_range){.inside = 1, .outside = (unsigned)first, .count = (unsigned)length};
    return true;
  }
  return false;
}

void userns_map_choose(struct userns_map *map)
{
  struct passwd entry, *found = NULL;
  char buffer[4096];
  uid_t uid = geteuid();
  gid_t gid = getegid();
  int ret = getpwuid_r(uid, &entry, buffer, sizeof(buffer), &found);
  const char *name = ret == 0 && found != NULL ? found->pw_name : NULL;

  *map = (struct userns_map){.n_ranges = 1, .n_gid_ranges = 1, .self_only = true};
  map->uid[0] = (struct id_range){.inside = 0, .outside = uid, .count = 1};
  map->gid[0] = (struct id_range){.inside = 0, .outside = gid, .count = 1};
  if (access(NEWUIDMAP, X_OK) == 0 && access(NEWGIDMAP, X_OK) == 0 &&
      find_subordinate_range("/etc/subuid", name, uid, &map->uid[1]) &&
      find_subordinate_range("/etc/subgid", name, uid, &map->gid[1])) {
    map->n_ranges = map->n_gid_ranges = 2;
    map->self_only = false;
  }
}

int userns_map_from_ranges(const struct id_range *uid, size_t n_uid, const struct id_range *gid,
                           size_t n_gid, bool rootless, struct userns_map *map, oci_error_t *err)
{
  *map = (struct userns_map){.n_ranges = n_uid, .n_gid_ranges = n_gid};
  if (n_uid == 0 || n_gid == 0)
    return oci_error_set(err, 0,
                         "a new user namespace needs linux.uidMappings and linux.gidMappings");
  if (n_uid > USERNS_MAX_RANGES || n_gid > USERNS_MAX_RANGES)
    return oci_error_set(err, 0, "more than %d uid or gid mappings", USERNS_MAX_RANGES);
  for (size_t i = 0; i < n_uid; i++)
    map->uid[i] = uid[i];
  for (size_t i = 0; i < n_gid; i++)
    map->gid[i] = gid[i];
  map->self_only = rootless && n_uid == 1 && n_gid == 1 && uid[0].count == 1 && gid[0].count == 1 &&
                   uid[0].outside == geteuid() && gid[0].outside == getegid();
  return 0;
}

static bool ranges_have(const struct id_range *ranges, size_t n, unsigned id)
{
  for (size_t i = 0; i < n; i++) {
    if (id >= ranges[i].inside && id - ranges[i].inside < ranges[i].count)
      return true;
  }
  return false;
}

bool userns_map_has_uid(const struct userns_map *map, unsigned uid)
{
  return ranges_have(map->uid, map->n_ranges, uid);
}

bool userns_map_has_gid(const struct userns_map *map, unsigned gid)
{
  return ranges_have(map->gid, map->n_gid_ranges, gid);
}

static bool ranges_host(const struct id_range *ranges, size_t n, unsigned id, unsigned *host)
{
  for (size_t i = 0; i < n; i++) {
    if (id >= ranges[i].inside && id - ranges[i].inside < ranges[i].count) {
      *host = ranges[i].outside + (id - ranges[i].inside);
      return true;
    }
  }
  return false;
}

bool userns_map_host_uid(const struct userns_map *map, unsigned id, unsigned *host)
{
  return ranges_host(map->uid, map->n_ranges, id, host);
}

bool userns_map_host_gid(const struct userns_map *map, unsigned id, unsigned *host)
{
  return ranges_host(map->gid, map->n_gid_ranges, id, host);
}

bool userns_map_allows_setgroups(const struct userns_map *map)
{
  return !map->self_only;
}

/* Runs newuidmap/newgidmap PID inside outside count ... and waits for it. */
static int run_map_helper(const char *helper, const char *grant, pid_t pid,
                          const struct id_range *ranges, size_t n, oci_error_t *err)
{
  char args[1 + USERNS_MAX_RANGES * 3][16];
  char *argv[1 + 1 + USERNS_MAX_RANGES * 3 + 1];
  char *envp[] = {"PATH=/usr/bin:/bin", NULL};
  size_t argc = 0;
  pid_t child;
  int status, ret;

  argv[argc++] = (char *)helper;
  snprintf(args[0], sizeof(args[0]), "%d", (int)pid);
  argv[argc++] = args[0];
  for (size_t i = 0; i < n; i++) {
    snprintf(args[1 + 3 * i], sizeof(args[0]), "%u", ranges[i].inside);
    snprintf(args[2 + 3 * i], sizeof(args[0]), "%u", ranges[i].outside);
    snprintf(args[3 + 3 * i], sizeof(args[0]), "%u", ranges[i].count);
    argv[argc++] = args[1 + 3 * i];
    argv[argc++] = args[2 + 3 * i];
    argv[argc++] = args[3 + 3 * i];
  }
  argv[argc] = NULL;
  ret = posix_spawn(&child, helper, NULL, NULL, argv, envp);
  if (ret != 0)
    return oci_error_set(err, ret, "userns: start %s", helper);
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR)
      return oci_error_errno(err, "userns: wait for %s", helper);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return oci_error_set(err, 0, "userns: %s %d failed (status 0x%x): is the range in %s yours?",
                         helper, (int)pid, (unsigned)status, grant);
  return 0;
}

static int write_proc_file(pid_t pid, const char *file, const char *text, oci_error_t *err)
{
  char path[64];
  cleanup_close int fd = -1;

  snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
  fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || oci_write_all(fd, text, strlen(text)) < 0)
    return oci_error_errno(err, "userns: write '%s' to %s", text, path);
  return 0;
}

/* The lines of a uid_map or gid_map file. */
static void format_ranges(const struct id_range *ranges, size_t n, char *text, size_t size)
{
  size_t used = 0;

  text[0] = '\0';
  for (size_t i = 0; i < n && used < size; i++)
    used += (size_t)snprintf(text + used, size - used, "%u %u %u\n", ranges[i].inside,
                             ranges[i].outside, ranges[i].count);
}

int userns_map_write(const struct userns_map *map, pid_t pid, oci_error_t *err)
{
  char text[USERNS_MAX_RANGES * 40];

  /* An unprivileged process may map only its own ids, and its own gid
   * only once setgroups is denied for good in that namespace; anything
   * else it asks of the setuid helpers. Root writes any mapping itself. */
  if (geteuid() != 0 && !map->self_only)
    return run_map_helper(NEWUIDMAP, "/etc/subuid", pid, map->uid, map->n_ranges, err) < 0 ||
                   run_map_helper(NEWGIDMAP, "/etc/subgid", pid, map->gid, map->n_gid_ranges, err) <
                       0
               ? -1
               : 0;
  format_ranges(map->uid, map->n_ranges, text, sizeof(text));
  if (write_proc_file(pid, "uid_map", text, err) < 0 ||
      (map->self_only && write_proc_file(pid, "setgroups", "deny", err) < 0))
    return -1;
  format_ranges(map->gid, map->n_gid_ranges, text, sizeof(text));
  return write_proc_file(pid, "gid_map", text, err);
}

static void print_ranges(const char *what, const struct id_range *ranges, size_t n, FILE *out)
{
  fprintf(out, "%s", what);
  for (size_t i = 0; i < n; i++)
    fprintf(out, "%s %u->%u (%u)", i > 0 ? "," : "", ranges[i].inside, ranges[i].outside,
            ranges[i].count);
}

void userns_map_print(const struct userns_map *map, FILE *out)
{
  print_ranges("uid", map->uid, map->n_ranges, out);
  print_ranges("; gid", map->gid, map->n_gid_ranges, out);
  fprintf(out, "%s\n", map->self_only ? " (only the caller's ids: setgroups denied)" : "");
}

int userns_become_root(oci_error_t *err)
{
  /* EINVAL: the id is not mapped in the namespace; the process keeps its
   * host ids, and the user switch later decides. */
  if (setresgid(0, 0, 0) < 0 && errno != EINVAL)
    return oci_error_errno(err, "user namespace: take gid 0 of the namespace");
  if (setresuid(0, 0, 0) < 0 && errno != EINVAL)
    return oci_error_errno(err, "user namespace: take uid 0 of the namespace");
  return 0;
}
