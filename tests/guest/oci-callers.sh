#!/bin/sh
# In the guest: podman and containerd drive ocirun through the OCI runtime
# command line, each after its own runtime (crun, runc) passed the same
# cases as the control. The cases and their helpers are in
# tests/guest/callers/ (also run by hand from there).
exec "$top_srcdir/tests/guest/callers/oci-callers.sh"
