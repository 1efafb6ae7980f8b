/* Docker's default seccomp profile as ocirun's own table: what a container
 * may call. Everything not listed fails with EPERM. Rules that need a
 * capability only apply when the run keeps that capability. Sockets are
 * closed tighter than Docker's (socketcall, the families: below). */
#include "config.h"

#include <errno.h>
#include <linux/personality.h>
#include <sched.h>
#include <sys/socket.h>

#include "runtime/seccomp/rules.h"

#define CAP(name) (UINT64_C(1) << (name))
/* Capability numbers, spelled out so this table needs no libcap header. */
enum {
  CAP_DAC_READ_SEARCH_ = 2,
  CAP_SYS_MODULE_ = 16,
  CAP_SYS_RAWIO_ = 17,
  CAP_SYS_CHROOT_ = 18,
  CAP_SYS_PTRACE_ = 19,
  CAP_SYS_PACCT_ = 20,
  CAP_SYS_ADMIN_ = 21,
  CAP_SYS_BOOT_ = 22,
  CAP_SYS_NICE_ = 23,
  CAP_SYS_TIME_ = 25,
  CAP_SYS_TTY_CONFIG_ = 26,
  CAP_SYSLOG_ = 34,
  CAP_PERFMON_ = 38,
  CAP_BPF_ = 39,
};

#define NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})
#define KERNEL(major, minor) (((major) << 16) | (minor))
#define ALLOW .action = SCMP_ACT_ALLOW, .errno_ret = -1

/* Every namespace flag clone accepts: without CAP_SYS_ADMIN a container
 * may create threads and processes but no namespaces. */
#define CLONE_NAMESPACE_FLAGS                                                                      \
  (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET |       \
   CLONE_NEWCGROUP)

#define PERSONALITY(persona)                                                                       \
  {                                                                                                \
    .names = NAMES("personality"), ALLOW, .n_args = 1,                                             \
    .args = {{.index = 0, .value = (persona), .op = SCMP_CMP_EQ}},                                 \
  }

/* socket(family, ...) for one family, or for every family below one. */
#define SOCKET_FAMILY(family)                                                                      \
  {                                                                                                \
    .names = NAMES("socket"), ALLOW, .n_args = 1,                                                  \
    .args = {{.index = 0, .value = (family), .op = SCMP_CMP_EQ}},                                  \
  }
#define SOCKET_FAMILIES_BELOW(family)                                                              \
  {                                                                                                \
    .names = NAMES("socket"), ALLOW, .n_args = 1,                                                  \
    .args = {{.index = 0, .value = (family), .op = SCMP_CMP_LT}},                                  \
  }

static const struct seccomp_rule default_rules[] = {
    /* Ordinary process life: files, memory, signals, time, sockets, IPC. */
    {
        .names = NAMES(
            "accept", "accept4", "access", "adjtimex", "alarm", "bind", "brk", "cachestat",
            "capget", "capset", "chdir", "chmod", "chown", "chown32", "clock_adjtime",
            "clock_adjtime64", "clock_getres", "clock_getres_time64", "clock_gettime",
            "clock_gettime64", "clock_nanosleep", "clock_nanosleep_time64", "close", "close_range",
            "connect", "copy_file_range", "creat", "dup", "dup2", "dup3", "epoll_create",
            "epoll_create1", "epoll_ctl", "epoll_ctl_old", "epoll_pwait", "epoll_pwait2",
            "epoll_wait", "epoll_wait_old", "eventfd", "eventfd2", "execve", "execveat", "exit",
            "exit_group", "faccessat", "faccessat2", "fadvise64", "fadvise64_64", "fallocate",
            "fanotify_mark", "fchdir", "fchmod", "fchmodat", "fchmodat2", "fchown", "fchown32",
            "fchownat", "fcntl", "fcntl64", "fdatasync", "fgetxattr", "flistxattr", "flock", "fork",
            "fremovexattr", "fsetxattr", "fstat", "fstat64", "fstatat64", "fstatfs", "fstatfs64",
            "fsync", "ftruncate", "ftruncate64", "futex", "futex_requeue", "futex_time64",
            "futex_wait", "futex_waitv", "futex_wake", "futimesat", "getcpu", "getcwd", "getdents",
            "getdents64", "getegid", "getegid32", "geteuid", "geteuid32", "getgid", "getgid32",
            "getgroups", "getgroups32", "getitimer", "getpeername", "getpgid", "getpgrp", "getpid",
            "getppid", "getpriority", "getrandom", "getresgid", "getresgid32", "getresuid",
            "getresuid32", "getrlimit", "get_robust_list", "getrusage", "getsid", "getsockname",
            "getsockopt", "get_thread_area", "gettid", "gettimeofday", "getuid", "getuid32",
            "getxattr", "inotify_add_watch", "inotify_init", "inotify_init1", "inotify_rm_watch",
            "io_cancel", "ioctl", "io_destroy", "io_getevents", "io_pgetevents",
            "io_pgetevents_time64", "ioprio_get", "ioprio_set", "io_setup", "io_submit", "ipc",
            "kill", "landlock_add_rule", "landlock_create_ruleset", "landlock_restrict_self",
            "lchown", "lchown32", "lgetxattr", "link", "linkat", "listen", "listxattr",
            "llistxattr", "_llseek", "lremovexattr", "lseek", "lsetxattr", "lstat", "lstat64",
            "madvise", "map_shadow_stack", "membarrier", "memfd_create", "memfd_secret", "mincore",
            "mkdir", "mkdirat", "mknod", "mknodat", "mlock", "mlock2", "mlockall", "mmap", "mmap2",
            "mprotect", "mq_getsetattr", "mq_notify", "mq_open", "mq_timedreceive",
            "mq_timedreceive_time64", "mq_timedsend", "mq_timedsend_time64", "mq_unlink", "mremap",
            "msgctl", "msgget", "msgrcv", "msgsnd", "msync", "munlock", "munlockall", "munmap",
            "name_to_handle_at", "nanosleep", "newfstatat", "_newselect", "open", "openat",
            "openat2", "pause", "pidfd_open", "pidfd_send_signal", "pipe", "pipe2", "pkey_alloc",
            "pkey_free", "pkey_mprotect", "poll", "ppoll", "ppoll_time64", "prctl", "pread64",
            "preadv", "preadv2", "prlimit64", "process_mrelease", "pselect6", "pselect6_time64",
            "pwrite64", "pwritev", "pwritev2", "read", "readahead", "readlink", "readlinkat",
            "readv", "recv", "recvfrom", "recvmmsg", "recvmmsg_time64", "recvmsg",
            "remap_file_pages", "removexattr", "rename", "renameat", "renameat2", "restart_syscall",
            "rmdir", "rseq", "rt_sigaction", "rt_sigpending", "rt_sigprocmask", "rt_sigqueueinfo",
            "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait", "rt_sigtimedwait_time64",
            "rt_tgsigqueueinfo", "sched_getaffinity", "sched_getattr", "sched_getparam",
            "sched_get_priority_max", "sched_get_priority_min", "sched_getscheduler",
            "sched_rr_get_interval", "sched_rr_get_interval_time64", "sched_setaffinity",
            "sched_setattr", "sched_setparam", "sched_setscheduler", "sched_yield", "seccomp",
            "select", "semctl", "semget", "semop", "semtimedop", "semtimedop_time64", "send",
            "sendfile", "sendfile64", "sendmmsg", "sendmsg", "sendto", "setfsgid", "setfsgid32",
            "setfsuid", "setfsuid32", "setgid", "setgid32", "setgroups", "setgroups32", "setitimer",
            "setpgid", "setpriority", "setregid", "setregid32", "setresgid", "setresgid32",
            "setresuid", "setresuid32", "setreuid", "setreuid32", "setrlimit", "set_robust_list",
            "setsid", "setsockopt", "set_thread_area", "set_tid_address", "setuid", "setuid32",
            "setxattr", "shmat", "shmctl", "shmdt", "shmget", "shutdown", "sigaltstack", "signalfd",
            "signalfd4", "sigprocmask", "sigreturn", "socketpair", "splice", "stat", "stat64",
            "statfs", "statfs64", "statx", "symlink", "symlinkat", "sync", "sync_file_range",
            "syncfs", "sysinfo", "tee", "tgkill", "time", "timer_create", "timer_delete",
            "timer_getoverrun", "timer_gettime", "timer_gettime64", "timer_settime",
            "timer_settime64", "timerfd_create", "timerfd_gettime", "timerfd_gettime64",
            "timerfd_settime", "timerfd_settime64", "times", "tkill", "truncate", "truncate64",
            "ugetrlimit", "umask", "uname", "unlink", "unlinkat", "utime", "utimensat",
            "utimensat_time64", "utimes", "vfork", "vmsplice", "wait4", "waitid", "waitpid",
            "write", "writev"),
        ALLOW,
    },
    /* socketcall multiplexes the socket calls on i386: its arguments, the
     * family among them, are in memory a filter cannot read, and libseccomp
     * adds a socketcall(SYS_SOCKET) rule without the family check for each
     * socket rule below. A rule without arguments overrides those, so
     * socketcall is denied outright (and is in no allow rule: of two such
     * rules, libseccomp keeps the first). ENOSYS, not the default's EPERM:
     * a rule repeating the default action is dropped, which would leave
     * libseccomp's rules in place. The cost: a 32-bit x86 C library that
     * only knows socketcall (glibc built for kernels before 4.3) cannot
     * make sockets; docs/confinement.md. */
    {
        .names = NAMES("socketcall"),
        .action = SCMP_ACT_ERRNO(0),
        .errno_ret = ENOSYS,
    },
    /* socket() for the families listed, and no other: not AF_ALG (the
     * kernel's crypto API, a way into its page cache on unpatched kernels)
     * nor AF_VSOCK (the hypervisor's sockets, outside the network
     * namespace), nor any family newer than this list. Each rule compares
     * the whole 64-bit register and none is open upwards: the kernel reads
     * the family as an int, so "> AF_VSOCK" (moby's and containerd's rule)
     * lets AF_ALG through as 0x100000026. */
    SOCKET_FAMILIES_BELOW(AF_ALG),
    SOCKET_FAMILY(AF_NFC),
    SOCKET_FAMILY(AF_KCM),
    SOCKET_FAMILY(AF_QIPCRTR),
    SOCKET_FAMILY(AF_SMC),
    SOCKET_FAMILY(AF_XDP),
    SOCKET_FAMILY(AF_MCTP),
    /* Only plain Linux personalities (32-bit, UNAME26) and the query;
     * the others switch off protections such as address randomization. */
    PERSONALITY(PER_LINUX),
    PERSONALITY(PER_LINUX32),
    PERSONALITY(UNAME26),
    PERSONALITY(PER_LINUX32 | UNAME26),
    PERSONALITY(0xffffffff),
    /* Kernels since 4.8 check seccomp again after ptrace, so tracing can
     * no longer be used to skip the filter. */
    {
        .names = NAMES("process_vm_readv", "process_vm_writev", "ptrace"),
        ALLOW,
        .includes = {.min_kernel = KERNEL(4, 8)},
    },
    /* Architecture specific calls. */
    {
        .names = NAMES("sync_file_range2", "swapcontext"),
        ALLOW,
        .includes = {.arches = SECCOMP_ARCH_PPC64LE},
    },
    {
        .names = NAMES("arm_fadvise64_64", "arm_sync_file_range", "sync_file_range2", "breakpoint",
                       "cacheflush", "set_tls"),
        ALLOW,
        .includes = {.arches = SECCOMP_ARCH_ARM | SECCOMP_ARCH_ARM64},
    },
    {
        .names = NAMES("arch_prctl"),
        ALLOW,
        .includes = {.arches = SECCOMP_ARCH_AMD64 | SECCOMP_ARCH_X32},
    },
    {
        .names = NAMES("modify_ldt"),
        ALLOW,
        .includes = {.arches = SECCOMP_ARCH_AMD64 | SECCOMP_ARCH_X32 | SECCOMP_ARCH_X86},
    },
    {
        .names = NAMES("s390_pci_mmio_read", "s390_pci_mmio_write", "s390_runtime_instr"),
        ALLOW,
        .includes = {.arches = SECCOMP_ARCH_S390 | SECCOMP_ARCH_S390X},
    },
    {
        .names = NAMES("riscv_flush_icache"),
        ALLOW,
        .includes = {.arches = SECCOMP_ARCH_RISCV64},
    },
    /* Capability-conditional blocks: each call is as dangerous as the
     * capability it needs, so it is allowed only to a run keeping it. */
    {
        .names = NAMES("open_by_handle_at"),
        ALLOW,
        .includes = {.caps = CAP(CAP_DAC_READ_SEARCH_)},
    },
    {
        .names = NAMES("bpf", "clone", "clone3", "fanotify_init", "fsconfig", "fsmount", "fsopen",
                       "fspick", "lookup_dcookie", "mount", "mount_setattr", "move_mount",
                       "open_tree", "perf_event_open", "quotactl", "quotactl_fd", "setdomainname",
                       "sethostname", "setns", "syslog", "umount", "umount2", "unshare"),
        ALLOW,
        .includes = {.caps = CAP(CAP_SYS_ADMIN_)},
    },
    /* Without CAP_SYS_ADMIN: clone without namespace flags (the flags are
     * the second argument on s390). */
    {
        .names = NAMES("clone"),
        ALLOW,
        .n_args = 1,
        .args = {{.index = 0,
                  .value = CLONE_NAMESPACE_FLAGS,
                  .value_two = 0,
                  .op = SCMP_CMP_MASKED_EQ}},
        .excludes = {.caps = CAP(CAP_SYS_ADMIN_), .arches = SECCOMP_ARCH_S390 | SECCOMP_ARCH_S390X},
    },
    {
        .names = NAMES("clone"),
        ALLOW,
        .n_args = 1,
        .args = {{.index = 1,
                  .value = CLONE_NAMESPACE_FLAGS,
                  .value_two = 0,
                  .op = SCMP_CMP_MASKED_EQ}},
        .includes = {.arches = SECCOMP_ARCH_S390 | SECCOMP_ARCH_S390X},
        .excludes = {.caps = CAP(CAP_SYS_ADMIN_)},
    },
    /* clone3 passes its flags in memory a filter cannot read: ENOSYS makes
     * the C library fall back to clone, which the rule above checks. */
    {
        .names = NAMES("clone3"),
        .action = SCMP_ACT_ERRNO(0),
        .errno_ret = ENOSYS,
        .excludes = {.caps = CAP(CAP_SYS_ADMIN_)},
    },
    {.names = NAMES("reboot"), ALLOW, .includes = {.caps = CAP(CAP_SYS_BOOT_)}},
    {.names = NAMES("chroot"), ALLOW, .includes = {.caps = CAP(CAP_SYS_CHROOT_)}},
    {
        .names = NAMES("delete_module", "init_module", "finit_module"),
        ALLOW,
        .includes = {.caps = CAP(CAP_SYS_MODULE_)},
    },
    {.names = NAMES("acct"), ALLOW, .includes = {.caps = CAP(CAP_SYS_PACCT_)}},
    {
        .names = NAMES("kcmp", "pidfd_getfd", "process_madvise", "process_vm_readv",
                       "process_vm_writev", "ptrace"),
        ALLOW,
        .includes = {.caps = CAP(CAP_SYS_PTRACE_)},
    },
    {.names = NAMES("iopl", "ioperm"), ALLOW, .includes = {.caps = CAP(CAP_SYS_RAWIO_)}},
    {
        .names = NAMES("settimeofday", "stime", "clock_settime", "clock_settime64"),
        ALLOW,
        .includes = {.caps = CAP(CAP_SYS_TIME_)},
    },
    {.names = NAMES("vhangup"), ALLOW, .includes = {.caps = CAP(CAP_SYS_TTY_CONFIG_)}},
    {
        .names = NAMES("get_mempolicy", "mbind", "set_mempolicy", "set_mempolicy_home_node"),
        ALLOW,
        .includes = {.caps = CAP(CAP_SYS_NICE_)},
    },
    {.names = NAMES("syslog"), ALLOW, .includes = {.caps = CAP(CAP_SYSLOG_)}},
    {.names = NAMES("bpf"), ALLOW, .includes = {.caps = CAP(CAP_BPF_)}},
    {.names = NAMES("perf_event_open"), ALLOW, .includes = {.caps = CAP(CAP_PERFMON_)}},
};

static const struct seccomp_profile default_profile = {
    .default_action = SCMP_ACT_ERRNO(0),
    .default_errno_ret = EPERM,
    .arches = 0,
    .builtin_arch_map = true,
    .rules = default_rules,
    .n_rules = sizeof(default_rules) / sizeof(default_rules[0]),
    .owned = false,
};

const struct seccomp_profile *seccomp_default_profile(void)
{
  return &default_profile;
}
