/* process.scheduler, process.ioPriority, linux.personality and
 * linux.memoryPolicy: attributes the container's process is given by one
 * syscall each (runtime/process_attrs.c). Every name the spec defines is
 * here, either with its value or refused with the reason beside it. */
#include "config.h"

#include <linux/ioprio.h>
#include <linux/mempolicy.h>
#include <linux/sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>

#include "runtime/spec/parse.h"

/* cpu.max, the container's CPU limit, throttles no realtime task: a
 * realtime container would take the CPU its limit says it may not have
 * (the guest measured 3.13 s of CPU in 3 s under --cpus 0.2). */
#define REALTIME_REFUSED "cpu.max does not throttle realtime tasks"

struct spec_name {
  const char *name;
  long value;
  const char *refused; /* NULL: accepted; else why not */
};

static int value_of_name(const struct spec_name *names, size_t n, const cJSON *item,
                         const char *path, long *value, oci_error_t *err)
{
  if (spec_expect_type(item, path, cJSON_String, "a string", err) < 0)
    return -1;
  for (size_t i = 0; i < n; i++) {
    if (strcmp(names[i].name, item->valuestring) != 0)
      continue;
    if (names[i].refused != NULL)
      return oci_error_set(err, 0, "%s: %s is not supported by ocirun (%s)", path, names[i].name,
                           names[i].refused);
    *value = names[i].value;
    return 0;
  }
  return spec_fail(err, path, "unknown name '%s'", item->valuestring);
}

/* A required name as an int field. */
static int field_of_name(const struct spec_name *names, size_t n, const cJSON *value,
                         const char *path, int *field, oci_error_t *err)
{
  long v = 0;

  if (value == NULL)
    return spec_fail(err, path, "required");
  if (value_of_name(names, n, value, path, &v, err) < 0)
    return -1;
  *field = (int)v;
  return 0;
}

/* An optional array of names as the bits they stand for. */
static int bits_of_names(const struct spec_name *names, size_t n, const cJSON *array,
                         const char *path, unsigned long *bits, oci_error_t *err)
{
  char item_path[SPEC_PATH_MAX];
  const cJSON *item;
  size_t index = 0;

  if (array == NULL)
    return 0;
  if (spec_expect_array(array, path, err) < 0)
    return -1;
  cJSON_ArrayForEach(item, array)
  {
    long bit = 0;

    if (value_of_name(names, n, item, spec_join_index(item_path, path, index++), &bit, err) < 0)
      return -1;
    *bits |= (unsigned long)bit;
  }
  return 0;
}

#define N_NAMES(names) (sizeof(names) / sizeof(names[0]))

/* An optional object read by its table into target; *set says it was
 * given. */
static int parse_object(const cJSON *value, const char *path, const struct spec_field *fields,
                        size_t n, void *target, bool *set, oci_error_t *err)
{
  if (value == NULL)
    return 0;
  if (spec_expect_object(value, path, err) < 0)
    return -1;
  *set = true;
  return spec_dispatch(value, path, fields, n, target, err);
}
#define PARSE_OBJECT(value, path, fields, target, set, err)                                        \
  parse_object(value, path, fields, N_NAMES(fields), target, set, err)

/* --- process.scheduler: sched_setattr(2) ---------------------------------- */

static const struct spec_name scheduler_policies[] = {
    {"SCHED_OTHER", SCHED_NORMAL, NULL},
    {"SCHED_BATCH", SCHED_BATCH, NULL},
    {"SCHED_IDLE", SCHED_IDLE, NULL},
    {"SCHED_FIFO", SCHED_FIFO, REALTIME_REFUSED},
    {"SCHED_RR", SCHED_RR, REALTIME_REFUSED},
    {"SCHED_DEADLINE", SCHED_DEADLINE, REALTIME_REFUSED},
    {"SCHED_ISO", 4, "Linux has no SCHED_ISO"},
};

static const struct spec_name scheduler_flags[] = {
    {"SCHED_FLAG_KEEP_POLICY", SCHED_FLAG_KEEP_POLICY, NULL},
    {"SCHED_FLAG_KEEP_PARAMS", SCHED_FLAG_KEEP_PARAMS,
     "it keeps the policy and nice value as they are, for a util clamp the spec has no value for"},
    {"SCHED_FLAG_RESET_ON_FORK", SCHED_FLAG_RESET_ON_FORK,
     "run's init and exec's stub fork the process after the policy is set, which the flag would "
     "undo"},
    {"SCHED_FLAG_RECLAIM", SCHED_FLAG_RECLAIM, "for SCHED_DEADLINE: " REALTIME_REFUSED},
    {"SCHED_FLAG_DL_OVERRUN", SCHED_FLAG_DL_OVERRUN, "for SCHED_DEADLINE: " REALTIME_REFUSED},
    {"SCHED_FLAG_UTIL_CLAMP_MIN", SCHED_FLAG_UTIL_CLAMP_MIN, "the spec gives no clamp value"},
    {"SCHED_FLAG_UTIL_CLAMP_MAX", SCHED_FLAG_UTIL_CLAMP_MAX, "the spec gives no clamp value"},
};

static int parse_scheduler_policy(const cJSON *value, const char *path, void *policy,
                                  oci_error_t *err)
{
  return field_of_name(scheduler_policies, N_NAMES(scheduler_policies), value, path, policy, err);
}

static int parse_nice(const cJSON *value, const char *path, void *nice, oci_error_t *err)
{
  int64_t v;

  if (value == NULL)
    return 0;
  if (spec_number_i64(value, path, -20, 19, &v, err) < 0)
    return -1;
  *(int *)nice = (int)v;
  return 0;
}

static int parse_scheduler_flags(const cJSON *value, const char *path, void *flags,
                                 oci_error_t *err)
{
  return bits_of_names(scheduler_flags, N_NAMES(scheduler_flags), value, path, flags, err);
}

static const struct spec_field scheduler_fields[] = {
    SPEC_FIELD("policy", parse_scheduler_policy, struct spec_scheduler, policy),
    SPEC_FIELD("nice", parse_nice, struct spec_scheduler, nice),
    SPEC_REFUSED("priority", REFUSE_NONZERO,
                 "a static priority is for SCHED_FIFO and SCHED_RR: " REALTIME_REFUSED),
    SPEC_FIELD("flags", parse_scheduler_flags, struct spec_scheduler, flags),
    SPEC_REFUSED("runtime", REFUSE_NONZERO, "for SCHED_DEADLINE: " REALTIME_REFUSED),
    SPEC_REFUSED("deadline", REFUSE_NONZERO, "for SCHED_DEADLINE: " REALTIME_REFUSED),
    SPEC_REFUSED("period", REFUSE_NONZERO, "for SCHED_DEADLINE: " REALTIME_REFUSED),
};

int spec_parse_scheduler(const cJSON *value, const char *path, void *scheduler, oci_error_t *err)
{
  struct spec_scheduler *out = scheduler;

  return PARSE_OBJECT(value, path, scheduler_fields, out, &out->set, err);
}

/* --- process.ioPriority: ioprio_set(2) ------------------------------------ */

static const struct spec_name io_classes[] = {
    {"IOPRIO_CLASS_BE", IOPRIO_CLASS_BE, NULL},
    {"IOPRIO_CLASS_IDLE", IOPRIO_CLASS_IDLE, NULL},
    {"IOPRIO_CLASS_RT", IOPRIO_CLASS_RT, "the realtime I/O class: " REALTIME_REFUSED},
};

static int parse_io_class(const cJSON *value, const char *path, void *io_class, oci_error_t *err)
{
  return field_of_name(io_classes, N_NAMES(io_classes), value, path, io_class, err);
}

/* 0 (the highest) to 7, required */
static int parse_io_level(const cJSON *value, const char *path, void *level, oci_error_t *err)
{
  int64_t v;

  if (value == NULL)
    return spec_fail(err, path, "required");
  if (spec_number_i64(value, path, 0, 7, &v, err) < 0)
    return -1;
  *(int *)level = (int)v;
  return 0;
}

static const struct spec_field io_priority_fields[] = {
    SPEC_FIELD("class", parse_io_class, struct spec_io_priority, io_class),
    SPEC_FIELD("priority", parse_io_level, struct spec_io_priority, level),
};

int spec_parse_io_priority(const cJSON *value, const char *path, void *io_priority,
                           oci_error_t *err)
{
  struct spec_io_priority *out = io_priority;

  return PARSE_OBJECT(value, path, io_priority_fields, out, &out->set, err);
}

/* --- linux.personality: personality(2) ------------------------------------ */

static const struct spec_name personality_domains[] = {
    {"LINUX", PER_LINUX, NULL},
    {"LINUX32", PER_LINUX32, NULL},
};

static int parse_personality_domain(const cJSON *value, const char *path, void *domain,
                                    oci_error_t *err)
{
  return field_of_name(personality_domains, N_NAMES(personality_domains), value, path, domain, err);
}

static const struct spec_field personality_fields[] = {
    SPEC_FIELD("domain", parse_personality_domain, struct spec, personality),
    /* the spec defines none; personality(2)'s own (ADDR_NO_RANDOMIZE,
     * READ_IMPLIES_EXEC, ...) switch off protections of the workload's */
    SPEC_REFUSED("flags", REFUSE_NONEMPTY, "the spec defines no personality flag"),
};

int spec_parse_personality(const cJSON *value, const char *path, void *spec, oci_error_t *err)
{
  struct spec *out = spec;

  return PARSE_OBJECT(value, path, personality_fields, out, &out->personality_set, err);
}

/* --- linux.memoryPolicy: set_mempolicy(2) --------------------------------- */

static const struct spec_name memory_policy_modes[] = {
    {"MPOL_DEFAULT", MPOL_DEFAULT, NULL},  {"MPOL_PREFERRED", MPOL_PREFERRED, NULL},
    {"MPOL_BIND", MPOL_BIND, NULL},        {"MPOL_INTERLEAVE", MPOL_INTERLEAVE, NULL},
    {"MPOL_LOCAL", MPOL_LOCAL, NULL},      {"MPOL_PREFERRED_MANY", MPOL_PREFERRED_MANY, NULL},
    {"MPOL_WEIGHTED_INTERLEAVE", 6, NULL}, /* Linux 6.9; not in every linux/mempolicy.h */
};

static const struct spec_name memory_policy_flags[] = {
    {"MPOL_F_NUMA_BALANCING", MPOL_F_NUMA_BALANCING, NULL},
    {"MPOL_F_RELATIVE_NODES", MPOL_F_RELATIVE_NODES, NULL},
    {"MPOL_F_STATIC_NODES", MPOL_F_STATIC_NODES, NULL},
};

static int parse_memory_policy_mode(const cJSON *value, const char *path, void *mode,
                                    oci_error_t *err)
{
  return field_of_name(memory_policy_modes, N_NAMES(memory_policy_modes), value, path, mode, err);
}

static int parse_memory_policy_flags(const cJSON *value, const char *path, void *flags,
                                     oci_error_t *err)
{
  return bits_of_names(memory_policy_flags, N_NAMES(memory_policy_flags), value, path, flags, err);
}

/* "0-3,7": numbers and ranges, comma-separated, each below limit, set as
 * bits of mask; *max is one above the highest. "" (a Go caller's "not
 * given") names none. what names one ("node", "CPU"). */
static int parse_number_list(const cJSON *value, const char *path, const char *what, unsigned limit,
                             unsigned long *mask, unsigned *max, oci_error_t *err)
{
  const unsigned bits = 8 * sizeof(mask[0]);
  const char *list, *p;

  if (value == NULL)
    return 0;
  if (spec_expect_type(value, path, cJSON_String, "a string", err) < 0)
    return -1;
  list = p = value->valuestring;
  while (*p != '\0') {
    unsigned long first, last;
    char *end;

    if (*p < '0' || *p > '9')
      return spec_fail(err, path, "'%s' is not a list of %ss like 0-3,7", list, what);
    first = last = strtoul(p, &end, 10);
    if (*end == '-' && end[1] >= '0' && end[1] <= '9')
      last = strtoul(end + 1, &end, 10);
    if (last < first || (*end != ',' && *end != '\0') || (*end == ',' && end[1] == '\0'))
      return spec_fail(err, path, "'%s' is not a list of %ss like 0-3,7", list, what);
    if (last >= limit)
      return spec_fail(err, path, "'%s': %s %lu is above Linux's highest, %u", list, what, last,
                       limit - 1);
    for (unsigned long n = first; n <= last; n++)
      mask[n / bits] |= 1UL << (n % bits);
    if (last + 1 > *max)
      *max = (unsigned)last + 1;
    p = *end == ',' ? end + 1 : end;
  }
  return 0;
}

static int parse_memory_nodes(const cJSON *value, const char *path, void *policy, oci_error_t *err)
{
  struct spec_memory_policy *out = policy;

  return parse_number_list(value, path, "node", SPEC_NUMA_NODES_MAX, out->nodes, &out->max_node,
                           err);
}

/* What set_mempolicy would refuse anyway, named here: nodes where the mode
 * takes none or needs some, flags for MPOL_DEFAULT, both ways of reading
 * the nodes at once. */
static int check_memory_policy(const cJSON *object, const char *path, void *policy,
                               oci_error_t *err)
{
  const struct spec_memory_policy *in = policy;
  const char *mode = spec_member(object, "mode")->valuestring;
  bool takes_none = in->mode == MPOL_DEFAULT || in->mode == MPOL_LOCAL;
  bool needs_some = !takes_none && in->mode != MPOL_PREFERRED;

  if (takes_none && in->max_node > 0)
    return spec_fail(err, path, "%s takes no nodes", mode);
  if (needs_some && in->max_node == 0)
    return spec_fail(err, path, "%s needs nodes", mode);
  if (in->mode == MPOL_DEFAULT && in->flags != 0)
    return spec_fail(err, path, "MPOL_DEFAULT takes no flags");
  if ((in->flags & MPOL_F_STATIC_NODES) && (in->flags & MPOL_F_RELATIVE_NODES))
    return spec_fail(err, path, "MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES exclude each other");
  return 0;
}

static const struct spec_field memory_policy_fields[] = {
    SPEC_FIELD("mode", parse_memory_policy_mode, struct spec_memory_policy, mode),
    SPEC_MEMBER("nodes", parse_memory_nodes),
    SPEC_FIELD("flags", parse_memory_policy_flags, struct spec_memory_policy, flags),
    SPEC_CHECK(check_memory_policy),
};

int spec_parse_memory_policy(const cJSON *value, const char *path, void *policy, oci_error_t *err)
{
  struct spec_memory_policy *out = policy;

  return PARSE_OBJECT(value, path, memory_policy_fields, out, &out->set, err);
}

/* --- process.execCPUAffinity: sched_setaffinity(2) ----------------------- */

static int parse_cpu_list(const cJSON *value, const char *path, void *list, oci_error_t *err)
{
  struct spec_cpu_list *out = list;

  return parse_number_list(value, path, "CPU", SPEC_CPUS_MAX, out->cpus, &out->max_cpu, err);
}

static const struct spec_field cpu_affinity_fields[] = {
    SPEC_FIELD("initial", parse_cpu_list, struct spec_cpu_affinity, initial),
    SPEC_FIELD("final", parse_cpu_list, struct spec_cpu_affinity, final),
};

int spec_parse_cpu_affinity(const cJSON *value, const char *path, void *affinity, oci_error_t *err)
{
  bool set = false;

  return PARSE_OBJECT(value, path, cpu_affinity_fields, affinity, &set, err);
}

/* --- names for the plan and errors --------------------------------------- */

const char *spec_attr_name(enum spec_attr_names table, long value)
{
  static const struct {
    const struct spec_name *names;
    size_t n;
  } tables[] = {
      [SPEC_NAMES_SCHEDULER_POLICY] = {scheduler_policies, N_NAMES(scheduler_policies)},
      [SPEC_NAMES_IO_CLASS] = {io_classes, N_NAMES(io_classes)},
      [SPEC_NAMES_PERSONALITY] = {personality_domains, N_NAMES(personality_domains)},
      [SPEC_NAMES_MEMORY_POLICY_MODE] = {memory_policy_modes, N_NAMES(memory_policy_modes)},
  };

  for (size_t i = 0; i < tables[table].n; i++)
    if (tables[table].names[i].value == value)
      return tables[table].names[i].name;
  return "?";
}
