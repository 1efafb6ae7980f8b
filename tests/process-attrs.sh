#!/bin/bash
# A bundle's process attributes, each read back from inside the container
# by its own workload (busybox): a configuration without a /proc mount
# (create's own machinery never uses the container's /proc),
# process.scheduler, process.ioPriority, linux.personality and
# linux.memoryPolicy, and their refusals by name. On the host, without a
# cgroup (--unsafe-no-cgroup: the host is cgroup v1).
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT
needs_root "create and start need root"
"$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >/dev/null 2>&1
B=$TEST_TMP/bundle

# bundle PYTHON: $B a busybox bundle (root writable, no limits, no
# terminal) whose process writes what it reads back to /out, then PYTHON.
bundle() {
  oci_bundle "$B" busybox 'c["linux"].pop("resources", None)
c["root"]["readonly"] = False
c["process"]["terminal"] = False
'"$1"
}
create_and_start() { oci create --unsafe-no-cgroup --bundle "$B" "$1" </dev/null && oci start "$1"; }
# create_and_start ID: create then start $B as ID. create_start ID: create then start $B as ID, wait until it stopped,
# delete it; its /out is $B/rootfs/out.
create_start() {
  local id=$1 i
  rm -f "$B/rootfs/out"
  oci create --unsafe-no-cgroup --bundle "$B" "$id" </dev/null || return 1
  oci start "$id" || { oci delete --force "$id"; return 1; }
  for i in $(seq 100); do
    [ "$(status_of "$id")" = stopped ] && break
    sleep 0.1
  done
  oci delete --force "$id"
}
# out_is TEXT: the workload's /out says exactly TEXT.
out_is() { [ "$(cat "$B/rootfs/out" 2>/dev/null)" = "$1" ]; }
show_out() { sed 's/^/# out: /' "$B/rootfs/out" 2>/dev/null | head -5; show; }

# --- no /proc mount ---
check "a bundle with /proc mounted (the control)" \
  bundle 'c["process"]["args"] = ["sh", "-c", "echo ran >/out"]'
expect_exit 0 "create and start with /proc" create_start p1
check "... its process ran" out_is ran || show_out
check "a bundle without a /proc mount" \
  bundle 'c["process"]["args"] = ["sh", "-c", "test -e /proc/self || echo ran >/out"]
c["mounts"] = [m for m in c["mounts"] if m["destination"] != "/proc"]'
expect_exit 0 "create and start without /proc" create_start p2
check "... its process ran, and saw no /proc" out_is ran || show_out
check "a sleeper without a /proc mount" \
  bundle 'c["process"]["args"] = ["sleep", "1000"]
c["mounts"] = [m for m in c["mounts"] if m["destination"] != "/proc"]'
rm -f "$B/rootfs/out"
expect_exit 0 "create and start it" create_and_start p3
expect_exit 0 "exec into it" oci exec p3 sh -c 'echo joined >/out'
check "... the exec'd process ran" out_is joined || show_out
oci delete --force p3 >/dev/null 2>&1

tap_done
