#!/bin/bash
# In the guest (real cgroup v2 slices), issue 8 finding 4: a forged record
# cannot make sweep kill a live run's slice, and a new run that takes a
# stale name while sweep waits for that name's lock keeps its record, run
# dir and slice. Controls: sweep does kill a crashed run's slice, and does
# wait on the lock. See tests/escape-store.sh for the host cases.
. "$top_srcdir/tests/lib.sh"

parent=/sys/fs/cgroup/ocirun
state=$OCIRUN_ROOT/run
"$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1 ||
  { not_ok "import the busybox image"; exit 0; }
sleep 0 &
dead_pid=$!
wait $dead_pid

check "a live run starts" start_run victim
victim_runner=$runner
check "control: a run starts and its runner is killed" start_run crashed
kill -9 "$runner"
wait "$runner" 2>/dev/null
echo "{\"name\":\"forged\",\"owner_pid\":$dead_pid,\"owner_start_time\":1,\"cgroup_path\":\"$parent/victim\"}" >"$state/forged.json"
"$OCIRUN" sweep >"$TEST_TMP/out" 2>"$TEST_TMP/err"
status=$?
check "sweep fails on the forged record (exit $status)" test "$status" -eq 1
check "control: it swept the crashed run's slice" test ! -e "$parent/crashed"
grep -q "recorded cgroup '$parent/victim' is not cgroup2 slice" "$TEST_TMP/err" && ok "the refusal names the forged cgroup" ||
  { not_ok "the refusal names the forged cgroup"; sed 's/^/# /' "$TEST_TMP/err"; }
check "the live run's slice still has its process" has_process victim
check "the forged record is kept" test -e "$state/forged.json"
rm -f "$state/forged.json" "$state/.lock-forged"

# A stale name, its lock held; sweep and a new run of that name both wait.
check "a run starts (to crash)" start_run contested
kill -9 "$runner"
wait "$runner" 2>/dev/null
flock -o "$state/.lock-contested" sleep 1000 &
holder=$!
for _ in $(seq 100); do grep -q "FLOCK.* $holder " /proc/locks && break; sleep 0.05; done
"$OCIRUN" sweep >"$TEST_TMP/sweep.out" 2>"$TEST_TMP/sweep.err" &
sweeper=$!
"$OCIRUN" run --name contested --timeout 600 busybox:latest sleep 1000 >/dev/null 2>&1 &
new_runner=$!
waiting() { [ "$(grep -c -- "-> FLOCK" /proc/locks)" -ge 2 ]; }
for _ in $(seq 300); do waiting && break; sleep 0.1; done
check "control: sweep and the new run both wait for the name's lock" waiting
kill "$(cat "/proc/$holder/task/$holder/children")" 2>/dev/null
wait "$holder" 2>/dev/null
wait "$sweeper"
for _ in $(seq 300); do has_process contested && break; sleep 0.1; done
check "the new run's slice has its process" has_process contested
check "its record names its runner" grep -q "\"owner_pid\":$new_runner," "$state/contested.json"
check "its run dir exists" test -d "$state/contested/rootfs"

# The live runs end normally.
kill -9 $(cat "$parent/victim/cgroup.procs" "$parent/contested/cgroup.procs") 2>/dev/null
wait "$victim_runner" "$new_runner"
if [ ! -e "$parent/victim" ] && [ ! -e "$parent/contested" ] && [ -z "$(ls -A "$state")" ]; then
  ok "both runs tear down after themselves"
else
  not_ok "both runs tear down after themselves"
  ls -lA "$state" "$parent" | sed 's/^/# /'
  sed 's/^/# /' "$TEST_TMP/sweep.out" "$TEST_TMP/sweep.err"
fi
tap_done >/dev/null
exit 0
