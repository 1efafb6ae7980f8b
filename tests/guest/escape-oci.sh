#!/bin/bash
# In the guest (cgroup v2): an outside reviewer's attacks on the OCI verbs
# where the cgroup matters (the host side is tests/escape-oci.sh): exec
# joining the container's cgroup, delete --force of a paused container and
# of one whose processes escaped pid 1's children, cgroupsPath naming an
# existing cgroup or climbing out, unified keys that would move processes,
# and ps printing a name the container chose onto the caller's terminal.
# Each attack with its positive control.
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT
PARENT=/sys/fs/cgroup/ocirun
ROOTFS=$TEST_TMP/base/rootfs
busybox_rootfs "$ROOTFS" || { not_ok "a busybox bundle"; exit 0; }
# mk DIR PYTHON: a bundle of `sleep 1000` on the shared rootfs (read-only),
# PYTHON applied to c.
mk() { oci_bundle "$1" "$ROOTFS" 'c["process"]["args"] = ["sleep", "1000"]
'"$2"; }
cgroup_of() { sed -n 's/^0:://p' "/proc/$1/cgroup" 2>/dev/null; }

# ---- exec joins the container's cgroup; ps names are made harmless ----
B=$TEST_TMP/b1
mk "$B" "c['process']['args'] = ['sh', '-c', 'printf \"\\\\033]0;pwned\\\\007\\\\033[2J\" >/proc/self/comm; while :; do sleep 1; done']"
expect_exit 0 "create and start a container whose pid 1 names itself with escape sequences" \
  sh -c "'$OCIRUN' --root '$ROOT' create --bundle '$B' c1 </dev/null >/dev/null 2>&1 && '$OCIRUN' --root '$ROOT' start c1"
P1=$(pid_of c1)
sleep 0.5
check "control: its comm holds an ESC byte (what a raw ps would print)" \
  sh -c "grep -q \$(printf '\\033') /proc/$P1/comm"
expect_exit 0 "ps" oci ps c1
check "ps prints no control byte of the container's choosing" \
  sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$TEST_TMP/out'"
expect_exit 0 "exec --detach a second process" oci exec --detach --pid-file "$TEST_TMP/x.pid" c1 sleep 999
XP=$(cat "$TEST_TMP/x.pid" 2>/dev/null)
check "exec: the process is in the container's cgroup" \
  test -n "$XP" -a "$(cgroup_of "${XP:-0}")" = "$(cgroup_of "$P1")"
check "control: the container's cgroup is not ours" test "$(cgroup_of "$P1")" != "$(cgroup_of $$)"
SLICE=/sys/fs/cgroup$(cgroup_of "$P1")
# A daemon escaping pid 1's children (double fork) is still the container's.
oci exec c1 sh -c '(setsid sleep 998 &) ; true'
sleep 0.3
DAEMON=$(pgrep -x -f "sleep 998")
check "a double-forked daemon is in the slice too" grep -qx "${DAEMON:-none}" "$SLICE/cgroup.procs"
expect_exit 0 "pause" oci pause c1
expect_exit 1 "exec into a paused container is refused (it would hang frozen)" oci exec c1 true
expect_exit 0 "delete --force of the paused container" oci delete --force c1
check "every process of it is gone (pid 1, the exec'd one, the daemon)" \
  sh -c "gone() { for i in \$(seq 100); do [ -e /proc/\$1 ] && ! grep -q '^State:.*Z' /proc/\$1/status 2>/dev/null || return 0; sleep 0.1; done; return 1; }; gone $P1 && gone ${XP:-0} && gone ${DAEMON:-0}"
check "its slice is gone" test ! -e "$SLICE"

# ---- cgroupsPath: never an existing cgroup, never out of the mount ----
mkdir -p "$PARENT"
mkdir -p "$PARENT/bystander"
sh -c "echo \$\$ >$PARENT/bystander/cgroup.procs; exec sleep 997" &
BY=$!
sleep 0.3
check "control: a bystander process in $PARENT/bystander" grep -qx "$BY" "$PARENT/bystander/cgroup.procs"
i=0
for path in /ocirun/bystander /ocirun ../../.. /../ocirun/x /./x "a//b" "../x" "x/.." /; do
  i=$((i + 1))
  mk "$TEST_TMP/cg$i" "c['linux']['cgroupsPath'] = '$path'"
  expect_exit 1 "cgroupsPath '$path' is refused" oci create --bundle "$TEST_TMP/cg$i" cg$i
  check "... for its cgroup" grep -qi "cgroup" "$TEST_TMP/err"
  check "... leaving no container" test ! -e "$ROOT/containers/cg$i"
done
check "the bystander lives, in its own cgroup" sh -c "kill -0 $BY && grep -qx $BY $PARENT/bystander/cgroup.procs"
kill "$BY"
process_gone "$BY"
rmdir "$PARENT/bystander"
mk "$TEST_TMP/cg-ok" "c['linux']['cgroupsPath'] = '/ocirun/attack-own'"
expect_exit 0 "control: a cgroupsPath of its own is accepted" oci create --bundle "$TEST_TMP/cg-ok" cgok
check "... and used" test "$(cgroup_of "$(pid_of cgok)")" = /ocirun/attack-own
expect_exit 0 "delete --force" oci delete --force cgok
check "... removes it" test ! -e "$PARENT/attack-own"

# ---- unified keys that would move processes or lift limits ----
for key in cgroup.procs cgroup.threads cgroup.subtree_control cgroup.kill ../cgroup.procs; do
  mk "$TEST_TMP/u" "c['linux']['resources'] = {'unified': {'$key': '1'}}"
  expect_exit 1 "linux.resources.unified '$key' is refused at create" oci create --bundle "$TEST_TMP/u" u1
  check "... naming it" grep -q "linux.resources.unified" "$TEST_TMP/err"
  check "... leaving no container" test ! -e "$ROOT/containers/u1"
done

tap_done
