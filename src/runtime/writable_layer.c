/* Where an `ocirun run` root's writable layer lives and how big it may
 * grow (see writable_layer.h). The disk layer is a tree the container
 * writes, so it is measured as a hostile one: from the parent's fd of
 * upper/, by fd and name, never through a symlink or into another mount,
 * with an explicit stack. The measure runs in a child process of its own
 * (the runner's relay, deadline and signals never wait for it), at most
 * once per interval that grows with the measure's own time, so a layer of
 * millions of files costs the runner a bounded share of a CPU. */
#include "config.h"

#include "runtime/writable_layer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oci/cleanup.h"
#include "oci/io.h"
#include "runtime/state/run_dir.h"

#define WALK_INTERVAL_MS 1000
#define WALK_COST_FACTOR 10

/* Filesystems overlayfs refuses as an upper layer (a revalidating, remote
 * or stacked filesystem), by the type the mount table gives: statfs over
 * 9p reports the server's filesystem, not 9p. A "fuse" entry covers its
 * subtypes ("fuse.sshfs"). */
static const char *const no_upper[] = {"9p",      "nfs",     "nfs4", "cifs",     "smb3",  "fuse",
                                       "fuseblk", "overlay", "ceph", "ecryptfs", "vboxsf"};

/* The type of the mount fd is on, from /proc/self/mountinfo by mount id
 * ("ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS] - TYPE SOURCE ..."), into
 * type; 0, or -1 when it cannot be told. */
static int mount_type(int fd, char *type, size_t size)
{
  cleanup_fclose FILE *f = fopen("/proc/self/mountinfo", "re");
  cleanup_free char *line = NULL;
  size_t capacity = 0;
  struct statx stx;

  if (f == NULL || statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) < 0 ||
      !(stx.stx_mask & STATX_MNT_ID))
    return -1;
  while (getline(&line, &capacity, f) > 0) {
    const char *dash = strstr(line, " - ");
    char *end;

    if (strtoull(line, &end, 10) != stx.stx_mnt_id || *end != ' ' || dash == NULL)
      continue;
    snprintf(type, size, "%.*s", (int)strcspn(dash + 3, " \n"), dash + 3);
    return 0;
  }
  return -1;
}

int writable_layer_choose(const struct state_root *state, struct mount_root *root, oci_error_t *err)
{
  /* the run folder when it exists (it could be a mount of its own) */
  int fd = state->folder_fd[STATE_RUN] >= 0 ? state->folder_fd[STATE_RUN] : state->fd;
  char type[64];

  root->layer_fallback = NULL;
  if (!root->overlay || root->layer != ROOT_LAYER_DISK)
    return 0;
  if (fd < 0) { /* no root: state_root_folder names it */
    state_root_folder(state, STATE_RUN, err);
    return oci_error_wrap(err, "writable layer");
  }
  /* Not told: the disk layer, and the overlay's own refusal names it. */
  if (mount_type(fd, type, sizeof(type)) < 0)
    return 0;
  for (size_t i = 0; i < sizeof(no_upper) / sizeof(no_upper[0]); i++) {
    size_t n = strlen(no_upper[i]);

    if (strncmp(type, no_upper[i], n) == 0 &&
        (type[n] == '\0' || (strcmp(no_upper[i], "fuse") == 0 && type[n] == '.'))) {
      root->layer = ROOT_LAYER_TMPFS;
      root->layer_fallback = no_upper[i];
    }
  }
  return 0;
}

int writable_layer_create(struct writable_layer *layer, const struct state_root *state,
                          const char *name, const struct mount_root *root, bool join_userns,
                          struct mount_plan *plan, oci_error_t *err)
{
  bool disk = root->layer == ROOT_LAYER_DISK;
  struct stat lower, mountpoint;

  *layer = (struct writable_layer){.mountpoint_fd = -1,
                                   .upper_fd = -1,
                                   .bound = root->layer_bound,
                                   .join_userns = join_userns,
                                   .walker = -1,
                                   .walker_fd = -1};
  if (disk && fstat(root->root_fd, &lower) < 0)
    return oci_error_errno(err, "run: stat the root '%s'", root->root_path);
  if (run_dir_create(state, name, disk ? &lower : NULL, &layer->mountpoint_fd, &layer->upper_fd,
                     err) < 0)
    return -1;
  /* The root goes onto the directory just created, which this fd holds
   * (so its inode stays that directory's) until teardown. */
  if (fstat(layer->mountpoint_fd, &mountpoint) < 0) {
    oci_error_t ignored = NULL;

    oci_error_errno(err, "run: stat the run dir's mount point");
    writable_layer_close(layer);
    run_dir_remove(state, name, &ignored);
    oci_error_free(&ignored);
    return -1;
  }
  plan->mountpoint_dev = mountpoint.st_dev;
  plan->mountpoint_ino = mountpoint.st_ino;
  return 0;
}

/* ---- the measure ---- */

int writable_layer_measure(int dir_fd, uint64_t *bytes, oci_error_t *err)
{
  DIR *stack[WRITABLE_LAYER_MAX_DEPTH];
  size_t depth = 0;
  uint64_t total;
  struct stat top;
  int fd, ret = -1;

  *bytes = 0;
  if (fstat(dir_fd, &top) < 0)
    return oci_error_errno(err, "writable layer: stat its top");
  total = (uint64_t)top.st_blocks * 512;
  fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || (stack[0] = fdopendir(fd)) == NULL) {
    oci_error_errno(err, "writable layer: open its top");
    if (fd >= 0)
      close(fd);
    return -1;
  }
  depth = 1;
  while (depth > 0) {
    DIR *dir = stack[depth - 1];
    struct dirent *entry;
    struct stat st;
    int sub;

    errno = 0;
    entry = readdir(dir);
    if (entry == NULL) {
      if (errno != 0) {
        oci_error_errno(err, "writable layer: read a directory");
        goto out;
      }
      closedir(stack[--depth]);
      continue;
    }
    if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
      continue;
    if (fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
      if (errno == ENOENT)
        continue; /* removed meanwhile */
      oci_error_errno(err, "writable layer: stat '%s'", entry->d_name);
      goto out;
    }
    if (st.st_dev != top.st_dev)
      continue; /* not the layer's */
    /* every link of a file is in the layer: 1/n at each adds up to it once */
    total += (uint64_t)st.st_blocks * 512 /
             (S_ISDIR(st.st_mode) || st.st_nlink == 0 ? 1 : (uint64_t)st.st_nlink);
    if (!S_ISDIR(st.st_mode))
      continue;
    if (depth == WRITABLE_LAYER_MAX_DEPTH) {
      oci_error_set(err, 0, "writable layer: deeper than %d directories, more than ocirun measures",
                    WRITABLE_LAYER_MAX_DEPTH);
      goto out;
    }
    /* O_DIRECTORY: a name swapped since for a node or a fifo is refused
     * (ENOTDIR) before any device's open runs or a fifo blocks */
    sub = openat(dirfd(dir), entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP))
      continue; /* replaced meanwhile: its new self is counted above or next time */
    if (sub < 0) {
      oci_error_errno(err, "writable layer: open '%s'", entry->d_name);
      goto out;
    }
    stack[depth] = fdopendir(sub);
    if (stack[depth] == NULL) {
      oci_error_errno(err, "writable layer: open '%s'", entry->d_name);
      close(sub);
      goto out;
    }
    depth++;
  }
  *bytes = total;
  ret = 0;
out:
  while (depth > 0)
    closedir(stack[--depth]);
  return ret;
}

/* What the measuring process reports on its pipe. */
enum walk_status { WALK_MEASURED, WALK_FAILED, WALK_CONTAINER_GONE };
struct walk_report {
  int status;
  int errno_value;
  uint64_t bytes;
  char message[256];
};

/* Closes every fd but keep[0] and keep[1] (keep[0] < keep[1]). */
static int close_all_but(const int keep[2])
{
  unsigned int from = 0;

  for (int i = 0; i < 2; i++) {
    if ((unsigned int)keep[i] > from &&
        syscall(SYS_close_range, from, (unsigned int)keep[i] - 1, 0) < 0)
      return -1;
    from = (unsigned int)keep[i] + 1;
  }
  return (int)syscall(SYS_close_range, from, ~0U, 0);
}

/* The measuring process: it joins the container's user namespace when the
 * run has one (rootless: the container's other users' files belong to ids
 * the caller does not own, and are read with the namespace's
 * capabilities), keeps only the upper's fd and its pipe, runs at the
 * lowest priority, and dies with the runner. */
static __attribute__((noreturn)) void walker_main(const struct writable_layer *layer, int pidfd,
                                                  int report_fd)
{
  struct walk_report report = {.status = WALK_MEASURED};
  int keep[2] = {layer->upper_fd < report_fd ? layer->upper_fd : report_fd,
                 layer->upper_fd < report_fd ? report_fd : layer->upper_fd};
  struct rlimit files;
  oci_error_t err = NULL;

  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
    _exit(1);
  if (layer->join_userns && setns(pidfd, CLONE_NEWUSER) < 0) {
    report.status = WALK_CONTAINER_GONE;
  } else if (close_all_but(keep) < 0) {
    report.status = WALK_FAILED;
    report.errno_value = errno;
    snprintf(report.message, sizeof(report.message), "writable layer: close the runner's fds");
  } else {
    (void)setpriority(PRIO_PROCESS, 0, 19);
    /* one fd per level of the stack */
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
      files.rlim_cur = files.rlim_max;
      (void)setrlimit(RLIMIT_NOFILE, &files);
    }
    if (writable_layer_measure(layer->upper_fd, &report.bytes, &err) < 0) {
      report.status = WALK_FAILED;
      report.errno_value = err != NULL ? err->errno_value : 0;
      snprintf(report.message, sizeof(report.message), "%s",
               err != NULL && err->message != NULL ? err->message : "writable layer: measure");
      oci_error_free(&err);
    }
  }
  _exit(oci_write_all(report_fd, &report, sizeof(report)) < 0 ? 1 : 0);
}

static int start_walk(struct writable_layer *layer, int pidfd, oci_error_t *err)
{
  int pipe_fds[2];
  pid_t pid;

  if (pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) < 0)
    return oci_error_errno(err, "writable layer: pipe");
  /* the measure writes its one report blocking */
  if (fcntl(pipe_fds[1], F_SETFL, 0) < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return oci_error_errno(err, "writable layer: pipe");
  }
  pid = fork();
  if (pid == 0)
    walker_main(layer, pidfd, pipe_fds[1]);
  close(pipe_fds[1]);
  if (pid < 0) {
    close(pipe_fds[0]);
    return oci_error_errno(err, "writable layer: fork the measure");
  }
  layer->walker = pid;
  layer->walker_fd = pipe_fds[0];
  return 0;
}

static void stop_walk(struct writable_layer *layer)
{
  if (layer->walker > 0) {
    kill(layer->walker, SIGKILL);
    while (waitpid(layer->walker, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  layer->walker = -1;
  if (layer->walker_fd >= 0)
    close(layer->walker_fd);
  layer->walker_fd = -1;
}

int writable_layer_check(struct writable_layer *layer, int pidfd, int64_t now_ms, int64_t *next_ms,
                         oci_error_t *err)
{
  struct walk_report report;
  int64_t cost, wait;
  ssize_t n;

  *next_ms = INT64_MAX;
  if (layer->upper_fd < 0)
    return 0; /* a tmpfs bounds itself */
  if (layer->walker < 0) {
    /* the layer starts empty: the first measure after one interval, so a
     * short run never forks one */
    if (layer->next_walk_ms == 0)
      layer->next_walk_ms = now_ms + WALK_INTERVAL_MS;
    if (now_ms < layer->next_walk_ms) {
      *next_ms = layer->next_walk_ms;
      return 0;
    }
    if (start_walk(layer, pidfd, err) < 0)
      return -1;
    layer->walk_started_ms = now_ms;
    *next_ms = now_ms + 10;
    return 0;
  }
  do
    n = read(layer->walker_fd, &report, sizeof(report));
  while (n < 0 && errno == EINTR);
  cost = now_ms - layer->walk_started_ms;
  if (n < 0 && errno == EAGAIN) {
    /* still measuring: look again soon, less often the longer it takes */
    wait = cost / 4;
    *next_ms = now_ms + (wait < 10 ? 10 : wait > 250 ? 250 : wait);
    return 0;
  }
  stop_walk(layer);
  wait = cost * WALK_COST_FACTOR;
  layer->next_walk_ms = now_ms + (wait > WALK_INTERVAL_MS ? wait : WALK_INTERVAL_MS);
  *next_ms = layer->next_walk_ms;
  if (n != (ssize_t)sizeof(report))
    return oci_error_set(err, 0, "writable layer: its measure ended without a report");
  report.message[sizeof(report.message) - 1] = '\0';
  switch (report.status) {
  case WALK_CONTAINER_GONE:
    return 0; /* pid 1 is gone: the wait loop sees it next */
  case WALK_FAILED:
    return oci_error_set(err, report.errno_value, "%s", report.message);
  }
  layer->bytes = report.bytes;
  return layer->bytes > layer->bound ? 1 : 0;
}

void writable_layer_close(struct writable_layer *layer)
{
  stop_walk(layer);
  if (layer->upper_fd >= 0)
    close(layer->upper_fd);
  if (layer->mountpoint_fd >= 0)
    close(layer->mountpoint_fd);
  layer->upper_fd = layer->mountpoint_fd = -1;
}
