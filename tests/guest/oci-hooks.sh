#!/bin/bash
# In the guest (cgroup v2): tests/oci-hooks.sh with a cgroup, so that a
# failing or timed-out hook is also seen to leave no slice behind.
export OCI_HOOKS_CGROUP=1
export OCIRUN_TEST_IMAGES=${OCIRUN_TEST_IMAGES:-${TEST_IMAGES:-}}
. "$top_srcdir/tests/oci-hooks.sh"
exit 0
