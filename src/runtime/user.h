/* Who the run's process is: --user (or the image's user) resolved against
 * the image's own /etc/passwd and /etc/group, read inside the rootfs. */
#ifndef USER_H
#define USER_H

#include <stddef.h>
#include <sys/types.h>

#include "oci/error.h"

struct run_user {
  uid_t uid;
  gid_t gid;
  gid_t *groups; /* supplementary groups */
  size_t n_groups;
  char *home; /* from passwd, "/" when the user has no entry */
};

/* spec: "UID[:GID]" or "NAME[:GROUP]" (NULL or "" = root). option names
 * where spec came from, for messages ("--user" or "image config user"). */
int user_resolve(int rootfs_fd, const char *spec, const char *option, struct run_user *out,
                 oci_error_t *err);
/* A group as a gid: a number, or a name of the image's /etc/group. */
int user_group_resolve(int rootfs_fd, const char *group, const char *option, gid_t *gid,
                       oci_error_t *err);
void user_clear(struct run_user *user);
/* Inside the container (its root is the process's "/", after pivot_root
 * or an exec's setns): when *envp has no HOME, *envp becomes a copy with
 * HOME set from the image's passwd entry for uid, or "/" when it has none
 * (runc's and crun's rule); the copy lives until the process execs. */
int user_default_home(uid_t uid, char *const **envp, oci_error_t *err);

#endif
