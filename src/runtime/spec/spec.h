/* The one document the runtime takes: an OCI runtime-spec configuration
 * (config.json, runtime-spec 1.x), parsed into plain C values. `ocirun run`
 * builds such a document from an image and docker-run flags, a bundle
 * brings its own; the runtime knows nothing of either front end.
 *
 * Parsing follows the spec: a property the spec does not define is ignored
 * (its extensibility rule), a property it defines that ocirun does not
 * implement is refused with an error naming it (never silently dropped),
 * and every value is checked before anything is built from it. */
#ifndef RUNTIME_SPEC_SPEC_H
#define RUNTIME_SPEC_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "oci/error.h"

/* The version `ocirun spec` writes and `ocirun features` reports. */
#define SPEC_OCI_VERSION "1.2.0"

struct spec_rlimit {
  int resource; /* RLIMIT_* */
  uint64_t soft, hard;
};

/* process.scheduler: the policies cpu.max throttles (the realtime ones are
 * refused), for sched_setattr. */
struct spec_scheduler {
  bool set;
  int policy;          /* SCHED_OTHER (SCHED_NORMAL), SCHED_BATCH or SCHED_IDLE */
  int nice;            /* -20..19 */
  unsigned long flags; /* SCHED_FLAG_KEEP_POLICY (the policy stays the runtime's) */
};

/* process.ioPriority: the best-effort or the idle class, for ioprio_set. */
struct spec_io_priority {
  bool set;
  int io_class; /* IOPRIO_CLASS_BE or IOPRIO_CLASS_IDLE */
  int level;    /* 0 (the highest) to 7 */
};

/* linux.memoryPolicy, for set_mempolicy: its nodes as a bit mask. */
enum { SPEC_NUMA_NODES_MAX = 1024 };
struct spec_memory_policy {
  bool set;
  int mode;            /* MPOL_DEFAULT, MPOL_BIND, ... */
  unsigned long flags; /* MPOL_F_STATIC_NODES, MPOL_F_RELATIVE_NODES, MPOL_F_NUMA_BALANCING */
  unsigned long nodes[SPEC_NUMA_NODES_MAX / (8 * sizeof(unsigned long))];
  unsigned max_node; /* one above the highest node named; 0: none */
};

/* process.execCPUAffinity, for sched_setaffinity in exec's joiner: a
 * list's CPUs as a bit mask. */
enum { SPEC_CPUS_MAX = 1024 };
struct spec_cpu_list {
  unsigned long cpus[SPEC_CPUS_MAX / (8 * sizeof(unsigned long))];
  unsigned max_cpu; /* one above the highest CPU named; 0: not given (absent or "") */
};
struct spec_cpu_affinity {
  struct spec_cpu_list initial; /* while the joiner sets up, before the container's cgroup */
  struct spec_cpu_list final;   /* once in the container's cgroup: the exec'd process's */
};

struct spec_process {
  bool terminal;
  unsigned console_height, console_width; /* 0: not given */
  uid_t uid;
  gid_t gid;
  gid_t *additional_gids;
  size_t n_additional_gids;
  bool umask_set;
  mode_t umask;
  char **args; /* NULL-terminated, at least one entry */
  char **env;  /* NULL-terminated, "NAME=VALUE"; never NULL (empty when not given) */
  char *cwd;   /* absolute */
  /* capability bit masks (1 << CAP_*); a set not given is empty */
  uint64_t cap_bounding, cap_effective, cap_inheritable, cap_permitted, cap_ambient;
  struct spec_rlimit *rlimits;
  size_t n_rlimits;
  bool no_new_privileges;
  bool oom_score_adj_set;
  int oom_score_adj;
  struct spec_scheduler scheduler;
  struct spec_io_priority io_priority;
  struct spec_cpu_affinity exec_cpu_affinity; /* exec's process only, never pid 1's */
};

/* MS_* bits split the way mount_setattr and propagation need them. */
struct spec_mount {
  char *destination;         /* absolute and normalised ("/a/b": no ".", "..", "//", trailing
                                "/"), inside the container */
  char *type;                /* NULL for a bind mount given only by options */
  char *source;              /* NULL when absent */
  bool bind;                 /* "bind" or "rbind" */
  bool recursive;            /* "rbind": the whole tree under the source */
  unsigned long flags;       /* MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_NOATIME, ... */
  unsigned long clear_flags; /* flags an option turned off ("rw", "suid", "dev", "exec", ...) */
  /* The r- attribute forms ("rro", "rnosuid", "rdev"...): on every mount of
   * the tree (they are in flags/clear_flags too, for the top one). They do
   * not make a bind recursive. */
  unsigned long rec_flags;
  unsigned long rec_clear_flags;
  unsigned long propagation; /* 0 or one of MS_PRIVATE, MS_SHARED, MS_SLAVE, MS_UNBINDABLE, with
                                MS_REC for the r- forms */
  char *data;                /* filesystem options ("mode=755,size=65536k"), NULL when none */
  bool tmpcopyup;            /* runc's and crun's extension: a tmpfs starts with a copy of what
                                the directory under it holds (podman asks for it) */
  /* An idmapped bind ("idmap", "ridmap", or mappings given): the tree seen
   * through a user namespace with these mappings (none: the container's
   * linux.uidMappings/gidMappings). ridmap: every mount of the tree. */
  bool idmap;
  bool idmap_recursive;
  struct spec_id_mapping *uid_mappings;
  size_t n_uid_mappings;
  struct spec_id_mapping *gid_mappings;
  size_t n_gid_mappings;
};

enum spec_namespace_type {
  SPEC_NS_PID,
  SPEC_NS_NETWORK,
  SPEC_NS_MOUNT,
  SPEC_NS_IPC,
  SPEC_NS_UTS,
  SPEC_NS_USER,
  SPEC_NS_CGROUP,
  SPEC_NS_TIME,
  SPEC_NS_COUNT
};

struct spec_namespace {
  bool present; /* listed in linux.namespaces */
  char *path;   /* join this one (a /proc/PID/ns/... file); NULL: a new one */
};

struct spec_id_mapping {
  uint32_t container_id, host_id, size;
};

/* A node to create in the container's /dev. */
struct spec_device {
  char type;            /* 'c', 'b', 'u' (unbuffered char) or 'p' (fifo) */
  char *path;           /* absolute and normalised, as a mount destination */
  int64_t major, minor; /* 0 for 'p' */
  bool file_mode_set;
  mode_t file_mode;
  bool uid_set, gid_set;
  uid_t uid;
  gid_t gid;
};

/* linux.resources.devices: the device cgroup, in order, last match wins. */
struct spec_device_rule {
  bool allow;
  char type;            /* 'a', 'c' or 'b' */
  int64_t major, minor; /* -1: any */
  char access[4];       /* a subset of "rwm", in that order */
};

struct spec_key_value {
  char *key;
  char *value;
};

/* A block device by its numbers (12 and 20 bits), as cgroup v2 names it. */
struct spec_block_device {
  uint32_t major, minor;
};
/* linux.resources.blockIO.weightDevice[]: a device's own weight. */
struct spec_blkio_weight_device {
  struct spec_block_device device; /* first: the lists are searched by it */
  uint16_t weight;                 /* 10..1000; 0: not given (the entry asks for nothing) */
};
/* One throttle*Device[] entry: a rate for one device. */
struct spec_blkio_throttle {
  struct spec_block_device device; /* first */
  uint64_t rate;                   /* bytes or operations a second; 0: no limit, as on cgroup v1 */
};
struct spec_blkio_throttles {
  struct spec_blkio_throttle *items; /* each device at most once */
  size_t n;
};
enum spec_throttle_kind {
  SPEC_THROTTLE_READ_BPS,
  SPEC_THROTTLE_WRITE_BPS,
  SPEC_THROTTLE_READ_IOPS,
  SPEC_THROTTLE_WRITE_IOPS,
  SPEC_THROTTLE_KIND_COUNT
};
/* linux.resources.hugepageLimits[]: one page size's limit. */
struct spec_hugepage_limit {
  char *page_size;     /* the kernel's name of the size: "2MB", "1GB", "64KB" */
  uint64_t page_bytes; /* that size in bytes */
  uint64_t limit;      /* bytes, a multiple of page_bytes */
};

/* Every limit is optional: a *_set flag, or -1 for an absent int64; the
 * members after pids_limit are unset when zero. */
struct spec_resources {
  int64_t memory_limit;       /* bytes; -1 in the file (unlimited) is kept as INT64_MAX;
                                 unset: -1 */
  int64_t memory_reservation; /* bytes; the same */
  int64_t memory_swap;        /* memory+swap in bytes, runc's meaning; -1 in the file (unlimited)
                                 is kept as INT64_MAX; unset: -1 */
  bool cpu_shares_set;
  uint64_t cpu_shares;
  int64_t cpu_quota;   /* microseconds; -1: unset or unlimited (-1 in the file) */
  uint64_t cpu_period; /* microseconds; 0: unset */
  char *cpuset_cpus;   /* "0-3,7" (checked); NULL: unset or "" */
  char *cpuset_mems;
  int64_t pids_limit; /* -1: unset (0 or negative in the file: unlimited, kept as 0) */
  struct spec_device_rule *devices;
  size_t n_devices;
  struct spec_key_value *unified; /* cgroup v2 file name (no '/', never "." or "..") ->
                                     value, as given */
  size_t n_unified;
  bool cpu_idle_set;
  int64_t cpu_idle; /* 0 or 1 */
  bool cpu_burst_set;
  uint64_t cpu_burst;    /* microseconds a period may borrow from earlier ones (cpu.max.burst) */
  uint16_t blkio_weight; /* 10..1000; 0: not given (dockerd writes 0 for every container) */
  struct spec_blkio_weight_device *blkio_weight_devices; /* each device at most once */
  size_t n_blkio_weight_devices;
  struct spec_blkio_throttles blkio_throttles[SPEC_THROTTLE_KIND_COUNT];
  struct spec_hugepage_limit *hugepage_limits; /* each page size at most once */
  size_t n_hugepage_limits;
};

/* linux.timeOffsets: a clock's offset in the container's new time
 * namespace (time_namespaces(7) has two clocks). */
enum spec_clock { SPEC_CLOCK_MONOTONIC, SPEC_CLOCK_BOOTTIME, SPEC_CLOCK_COUNT };
struct spec_time_offset {
  bool set;
  int64_t secs;
  uint32_t nanosecs; /* below 1000000000 */
};

struct spec_hook {
  char *path;  /* absolute */
  char **args; /* NULL when not given */
  char **env;  /* NULL when not given; else "NAME=VALUE" */
  int timeout; /* seconds; 0: none */
};

enum spec_hook_kind {
  SPEC_HOOK_PRESTART,
  SPEC_HOOK_CREATE_RUNTIME,
  SPEC_HOOK_CREATE_CONTAINER,
  SPEC_HOOK_START_CONTAINER,
  SPEC_HOOK_POSTSTART,
  SPEC_HOOK_POSTSTOP,
  SPEC_HOOK_KIND_COUNT
};

struct spec_hooks {
  struct spec_hook *hooks;
  size_t n_hooks;
};

struct spec {
  char *oci_version;
  char *root_path; /* as given; relative to the bundle when not absolute */
  bool root_readonly;
  bool has_process; /* optional for create, required for start */
  struct spec_process process;
  char *hostname; /* NULL: unset */
  char *domainname;
  struct spec_mount *mounts;
  size_t n_mounts;
  struct spec_hooks hooks[SPEC_HOOK_KIND_COUNT];
  struct spec_key_value *annotations;
  size_t n_annotations;

  /* linux */
  struct spec_namespace namespaces[SPEC_NS_COUNT];
  struct spec_id_mapping *uid_mappings;
  size_t n_uid_mappings;
  struct spec_id_mapping *gid_mappings;
  size_t n_gid_mappings;
  struct spec_device *devices;
  size_t n_devices;
  char *cgroups_path; /* as given; NULL: unset or "" */
  bool has_resources;
  struct spec_resources resources;
  /* linux.seccomp in OCI's format (which the seccomp profile parser
   * reads), its action and flag names checked, with only the properties
   * the spec defines (an unknown one, such as Docker's archMap, includes,
   * excludes or comment, is left out: the spec says ignore it); NULL: no
   * filter. Owned. */
  cJSON *seccomp;
  char *seccomp_listener_path;     /* linux.seccomp.listenerPath; NULL: unset or "" */
  char *seccomp_listener_metadata; /* linux.seccomp.listenerMetadata; NULL: unset */
  char **masked_paths;             /* NULL-terminated, absolute (as given), may be NULL */
  char **readonly_paths;
  struct spec_key_value *sysctl; /* names checked: "a.b.c" or "a/b/c", no empty, "." or ".."
                                    component */
  size_t n_sysctl;
  unsigned long rootfs_propagation; /* 0: unset (ocirun makes the tree private) */
  bool personality_set;
  int personality; /* PER_LINUX or PER_LINUX32 */
  struct spec_memory_policy memory_policy;
  /* in a new time namespace (required), written by pid 1 before anything
   * enters it (child.c) */
  struct spec_time_offset time_offsets[SPEC_CLOCK_COUNT];
  bool has_time_offsets;
};

/* Parses a configuration. *spec is cleared first (not freed: spec_clear a
 * previous one); on failure it is left empty and *err names the property
 * ("process.rlimits[2].type: ..."). A key given twice in any object is
 * refused (cJSON would read the first, Go callers read the last). */
int spec_parse(const cJSON *config, struct spec *spec, oci_error_t *err);
/* Reads DIR/config.json (a regular file inside bundle_fd, no symlink
 * followed, bounded, through oci/file_read) and parses it; errors start
 * with "BUNDLE_PATH/config.json: ". */
int spec_load_bundle(int bundle_fd, const char *bundle_path, struct spec *spec, oci_error_t *err);
/* The same, and *text gets the exact bytes parsed (NUL-terminated, *length
 * of them), for a copy that later readers use instead of the bundle's. */
int spec_load_bundle_text(int bundle_fd, const char *bundle_path, struct spec *spec, char **text,
                          size_t *length, oci_error_t *err);
void spec_clear(struct spec *spec);

/* The spec's names for namespaces ("pid", "network", ...). */
const char *spec_namespace_name(enum spec_namespace_type type);
/* The index-th mount option the parser accepts by name ("ro", "rbind",
 * ...; not the ones it refuses), NULL past the last: `ocirun features`. */
const char *spec_mount_option_name(size_t index);
/* The spec's name of a value of process.scheduler.policy,
 * process.ioPriority.class, linux.personality.domain or
 * linux.memoryPolicy.mode ("?" for another). */
enum spec_attr_names {
  SPEC_NAMES_SCHEDULER_POLICY,
  SPEC_NAMES_IO_CLASS,
  SPEC_NAMES_PERSONALITY,
  SPEC_NAMES_MEMORY_POLICY_MODE
};
const char *spec_attr_name(enum spec_attr_names table, long value);
/* The spec's names for hook lists ("prestart", "createRuntime", ...). */
const char *spec_hook_kind_name(enum spec_hook_kind kind);

#endif
