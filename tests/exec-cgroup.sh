#!/bin/bash
# `ocirun exec --cgroup SUB` on the host (cgroup v1 here: no slice): SUB
# is refused by its name when it is absolute or has a '..', '.' or empty
# component, whatever the container; a container without a slice gets a
# clear error; without --cgroup the exec runs. The sub-cgroup itself is
# tests/guest/exec-live.sh's ("exec --cgroup: the process is in the
# sub-cgroup"). Host only, --unsafe-no-cgroup.
. "$top_srcdir/tests/lib.sh"

needs_root "exec-cgroup needs root"

ROOT=$OCIRUN_ROOT
B=$TEST_TMP/bundle
check "a busybox bundle" sleeper_bundle "$B"
create_start() { oci create --unsafe-no-cgroup --bundle "$B" c1 </dev/null >"$B/out" 2>&1 && oci start c1; }
expect_exit 0 "create and start it without a slice" create_start
expect_exit 0 "control: exec without --cgroup runs" oci exec c1 true
expect_exit 1 "exec --cgroup sub into a container without a slice fails" oci exec --cgroup sub c1 true
check "... saying it has no slice" err_has_literal "exec --cgroup 'sub': the container has no cgroup slice"
for sub in ../x .. a/../b sub/.. a//b; do
  expect_exit 1 "exec --cgroup '$sub' is refused" oci exec --cgroup "$sub" c1 true
  check "... by its name (plain names)" err_has_literal "cgroup paths are plain names"
done
expect_exit 1 "exec --cgroup 'sub/' is refused" oci exec --cgroup sub/ c1 true
check "... by its name (a trailing '/')" err_has_literal "'sub/' ends with '/'"
expect_exit 1 "exec --cgroup /x is refused" oci exec --cgroup /x c1 true
check "... as absolute" err_has_literal "exec --cgroup '/x': an absolute path"
check "exec --help names --cgroup" sh -c "'$OCIRUN' exec --help | grep -q -- '--cgroup SUB'"
oci delete --force c1 >/dev/null 2>&1
tap_done
