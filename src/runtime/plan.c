/* The plan: what a run, a create or an exec decides before anything exists
 * (new and joined namespaces, the user namespace's maps, the root tree, the
 * mount plan, the slice with its limits and device rules, the capability
 * sets and the seccomp program), from the spec and the runtime options
 * alone, built into one value (plan.h); nothing here creates anything. */
#include "config.h"

#include "runtime/plan.h"
#include "runtime/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "runtime/console.h"
#include "oci/cleanup.h"
#include "oci/events.h"
#include "runtime/sysctl.h"

const unsigned long namespace_clone_flag[SPEC_NS_COUNT] = {
    [SPEC_NS_PID] = CLONE_NEWPID,       [SPEC_NS_NETWORK] = CLONE_NEWNET,
    [SPEC_NS_MOUNT] = CLONE_NEWNS,      [SPEC_NS_IPC] = CLONE_NEWIPC,
    [SPEC_NS_UTS] = CLONE_NEWUTS,       [SPEC_NS_USER] = CLONE_NEWUSER,
    [SPEC_NS_CGROUP] = CLONE_NEWCGROUP, [SPEC_NS_TIME] = CLONE_NEWTIME,
};

/* New namespaces become clone3 flags; a path is opened now (a namespace
 * file, checked by its filesystem) and joined by the child, but a pid
 * namespace by the parent just around clone3, since only children enter
 * one. ocirun needs its own mount namespace: without one its mounts would
 * be the host's. */
static int prepare_namespaces(struct launch *launch, oci_error_t *err)
{
  const struct spec *spec = launch->spec;

  for (int ns = 0; ns < SPEC_NS_COUNT; ns++) {
    const struct spec_namespace *entry = &spec->namespaces[ns];
    struct statfs fs;

    launch->join_fd[ns] = -1;
    if (!entry->present)
      continue;
    if (entry->path == NULL) {
      /* a clone3 child is in its new time namespace at once, whose
       * offsets are then fixed: with offsets, pid 1 makes it (child.c) */
      if (!(ns == SPEC_NS_TIME && spec->has_time_offsets))
        launch->clone_flags |= namespace_clone_flag[ns];
      continue;
    }
    launch->join_fd[ns] = open(entry->path, O_RDONLY | O_CLOEXEC);
    if (launch->join_fd[ns] < 0)
      return oci_error_errno(err, "linux.namespaces: open the %s namespace '%s'",
                             spec_namespace_name(ns), entry->path);
    if (fstatfs(launch->join_fd[ns], &fs) < 0 || fs.f_type != NSFS_MAGIC)
      return oci_error_set(err, 0, "linux.namespaces: '%s' is not a namespace file", entry->path);
  }
  if (!spec->namespaces[SPEC_NS_MOUNT].present || spec->namespaces[SPEC_NS_MOUNT].path != NULL)
    return oci_error_set(err, 0,
                         "linux.namespaces: ocirun needs a new mount namespace (a 'mount' entry "
                         "without a path)");
  launch->new_user_ns = (launch->clone_flags & CLONE_NEWUSER) != 0;
  if (launch->options->rootless && !launch->new_user_ns &&
      spec->namespaces[SPEC_NS_USER].path == NULL)
    return oci_error_set(err, 0,
                         "linux.namespaces: without privilege ocirun needs a user namespace");
  return 0;
}

/* The user namespace's maps, and the process's ids must exist in them.
 * Without setgroups (an unprivileged caller's own ids only) the
 * additional groups are left out rather than refused: the kernel would
 * keep the caller's anyway. */
static int prepare_user(struct launch *launch, oci_error_t *err)
{
  const struct spec *spec = launch->spec;
  const struct spec_process *process = &spec->process;
  struct id_range uid[USERNS_MAX_RANGES], gid[USERNS_MAX_RANGES];

  launch->set_groups = true;
  launch->groups = process->additional_gids;
  launch->n_groups = process->n_additional_gids;
  if (!launch->new_user_ns)
    return 0;
  if (spec->n_uid_mappings > USERNS_MAX_RANGES || spec->n_gid_mappings > USERNS_MAX_RANGES)
    return oci_error_set(err, 0, "linux.uidMappings: more than %d entries", USERNS_MAX_RANGES);
  for (size_t i = 0; i < spec->n_uid_mappings; i++)
    uid[i] = (struct id_range){spec->uid_mappings[i].container_id, spec->uid_mappings[i].host_id,
                               spec->uid_mappings[i].size};
  for (size_t i = 0; i < spec->n_gid_mappings; i++)
    gid[i] = (struct id_range){spec->gid_mappings[i].container_id, spec->gid_mappings[i].host_id,
                               spec->gid_mappings[i].size};
  if (userns_map_from_ranges(uid, spec->n_uid_mappings, gid, spec->n_gid_mappings,
                             launch->options->rootless, &launch->map, err) < 0)
    return oci_error_wrap(err, "linux.uidMappings/gidMappings");
  if (!userns_map_has_uid(&launch->map, process->uid) ||
      !userns_map_has_gid(&launch->map, process->gid))
    return oci_error_set(err, 0,
                         "process.user: uid %u gid %u is not mapped by linux.uidMappings and "
                         "linux.gidMappings",
                         (unsigned)process->uid, (unsigned)process->gid);
  if (!userns_map_allows_setgroups(&launch->map)) {
    launch->set_groups = false;
    launch->n_groups = 0;
    return 0;
  }
  for (size_t i = 0; i < launch->n_groups; i++) {
    if (!userns_map_has_gid(&launch->map, launch->groups[i]))
      return oci_error_set(err, 0,
                           "process.user.additionalGids: group %u is not mapped by "
                           "linux.gidMappings",
                           (unsigned)launch->groups[i]);
  }
  return 0;
}

/* The root tree as an fd: ocirun run's cached rootfs (its front end opened
 * it from the checked store), or root.path of the bundle, opened from the
 * bundle's directory. The bundle is the caller's (it wrote config.json);
 * what is inside the root is not, and is resolved inside it later. */
static int prepare_root(struct launch *launch, oci_error_t *err)
{
  const struct runtime_options *options = launch->options;
  cleanup_close int bundle_fd = -1;

  launch->root = options->root;
  if (options->root.root_fd >= 0) {
    launch->root_fd = options->root.root_fd;
    return 0;
  }
  if (options->bundle == NULL)
    return oci_error_set(err, 0, "run: no root tree and no bundle");
  if (launch->spec->root_path[0] == '/') {
    launch->root_fd = open(launch->spec->root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  } else {
    bundle_fd = open(options->bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (bundle_fd < 0)
      return oci_error_errno(err, "open the bundle '%s'", options->bundle);
    launch->root_fd = openat(bundle_fd, launch->spec->root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
  if (launch->root_fd < 0)
    return oci_error_errno(err, "root.path: open '%s' (bundle '%s')", launch->spec->root_path,
                           options->bundle);
  launch->root_fd_owned = true;
  launch->root.root_fd = launch->root_fd;
  if (launch->root.root_path == NULL)
    launch->root.root_path = launch->spec->root_path;
  return 0;
}

void launch_clear(struct launch *launch)
{
  if (launch->root_fd_owned && launch->root_fd >= 0)
    close(launch->root_fd);
  launch->root_fd = -1;
  for (int ns = 0; ns < SPEC_NS_COUNT; ns++) {
    if (launch->join_fd[ns] >= 0)
      close(launch->join_fd[ns]);
    launch->join_fd[ns] = -1;
  }
  if (launch->exec_fifo_fd >= 0)
    close(launch->exec_fifo_fd);
  launch->exec_fifo_fd = -1;
  if (launch->console_fd >= 0)
    close(launch->console_fd);
  launch->console_fd = -1;
  if (launch->listener_fd >= 0)
    close(launch->listener_fd);
  launch->listener_fd = -1;
  free(launch->listener_state);
  launch->listener_state = NULL;
  mount_plan_clear(&launch->plan);
  seccomp_filter_free(launch->filter);
  launch->filter = NULL;
}

/* Everything the child needs, from the spec: nothing is decided later. */
static int prepare_launch(struct launch *launch, oci_error_t *err)
{
  static char *const no_env[] = {NULL};
  const struct spec *spec = launch->spec;
  const struct spec_process *process = &spec->process;

  if (!spec->has_process)
    return oci_error_set(err, 0, "config.json has no 'process': nothing to run");
  launch->envp = process->env != NULL ? process->env : no_env;
  launch->caps = (struct capability_sets){.bounding = process->cap_bounding,
                                          .effective = process->cap_effective,
                                          .permitted = process->cap_permitted,
                                          .inheritable = process->cap_inheritable,
                                          .ambient = process->cap_ambient};
  /* run relays the terminal itself; create sends it to the caller */
  if (process->terminal && !launch->supervised && launch->options->console_socket == NULL)
    return oci_error_set(err, 0,
                         "process.terminal: a terminal needs a console socket (ocirun create "
                         "--console-socket)");
  if (!process->terminal && launch->options->console_socket != NULL)
    return oci_error_set(err, 0, "--console-socket given but process.terminal is not true");
  if (prepare_namespaces(launch, err) < 0 || prepare_user(launch, err) < 0 ||
      sysctl_check(spec, err) < 0 || prepare_root(launch, err) < 0 ||
      mount_plan_build(spec, &launch->root, launch->new_user_ns, &launch->plan, err) < 0)
    return -1;
  launch->plan.lower_fd = launch->root_fd;
  for (size_t i = 0; launch->options->mount_names != NULL && i < launch->plan.n_ops; i++) {
    struct mount_op *op = &launch->plan.ops[i];
    const char *name = op->mount_index >= 0 && (size_t)op->mount_index < spec->n_mounts
                           ? launch->options->mount_names[op->mount_index]
                           : NULL;

    if (name == NULL)
      continue;
    free(op->what);
    op->what = strdup(name);
    if (op->what == NULL)
      return oci_error_errno(err, "run: allocate");
  }
  if (spec->seccomp == NULL)
    return 0;
  /* Built before clone: the child only loads it. Compiling the profile is
   * the costliest step of a start, so the compiled program is cached. */
  return seccomp_filter_build_oci(spec->seccomp, process->cap_effective,
                                  launch->options->state_root, &launch->filter, err);
}

/* The device rules of the slice: the configuration's, then the spec's
 * default devices, which a container always gets (runtime-spec "Default
 * Devices"): /dev/null, zero, full, random, urandom, tty, and the pty
 * multiplexer and pseudo-terminals of its devpts; last, mknod ('m' only) of
 * each node linux.devices asks for, which the child makes while already in
 * the slice (runc makes them before its rules apply: the same outcome). Who
 * may read or write such a node is still the configuration's to say. */
static int device_rules(const struct spec *spec, struct spec_device_rule **out, size_t *n,
                        oci_error_t *err)
{
  static const struct spec_device_rule defaults[] = {
      {true, 'c', 1, 3, "rwm"}, {true, 'c', 1, 5, "rwm"},    {true, 'c', 1, 7, "rwm"},
      {true, 'c', 1, 8, "rwm"}, {true, 'c', 1, 9, "rwm"},    {true, 'c', 5, 0, "rwm"},
      {true, 'c', 5, 2, "rwm"}, {true, 'c', 136, -1, "rwm"},
  };
  size_t n_defaults = sizeof(defaults) / sizeof(defaults[0]);
  size_t n_spec = spec->has_resources ? spec->resources.n_devices : 0;
  struct spec_device_rule *rules = calloc(n_spec + n_defaults + spec->n_devices, sizeof(*rules));
  size_t k = 0;

  if (rules == NULL)
    return oci_error_errno(err, "devices: allocate");
  for (size_t i = 0; i < n_spec; i++)
    rules[k++] = spec->resources.devices[i];
  for (size_t i = 0; i < n_defaults; i++)
    rules[k++] = defaults[i];
  for (size_t i = 0; i < spec->n_devices; i++) {
    const struct spec_device *d = &spec->devices[i];

    if (d->type == 'p')
      continue; /* a fifo is no device: the program never sees it */
    rules[k++] = (struct spec_device_rule){.allow = true,
                                           .type = d->type == 'b' ? 'b' : 'c',
                                           .major = d->major,
                                           .minor = d->minor,
                                           .access = "m"};
  }
  *out = rules;
  *n = k;
  return 0;
}

static void slice_plan_clear(struct slice_plan *slice)
{
  free(slice->path);
  cgroup_limits_clear(&slice->limits);
  free(slice->rules);
  *slice = (struct slice_plan){0};
}

static int slice_plan_build(const struct spec *spec, const struct runtime_options *options,
                            struct slice_plan *slice, oci_error_t *err)
{
  static const struct spec_resources none = {.memory_limit = -1,
                                             .memory_reservation = -1,
                                             .memory_swap = -1,
                                             .cpu_quota = -1,
                                             .pids_limit = -1};

  *slice = (struct slice_plan){0};
  if (options->unsafe_no_cgroup)
    return 0;
  if (cgroup_slice_path(spec->cgroups_path, options->id, options->rootless, &slice->path, err) <
          0 ||
      cgroup_limits_build(spec->has_resources ? &spec->resources : &none, &slice->limits, err) <
          0 ||
      device_rules(spec, &slice->rules, &slice->n_rules, err) < 0) {
    slice_plan_clear(slice);
    return -1;
  }
  return 0;
}

void launch_init(struct launch *launch, const struct spec *spec,
                 const struct runtime_options *options, bool supervised)
{
  *launch = (struct launch){.spec = spec,
                            .options = options,
                            .supervised = supervised,
                            .root_fd = -1,
                            .go_fd = -1,
                            .report_fd = -1,
                            .exec_fifo_fd = -1,
                            .own_fds_fd = -1,
                            .console_fd = -1,
                            .status_fd = -1,
                            .listener_fd = -1,
                            .pasta = PASTA_NONE,
                            .host_devpts = console_host_devpts()};
  for (int ns = 0; ns < SPEC_NS_COUNT; ns++)
    launch->join_fd[ns] = -1;
}

/* What ocirun run refuses before anything exists. Hooks belong to the OCI
 * lifecycle (create, start, delete): a hook is refused rather than
 * skipped. The run's pid 1 is ocirun's init, which holds the run's tie to
 * its runner and reports the workload's status: CAP_SYS_PTRACE over it
 * (of the host's user namespace, or of the run's own, where the init is
 * exec'd) would let the workload trace it, clear its parent-death signal
 * and forge that status. Non-dumpable stops every other tracer. Refused,
 * not weakened. */
static int run_refusals(const struct spec *spec, oci_error_t *err)
{
  for (int kind = 0; kind < SPEC_HOOK_KIND_COUNT; kind++)
    if (spec->hooks[kind].n_hooks > 0)
      return oci_error_set(err, 0, "hooks.%s: ocirun run runs no hooks (ocirun create does)",
                           spec_hook_kind_name((enum spec_hook_kind)kind));
  if (spec->has_process && (spec->process.cap_bounding & (UINT64_C(1) << CAP_SYS_PTRACE)) != 0)
    return oci_error_set(err, 0,
                         "process.capabilities: CAP_SYS_PTRACE: the workload could trace ocirun's "
                         "init, its pid 1, and so outlive ocirun and forge the exit status it "
                         "reports; ocirun run refuses it (ocirun create, whose container has no "
                         "init, takes it)");
  return 0;
}

static void plan_free(struct runtime_plan *plan)
{
  slice_plan_clear(&plan->slice);
  launch_clear(&plan->launch);
  free(plan->run_dir);
  free(plan);
}

void runtime_plan_clear(struct runtime_plan **plan)
{
  if (*plan != NULL)
    plan_free(*plan);
  *plan = NULL;
}

/* ocirun run's own part of the plan: its refusals, the run dir that holds
 * an overlay root's scratch (ocirun's layout, derived from the name), and
 * pid 1 as ocirun's init. */
static int plan_run(struct runtime_plan *plan, oci_error_t *err)
{
  struct runtime_options *options = &plan->options;

  if (options->state == NULL)
    return oci_error_set(err, EINVAL, "run: no state root was opened for the run's record");
  if (run_refusals(plan->launch.spec, err) < 0)
    return -1;
  if (asprintf(&plan->run_dir, "%s/run/%s", options->state_root, options->id) < 0) {
    plan->run_dir = NULL;
    return oci_error_errno(err, "run: allocate");
  }
  if (options->root.overlay)
    options->root.run_dir = plan->run_dir;
  plan->launch.init = true;
  if (options->unsafe_no_cgroup)
    oci_emit(options->events, OCI_EVENT_WARNING, "unsafe-no-cgroup", NULL,
             "--unsafe-no-cgroup: no memory/cpu/pids limits are applied and processes are "
             "contained by the pid namespace only; no device cgroup either: devices are kept out "
             "by nodev on every mount the container can write");
  return 0;
}

int runtime_plan_build(const struct spec *spec, const struct runtime_options *options,
                       enum runtime_plan_mode mode, struct runtime_plan **out, oci_error_t *err)
{
  struct runtime_plan *plan = calloc(1, sizeof(*plan));

  *out = NULL;
  if (plan == NULL)
    return oci_error_errno(err, "plan: allocate");
  plan->mode = mode;
  plan->options = *options;
  /* the launch points to the plan's own copy, the one with the run dir */
  launch_init(&plan->launch, spec, &plan->options, mode == RUNTIME_PLAN_RUN);
  if (mode == RUNTIME_PLAN_RUN && plan_run(plan, err) < 0)
    goto fail;
  if (mode == RUNTIME_PLAN_CREATE && options->root.overlay) {
    oci_error_set(err, 0, "create: an overlay root is only for ocirun run");
    goto fail;
  }
  if (prepare_launch(&plan->launch, err) < 0 ||
      slice_plan_build(spec, &plan->options, &plan->slice, err) < 0 ||
      mount_plan_set_slice(&plan->launch.plan, plan->slice.path, err) < 0)
    goto fail;
  if (mode == RUNTIME_PLAN_RUN)
    oci_emit(options->events, OCI_EVENT_PHASE, "plan", options->id, NULL);
  *out = plan;
  return 0;
fail:
  plan_free(plan);
  return -1;
}
