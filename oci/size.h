/* Sizes in bytes as docker's flags write them ("512m", "1.5g"): one parser
 * for every flag that takes one (`ocirun run`'s --memory, --memory-swap,
 * --memory-reservation, --shm-size, --storage-opt size=, --tmpfs size=,
 * --mount tmpfs-size=; `ocirun update`'s --memory,
 * --memory-reservation, --memory-swap). Here, not in src/, because both
 * src/docker_run/ and src/cli/ read sizes and neither may include the
 * other. */
#ifndef OCI_SIZE_H
#define OCI_SIZE_H

#include <stdint.h>

#include "oci/error.h"

/* The largest size, 2^53 bytes (8 PiB): what a JSON number holds exactly,
 * and sizes are written into config.json. */
#define OCI_SIZE_MAX (INT64_C(1) << 53)

/* "12", "7b", "100k", "64mb", "512m", "1.5g": a decimal number, a
 * fraction allowed, then nothing, or b, or k, m or g (powers of 1024,
 * either case) with an optional b. Nothing else: no sign, no space, no
 * exponent. The bytes are rounded down and may be 0, never above
 * OCI_SIZE_MAX. 0 with *bytes set, or -1 with errno EINVAL (ERANGE when
 * it is too large); *bytes is left alone on failure. */
int oci_size_parse(const char *text, int64_t *bytes);

/* An option's size, at least a byte: oci_size_parse, and on failure *err
 * names the option and its text ("--memory 'big': invalid size: ..."). */
int oci_size_option(const char *option, const char *text, int64_t *bytes, oci_error_t *err);

#endif
