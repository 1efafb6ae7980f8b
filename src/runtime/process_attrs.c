/* process.scheduler, process.ioPriority, linux.personality and
 * linux.memoryPolicy applied to this process (see process_attrs.h). */
#include "config.h"

#include "runtime/process_attrs.h"

#include <errno.h>
#include <sched.h>
#include <linux/ioprio.h>
#include <linux/mempolicy.h>
#include <stdint.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <unistd.h>

/* sched_setattr's struct as the kernel reads it (its first published
 * size; linux/sched/types.h clashes with glibc's struct sched_param). */
struct sched_attributes {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime, sched_deadline, sched_period;
};

enum { MASK_BITS = 8 * sizeof(unsigned long) };

static bool has_bit(const unsigned long *mask, unsigned node)
{
  return (mask[node / MASK_BITS] >> (node % MASK_BITS)) & 1UL;
}

/* "0,1,3" */
static void format_bits(const unsigned long *mask, unsigned max_node, char *text, size_t size)
{
  size_t used = 0;

  text[0] = '\0';
  for (unsigned node = 0; node < max_node && used < size; node++) {
    if (has_bit(mask, node)) {
      int n = snprintf(text + used, size - used, "%s%u", used > 0 ? "," : "", node);
      used += n > 0 ? (size_t)n : 0;
    }
  }
}

static int apply_scheduler(const struct spec_scheduler *scheduler, oci_error_t *err)
{
  struct sched_attributes attributes = {.size = sizeof(attributes),
                                        .sched_policy = (uint32_t)scheduler->policy,
                                        .sched_flags = scheduler->flags,
                                        .sched_nice = scheduler->nice};

  if (!scheduler->set)
    return 0;
  if (syscall(SYS_sched_setattr, 0, &attributes, 0) < 0)
    return oci_error_errno(err, "process.scheduler: sched_setattr %s, nice %d, flags %#lx",
                           spec_attr_name(SPEC_NAMES_SCHEDULER_POLICY, scheduler->policy),
                           scheduler->nice, scheduler->flags);
  return 0;
}

static int apply_io_priority(const struct spec_io_priority *io_priority, oci_error_t *err)
{
  if (!io_priority->set)
    return 0;
  if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0,
              IOPRIO_PRIO_VALUE(io_priority->io_class, io_priority->level)) < 0)
    return oci_error_errno(err, "process.ioPriority: ioprio_set %s, priority %d",
                           spec_attr_name(SPEC_NAMES_IO_CLASS, io_priority->io_class),
                           io_priority->level);
  return 0;
}

/* A node this process may not use is named here rather than left to
 * set_mempolicy's EINVAL. With MPOL_F_RELATIVE_NODES the numbers are
 * positions in the allowed set, which the kernel wraps: nothing to check. */
static int check_nodes_allowed(const struct spec_memory_policy *policy, oci_error_t *err)
{
  unsigned long allowed[SPEC_NUMA_NODES_MAX / MASK_BITS] = {0};
  char text[256];

  if (policy->max_node == 0 || (policy->flags & MPOL_F_RELATIVE_NODES))
    return 0;
  if (syscall(SYS_get_mempolicy, NULL, allowed, SPEC_NUMA_NODES_MAX, NULL, MPOL_F_MEMS_ALLOWED) < 0)
    return oci_error_errno(err, "linux.memoryPolicy: get_mempolicy (the nodes allowed)");
  for (unsigned node = 0; node < policy->max_node; node++) {
    if (has_bit(policy->nodes, node) && !has_bit(allowed, node)) {
      format_bits(allowed, SPEC_NUMA_NODES_MAX, text, sizeof(text));
      return oci_error_set(err, EINVAL,
                           "linux.memoryPolicy.nodes: node %u does not exist on this machine or "
                           "is not allowed to this process (its nodes: %s)",
                           node, text);
    }
  }
  return 0;
}

static int apply_memory_policy(const struct spec_memory_policy *policy, oci_error_t *err)
{
  if (!policy->set)
    return 0;
  if (check_nodes_allowed(policy, err) < 0)
    return -1;
  /* maxnode counts one more bit than set_mempolicy reads */
  if (syscall(SYS_set_mempolicy, policy->mode | (int)policy->flags,
              policy->max_node > 0 ? policy->nodes : NULL,
              policy->max_node > 0 ? (unsigned long)policy->max_node + 1 : 0UL) < 0)
    return oci_error_errno(err, "linux.memoryPolicy: set_mempolicy %s, flags %#lx",
                           spec_attr_name(SPEC_NAMES_MEMORY_POLICY_MODE, policy->mode),
                           policy->flags);
  return 0;
}

int process_attrs_set_cpu_affinity(const struct spec_cpu_list *list, const char *field,
                                   oci_error_t *err)
{
  cpu_set_t want, got;
  char text[256];
  int set_errno = 0;

  if (list->max_cpu == 0)
    return 0;
  CPU_ZERO(&want);
  for (unsigned cpu = 0; cpu < list->max_cpu; cpu++)
    if (has_bit(list->cpus, cpu))
      CPU_SET(cpu, &want);
  /* The kernel drops from the mask, unsaid, a CPU it cannot give (absent,
   * offline, outside the cpuset) unless none is left (EINVAL): each is
   * named here instead of running elsewhere than asked. */
  if (sched_setaffinity(0, sizeof(want), &want) < 0) {
    if (errno != EINVAL)
      return oci_error_errno(err, "process.execCPUAffinity.%s: sched_setaffinity", field);
    set_errno = EINVAL;
  }
  if (sched_getaffinity(0, sizeof(got), &got) < 0)
    return oci_error_errno(err, "process.execCPUAffinity.%s: sched_getaffinity", field);
  for (unsigned cpu = 0; cpu < list->max_cpu; cpu++) {
    if (CPU_ISSET(cpu, &want) && !CPU_ISSET(cpu, &got)) {
      unsigned long got_mask[SPEC_CPUS_MAX / MASK_BITS] = {0};

      for (unsigned c = 0; c < SPEC_CPUS_MAX; c++)
        if (CPU_ISSET(c, &got))
          got_mask[c / MASK_BITS] |= 1UL << (c % MASK_BITS);
      format_bits(got_mask, SPEC_CPUS_MAX, text, sizeof(text));
      return oci_error_set(err, EINVAL,
                           "process.execCPUAffinity.%s: CPU %u does not exist on this machine, "
                           "is offline or is outside this process's cpuset (it runs on %s)",
                           field, cpu, text);
    }
  }
  if (set_errno != 0)
    return oci_error_set(err, set_errno, "process.execCPUAffinity.%s: sched_setaffinity", field);
  return 0;
}

int process_attrs_apply(const struct spec *spec, oci_error_t *err)
{
  if (apply_scheduler(&spec->process.scheduler, err) < 0 ||
      apply_io_priority(&spec->process.io_priority, err) < 0 ||
      apply_memory_policy(&spec->memory_policy, err) < 0)
    return -1;
  /* only the execution domain: the seccomp filter is chosen by the
   * syscall's own ABI (int 0x80 is i386's whatever the personality), and
   * PER_LINUX32 changes what uname reports, nothing the filter sees */
  if (spec->personality_set && personality((unsigned long)spec->personality) < 0)
    return oci_error_errno(err, "linux.personality: personality %s",
                           spec_attr_name(SPEC_NAMES_PERSONALITY, spec->personality));
  return 0;
}

void process_attrs_print(const struct spec *spec, FILE *out)
{
  const struct spec_scheduler *scheduler = &spec->process.scheduler;
  const struct spec_io_priority *io = &spec->process.io_priority;
  const struct spec_memory_policy *policy = &spec->memory_policy;
  char nodes[256];

  if (scheduler->set)
    fprintf(out, "scheduler: %s nice %d flags %#lx\n",
            spec_attr_name(SPEC_NAMES_SCHEDULER_POLICY, scheduler->policy), scheduler->nice,
            scheduler->flags);
  else
    fprintf(out, "scheduler: (the caller's, a realtime policy or negative nice put back)\n");
  if (io->set)
    fprintf(out, "I/O priority: %s %d\n", spec_attr_name(SPEC_NAMES_IO_CLASS, io->io_class),
            io->level);
  else
    fprintf(out, "I/O priority: (the caller's, its realtime class dropped)\n");
  fprintf(out, "personality: %s\n",
          spec->personality_set ? spec_attr_name(SPEC_NAMES_PERSONALITY, spec->personality)
                                : "LINUX (the runtime's)");
  format_bits(policy->nodes, policy->max_node, nodes, sizeof(nodes));
  if (policy->set)
    fprintf(out, "memory policy: %s nodes %s flags %#lx\n",
            spec_attr_name(SPEC_NAMES_MEMORY_POLICY_MODE, policy->mode),
            nodes[0] != '\0' ? nodes : "none", policy->flags);
  else
    fprintf(out, "memory policy: (the caller's, inherited)\n");
}
