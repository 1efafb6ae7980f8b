#!/bin/bash
# In the guest (cgroup v2): the device program ocirun loads decides as
# cgroup_devices_allowed does (the function the unit tests and --dry-run
# rely on), for docker's rules and rule sets with partial denies, 'a' with
# numbers, allow-all and none. The checks are tests/unit/cgroup_devices
# --kernel: a child in a cgroup with the program opens or makes nodes.
: "${top_builddir:?}"
program="$top_builddir/tests/unit/cgroup_devices"
if [ ! -x "$program" ]; then
  echo "not ok - $program is built (make check builds it)"
  exit 0
fi
"$program" --kernel
exit 0
