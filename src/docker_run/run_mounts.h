/* The mounts `ocirun run` options add, in docker's syntax: --tmpfs,
 * -v/--volume and --mount, each one struct run_mount (run_config.h) in the
 * order given. A bind's host source is opened here, once: the run mounts
 * that object. */
#ifndef RUN_MOUNTS_H
#define RUN_MOUNTS_H

#include "docker_run/run_config.h"
#include "oci/error.h"

/* --tmpfs PATH[:OPTS] */
int run_mount_parse_tmpfs(const char *text, struct run_config *config, oci_error_t *err);
/* -v/--volume SRC:DST[:OPTS]: SRC an absolute host path that exists, or
 * a volume's name */
int run_mount_parse_volume(const char *text, struct run_config *config, oci_error_t *err);
/* --mount type=bind|volume|tmpfs,KEY=VALUE,... */
int run_mount_parse_mount(const char *text, struct run_config *config, oci_error_t *err);
/* Frees the mounts and closes their sources. */
void run_mounts_clear(struct run_config *config);

#endif
