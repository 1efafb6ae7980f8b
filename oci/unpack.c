/* oci_image_unpack: turns a resolved image into a cached rootfs by applying
 * its verified layers in order (see cache.c for the atomic placement). */
#include "config.h"

#include "oci.h"

int oci_image_unpack(struct oci_store *store, const struct oci_image *image,
                     const struct oci_unpack_options *options, char **rootfs, oci_error_t *err)
{
  return oci_error_set(err, 0, "unpack %s: not implemented yet", image->image_id);
}
