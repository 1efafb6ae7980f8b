/* `docker run` on ocirun's runtime: docker-run options and an image's
 * config become one OCI runtime-spec configuration (run_spec.c), which the
 * runtime runs over the image's cached rootfs. `ocirun run` and the
 * probe's direct backend both come through here, so both configure a run
 * the same way. */
#ifndef DOCKER_RUN_H
#define DOCKER_RUN_H

#include "oci/oci.h"
#include "docker_run/run_config.h"
#include "runtime/runtime.h"

/* rootfs: the unpacked image (oci_image_unpack), reopened here from the
 * checked store. --dry-run prints the configuration, then the plan. */
int docker_run(const char *state_root, const struct oci_image *image, const char *rootfs,
               const struct run_config *config, const struct run_io *io, struct run_result *result,
               oci_error_t *err);

#endif
