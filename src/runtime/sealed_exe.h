/* ocirun runs the commands that start a container from a sealed in-memory
 * copy of its own binary, so that the container's /proc/<pid>/exe (before
 * exec, or after a #!/proc/self/exe script) is never ocirun's file on the
 * host, which a container root with CAP_DAC_OVERRIDE could otherwise
 * reopen and overwrite (CVE-2019-5736). */
#ifndef SEALED_EXE_H
#define SEALED_EXE_H

#include "oci/oci.h"

/* Returns 0 when already running from a sealed copy; otherwise re-execs
 * itself from one (does not return) or fails with *err set. */
int sealed_exe_ensure(char **argv, oci_error_t *err);

#endif
