/* `ocirun run`'s front end as data: docker-run options and the image's
 * defaults become an OCI runtime-spec configuration (config.json as cJSON)
 * that means what docker run means. Pure: nothing is created or started. */
#ifndef RUN_SPEC_H
#define RUN_SPEC_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "cli/run_config.h"
#include "oci/error.h"
#include "oci/oci.h"
#include "runtime/userns.h"

struct run_spec_input {
  const struct run_config *config; /* parsed docker-run options */
  const struct oci_image *image;   /* its defaults: entrypoint, cmd, env, user, working_dir */
  int rootfs_fd;                   /* the image's rootfs (O_PATH dir): user names resolved in it */
  const char *rootfs_path;         /* root.path */
  bool rootless;                   /* decided once by the caller */
  const struct userns_map *map;    /* rootless: the chosen map (runtime/userns.h), else NULL */
  const char *cgroups_path;        /* linux.cgroupsPath, NULL: unset (--unsafe-no-cgroup) */
};

/* Builds the configuration (*config, the caller deletes it). Refusals
 * name the option or the image field they come from ("run: ..."). */
int run_spec_build(const struct run_spec_input *in, cJSON **config, oci_error_t *err);

/* The hostname docker gives the run: --hostname; else the 12 hex digits of
 * a generated name (docker's short container ID); else the name, cut to
 * size - 1 characters. */
void run_spec_hostname(const struct run_config *config, char *out, size_t size);

#endif
