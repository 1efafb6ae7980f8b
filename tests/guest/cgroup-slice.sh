#!/bin/bash
# In the guest (cgroup v2): a slice made from limits in a real hierarchy
# (tests/unit/cgroup_limits --kernel): the limit files, the controllers
# enabled in the parents it makes, what a refused limit or a missing
# controller leaves (nothing it made), an existing slice refused, freeze and
# thaw, the pids of the slice and its sub-cgroups, destroy.
: "${top_builddir:?}"
program="$top_builddir/tests/unit/cgroup_limits"
if [ ! -x "$program" ]; then
  echo "not ok - $program is built (make check builds it)"
  exit 0
fi
"$program" --kernel
exit 0
