/* Unit tests of the mount plan built from an OCI spec (src/runtime/mount/plan.c):
 * the op table's order, kinds, attributes, data and sources, and the
 * refusals that name the config's property. Nothing is mounted. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "runtime/mount/mount_plan.h"
#include "unit.h"

static const struct mount_root overlay_root = {.root_fd = 7,
                                               .root_path = "/store/cache/x/rootfs",
                                               .overlay = true,
                                               .run_dir = "/store/run/c1",
                                               .layer = ROOT_LAYER_TMPFS,
                                               .layer_bound = 64 << 20};
static const struct mount_root disk_root = {.root_fd = 7,
                                            .root_path = "/store/cache/x/rootfs",
                                            .overlay = true,
                                            .run_dir = "/store/run/c1",
                                            .layer = ROOT_LAYER_DISK,
                                            .layer_bound = 10ULL << 30};
static const struct mount_root bind_root = {
    .root_fd = 8, .root_path = "/bundle/rootfs", .overlay = false, .bundle = "/bundle"};

/* Builds; returns mount_plan_build's result and the error text in msg. */
static int build(const struct spec *spec, const struct mount_root *root, bool userns,
                 struct mount_plan *plan, char *msg, size_t size)
{
  oci_error_t err = NULL;
  int ret = mount_plan_build(spec, root, userns, plan, &err);

  snprintf(msg, size, "%s", err != NULL ? err->message : "");
  oci_error_free(&err);
  return ret;
}

/* The index of the first op of that kind and target, or -1. */
static int find(const struct mount_plan *plan, enum mount_op_kind kind, const char *target)
{
  for (size_t i = 0; i < plan->n_ops; i++) {
    if (plan->ops[i].kind == kind && strcmp(plan->ops[i].target, target) == 0)
      return (int)i;
  }
  return -1;
}

static size_t count(const struct mount_plan *plan, enum mount_op_kind kind)
{
  size_t n = 0;

  for (size_t i = 0; i < plan->n_ops; i++)
    n += plan->ops[i].kind == kind;
  return n;
}

/* A configuration with fragment (its mounts or linux.devices, ' for ")
 * through spec_parse into the plan, as every front end hands it: a
 * destination or a device path is normalised there, once, and the plan
 * takes it as it is. Returns -1 with spec_parse's message, or build's. */
static int build_from_config(const char *fragment, struct mount_plan *plan, char *msg, size_t size)
{
  char json[2048];
  cJSON *config;
  struct spec spec;
  oci_error_t err = NULL;
  int ret;

  snprintf(json, sizeof(json), "{'ociVersion': '1.2.0', 'root': {'path': 'rootfs'}, %s}", fragment);
  for (char *p = json; *p != '\0'; p++)
    if (*p == '\'')
      *p = '"';
  *plan = (struct mount_plan){.lower_fd = -1};
  config = cJSON_Parse(json);
  ret = spec_parse(config, &spec, &err);
  cJSON_Delete(config);
  if (ret < 0) {
    snprintf(msg, size, "%s", err != NULL ? err->message : "");
    oci_error_free(&err);
    return -1;
  }
  ret = build(&spec, &bind_root, false, plan, msg, size);
  spec_clear(&spec);
  return ret;
}

/* The same refused: the message must contain want. */
static void refused_from_config(const char *fragment, const char *want, const char *what)
{
  struct mount_plan plan;
  char msg[1024];

  is_int(build_from_config(fragment, &plan, msg, sizeof(msg)), -1, "%s: refused", what);
  ok(strstr(msg, want) != NULL, "%s: the message names %s (%s)", what, want, msg);
  is_int(plan.n_ops, 0, "%s: the plan is left empty", what);
}

/* One mount refused: the message must contain want. */
static void refused(struct spec_mount m, const char *want, const char *what)
{
  struct spec spec = {.mounts = &m, .n_mounts = 1};
  struct mount_plan plan;
  char msg[1024];

  is_int(build(&spec, &bind_root, false, &plan, msg, sizeof(msg)), -1, "%s: refused", what);
  ok(strstr(msg, want) != NULL, "%s: the message names %s (%s)", what, want, msg);
  is_int(plan.n_ops, 0, "%s: the plan is left empty", what);
}

static void test_overlay_empty_spec(void)
{
  struct spec spec = {0};
  struct mount_plan plan;
  char msg[1024];
  static const char *const want[] = {
      "private",   "root-scratch", "root-overlay", "/dev/null",   "/dev/zero",
      "/dev/full", "/dev/random",  "/dev/urandom", "/dev/tty",    "/dev/ptmx",
      "/dev/fd",   "/dev/stdin",   "/dev/stdout",  "/dev/stderr", "pivot-root",
  };

  is_int(build(&spec, &overlay_root, false, &plan, msg, sizeof(msg)), 0, "overlay: builds (%s)",
         msg);
  is_int(plan.n_ops, sizeof(want) / sizeof(want[0]), "overlay, empty spec: %zu ops",
         sizeof(want) / sizeof(want[0]));
  is_int(plan.ops[0].kind, MOUNT_OP_MAKE_PRIVATE, "first: / made private");
  is_int(plan.ops[0].propagation, MS_PRIVATE | MS_REC, "rprivate");
  is_int(plan.ops[1].kind, MOUNT_OP_ROOT_SCRATCH, "then the scratch tmpfs");
  is_str(plan.ops[1].target, "/store/run/c1/rootfs", "on run_dir/rootfs");
  ok(plan.ops[1].attr & MOUNT_ATTR_NODEV, "the scratch is nodev");
  is_str(plan.ops[1].data, "mode=0700,size=67108864", "the scratch's size is the layer's bound");
  is_str(plan.layer_note, "writable layer: a tmpfs of 64 MiB in memory",
         "the plan says where the layer is");
  is_int(plan.ops[2].kind, MOUNT_OP_ROOT_OVERLAY, "then the overlay");
  is_str(plan.ops[2].source, "/store/cache/x/rootfs", "over the root path");
  is_str(plan.ops[2].data, "upperdir=/store/run/c1/rootfs/upper,workdir=/store/run/c1/rootfs/work",
         "upper and work in the scratch");
  ok(plan.ops[2].attr & MOUNT_ATTR_NODEV, "the overlay is nodev");
  is_int(plan.lower_fd, 7, "lower_fd is the root's fd");
  for (size_t i = 3; i < 9; i++) {
    is_int(plan.ops[i].kind, MOUNT_OP_BIND_DEVICE, "op %zu binds a device", i);
    is_str(plan.ops[i].target, want[i], "default device %s", want[i]);
    is_str(plan.ops[i].source, want[i], "from the host's %s", want[i]);
    is_int(plan.ops[i].attr, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
           "%s: read-only, nosuid, noexec, not nodev (a device must open; the host's node, which "
           "a container's root must not chmod)",
           want[i]);
  }
  is_int(plan.ops[3].rdev, makedev(1, 3), "/dev/null must be 1:3");
  is_int(plan.ops[8].rdev, makedev(5, 0), "/dev/tty must be 5:0");
  for (size_t i = 9; i < 14; i++) {
    is_int(plan.ops[i].kind, MOUNT_OP_SYMLINK, "op %zu is a link", i);
    is_str(plan.ops[i].target, want[i], "link %s", want[i]);
  }
  is_str(plan.ops[9].source, "pts/ptmx", "/dev/ptmx -> pts/ptmx");
  is_str(plan.ops[10].source, "/proc/self/fd", "/dev/fd -> /proc/self/fd");
  is_str(plan.ops[13].source, "/proc/self/fd/2", "/dev/stderr -> /proc/self/fd/2");
  is_int(plan.ops[14].kind, MOUNT_OP_PIVOT_ROOT, "last: pivot_root");
  is_str(plan.ops[14].source, "/store/run/c1/rootfs", "into the scratch's mount point");
  mount_plan_clear(&plan);

  is_int(build(&spec, &overlay_root, true, &plan, msg, sizeof(msg)), 0, "overlay, userns: builds");
  ok(plan.ops[2].data != NULL && strstr(plan.ops[2].data, ",userxattr") != NULL,
     "in a user namespace the overlay keeps its metadata in user.* xattrs");
  mount_plan_clear(&plan);
}

/* The default layer: no scratch, the overlay's upper and work in the run
 * dir, the merged root attached on its rootfs/. */
static void test_overlay_on_disk(void)
{
  struct spec spec = {0};
  struct mount_root root = disk_root;
  struct mount_plan plan;
  char msg[1024];

  is_int(build(&spec, &root, false, &plan, msg, sizeof(msg)), 0, "disk layer: builds (%s)", msg);
  is_int(count(&plan, MOUNT_OP_ROOT_SCRATCH), 0, "disk layer: no scratch tmpfs");
  is_int(plan.ops[1].kind, MOUNT_OP_ROOT_OVERLAY, "disk layer: the overlay second");
  is_str(plan.ops[1].target, "/store/run/c1/rootfs", "onto run_dir/rootfs");
  is_str(plan.ops[1].data, "upperdir=/store/run/c1/upper,workdir=/store/run/c1/work,volatile",
         "upper and work in the run dir, volatile (thrown away at the end: never synced)");
  ok(plan.ops[1].attr & MOUNT_ATTR_NODEV, "the overlay is nodev");
  is_str(plan.ops[plan.n_ops - 1].source, "/store/run/c1/rootfs", "pivot_root into it");
  ok(plan.layer_note != NULL && strstr(plan.layer_note, "on disk in /store/run/c1/upper") &&
         strstr(plan.layer_note, "soft bound 10 GiB"),
     "the plan says where the layer is and its bound (%s)",
     plan.layer_note != NULL ? plan.layer_note : "none");
  mount_plan_clear(&plan);

  root.layer = ROOT_LAYER_TMPFS;
  root.layer_bound = 1536 << 10;
  root.layer_fallback = "9p";
  is_int(build(&spec, &root, false, &plan, msg, sizeof(msg)), 0, "fallback: builds");
  is_str(plan.layer_note,
         "writable layer: a tmpfs of 1536 KiB in memory (the store's filesystem, 9p, cannot hold "
         "an overlay upper layer)",
         "the plan says why the layer is a tmpfs");
  mount_plan_clear(&plan);

  root.layer_bound = 0;
  is_int(build(&spec, &root, false, &plan, msg, sizeof(msg)), -1, "no bound: refused");
  ok(strstr(msg, "bound") != NULL, "no bound: the message says so (%s)", msg);
}

/* ocirun run --read-only: the root read-only, nodev and nosuid; a bundle's
 * root.readonly (the OCI commands): read-only and nodev. */
static void test_read_only_nosuid(void)
{
  struct spec spec = {.root_readonly = true};
  struct mount_root root = disk_root;
  struct mount_plan plan;
  char msg[1024];
  int i;

  root.read_only_nosuid = true;
  is_int(build(&spec, &root, false, &plan, msg, sizeof(msg)), 0, "read-only nosuid: builds");
  i = find(&plan, MOUNT_OP_ROOT_READ_ONLY, "/");
  ok(i >= 0 && plan.ops[i].attr == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID),
     "--read-only: ro, nodev, nosuid");
  mount_plan_clear(&plan);
  is_int(build(&spec, &bind_root, false, &plan, msg, sizeof(msg)), 0, "root.readonly: builds");
  i = find(&plan, MOUNT_OP_ROOT_READ_ONLY, "/");
  ok(i >= 0 && plan.ops[i].attr == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV),
     "a bundle's root.readonly: ro, nodev (the spec's meaning)");
  mount_plan_clear(&plan);
}

static void test_bind_root_and_files(void)
{
  struct mount_file files[] = {{"/etc/hostname", "box\n"}, {"etc/hosts", "x"}};
  struct mount_root root = bind_root;
  struct spec spec = {.root_readonly = true, .rootfs_propagation = MS_SHARED | MS_REC};
  struct mount_plan plan;
  char msg[1024];

  root.files = files;
  root.n_files = 1;
  is_int(build(&spec, &root, false, &plan, msg, sizeof(msg)), 0, "bind root: builds (%s)", msg);
  is_int(plan.ops[1].kind, MOUNT_OP_ROOT_BIND, "bind mode: the root is bound");
  is_str(plan.ops[1].source, "/bundle/rootfs", "from root.path");
  ok(plan.ops[1].attr & MOUNT_ATTR_NODEV, "the bound root is nodev");
  is_int(plan.ops[2].kind, MOUNT_OP_WRITE_FILE, "the files right after the root");
  is_str(plan.ops[2].target, "/etc/hostname", "/etc/hostname");
  is_str(plan.ops[2].data, "box\n", "with its text");
  is_int(plan.ops[plan.n_ops - 3].kind, MOUNT_OP_ROOT_READ_ONLY,
         "root.readonly: the root made read-only before pivot_root");
  ok(plan.ops[plan.n_ops - 3].attr & MOUNT_ATTR_RDONLY, "read-only");
  is_int(plan.ops[plan.n_ops - 2].kind, MOUNT_OP_PIVOT_ROOT, "then pivot_root");
  is_str(plan.ops[plan.n_ops - 2].source, "/bundle/rootfs", "into the bound root.path");
  is_int(plan.ops[plan.n_ops - 1].kind, MOUNT_OP_PROPAGATION,
         "rootfsPropagation last (pivot_root refuses a shared new root)");
  is_int(plan.ops[plan.n_ops - 1].propagation, MS_SHARED | MS_REC, "rshared");
  is_int(plan.ops[0].propagation, MS_PRIVATE | MS_REC, "the tree is made rprivate first");
  mount_plan_clear(&plan);

  spec.rootfs_propagation = MS_SLAVE;
  is_int(build(&spec, &root, false, &plan, msg, sizeof(msg)), 0, "slave: builds");
  is_int(plan.ops[0].propagation, MS_SLAVE | MS_REC,
         "rootfsPropagation slave: the tree is made rslave (receives, never sends)");
  mount_plan_clear(&plan);
  spec.rootfs_propagation = MS_SHARED | MS_REC;

  root.n_files = 2;
  is_int(build(&spec, &root, false, &plan, msg, sizeof(msg)), -1, "a relative root file: refused");
  mount_plan_clear(&plan);

  spec.root_readonly = false;
  spec.rootfs_propagation = 0;
  root.n_files = 0;
  is_int(build(&spec, &root, false, &plan, msg, sizeof(msg)), 0, "without readonly: builds");
  is_int(count(&plan, MOUNT_OP_ROOT_READ_ONLY), 0, "no root-read-only op");
  is_int(count(&plan, MOUNT_OP_PROPAGATION), 0, "no propagation op");
  is_int(plan.ops[plan.n_ops - 1].kind, MOUNT_OP_PIVOT_ROOT, "pivot_root last");
  mount_plan_clear(&plan);
}

static void test_mounts(void)
{
  struct spec_mount mounts[] = {
      {.destination = "/proc", .type = "proc", .source = "proc", .flags = MS_NOSUID | MS_NOEXEC},
      {.destination = "/dev",
       .type = "tmpfs",
       .source = "tmpfs",
       .flags = MS_NOSUID | MS_STRICTATIME,
       .data = "mode=755,size=65536k"},
      {.destination = "/dev/pts",
       .type = "devpts",
       .source = "devpts",
       .flags = MS_NOSUID | MS_NOEXEC,
       .data = "newinstance,ptmxmode=0666"},
      {.destination = "/sys/fs/cgroup",
       .type = "cgroup",
       .source = "cgroup",
       .flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC},
      {.destination = "/data",
       .source = "/srv/data",
       .bind = true,
       .recursive = true,
       .flags = MS_RDONLY | MS_NOSUID,
       .propagation = MS_PRIVATE | MS_REC},
      {.destination = "/x/y/z",
       .type = "none",
       .source = "conf",
       .bind = true,
       .clear_flags = MS_RDONLY | MS_NODEV,
       .propagation = MS_SLAVE},
      {.destination = "/scratch",
       .type = "tmpfs",
       .clear_flags = MS_NODEV,
       .flags = MS_SYNCHRONOUS | MS_NOATIME},
      {.destination = "/relative/dest",
       .type = "mqueue",
       .source = "mqueue",
       .flags = MS_SILENT | MS_NOSYMFOLLOW},
  };
  struct spec spec = {.mounts = mounts, .n_mounts = sizeof(mounts) / sizeof(mounts[0])};
  struct mount_plan plan;
  char msg[1024], *text = NULL;
  size_t text_size = 0;
  FILE *out;
  int i;

  is_int(build(&spec, &bind_root, false, &plan, msg, sizeof(msg)), 0, "mounts: builds (%s)", msg);
  for (size_t k = 0; k < spec.n_mounts; k++)
    is_int(plan.ops[2 + k].mount_index, (int)k, "op %zu is mounts[%zu], in order", 2 + k, k);
  ok(find(&plan, MOUNT_OP_FILESYSTEM, "/dev") < find(&plan, MOUNT_OP_BIND_DEVICE, "/dev/null"),
     "the default devices come after the mounts (into the /dev tmpfs)");

  i = find(&plan, MOUNT_OP_FILESYSTEM, "/proc");
  ok(i == 2, "proc is the first mount");
  is_str(plan.ops[i].fstype, "proc", "type proc");
  is_int(plan.ops[i].attr, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NODEV,
         "proc: nosuid, noexec, and nodev added");
  is_str(plan.ops[i].what, "config.json: mounts[0]", "named by its place in the config");

  i = find(&plan, MOUNT_OP_FILESYSTEM, "/dev");
  is_int(plan.ops[i].attr, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_STRICTATIME,
         "/dev: nosuid, strictatime, nodev added");
  is_str(plan.ops[i].data, "mode=755,size=65536k", "/dev: its data as given");

  i = find(&plan, MOUNT_OP_FILESYSTEM, "/dev/pts");
  is_int(plan.ops[i].attr, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
         "devpts: no nodev added (its nodes are its purpose)");

  i = find(&plan, MOUNT_OP_FILESYSTEM, "/sys/fs/cgroup");
  is_str(plan.ops[i].fstype, "cgroup2", "type cgroup is cgroup2");
  is_int(plan.ops[i].attr,
         MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
         "cgroup: ro, nosuid, nodev, noexec");

  i = find(&plan, MOUNT_OP_BIND, "/data");
  ok(i >= 0, "an rbind is a bind op");
  is_str(plan.ops[i].source, "/srv/data", "from the host path");
  ok(plan.ops[i].recursive, "rbind: recursive");
  is_int(plan.ops[i].attr, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID,
         "bind: ro, nosuid, no nodev added");
  is_int(plan.ops[i].propagation, MS_PRIVATE | MS_REC, "rprivate");
  is_int(plan.ops[i].attr_rec, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID,
         "rbind: what the top mount sets, every mount of the tree gets");
  is_int(plan.ops[i].attr_rec_clr, 0, "rbind: and nothing is cleared below the top");
  ok(plan.ops[i].data == NULL && plan.ops[i].fstype == NULL, "a bind has no type and no data");

  i = find(&plan, MOUNT_OP_BIND, "/x/y/z");
  ok(i >= 0, "a bind onto /x/y/z");
  is_str(plan.ops[i].source, "/bundle/conf", "a relative bind source is in the bundle");
  ok(!plan.ops[i].recursive, "bind: not recursive");
  is_int(plan.ops[i].attr_clr, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV, "rw and dev clear ro, nodev");
  is_int(plan.ops[i].propagation, MS_SLAVE, "slave");

  i = find(&plan, MOUNT_OP_FILESYSTEM, "/scratch");
  ok(!(plan.ops[i].attr & MOUNT_ATTR_NODEV), "an explicit 'dev' is kept (no nodev)");
  is_int(plan.ops[i].attr, MOUNT_ATTR_NOATIME, "noatime");
  is_int(plan.ops[i].attr_clr, MOUNT_ATTR_NODEV | MOUNT_ATTR__ATIME, "the atime field cleared");
  is_str(plan.ops[i].data, "sync", "sync goes to the filesystem as a flag");
  is_str(plan.ops[i].source, "tmpfs", "a mount without source is named by its type");

  i = find(&plan, MOUNT_OP_FILESYSTEM, "/relative/dest");
  ok(i >= 0, "an mqueue on /relative/dest");
  is_int(plan.ops[i].attr, MOUNT_ATTR_NOSYMFOLLOW | MOUNT_ATTR_NODEV,
         "nosymfollow is a mount attribute, silent is nothing");

  out = open_memstream(&text, &text_size);
  mount_plan_print(&plan, out);
  fclose(out);
  ok(strstr(text, "rbind,ro,nosuid,rprivate") != NULL,
     "the printed plan shows rbind,ro,nosuid,rprivate");
  ok(strstr(text, "type=cgroup2") != NULL, "the printed plan shows the type");
  ok(strstr(text, "rw,dev,slave") != NULL, "the printed plan shows rw,dev,slave");
  ok(strstr(text, "root-bind") != NULL && strstr(text, "pivot-root") != NULL,
     "the printed plan names the steps");
  free(text);
  mount_plan_clear(&plan);
}

/* Destinations as a config writes them, normalised on the way. */
static void test_destinations_from_config(void)
{
  struct mount_plan plan;
  char msg[1024];

  is_int(build_from_config("'mounts': [{'destination': '/x//y/./z/', 'source': 'conf', "
                           "'options': ['bind']}, {'destination': 'relative/dest', 'type': "
                           "'mqueue', 'source': 'mqueue'}]",
                           &plan, msg, sizeof(msg)),
         0, "destinations from config.json: builds (%s)", msg);
  ok(find(&plan, MOUNT_OP_BIND, "/x/y/z") >= 0, "the destination /x//y/./z/ is /x/y/z");
  ok(find(&plan, MOUNT_OP_FILESYSTEM, "/relative/dest") >= 0,
     "a relative destination is relative to / (config.md)");
  mount_plan_clear(&plan);
}

static void test_paths_and_devices(void)
{
  char *masked[] = {"/proc/kcore", "/sys/firmware", NULL};
  char *read_only[] = {"/proc/sys", NULL};
  struct spec_device devices[] = {
      {.type = 'c',
       .path = "/dev/fuse",
       .major = 10,
       .minor = 229,
       .file_mode_set = true,
       .file_mode = 0620,
       .uid_set = true,
       .uid = 5,
       .gid_set = true,
       .gid = 6},
      {.type = 'b', .path = "/dev/loop0", .major = 7, .minor = 0},
      {.type = 'p', .path = "/dev/fifo"},
      {.type = 'u', .path = "/dev/null", .major = 1, .minor = 3},
  };
  struct spec spec = {.masked_paths = masked,
                      .readonly_paths = read_only,
                      .devices = devices,
                      .n_devices = sizeof(devices) / sizeof(devices[0])};
  struct mount_plan plan;
  char msg[1024];
  int i;

  is_int(build(&spec, &bind_root, false, &plan, msg, sizeof(msg)), 0, "devices: builds (%s)", msg);
  i = find(&plan, MOUNT_OP_MASK, "/proc/kcore");
  ok(i >= 0, "maskedPaths: a mask op");
  is_str(plan.ops[i].source, "/dev/null", "masked with the host's /dev/null");
  is_int(plan.ops[i].rdev, makedev(1, 3), "which must be 1:3");
  is_int(plan.ops[i].attr, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
         "the mask is ro, nosuid, noexec, not nodev (the null device reads empty there)");
  ok(find(&plan, MOUNT_OP_MASK, "/sys/firmware") == i + 1, "masks in order");
  i = find(&plan, MOUNT_OP_READ_ONLY, "/proc/sys");
  ok(i > find(&plan, MOUNT_OP_MASK, "/sys/firmware"), "readonlyPaths after maskedPaths");
  ok(plan.ops[i].attr & MOUNT_ATTR_RDONLY, "read-only");

  i = find(&plan, MOUNT_OP_MAKE_DEVICE, "/dev/fuse");
  ok(i >= 0, "a char device is made (no user namespace)");
  is_int(plan.ops[i].dev_type, 'c', "type c");
  is_int(plan.ops[i].rdev, makedev(10, 229), "10:229");
  is_int(plan.ops[i].mode, 0620, "fileMode");
  is_int(plan.ops[i].uid, 5, "uid");
  is_int(plan.ops[i].gid, 6, "gid");
  is_int(plan.ops[i].attr_clr, MOUNT_ATTR_NODEV, "bound onto itself without nodev");
  is_int(plan.ops[i].attr, MOUNT_ATTR_NOSUID, "and nosuid");
  is_str(plan.ops[i].what, "config.json: linux.devices[0]", "named by its place");
  i = find(&plan, MOUNT_OP_MAKE_DEVICE, "/dev/loop0");
  is_int(plan.ops[i].dev_type, 'b', "a block device");
  is_int(plan.ops[i].mode, 0666, "fileMode absent: 0666");
  is_int(find(&plan, MOUNT_OP_MAKE_DEVICE, "/dev/null") >= 0, 1, "type u is a char device");
  is_int(find(&plan, MOUNT_OP_BIND_DEVICE, "/dev/null"), -1,
         "a default device the config lists is not bound again");
  ok(find(&plan, MOUNT_OP_BIND_DEVICE, "/dev/zero") >= 0, "the other defaults still are");
  ok(find(&plan, MOUNT_OP_MAKE_DEVICE, "/dev/fuse") <
         find(&plan, MOUNT_OP_BIND_DEVICE, "/dev/zero"),
     "linux.devices before the defaults");
  mount_plan_clear(&plan);

  is_int(build(&spec, &bind_root, true, &plan, msg, sizeof(msg)), 0, "userns devices: builds");
  i = find(&plan, MOUNT_OP_BIND_DEVICE, "/dev/fuse");
  ok(i >= 0, "in a user namespace a char device is the host's node bound");
  is_str(plan.ops[i].source, "/dev/char/10:229", "found by its number");
  is_int(plan.ops[i].rdev, makedev(10, 229), "and checked to be 10:229");
  i = find(&plan, MOUNT_OP_BIND_DEVICE, "/dev/loop0");
  is_str(plan.ops[i].source, "/dev/block/7:0", "a block device from /dev/block");
  ok(find(&plan, MOUNT_OP_MAKE_DEVICE, "/dev/fifo") >= 0, "a fifo is made even so");
  mount_plan_clear(&plan);
}

static void test_bind_dev(void)
{
  struct spec_mount m = {.destination = "/dev", .source = "/dev", .bind = true, .recursive = true};
  struct spec spec = {.mounts = &m, .n_mounts = 1};
  struct mount_plan plan;
  char msg[1024];

  is_int(build(&spec, &bind_root, false, &plan, msg, sizeof(msg)), 0, "bind /dev: builds");
  is_int(count(&plan, MOUNT_OP_BIND_DEVICE) + count(&plan, MOUNT_OP_SYMLINK), 0,
         "a config that binds /dev brings its own devices");
  mount_plan_clear(&plan);
}

static void test_refusals(void)
{
  struct spec spec = {0};
  struct mount_plan plan;
  struct mount_root no_bundle = bind_root;
  char msg[1024];
  char *bad_masked[] = {"proc/kcore", NULL};
  char *dotdot_ro[] = {"/proc/../etc", NULL};
  struct spec_device bad_device = {.type = 'x', .path = "/dev/x"};
  struct spec_device root_device = {.type = 'c', .path = "/", .major = 1, .minor = 3};

  refused_from_config("'mounts': [{'destination': '/a/../../etc', 'type': 'tmpfs'}]",
                      "mounts[0].destination", "a '..' destination");
  refused((struct spec_mount){.destination = "/", .type = "tmpfs"}, "root itself", "destination /");
  refused_from_config("'mounts': [{'destination': '//./', 'type': 'tmpfs'}]", "root itself",
                      "destination //./");
  refused_from_config("'mounts': [{'destination': '', 'type': 'tmpfs'}]", "empty",
                      "an empty destination");
  refused((struct spec_mount){.destination = "/mnt", .type = "ext4", .source = "/dev/sda1"},
          "mounts[0].type: 'ext4' is not supported", "type ext4");
  refused((struct spec_mount){.destination = "/mnt", .type = "overlay"}, "'overlay'",
          "type overlay");
  refused((struct spec_mount){.destination = "/mnt"}, "mounts[0].type", "no type, not a bind");
  refused((struct spec_mount){.destination = "/mnt", .bind = true}, "mounts[0].source",
          "a bind without source");
  refused((struct spec_mount){.destination = "/mnt", .type = "tmpfs", .flags = MS_REMOUNT},
          "'remount' is not supported", "remount");
  refused((struct spec_mount){.destination = "/mnt", .type = "tmpfs", .flags = MS_I_VERSION},
          "'iversion'", "iversion");
  refused((struct spec_mount){.destination = "/mnt", .type = "tmpfs", .flags = 1UL << 30},
          "not supported", "an unknown flag bit");
  refused(
      (struct spec_mount){
          .destination = "/mnt", .source = "/srv", .bind = true, .flags = MS_SYNCHRONOUS},
      "'sync'", "sync on a bind");

  {
    /* mount(2) ignores data for a bind, and the spec passes unknown options
     * as data (runtime-tools' mounts test sends mode=755,size=1k on binds). */
    struct spec_mount m = {
        .destination = "/mnt", .source = "/srv", .bind = true, .data = "mode=755,size=1k"};
    struct spec s = {.mounts = &m, .n_mounts = 1};
    int i;

    is_int(build(&s, &bind_root, false, &plan, msg, sizeof(msg)), 0,
           "filesystem data on a bind: accepted (%s)", msg);
    i = find(&plan, MOUNT_OP_BIND, "/mnt");
    ok(i >= 0 && plan.ops[i].data == NULL, "... and ignored, as mount(2) does");
    mount_plan_clear(&plan);
  }

  {
    struct spec_mount m = {.destination = "/mnt", .source = "rel", .bind = true};
    struct spec s = {.mounts = &m, .n_mounts = 1};

    no_bundle.bundle = NULL;
    is_int(build(&s, &no_bundle, false, &plan, msg, sizeof(msg)), -1,
           "a relative bind source without a bundle: refused");
    ok(strstr(msg, "mounts[0].source") != NULL, "naming mounts[0].source (%s)", msg);
  }

  spec.masked_paths = bad_masked;
  is_int(build(&spec, &bind_root, false, &plan, msg, sizeof(msg)), -1, "relative maskedPaths");
  ok(strstr(msg, "linux.maskedPaths[0]") != NULL, "names linux.maskedPaths[0] (%s)", msg);
  spec.masked_paths = NULL;
  spec.readonly_paths = dotdot_ro;
  is_int(build(&spec, &bind_root, false, &plan, msg, sizeof(msg)), -1, "'..' in readonlyPaths");
  ok(strstr(msg, "linux.readonlyPaths[0]") != NULL, "names linux.readonlyPaths[0] (%s)", msg);
  spec.readonly_paths = NULL;
  spec.devices = &bad_device;
  spec.n_devices = 1;
  is_int(build(&spec, &bind_root, false, &plan, msg, sizeof(msg)), -1, "device type x");
  ok(strstr(msg, "linux.devices[0].type") != NULL, "names linux.devices[0].type (%s)", msg);
  is_int(build_from_config("'linux': {'devices': [{'type': 'c', 'path': '/dev/../x', 'major': 1, "
                           "'minor': 3}]}",
                           &plan, msg, sizeof(msg)),
         -1, "device path with '..'");
  ok(strstr(msg, "linux.devices[0].path") != NULL, "names linux.devices[0].path (%s)", msg);
  spec.devices = &root_device;
  is_int(build(&spec, &bind_root, false, &plan, msg, sizeof(msg)), -1, "device path /");
  ok(strstr(msg, "linux.devices[0].path: '/' is the root itself") != NULL,
     "names linux.devices[0].path, the root itself (%s)", msg);
}

/* A cgroup mount in a user namespace without a cgroup namespace of its
 * own (the kernel refuses cgroup2 there, EPERM): the container's slice is
 * bound instead, read-only unless the mount says rw; with a cgroup
 * namespace, or without a user namespace, it stays a cgroup2 mount. */
static void test_cgroup_in_user_namespace(void)
{
  static const char cgroup_ro[] = "'mounts': [{'destination': '/sys/fs/cgroup', 'type': 'cgroup', "
                                  "'source': 'cgroup', 'options': ['nosuid', 'noexec', 'nodev', "
                                  "'relatime', 'ro']}, {'destination': '/rw', 'type': 'cgroup2', "
                                  "'source': 'cgroup', 'options': ['rw']}, {'destination': "
                                  "'/plain', 'type': 'cgroup'}]";
  const char *slice = "/sys/fs/cgroup/ocirun/c8";
  char fragment[1024], msg[1024];
  struct mount_plan plan;
  oci_error_t err = NULL;
  int i;

  snprintf(fragment, sizeof(fragment),
           "%s, 'linux': {'namespaces': [{'type': 'mount'}, "
           "{'type': 'user'}], 'uidMappings': [{'containerID': 0, 'hostID': 1000, 'size': 1}], "
           "'gidMappings': [{'containerID': 0, 'hostID': 1000, 'size': 1}]}",
           cgroup_ro);
  is_int(build_from_config(fragment, &plan, msg, sizeof(msg)), 0,
         "user namespace, no cgroup namespace: builds (%s)", msg);
  is_int(find(&plan, MOUNT_OP_FILESYSTEM, "/sys/fs/cgroup"), -1, "... no cgroup2 mount");
  i = find(&plan, MOUNT_OP_BIND_CGROUP, "/sys/fs/cgroup");
  ok(i >= 0, "... the container's cgroup is bound at /sys/fs/cgroup");
  ok(i >= 0 && plan.ops[i].source == NULL, "... its slice still to be named");
  is_int(mount_plan_set_slice(&plan, slice, &err), 0, "... the slice named");
  ok(i >= 0 && plan.ops[i].source != NULL && strcmp(plan.ops[i].source, slice) == 0,
     "... the source is the container's own slice, not the host's tree");
  is_int(i >= 0 ? plan.ops[i].attr : 0,
         MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
         "... ro, nosuid, nodev, noexec as the mount says");
  i = find(&plan, MOUNT_OP_BIND_CGROUP, "/rw");
  ok(i >= 0 && !(plan.ops[i].attr & MOUNT_ATTR_RDONLY) &&
         (plan.ops[i].attr_clr & MOUNT_ATTR_RDONLY),
     "... read-write where the mount says rw");
  i = find(&plan, MOUNT_OP_BIND_CGROUP, "/plain");
  ok(i >= 0 && (plan.ops[i].attr & MOUNT_ATTR_RDONLY), "... read-only where it says nothing");
  mount_plan_clear(&plan);

  is_int(build_from_config(fragment, &plan, msg, sizeof(msg)), 0, "again, without a slice");
  is_int(mount_plan_set_slice(&plan, NULL, &err), -1, "... refused");
  ok(err != NULL && strstr(err->message, "config.json: mounts[0]") != NULL &&
         strstr(err->message, "has none (--unsafe-no-cgroup)") != NULL,
     "... naming the mount (%s)", err != NULL ? err->message : "");
  oci_error_free(&err);
  mount_plan_clear(&plan);

  snprintf(fragment, sizeof(fragment),
           "%s, 'linux': {'namespaces': [{'type': 'mount'}, "
           "{'type': 'user'}, {'type': 'cgroup'}], 'uidMappings': [{'containerID': 0, "
           "'hostID': 1000, 'size': 1}], 'gidMappings': [{'containerID': 0, 'hostID': 1000, "
           "'size': 1}]}",
           cgroup_ro);
  is_int(build_from_config(fragment, &plan, msg, sizeof(msg)), 0,
         "user and cgroup namespaces: builds (%s)", msg);
  ok(find(&plan, MOUNT_OP_FILESYSTEM, "/sys/fs/cgroup") >= 0 &&
         count(&plan, MOUNT_OP_BIND_CGROUP) == 0,
     "... a cgroup2 mount of its own");
  is_int(mount_plan_set_slice(&plan, NULL, &err), 0, "... which needs no slice");
  mount_plan_clear(&plan);

  snprintf(fragment, sizeof(fragment), "%s, 'linux': {'namespaces': [{'type': 'mount'}]}",
           cgroup_ro);
  is_int(build_from_config(fragment, &plan, msg, sizeof(msg)), 0, "no user namespace: builds (%s)",
         msg);
  ok(find(&plan, MOUNT_OP_FILESYSTEM, "/sys/fs/cgroup") >= 0 &&
         count(&plan, MOUNT_OP_BIND_CGROUP) == 0,
     "... a cgroup2 mount");
  mount_plan_clear(&plan);
}

/* process.cwd is made after the mounts and before the root turns
 * read-only (then it could not be); no process, no op. */
static void test_workdir(void)
{
  struct spec_mount tmp = {.destination = "/tmp", .type = "tmpfs"};
  struct spec spec = {.mounts = &tmp, .n_mounts = 1, .root_readonly = true, .has_process = true};
  struct mount_plan plan;
  char msg[1024];
  int i;

  spec.process.cwd = "/work/dir";
  is_int(build(&spec, &bind_root, false, &plan, msg, sizeof(msg)), 0, "process.cwd: builds (%s)",
         msg);
  i = find(&plan, MOUNT_OP_MAKE_WORKDIR, "/work/dir");
  ok(i > find(&plan, MOUNT_OP_FILESYSTEM, "/tmp"), "the workdir op is after the mounts");
  ok(i >= 0 && i < find(&plan, MOUNT_OP_ROOT_READ_ONLY, "/"),
     "... and before the root turns read-only");
  ok(i >= 0 && strcmp(plan.ops[i].what, "the working directory (process.cwd)") == 0,
     "... named the working directory (process.cwd)");
  mount_plan_clear(&plan);
  spec.has_process = false;
  is_int(build(&spec, &bind_root, false, &plan, msg, sizeof(msg)), 0, "no process: builds");
  is_int(count(&plan, MOUNT_OP_MAKE_WORKDIR), 0, "... and makes no workdir");
  mount_plan_clear(&plan);
}

/* Idmapped binds: the mount's own mappings (inside: the id on the source's
 * filesystem), the container's when it gives none, ridmap for the tree,
 * shown in the printed plan; refused by name where they cannot apply. */
static void test_idmap(void)
{
  static const char *const userns =
      "'linux': {'namespaces': [{'type': 'mount'}, {'type': 'user'}], 'uidMappings': "
      "[{'containerID': 0, 'hostID': 100000, 'size': 65536}], 'gidMappings': [{'containerID': 0, "
      "'hostID': 200000, 'size': 65536}]}";
  static const char *const map =
      "'uidMappings': [{'containerID': 1000, 'hostID': 0, 'size': 1}], 'gidMappings': "
      "[{'containerID': 1001, 'hostID': 5, 'size': 2}]";
  char fragment[1024], msg[1024], attrs[128];
  struct mount_plan plan;
  char *text = NULL;
  size_t text_size = 0;
  FILE *out;
  int i;

  snprintf(fragment, sizeof(fragment),
           "'mounts': [{'destination': '/data', 'type': 'bind', 'source': '/srv', 'options': "
           "['rbind', 'ro'], %s}]",
           map);
  is_int(build_from_config(fragment, &plan, msg, sizeof(msg)), 0, "mappings on a bind: builds (%s)",
         msg);
  i = find(&plan, MOUNT_OP_BIND, "/data");
  ok(i >= 0 && plan.ops[i].idmap != NULL && !plan.ops[i].idmap_recursive &&
         plan.ops[i].idmap_fd == -1,
     "... idmapped (mappings imply idmap), the top mount only, not made yet");
  ok(i >= 0 && plan.ops[i].idmap != NULL && plan.ops[i].idmap->n_ranges == 1 &&
         plan.ops[i].idmap->uid[0].inside == 1000 && plan.ops[i].idmap->uid[0].outside == 0 &&
         plan.ops[i].idmap->uid[0].count == 1 && plan.ops[i].idmap->n_gid_ranges == 1 &&
         plan.ops[i].idmap->gid[0].inside == 1001 && plan.ops[i].idmap->gid[0].outside == 5 &&
         plan.ops[i].idmap->gid[0].count == 2,
     "... with the mount's mappings, containerID inside, hostID outside");
  if (i >= 0)
    mount_op_format_attrs(&plan.ops[i], attrs, sizeof(attrs));
  is_str(i >= 0 ? attrs : "", "rbind,idmap,ro", "... its attributes say idmap");
  out = open_memstream(&text, &text_size);
  mount_plan_print(&plan, out);
  fclose(out);
  ok(text != NULL && strstr(text, "/srv") != NULL && strstr(text, "rbind,idmap,ro") != NULL,
     "... and the printed plan's line for it");
  free(text);
  mount_plan_clear(&plan);

  snprintf(fragment, sizeof(fragment),
           "'mounts': [{'destination': '/data', 'type': 'bind', 'source': '/srv', 'options': "
           "['rbind', 'ridmap']}], %s",
           userns);
  is_int(build_from_config(fragment, &plan, msg, sizeof(msg)), 0,
         "ridmap without mappings in a user namespace: builds (%s)", msg);
  i = find(&plan, MOUNT_OP_BIND, "/data");
  ok(i >= 0 && plan.ops[i].idmap != NULL && plan.ops[i].idmap_recursive &&
         plan.ops[i].idmap->uid[0].outside == 100000 && plan.ops[i].idmap->uid[0].count == 65536 &&
         plan.ops[i].idmap->gid[0].outside == 200000,
     "... the whole tree, through the container's own mappings");
  if (i >= 0)
    mount_op_format_attrs(&plan.ops[i], attrs, sizeof(attrs));
  is_str(i >= 0 ? attrs : "", "rbind,ridmap", "... its attributes say ridmap");
  mount_plan_clear(&plan);

  snprintf(fragment, sizeof(fragment),
           "'mounts': [{'destination': '/data', 'type': 'bind', 'source': '/srv', 'options': "
           "['bind']}], %s",
           userns);
  is_int(build_from_config(fragment, &plan, msg, sizeof(msg)), 0, "control: a plain bind");
  i = find(&plan, MOUNT_OP_BIND, "/data");
  ok(i >= 0 && plan.ops[i].idmap == NULL, "... is not idmapped");
  mount_plan_clear(&plan);

  snprintf(fragment, sizeof(fragment),
           "'mounts': [{'destination': '/t', 'type': 'tmpfs', 'options': ['idmap']}], %s", userns);
  refused_from_config(fragment, "mounts[0]: an idmapped mount", "idmap on a tmpfs");
  snprintf(fragment, sizeof(fragment),
           "'mounts': [{'destination': '/t', 'type': 'tmpfs', 'source': 'tmpfs', %s}]", map);
  refused_from_config(fragment, "must be a bind mount", "mappings on a tmpfs");
  refused_from_config("'mounts': [{'destination': '/d', 'source': '/srv', 'options': ['bind'], "
                      "'gidMappings': [{'containerID': 0, 'hostID': 1, 'size': 1}]}]",
                      "uidMappings and gidMappings go together", "gidMappings alone");
  refused_from_config("'mounts': [{'destination': '/d', 'source': '/srv', 'options': ['bind', "
                      "'idmap']}]",
                      "'idmap' without uidMappings takes the container's user namespace "
                      "mappings",
                      "idmap without mappings and without a user namespace");
  refused_from_config("'mounts': [{'destination': '/d', 'source': '/srv', 'options': ['bind'], "
                      "'uidMappings': [{'containerID': 0, 'hostID': 1, 'size': 0}], "
                      "'gidMappings': [{'containerID': 0, 'hostID': 1, 'size': 1}]}]",
                      "mounts[0].uidMappings[0]: size 0 maps nothing", "a mapping of size 0");
}

/* A bind whose source the front end holds open (ocirun run's -v, a named
 * volume): the op takes that fd and copy_up, and a read-only rbind is
 * read-only, nosuid and nodev on every mount of the tree. */
static void test_held_sources(void)
{
  const char *json = "{\"ociVersion\": \"1.2.0\", \"root\": {\"path\": \"rootfs\"}, \"mounts\": ["
                     "{\"destination\": \"/data\", \"type\": \"bind\", \"source\": \"/srv\", "
                     "\"options\": [\"rbind\", \"ro\", \"nosuid\", \"nodev\", \"rprivate\"]},"
                     "{\"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\"}]}";
  int held = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct mount_source sources[] = {{.fd = held, .copy_up = true}, {.fd = -1}};
  struct mount_source wrong[] = {{.fd = -1}, {.fd = held}};
  struct stat st;
  struct mount_root root = bind_root;
  uint64_t all = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
  cJSON *config = cJSON_Parse(json);
  struct spec spec;
  struct mount_plan plan;
  oci_error_t err = NULL;
  char msg[1024];
  int i;

  is_int(spec_parse(config, &spec, &err), 0, "held sources: the configuration parses");
  cJSON_Delete(config);
  oci_error_free(&err);
  root.sources = sources;
  is_int(build(&spec, &root, false, &plan, msg, sizeof(msg)), 0, "held sources: builds (%s)", msg);
  i = find(&plan, MOUNT_OP_BIND, "/data");
  ok(i >= 0 && plan.ops[i].source_fd == held && plan.ops[i].copy_up && plan.ops[i].clone_fd == -1,
     "the bind takes the held fd and copy_up; the parent clones it later");
  ok(i >= 0 && fstat(held, &st) == 0 && plan.ops[i].source_dev == st.st_dev &&
         plan.ops[i].source_ino == st.st_ino && !plan.ops[i].reopen_checked,
     "and its identity, for a rootless child to check the path against");
  ok(i >= 0 && (plan.ops[i].attr_rec & all) == all && (plan.ops[i].attr & all) == all,
     "rbind,ro,nosuid,nodev: read-only, nosuid and nodev on every mount of the tree");
  i = find(&plan, MOUNT_OP_FILESYSTEM, "/tmp");
  ok(i >= 0 && plan.ops[i].source_fd == -1, "an entry without a held source has none");
  mount_plan_clear(&plan);
  root.sources = wrong;
  is_int(build(&spec, &root, false, &plan, msg, sizeof(msg)), -1,
         "a held source for a mount that is not a bind is refused");
  ok(strstr(msg, "mounts[1]") != NULL, "naming the entry (%s)", msg);
  spec_clear(&spec);
  close(held);
}

int main(void)
{
  test_overlay_empty_spec();
  test_overlay_on_disk();
  test_read_only_nosuid();
  test_bind_root_and_files();
  test_mounts();
  test_destinations_from_config();
  test_paths_and_devices();
  test_bind_dev();
  test_refusals();
  test_cgroup_in_user_namespace();
  test_workdir();
  test_idmap();
  test_held_sources();
  return unit_done();
}
