/* The process attributes a configuration sets by one syscall each:
 * scheduling policy and nice value, I/O priority, personality, NUMA memory
 * policy (parsed by runtime/spec/process_attrs.c). */
#ifndef RUNTIME_PROCESS_ATTRS_H
#define RUNTIME_PROCESS_ATTRS_H

#include <stdio.h>

#include "oci/error.h"
#include "runtime/spec/spec.h"

/* Every door into the container calls it on its own process: create's and
 * run's pid 1 (child.c), exec's joiner (exec.c, with the exec'd process's
 * scheduler and ioPriority and the container's personality and memory
 * policy). After the clean state put the caller's back to the runtime's
 * (clean_state.c), before the seccomp filter; the process the workload
 * becomes inherits each across fork and execve. */
int process_attrs_apply(const struct spec *spec, oci_error_t *err);
/* process.execCPUAffinity's initial or final list (field names it) on
 * this process, when given; a CPU the process cannot have (absent,
 * offline, outside its cpuset) is refused by number. exec's joiner only:
 * the spec gives pid 1 neither. */
int process_attrs_set_cpu_affinity(const struct spec_cpu_list *list, const char *field,
                                   oci_error_t *err);
/* One line each for --dry-run's plan. */
void process_attrs_print(const struct spec *spec, FILE *out);

#endif
