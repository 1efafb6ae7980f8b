/* confine-exec: applies ocirun's capability switch, no-new-privileges and
 * seccomp filter exactly as the runtime does, then execs a program; so the
 * confinement is tested in a real process without the rest of the runtime.
 *   confine-exec [--cap-drop CAP|ALL]... [--cap-add CAP]... [--user UID:GID]
 *                [--profile FILE | --unconfined] [--no-nnp] [--cache-root DIR]
 *                -- PROGRAM [ARG...] */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/capabilities.h"
#include "runtime/seccomp/filter.h"

static void print_error(oci_error_t *err)
{
  fprintf(stderr, "confine-exec: %s\n", *err != NULL ? (*err)->message : "out of memory");
  oci_error_free(err);
}

static int parse_cap(const char *name, uint64_t *mask, bool *all)
{
  int cap = capability_from_name(name);
  if (cap == CAPABILITY_ALL)
    *all = true;
  else if (cap >= 0)
    *mask |= UINT64_C(1) << cap;
  else {
    fprintf(stderr, "confine-exec: unknown capability '%s'\n", name);
    return -1;
  }
  return 0;
}

/* The child's order is the runtime's: user and capabilities first, then
 * no-new-privileges, then the filter, then execve. Without
 * no-new-privileges the filter is loaded first, while CAP_SYS_ADMIN still
 * allows it. */
static int confine_child(struct seccomp_filter *filter, uid_t uid, gid_t gid, uint64_t keep,
                         bool nnp, char **command)
{
  oci_error_t err = NULL;

  if (!nnp && seccomp_filter_load(filter, &err) < 0)
    goto fail;
  /* docker's rule: root holds the set, any other uid only the bound */
  struct capability_sets sets = {
      .bounding = keep, .effective = uid == 0 ? keep : 0, .permitted = uid == 0 ? keep : 0};

  if (capabilities_switch_user(uid, gid, true, NULL, 0, &sets, &err) < 0)
    goto fail;
  if (nnp && prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) < 0) {
    perror("confine-exec: prctl(PR_SET_NO_NEW_PRIVS)");
    return 125;
  }
  if (nnp && seccomp_filter_load(filter, &err) < 0)
    goto fail;
  execv(command[0], command);
  perror("confine-exec: execv");
  return 127;
fail:
  print_error(&err);
  return 125;
}

int main(int argc, char **argv)
{
  static const struct option options[] = {
      {"cap-drop", required_argument, NULL, 'd'},   {"cap-add", required_argument, NULL, 'a'},
      {"user", required_argument, NULL, 'u'},       {"profile", required_argument, NULL, 'p'},
      {"unconfined", no_argument, NULL, 'U'},       {"no-nnp", no_argument, NULL, 'n'},
      {"cache-root", required_argument, NULL, 'c'}, {NULL, 0, NULL, 0},
  };
  uint64_t drop = 0, add = 0, keep;
  bool drop_all = false, add_all = false, nnp = true;
  unsigned uid = 0, gid = 0;
  const char *cache_root = NULL;
  const char *profile_path = NULL;
  bool unconfined = false;
  struct seccomp_filter *filter = NULL;
  oci_error_t err = NULL;
  int c, status;
  pid_t pid;

  while ((c = getopt_long(argc, argv, "+", options, NULL)) != -1) {
    switch (c) {
    case 'd':
      if (parse_cap(optarg, &drop, &drop_all) < 0)
        return 2;
      break;
    case 'a':
      if (parse_cap(optarg, &add, &add_all) < 0)
        return 2;
      break;
    case 'u':
      if (sscanf(optarg, "%u:%u", &uid, &gid) != 2)
        return 2;
      break;
    case 'p':
      profile_path = optarg;
      break;
    case 'U':
      unconfined = true;
      break;
    case 'n':
      nnp = false;
      break;
    case 'c':
      cache_root = optarg;
      break;
    default:
      return 2;
    }
  }
  if (optind >= argc) {
    fprintf(stderr, "confine-exec: no command\n");
    return 2;
  }
  keep = drop_all ? 0 : capabilities_docker_default() & ~drop;
  keep |= add_all ? ~UINT64_C(0) : add;
  /* Built in the parent, as the runtime builds it before clone. */
  if (!unconfined &&
      seccomp_filter_build_cached(profile_path, keep, cache_root, &filter, &err) < 0) {
    print_error(&err);
    return 125;
  }
  pid = fork();
  if (pid < 0) {
    perror("confine-exec: fork");
    return 125;
  }
  if (pid == 0)
    _exit(confine_child(filter, uid, gid, keep, nnp, argv + optind));
  seccomp_filter_free(filter);
  if (waitpid(pid, &status, 0) < 0) {
    perror("confine-exec: waitpid");
    return 125;
  }
  if (WIFSIGNALED(status)) {
    fprintf(stderr, "confine-exec: child killed by signal %d\n", WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}
