/* --user resolution: numbers are taken as they are, names are looked up in
 * the image's /etc/passwd and /etc/group, opened with RESOLVE_IN_ROOT so a
 * hostile image cannot point them at the host's files. */
#include "config.h"

#include "runtime/user.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci/file_read.h"
#include "oci/in_root.h"
#include "oci/cleanup.h"

/* Larger account files are refused rather than read without bound. */
#define ACCOUNT_FILE_MAX_BYTES (4 * 1024 * 1024)
#define GROUPS_MAX 256

/* Opens an account file of the image; a missing file is an empty one.
 * Read whole into *text (freed by the caller after *out) by the one reader
 * of outside files, bounded by the bytes read, not by st_size: a link to a
 * procfs file (st_size 0, /proc/self/pagemap reads on for hundreds of
 * gigabytes) would otherwise be read without end. */
static int open_account_file(int rootfs_fd, const char *path, FILE **out, char **text,
                             oci_error_t *err)
{
  cleanup_close int fd = in_root_open(rootfs_fd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
  char what[64];
  size_t used = 0;
  struct stat st;

  *out = NULL;
  *text = NULL;
  if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
    return 0;
  if (fd < 0)
    return oci_error_errno(err, "user: open the image's /%s", path);
  /* O_NONBLOCK and this check: a FIFO or device must not hang or be read. */
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > ACCOUNT_FILE_MAX_BYTES)
    return oci_error_set(err, 0, "user: the image's /%s is not a regular file of sane size", path);
  snprintf(what, sizeof(what), "the image's /%s", path);
  if (oci_file_read_fd(fd, what, ACCOUNT_FILE_MAX_BYTES, text, &used, err) < 0)
    return oci_error_wrap(err, "user");
  if (used == 0)
    return 0;
  *out = fmemopen(*text, used, "r");
  if (*out == NULL)
    return oci_error_errno(err, "user: fmemopen the image's /%s", path);
  return 0;
}

/* Splits a colon-separated line into at most max fields, in place. */
static size_t split_fields(char *line, char **fields, size_t max)
{
  size_t n = 0;

  line[strcspn(line, "\n")] = '\0';
  while (n < max) {
    fields[n++] = line;
    line = strchr(line, ':');
    if (line == NULL)
      break;
    *line++ = '\0';
  }
  return n;
}

static bool parse_id(const char *text, unsigned long *out)
{
  char *end;

  if (!isdigit((unsigned char)text[0]))
    return false;
  errno = 0;
  *out = strtoul(text, &end, 10);
  return errno == 0 && *end == '\0' && *out < 0xffffffffUL;
}

struct passwd_entry {
  bool found;
  char *name;
  uid_t uid;
  gid_t gid;
  char *home;
};

/* Finds the passwd entry by name (when name != NULL) or by uid. */
static int find_passwd(int rootfs_fd, const char *name, uid_t uid, struct passwd_entry *entry,
                       oci_error_t *err)
{
  cleanup_free char *text = NULL; /* declared before f: freed after it */
  cleanup_fclose FILE *f = NULL;
  cleanup_free char *line = NULL;
  size_t cap = 0;

  if (open_account_file(rootfs_fd, "etc/passwd", &f, &text, err) < 0)
    return -1;
  if (f == NULL)
    return 0;
  while (getline(&line, &cap, f) >= 0) {
    char *fields[7];
    unsigned long id, gid;

    if (split_fields(line, fields, 7) < 7 || !parse_id(fields[2], &id) ||
        !parse_id(fields[3], &gid))
      continue;
    if (name != NULL ? strcmp(fields[0], name) != 0 : id != uid)
      continue;
    entry->found = true;
    entry->uid = (uid_t)id;
    entry->gid = (gid_t)gid;
    entry->name = strdup(fields[0]);
    entry->home = strdup(fields[5][0] != '\0' ? fields[5] : "/");
    if (entry->name == NULL || entry->home == NULL)
      return oci_error_errno(err, "user: allocate");
    return 0;
  }
  return 0;
}

/* Resolves a group spec to a gid, and when user_name is given collects the
 * groups listing it as a member. */
static int scan_groups(int rootfs_fd, const char *group_name, gid_t *gid_out, bool *group_found,
                       const char *user_name, struct run_user *out, oci_error_t *err)
{
  cleanup_free char *text = NULL; /* declared before f: freed after it */
  cleanup_fclose FILE *f = NULL;
  cleanup_free char *line = NULL;
  size_t cap = 0;

  if (open_account_file(rootfs_fd, "etc/group", &f, &text, err) < 0)
    return -1;
  if (f == NULL)
    return 0;
  while (getline(&line, &cap, f) >= 0) {
    char *fields[4], *save = NULL;
    unsigned long gid;

    if (split_fields(line, fields, 4) < 4 || !parse_id(fields[2], &gid))
      continue;
    if (group_name != NULL && strcmp(fields[0], group_name) == 0 && !*group_found) {
      *group_found = true;
      *gid_out = (gid_t)gid;
    }
    if (user_name == NULL)
      continue;
    for (char *m = strtok_r(fields[3], ",", &save); m != NULL; m = strtok_r(NULL, ",", &save)) {
      if (strcmp(m, user_name) != 0 || out->n_groups >= GROUPS_MAX)
        continue;
      gid_t *grown = reallocarray(out->groups, out->n_groups + 1, sizeof(*grown));
      if (grown == NULL)
        return oci_error_errno(err, "user: allocate groups");
      out->groups = grown;
      out->groups[out->n_groups++] = (gid_t)gid;
      break;
    }
  }
  return 0;
}

int user_resolve(int rootfs_fd, const char *spec, const char *option, struct run_user *out,
                 oci_error_t *err)
{
  cleanup_free char *user_part = strdup(spec != NULL && spec[0] != '\0' ? spec : "0");
  struct passwd_entry entry = {0};
  char *group_part;
  unsigned long id = 0;
  bool numeric_user;
  int ret = -1;

  *out = (struct run_user){0};
  if (user_part == NULL)
    return oci_error_errno(err, "user: allocate");
  group_part = strchr(user_part, ':');
  if (group_part != NULL)
    *group_part++ = '\0';
  if (user_part[0] == '\0' || (group_part != NULL && group_part[0] == '\0'))
    return oci_error_set(err, 0, "%s '%s': expected UID[:GID] or NAME[:GROUP]", option, spec);

  numeric_user = parse_id(user_part, &id);
  if (find_passwd(rootfs_fd, numeric_user ? NULL : user_part, (uid_t)id, &entry, err) < 0)
    goto out;
  if (!numeric_user && !entry.found) {
    oci_error_set(err, 0, "%s '%s': no user '%s' in the image's /etc/passwd", option, spec,
                  user_part);
    goto out;
  }
  out->uid = numeric_user ? (uid_t)id : entry.uid;
  out->gid = entry.found ? entry.gid : 0;
  out->home = strdup(entry.found ? entry.home : "/");
  if (out->home == NULL) {
    oci_error_errno(err, "user: allocate");
    goto out;
  }

  if (group_part != NULL && parse_id(group_part, &id)) {
    out->gid = (gid_t)id;
  } else if (group_part != NULL) {
    bool found = false;

    if (scan_groups(rootfs_fd, group_part, &out->gid, &found, NULL, out, err) < 0)
      goto out;
    if (!found) {
      oci_error_set(err, 0, "%s '%s': no group '%s' in the image's /etc/group", option, spec,
                    group_part);
      goto out;
    }
  } else if (entry.found) {
    /* As docker: with no explicit group, the user's primary group plus the
     * groups that list it as a member. */
    bool unused = false;

    if (scan_groups(rootfs_fd, NULL, NULL, &unused, entry.name, out, err) < 0)
      goto out;
  }
  ret = 0;
out:
  free(entry.name);
  free(entry.home);
  if (ret < 0)
    user_clear(out);
  return ret;
}

int user_group_resolve(int rootfs_fd, const char *group, const char *option, gid_t *gid,
                       oci_error_t *err)
{
  unsigned long id;
  bool found = false;

  if (parse_id(group, &id)) {
    *gid = (gid_t)id;
    return 0;
  }
  if (scan_groups(rootfs_fd, group, gid, &found, NULL, NULL, err) < 0)
    return -1;
  if (!found)
    return oci_error_set(err, 0, "%s '%s': no such group in the image's /etc/group", option, group);
  return 0;
}

void user_clear(struct run_user *user)
{
  free(user->groups);
  free(user->home);
  *user = (struct run_user){0};
}

int user_default_home(uid_t uid, char *const **envp, oci_error_t *err)
{
  cleanup_close int root_fd = -1;
  struct passwd_entry entry = {0};
  char **env;
  size_t n = 0;
  int ret = -1;

  for (; (*envp)[n] != NULL; n++) {
    if (strncmp((*envp)[n], "HOME=", 5) == 0)
      return 0;
  }
  root_fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0)
    return oci_error_errno(err, "user: open the container's root for its /etc/passwd");
  if (find_passwd(root_fd, NULL, uid, &entry, err) < 0)
    goto out;
  env = calloc(n + 2, sizeof(*env));
  if (env == NULL) {
    oci_error_errno(err, "user: allocate the environment");
    goto out;
  }
  memcpy(env, *envp, n * sizeof(*env));
  if (asprintf(&env[n], "HOME=%s", entry.found ? entry.home : "/") < 0) {
    free(env);
    oci_error_errno(err, "user: allocate HOME");
    goto out;
  }
  *envp = env;
  ret = 0;
out:
  free(entry.name);
  free(entry.home);
  return ret;
}
