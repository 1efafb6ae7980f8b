#!/bin/bash
# In the guest (cgroup v2): a slice made from limits in a real hierarchy
# (tests/unit/cgroup_limits --kernel): the limit files, the controllers
# enabled in the parents it makes, what a refused limit or a missing
# controller leaves (nothing it made), an existing slice refused, freeze and
# thaw, the pids of the slice and its sub-cgroups, destroy. Then the calls
# that act on a cgroup by its fd, in a cgroup with a child cgroup below
# /sys/fs/cgroup (tests/unit/cgroup_files): list, freeze, the kill fallback
# of kernels without cgroup.kill over both, removal.
: "${top_builddir:?}"
for program in "$top_builddir/tests/unit/cgroup_limits --kernel" \
  "$top_builddir/tests/unit/cgroup_files"; do
  if [ ! -x "${program%% *}" ]; then
    echo "not ok - ${program%% *} is built (make check builds it)"
    continue
  fi
  $program
done
exit 0
