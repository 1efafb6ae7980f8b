/* `ocirun run`'s front end as data: docker-run options and the image's
 * defaults become an OCI runtime-spec configuration (config.json as cJSON)
 * that means what docker run means. Pure: nothing is created or started. */
#ifndef RUN_SPEC_H
#define RUN_SPEC_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "docker_run/run_config.h"
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

/* For runtime_options.seccomp_origin: where linux.seccomp came from
 * (NULL when unconfined: the document has none). */
const char *run_spec_seccomp_origin(const struct run_config *config);

/* As docker: the image's /etc/hostname and /etc/hosts describe the run,
 * not the machine the image was built on. These are the contents for
 * mount_root.files; /etc/hostname is the document's hostname and "\n". */
#define RUN_SPEC_ETC_HOSTS "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"

#endif
