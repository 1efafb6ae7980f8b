/* The plan as --dry-run prints it: what the child and the parent will
 * carry out, nothing created or started. */
#include "config.h"

#include "runtime/plan.h"
#include "runtime/launch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/cgroup/devices.h"
#include "runtime/network.h"
#include "runtime/process_attrs.h"
#include "oci/cleanup.h"

static void print_capabilities(const char *set, uint64_t mask, FILE *out)
{
  fprintf(out, "  %-12s", set);
  if (mask == 0)
    fprintf(out, " none");
  for (int cap = 0; cap < 64; cap++) {
    if ((mask & (UINT64_C(1) << cap)) != 0 && capability_name(cap) != NULL)
      fprintf(out, " %s", capability_name(cap));
  }
  fprintf(out, "\n");
}

const char *runtime_plan_seccomp_origin(const struct runtime_plan *plan)
{
  return plan->launch.filter == NULL            ? "unconfined"
         : plan->options.seccomp_origin != NULL ? plan->options.seccomp_origin
                                                : "linux.seccomp";
}

/* Counted in the compiled profile's JSON: one "names" list per group. */
bool runtime_plan_seccomp_groups(const struct runtime_plan *plan, size_t *groups)
{
  cleanup_free char *profile = NULL;

  *groups = 0;
  if (plan->launch.filter == NULL ||
      (profile = seccomp_filter_profile_json(plan->launch.filter)) == NULL)
    return false;
  for (const char *p = profile; (p = strstr(p, "\"names\"")) != NULL; p++)
    (*groups)++;
  return true;
}

/* The plan, as the child and the parent will carry it out. */
void runtime_plan_print(const struct runtime_plan *plan, FILE *out)
{
  const struct launch *launch = &plan->launch;
  const struct spec *spec = launch->spec;
  const struct spec_process *process = &spec->process;
  const char *slice_path = plan->slice.path;
  size_t groups;

  if (out == NULL)
    return;
  fprintf(out, "plan of '%s': nothing was created or started\n\n", launch->options->id);
  fprintf(out, "namespaces:");
  for (int ns = 0; ns < SPEC_NS_COUNT; ns++) {
    if (spec->namespaces[ns].present)
      fprintf(out, " %s%s%s", spec_namespace_name(ns), spec->namespaces[ns].path ? "=" : "",
              spec->namespaces[ns].path ? spec->namespaces[ns].path : "");
  }
  fprintf(out, "\nnetwork: %s\n", network_plan_text(spec, plan->options.pasta_options != NULL));
  if (plan->options.pasta_options != NULL) {
    fprintf(out, "  pasta options:");
    for (const char *const *o = plan->options.pasta_options; *o != NULL; o++)
      fprintf(out, " %s", *o);
    fprintf(out, "\n");
  }
  fprintf(out, "hostname: %s\n", spec->hostname != NULL ? spec->hostname : "(unchanged)");
  if (launch->new_user_ns) {
    fprintf(out, "user namespace: ");
    userns_map_print(&launch->map, out);
  }
  fprintf(out, "\nmount plan (root: %s):\n", launch->root.root_path);
  mount_plan_print(&launch->plan, out);
  fprintf(out, "\ncgroup:\n");
  if (slice_path == NULL) {
    fprintf(out, "  NONE (--unsafe-no-cgroup): no limits and no device program are applied\n");
  } else {
    fprintf(out, "  slice: %s\n", slice_path);
    cgroup_limits_print(&plan->slice.limits, out, "  ");
  }
  fprintf(out, "\ndevices:\n");
  if (slice_path == NULL || launch->options->rootless)
    fprintf(out, "  no device program (%s): every mount the workload can write is nodev%s\n",
            slice_path == NULL ? "--unsafe-no-cgroup" : "rootless",
            launch->options->rootless ? ", and mknod of a device needs CAP_MKNOD on the host" : "");
  else
    cgroup_devices_print(plan->slice.rules, plan->slice.n_rules, out, "  ");
  fprintf(out, "\ncapabilities:\n");
  print_capabilities("bounding", launch->caps.bounding, out);
  print_capabilities("effective", launch->caps.effective, out);
  print_capabilities("permitted", launch->caps.permitted, out);
  print_capabilities("inheritable", launch->caps.inheritable, out);
  print_capabilities("ambient", launch->caps.ambient, out);
  fprintf(out, "no-new-privileges: %s\n", process->no_new_privileges ? "yes" : "no");
  fprintf(out, "user: uid %u gid %u groups", (unsigned)process->uid, (unsigned)process->gid);
  for (size_t i = 0; i < launch->n_groups; i++)
    fprintf(out, " %u", (unsigned)launch->groups[i]);
  fprintf(out, "\nrlimits:");
  for (size_t i = 0; i < process->n_rlimits; i++)
    fprintf(out, " %d=%llu/%llu", process->rlimits[i].resource,
            (unsigned long long)process->rlimits[i].soft,
            (unsigned long long)process->rlimits[i].hard);
  fprintf(out, "%s\n", process->n_rlimits == 0 ? " (inherited)" : "");
  process_attrs_print(spec, out);
  fprintf(out, "sysctl:");
  for (size_t i = 0; i < spec->n_sysctl; i++)
    fprintf(out, " %s=%s", spec->sysctl[i].key, spec->sysctl[i].value);
  fprintf(out, "\nseccomp: %s\n", runtime_plan_seccomp_origin(plan));
  if (runtime_plan_seccomp_groups(plan, &groups))
    fprintf(out, "  %zu rule groups, compiled for this host\n", groups);
  fprintf(out, "workdir: %s\nargv:", process->cwd);
  for (char **a = process->args; *a != NULL; a++)
    fprintf(out, " '%s'", *a);
  fprintf(out, "\nenv:\n");
  for (char *const *e = launch->envp; *e != NULL; e++)
    fprintf(out, "  %s\n", *e);
  if (launch->supervised && launch->options->timeout_seconds > 0)
    fprintf(out, "timeout: %g s\n", launch->options->timeout_seconds);
  if (launch->supervised && launch->options->timeout_seconds > 0 && launch->options->stop_signal)
    fprintf(out, "at the deadline: signal %d (%s), then SIGKILL after %g s\n",
            launch->options->stop_signal, sigabbrev_np(launch->options->stop_signal),
            launch->options->stop_timeout_seconds);
}
