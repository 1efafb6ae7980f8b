/* sysprobe: attempts the actions named on its command line and prints one
 * line each ("NAME errno=EPERM", "NAME errno=0", "caps CapEff=..."), exit 0.
 * Linked statically, so it runs in any image; the tests read its output.
 *
 *   unix-connect=PATH        connects a unix stream socket to PATH (which
 *                            may be /proc/self/fd/N) and sends a line
 *   foreign-exe=SECONDS      for SECONDS, watches /proc for a process whose
 *                            executable is no file of this process's root
 *                            (a runtime's binary, seen from a container),
 *                            holds it open, and once nothing runs it any
 *                            more opens it for writing and appends a
 *                            marker (errno=0: it did; ETIMEDOUT: nothing
 *                            was found or it stayed unwritable)
 *   securebits               prints "securebits N", PR_GET_SECUREBITS's value
 *   flood=SIGNAL             ignores SIGNAL, leaves its session and sends it
 *                            to pid 1 as fast as it can, until killed
 *   seize-foreign=SECONDS    the same watch; attaches to that process with
 *                            PTRACE_SEIZE (which does not stop it; the
 *                            tracee is let go when this exits) and prints
 *                            its effective capabilities */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <dirent.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

static void report(const char *name, long ret, int saved_errno)
{
  if (ret < 0)
    printf("%s errno=%s\n", name,
           strerrorname_np(saved_errno) ? strerrorname_np(saved_errno) : "?");
  else
    printf("%s errno=0\n", name);
}

/* Lines of /proc/self/status whose key starts with prefix. */
static void print_status(const char *label, const char *const *keys)
{
  char line[256];
  FILE *f = fopen("/proc/self/status", "re");
  printf("%s", label);
  if (f == NULL) {
    printf(" error=%s\n", strerrorname_np(errno));
    return;
  }
  while (fgets(line, sizeof(line), f) != NULL) {
    for (const char *const *k = keys; *k != NULL; k++) {
      size_t n = strlen(*k);
      if (strncmp(line, *k, n) == 0 && line[n] == ':') {
        char *v = line + n + 1;
        v += strspn(v, " \t");
        v[strcspn(v, "\n")] = '\0';
        printf(" %s=%s", *k, v);
      }
    }
  }
  fclose(f);
  printf("\n");
}

/* A 32-bit x86 system call from this 64-bit process: seccomp sees it as
 * AUDIT_ARCH_I386, so only a filter that covers that ABI controls it. */
static long int80(long nr, long a, long b, long c)
{
#if defined(__x86_64__)
  long ret;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
  if (ret < 0 && ret > -4096) {
    errno = (int)-ret;
    return -1;
  }
  return ret;
#else
  errno = ENOSYS;
  return -1;
#endif
}

/* socket()'s type for a family: AF_ALG takes only SOCK_SEQPACKET. */
static int socket_type(unsigned long long family)
{
  return (family & 0xffffffff) == 38 /* AF_ALG */ ? SOCK_SEQPACKET : SOCK_STREAM;
}

/* A socket of the family (as the 64-bit register holds it: the kernel
 * reads an int) through the given door, closed again: "socket" is the
 * direct call, "int80-socket" i386's direct call, "int80-socketcall"
 * i386's socketcall(SYS_SOCKET), whose arguments are in memory, which must
 * lie below 4 GiB for a 32-bit call. */
static long probe_socket(const char *door, const char *arg)
{
  unsigned long long family = arg != NULL ? strtoull(arg, NULL, 0) : 0;
  long ret;

  if (strcmp(door, "socket") == 0) {
    ret = syscall(SYS_socket, family, socket_type(family), 0);
  } else if (strcmp(door, "int80-socket") == 0) {
    ret = int80(359 /* i386 socket */, (long)family, socket_type(family), 0);
  } else {
    uint32_t *args =
        mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (args == MAP_FAILED)
      return -1;
    args[0] = (uint32_t)family;
    args[1] = (uint32_t)socket_type(family);
    args[2] = 0;
    ret = int80(102 /* i386 socketcall */, 1 /* SYS_SOCKET */, (long)(uintptr_t)args, 0);
    munmap(args, 4096);
  }
  if (ret >= 0)
    close((int)ret);
  return ret;
}

static long probe_unix_connect(const char *path)
{
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  long ret;

  if (fd < 0 || path == NULL)
    return -1;
  snprintf(address.sun_path, sizeof(address.sun_path), "%s", path);
  ret = connect(fd, (struct sockaddr *)&address, sizeof(address));
  if (ret == 0 && write(fd, "sysprobe-connected\n", 19) != 19)
    ret = -1;
  close(fd);
  return ret;
}

/* The held executable of a process whose exe is not the file of that path
 * in this process's root (or no file there at all), or -1; *pid is that
 * process. */
static int hold_foreign_exe(int *pid)
{
  DIR *proc = opendir("/proc");
  struct dirent *entry;
  int held = -1;

  while (proc != NULL && held < 0 && (entry = readdir(proc)) != NULL) {
    char link[64], target[512];
    struct stat exe, here;
    ssize_t n;
    int fd;

    if (atoi(entry->d_name) <= 0 || atoi(entry->d_name) == getpid())
      continue;
    snprintf(link, sizeof(link), "/proc/%.32s/exe", entry->d_name);
    n = readlink(link, target, sizeof(target) - 1);
    if (n <= 0)
      continue;
    target[n] = '\0';
    if (strncmp(target, "/memfd:", 7) == 0)
      continue;
    fd = open(link, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      continue;
    if (fstat(fd, &exe) == 0 &&
        (stat(target, &here) < 0 || here.st_dev != exe.st_dev || here.st_ino != exe.st_ino)) {
      printf("foreign-exe held %s (pid %s)\n", target, entry->d_name);
      held = fd;
      *pid = atoi(entry->d_name);
    } else {
      close(fd);
    }
  }
  if (proc != NULL)
    closedir(proc);
  return held;
}

/* What a tracer sees of a process it attached to at once: its effective
 * capabilities. 0 when attached (the tracee is let go when this exits). */
static int seize_and_show(int pid)
{
  char path[64], line[256];
  FILE *status;

  if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) < 0)
    return -1;
  snprintf(path, sizeof(path), "/proc/%d/status", pid);
  status = fopen(path, "re");
  while (status != NULL && fgets(line, sizeof(line), status) != NULL)
    if (strncmp(line, "CapEff:", 7) == 0)
      printf("seized pid %d %s", pid, line);
  if (status != NULL)
    fclose(status);
  return 0;
}

static long probe_foreign_exe(const char *arg, bool seize)
{
  time_t deadline = time(NULL) + (arg != NULL ? atoi(arg) : 10);
  int held = -1, pid = 0, saved = ETIMEDOUT;

  while (time(NULL) < deadline) {
    if (held < 0) {
      held = hold_foreign_exe(&pid);
      /* at once: the process runs ocirun's code for a few milliseconds */
      if (held >= 0 && seize) {
        if (seize_and_show(pid) == 0)
          return 0;
        saved = errno;
        printf("seize pid %d errno=%s\n", pid, strerrorname_np(saved));
        close(held);
        held = -1;
      }
    } else {
      char path[64];
      int fd;

      snprintf(path, sizeof(path), "/proc/self/fd/%d", held);
      fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
      if (fd >= 0) {
        long ret = write(fd, "SYSPROBE-WAS-HERE", 17) == 17 ? 0 : -1;
        close(fd);
        return ret;
      }
      usleep(1000);
    }
  }
  errno = saved;
  return -1;
}

/* Probes that would change this process (or, run unconfined, the host)
 * run in a child, which reports its errno as its exit status. */
static long in_child(int (*fn)(void))
{
  int status;
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0)
    _exit(fn() < 0 ? (errno & 0xff) : 0);
  if (waitpid(pid, &status, 0) < 0)
    return -1;
  if (!WIFEXITED(status)) {
    errno = EINTR;
    return -1;
  }
  errno = WEXITSTATUS(status);
  return errno == 0 ? 0 : -1;
}

/* A user namespace needs no capability: only seccomp stops it. */
static int probe_unshare(void)
{
  return unshare(CLONE_NEWUSER);
}

/* Onto a fresh empty directory, never over anything that matters, and
 * undone at once if it works (when run unconfined as root). */
static int probe_mount(void)
{
  char dir[] = "/tmp/sysprobe-mount.XXXXXX";
  const char *target = mkdtemp(dir) != NULL ? dir : "/sysprobe-mount-target";
  int ret = mount("none", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k");
  int saved = errno;
  if (ret == 0)
    umount2(target, MNT_DETACH);
  if (target == dir)
    rmdir(dir);
  errno = saved;
  return ret;
}

static long probe(const char *name, const char *arg)
{
  char buf[4096];
  long ret;

  if (strcmp(name, "keyctl") == 0)
    return syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
  if (strcmp(name, "add_key") == 0)
    return syscall(SYS_add_key, "user", "ocirun", "x", 1, KEY_SPEC_PROCESS_KEYRING);
  if (strcmp(name, "unshare") == 0)
    return in_child(probe_unshare);
  if (strcmp(name, "mount") == 0)
    return in_child(probe_mount);
  if (strcmp(name, "ptrace-parent") == 0) {
    /* SEIZE makes the same permission check as ATTACH without stopping
     * the parent; the tracee is released when this process exits. */
    pid_t parent = arg != NULL ? (pid_t)atoi(arg) : getppid();
    return ptrace(PTRACE_SEIZE, parent, NULL, NULL);
  }
  if (strcmp(name, "raw-socket") == 0) {
    ret = socket(AF_INET, SOCK_RAW, 1 /* ICMP */);
    if (ret >= 0)
      close((int)ret);
    return ret;
  }
  if (strcmp(name, "vsock") == 0) {
    ret = socket(AF_VSOCK, SOCK_STREAM, 0);
    if (ret >= 0)
      close((int)ret);
    return ret;
  }
  if (strcmp(name, "inet-socket") == 0) {
    ret = socket(AF_INET, SOCK_STREAM, 0);
    if (ret >= 0)
      close((int)ret);
    return ret;
  }
  if (strcmp(name, "personality") == 0)
    return personality(arg != NULL ? strtoul(arg, NULL, 0) : 0xffffffffUL);
  if (strcmp(name, "clone-newuser") == 0 || strcmp(name, "clone-thread") == 0) {
    unsigned long flags = SIGCHLD | (name[6] == 'n' ? CLONE_NEWUSER : 0);
    ret = syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
    if (ret == 0)
      _exit(0);
    if (ret > 0)
      waitpid((pid_t)ret, NULL, 0);
    return ret;
  }
  if (strcmp(name, "clone3") == 0)
    return syscall(SYS_clone3, NULL, 0);
  if (strcmp(name, "getcwd") == 0)
    return syscall(SYS_getcwd, buf, sizeof(buf));
  if (strcmp(name, "int80-personality") == 0)
    return int80(136 /* i386 personality */, arg != NULL ? strtol(arg, NULL, 0) : 0xffffffffL, 0,
                 0);
  if (strcmp(name, "int80-getpid") == 0)
    return int80(20 /* i386 getpid */, 0, 0, 0);
  if (strcmp(name, "int80-keyctl") == 0)
    return int80(288 /* i386 keyctl */, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0);
  /* SCHED_FIFO priority 1 for this process (RLIMIT_RTPRIO allows it
   * without CAP_SYS_NICE) */
  if (strcmp(name, "sched-fifo") == 0)
    return sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){.sched_priority = 1});
  /* i386's msgget(IPC_PRIVATE): "int80-msgget" the direct call,
   * "int80-ipc-msgget=V" ipc(2) with version V in the call number's high
   * 16 bits, which the kernel drops. */
  if (strcmp(name, "int80-msgget") == 0)
    return int80(399 /* i386 msgget */, IPC_PRIVATE, 0600, 0);
  if (strcmp(name, "int80-ipc-msgget") == 0) {
    long version = arg != NULL ? strtol(arg, NULL, 0) : 0;
    return int80(117 /* i386 ipc */, version << 16 | 13 /* MSGGET */, IPC_PRIVATE, 0600);
  }
  if (strcmp(name, "socket") == 0 || strcmp(name, "int80-socket") == 0 ||
      strcmp(name, "int80-socketcall") == 0)
    return probe_socket(name, arg);
  if (strcmp(name, "setuid0") == 0)
    return setuid(0);
  if (strcmp(name, "unix-connect") == 0)
    return probe_unix_connect(arg);
  if (strcmp(name, "flood") == 0) {
    int sig = arg != NULL ? atoi(arg) : SIGHUP;
    signal(sig, SIG_IGN);
    setsid();
    for (;;)
      kill(1, sig);
  }
  if (strcmp(name, "foreign-exe") == 0 || strcmp(name, "seize-foreign") == 0)
    return probe_foreign_exe(arg, name[0] == 's');
  fprintf(stderr, "sysprobe: unknown action '%s'\n", name);
  exit(2);
}

int main(int argc, char **argv)
{
  static const char *const caps[] = {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", NULL};
  static const char *const nnp[] = {"NoNewPrivs", NULL};
  static const char *const mode[] = {"Seccomp", NULL};
  static const char *const ids[] = {"Uid", "Gid", "Groups", NULL};

  setvbuf(stdout, NULL, _IOLBF, 0);
  for (int i = 1; i < argc; i++) {
    char name[64], *arg;
    long ret;
    int saved;
    if (strcmp(argv[i], "caps") == 0) {
      print_status("caps", caps);
      continue;
    }
    if (strcmp(argv[i], "nnp") == 0) {
      print_status("nnp", nnp);
      continue;
    }
    if (strcmp(argv[i], "seccomp-mode") == 0) {
      print_status("seccomp-mode", mode);
      continue;
    }
    if (strcmp(argv[i], "ids") == 0) {
      print_status("ids", ids);
      continue;
    }
    if (strcmp(argv[i], "securebits") == 0) {
      printf("securebits %d\n", prctl(PR_GET_SECUREBITS));
      continue;
    }
    /* "personality=0x400000": an argument, echoed back in the report */
    snprintf(name, sizeof(name), "%s", argv[i]);
    arg = strchr(name, '=');
    if (arg != NULL)
      *arg++ = '\0';
    errno = 0;
    ret = probe(name, arg);
    saved = errno;
    report(argv[i], ret, saved);
  }
  return 0;
}
