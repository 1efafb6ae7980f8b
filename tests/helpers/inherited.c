/* What a process inherited, for tests/clean-state.sh (static, so it runs as
 * a container's process, an exec'd one, or a hook of any kind):
 *
 *   inherited report [LABEL]    one key=value line per piece of inherited
 *                               state (fds and what they are, signal
 *                               dispositions and mask, OOM score, session and
 *                               controlling terminal, personality,
 *                               parent-death signal, umask, scheduling)
 *   inherited dirty CMD...      makes this process the dirtiest caller it
 *                               can (ignored and blocked signals, a leaked
 *                               fd 9, OOM score -500 (300 without
 *                               CAP_SYS_RESOURCE), ADDR_NO_RANDOMIZE,
 *                               umask 077, RLIMIT_RTPRIO 7, nice -3, and a
 *                               controlling terminal of its own on fd 8),
 *                               then execs CMD
 *   inherited clear-pdeathsig SECONDS
 *                               clears its own parent-death signal, says so
 *                               and sleeps */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/* report LABEL: every line starts "LABEL: " (a hook writing to a stream
 * that others share) */
static const char *label = "";
#define say(...) (printf("%s", label), printf(__VA_ARGS__))

static void status_field(const char *key)
{
  char line[512];
  FILE *f = fopen("/proc/self/status", "re");
  size_t length = strlen(key);

  while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
    if (strncmp(line, key, length) == 0 && line[length] == ':') {
      char *value = line + length + 1;
      value += strspn(value, " \t");
      value[strcspn(value, "\n")] = '\0';
      say("%c%s=%s\n", key[0] | 0x20, key + 1, value);
    }
  }
  if (f != NULL)
    fclose(f);
}

static void describe_fd(int fd)
{
  char link[64], target[512] = "";
  struct stat st;
  ssize_t n;

  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  n = readlink(link, target, sizeof(target) - 1);
  target[n > 0 ? n : 0] = '\0';
  if (fstat(fd, &st) < 0)
    say("fd%d=closed\n", fd);
  else if (S_ISFIFO(st.st_mode))
    say("fd%d=pipe\n", fd);
  else if (S_ISSOCK(st.st_mode))
    say("fd%d=socket\n", fd);
  else if (S_ISCHR(st.st_mode) && isatty(fd))
    say("fd%d=tty:%s@%lu\n", fd, target, (unsigned long)st.st_dev);
  else if (S_ISCHR(st.st_mode))
    say("fd%d=device:%u:%u@%lu\n", fd, major(st.st_rdev), minor(st.st_rdev),
        (unsigned long)st.st_dev);
  else
    say("fd%d=file:%s\n", fd, target);
}

static int report(void)
{
  DIR *dir = opendir("/proc/self/fd");
  struct dirent *entry;
  struct rlimit rtprio;
  char stat_line[1024] = "", *p;
  int fd, sep = 0, self = dir != NULL ? dirfd(dir) : -1;
  FILE *f;
  mode_t mask;

  say("fds=");
  while (dir != NULL && (entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.' || atoi(entry->d_name) == self)
      continue;
    printf("%s%s", sep++ ? "," : "", entry->d_name);
  }
  printf("\n");
  if (dir != NULL)
    closedir(dir);
  for (fd = 0; fd < 3; fd++)
    describe_fd(fd);
  {
    struct stat null;
    /* the filesystem this process's own /dev/null is on: a device fd on
     * another one is not its root's */
    if (stat("/dev/null", &null) == 0)
      say("dev-null=@%lu\n", (unsigned long)null.st_dev);
  }
  status_field("SigIgn");
  status_field("SigBlk");
  status_field("SigCgt");
  f = fopen("/proc/self/oom_score_adj", "re");
  if (f != NULL && fscanf(f, "%d", &fd) == 1)
    say("oom=%d\n", fd);
  if (f != NULL)
    fclose(f);
  /* fields 1, 5, 6, 7 of stat: pid, pgrp, session, tty_nr, all as the
   * /proc that is mounted counts them (before pivot_root, a container's
   * first process sees the host's) */
  f = fopen("/proc/self/stat", "re");
  if (f != NULL && fgets(stat_line, sizeof(stat_line), f) != NULL &&
      (p = strrchr(stat_line, ')')) != NULL) {
    int pid = atoi(stat_line), pgrp = 0, session = 0, tty = 0;
    if (sscanf(p + 2, "%*c %*d %d %d %d", &pgrp, &session, &tty) == 3) {
      say("pgrp-is-self=%s\n", pgrp == pid ? "yes" : "no");
      say("session-is-self=%s\n", session == pid ? "yes" : "no");
      say("ctty=%d\n", tty);
    }
  }
  if (f != NULL)
    fclose(f);
  fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  say("dev-tty=%s\n", fd >= 0 ? "opens" : errno == ENXIO ? "none" : strerror(errno));
  say("personality=%#x\n", (unsigned)personality(0xffffffff));
  if (prctl(PR_GET_PDEATHSIG, &fd) == 0)
    say("pdeathsig=%d\n", fd);
  mask = umask(0);
  say("umask=%04o\n", (unsigned)mask);
  if (getrlimit(RLIMIT_RTPRIO, &rtprio) == 0)
    say("rtprio=%llu/%llu\n", (unsigned long long)rtprio.rlim_cur,
        (unsigned long long)rtprio.rlim_max);
  errno = 0;
  fd = getpriority(PRIO_PROCESS, 0);
  say("nice=%d\n", fd);
  return 0;
}

/* A controlling terminal of this process's own: a new session, a pty's
 * peer opened without O_NOCTTY (so it becomes the terminal), kept on fd 8. */
static int take_terminal(void)
{
  int master = posix_openpt(O_RDWR | O_NOCTTY), peer;
  char *name;

  if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 || (name = ptsname(master)) == NULL)
    return -1;
  if (getpid() == getpgrp()) {
    pid_t child = fork(); /* a group leader cannot start a session */
    if (child < 0)
      return -1;
    if (child > 0) {
      int status;
      waitpid(child, &status, 0);
      _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    }
  }
  if (setsid() < 0 || (peer = open(name, O_RDWR)) < 0 || dup2(peer, 8) < 0 ||
      ioctl(8, TIOCSCTTY, 0) < 0)
    return -1;
  /* the master too, on fd 7: nobody else holds it, so the pty stays */
  if (dup2(master, 7) < 0)
    return -1;
  if (peer != 8)
    close(peer);
  if (master != 7)
    close(master);
  return 0;
}

static int dirty(char **argv)
{
  struct sigaction ignore = {.sa_handler = SIG_IGN};
  sigset_t blocked;
  int fd;

  if (take_terminal() < 0) {
    perror("inherited dirty: a controlling terminal");
    return 99;
  }
  sigaction(SIGPIPE, &ignore, NULL);
  sigaction(SIGUSR1, &ignore, NULL);
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR2);
  sigaddset(&blocked, SIGTERM);
  sigprocmask(SIG_BLOCK, &blocked, NULL);
  fd = open("/etc/hostname", O_RDONLY);
  if (fd >= 0 && fd != 9) {
    dup2(fd, 9);
    close(fd);
  }
  /* -500 needs CAP_SYS_RESOURCE (a service's score); without it, 300 */
  fd = open("/proc/self/oom_score_adj", O_WRONLY);
  if (fd >= 0 && write(fd, "-500", 4) != 4 && write(fd, "300", 3) != 3)
    perror("inherited dirty: oom_score_adj");
  if (fd >= 0)
    close(fd);
  personality(PER_LINUX | ADDR_NO_RANDOMIZE);
  umask(077);
  setrlimit(RLIMIT_RTPRIO, &(struct rlimit){7, 7});
  setpriority(PRIO_PROCESS, 0, -3);
  execvp(argv[0], argv);
  perror(argv[0]);
  return 127;
}

int main(int argc, char **argv)
{
  if ((argc == 2 || argc == 3) && strcmp(argv[1], "report") == 0) {
    if (argc == 3 && asprintf((char **)&label, "%s: ", argv[2]) < 0)
      return 1;
    return report();
  }
  if (argc >= 3 && strcmp(argv[1], "dirty") == 0)
    return dirty(argv + 2);
  if (argc == 3 && strcmp(argv[1], "clear-pdeathsig") == 0) {
    if (prctl(PR_SET_PDEATHSIG, 0) < 0)
      return 1;
    printf("cleared\n");
    fflush(stdout);
    sleep((unsigned)atoi(argv[2]));
    return 0;
  }
  fprintf(stderr, "usage: inherited report | dirty CMD... | clear-pdeathsig SECONDS\n");
  return 2;
}
