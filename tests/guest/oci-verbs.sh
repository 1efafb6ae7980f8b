#!/bin/bash
# In the guest (cgroup v2): the OCI verbs that work on a container's cgroup
# (ps, pause, resume, kill --all, update, delete --force removing the
# slice), on a stand-in container: ocirun's record for two processes this
# script puts into a slice of its own. Checked in the cgroup files and
# /proc. (The same verbs on a container made by create are in
# oci-lifecycle.sh.)
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT
PARENT=/sys/fs/cgroup/ocirun
SLICE=$PARENT/stand-in
proc_state() { sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null; }

umask 077
# The controllers the limits need, enabled down to the slice (as the runtime does).
echo "+memory +pids +cpu" >/sys/fs/cgroup/cgroup.subtree_control && mkdir -p "$PARENT" &&
  echo "+memory +pids +cpu" >"$PARENT/cgroup.subtree_control" && mkdir "$SLICE" ||
  { not_ok "make a slice under $PARENT"; exit 0; }
# The process joins the slice itself, then forks a child and execs.
sh -c "echo \$\$ >$SLICE/cgroup.procs; sleep 1001 & exec sleep 1000" &
for _ in $(seq 50); do [ "$(wc -l <"$SLICE/cgroup.procs")" -ge 1 ] && break; sleep 0.1; done
main=$(pgrep -x -f "sleep 1000")
child=$(pgrep -x -f "sleep 1001")
mkdir -p "$ROOT/containers/s1"
cat >"$ROOT/containers/s1/state.json" <<EOF
{"ociVersion":"1.2.0","id":"s1","bundle":"$TEST_TMP","pid":$main,"pidStartTime":$(start_time "$main"),
 "cgroupPath":"$SLICE","created":"2026-01-01T00:00:00Z","owner":0,"annotations":{},"hooks":{}}
EOF
check "stand-in: two processes in the slice" test "$(wc -l <"$SLICE/cgroup.procs")" -eq 2
check "state: running" test "$(status_of s1)" = running

expect_exit 0 "ps --format json" oci ps --format json s1
check "ps: exactly the slice's pids" python3 -c '
import json, sys
assert sorted(json.load(open(sys.argv[1]))) == sorted(int(p) for p in sys.argv[2:])' "$TEST_TMP/out" "$main" "$child"
expect_exit 0 "ps (table)" oci ps s1
check "ps table: a PID header and both sleeps" sh -c "grep -q '^PID' $TEST_TMP/out && [ \$(grep -c sleep $TEST_TMP/out) -eq 2 ]"

expect_exit 0 "pause" oci pause s1
check "pause: cgroup.freeze 1, cgroup.events frozen 1" \
  sh -c "grep -qx 1 $SLICE/cgroup.freeze && grep -qx 'frozen 1' $SLICE/cgroup.events"
check "state: paused" test "$(status_of s1)" = paused
expect_exit 1 "pause of a paused container fails" oci pause s1
expect_exit 0 "resume" oci resume s1
check "resume: cgroup.freeze 0, cgroup.events frozen 0" \
  sh -c "grep -qx 0 $SLICE/cgroup.freeze && grep -qx 'frozen 0' $SLICE/cgroup.events"
check "state: running" test "$(status_of s1)" = running
expect_exit 1 "resume of a running container fails" oci resume s1

expect_exit 0 "update --memory 64m --pids-limit 20 --cpu-quota 50000 --cpu-period 100000" \
  oci update --memory 64m --pids-limit 20 --cpu-quota 50000 --cpu-period 100000 s1
check "update: memory.max" grep -qx 67108864 "$SLICE/memory.max"
check "update: pids.max" grep -qx 20 "$SLICE/pids.max"
check "update: cpu.max" grep -qx "50000 100000" "$SLICE/cpu.max"
expect_exit 0 "update --resources - (stdin)" oci update -r - s1 <<<'{"memory": {"limit": 33554432}}'
check "update: memory.max from stdin" grep -qx 33554432 "$SLICE/memory.max"
expect_exit 1 "update: a bad value is refused" oci update -r - s1 <<<'{"pids": {"limit": "x"}}'
check "... naming the field" grep -q "linux.resources.pids.limit" "$TEST_TMP/err"
check "... and nothing changed" grep -qx 20 "$SLICE/pids.max"

expect_exit 0 "kill --all STOP" oci kill --all s1 STOP
sleep 0.5
check "kill --all: both processes stopped" test "$(proc_state "$main")$(proc_state "$child")" = TT
expect_exit 0 "kill --all CONT" oci kill --all s1 CONT
sleep 0.5
check "kill --all CONT: both run again" test "$(proc_state "$main")$(proc_state "$child")" = SS
expect_exit 1 "delete without --force fails" oci delete s1
check "... and leaves the slice" test -d "$SLICE"
expect_exit 0 "delete --force" oci delete --force s1
check "delete --force: the slice is gone" test ! -e "$SLICE"
check "delete --force: both processes are gone" sh -c "! pgrep -x -f 'sleep 100[01]'"
check "delete --force: the state is gone" test ! -e "$ROOT/containers/s1"
wait
tap_done >/dev/null
