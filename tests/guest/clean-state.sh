#!/bin/bash
# In the guest (cgroup v2, root with CAP_SYS_RESOURCE): tests/clean-state.sh
# with a slice, and with a caller at OOM score -500, so that the raise of a
# negative score to 0 is tested on every entry path.
export CLEAN_STATE_CGROUP=1
export OCIRUN_TEST_IMAGES=${OCIRUN_TEST_IMAGES:-${TEST_IMAGES:-}}
. "$top_srcdir/tests/clean-state.sh"
exit 0
