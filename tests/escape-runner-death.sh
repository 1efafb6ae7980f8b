#!/bin/bash
# A run must not outlive its runner: the workload clears its own
# parent-death signal (prctl, as a setuid exec or a setuid() would) and the
# runner is killed outright. The run's pid 1 is ocirun's init, which holds
# the signal the workload cannot touch, so the whole pid namespace dies
# with the runner, before any deadline; and `ocirun sweep`, where a dead
# runner left no slice (--unsafe-no-cgroup), kills the recorded pid 1 by
# pidfd (its start time checked) instead of only saying "swept". On the
# host without a cgroup; the guest's tests/guest/sweep.sh covers slices.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "escape-runner-death"
INHERITED=$top_builddir/tests/helpers/inherited
m_fake=5${$}2 m_reused=5${$}3
alive() { kill -0 "$1" 2>/dev/null && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]; }
gone_within() { # PID SECONDS
  for _ in $(seq $(($2 * 10))); do alive "$1" || return 0; sleep 0.1; done
  return 1
}
umoci unpack --image "$TEST_IMAGES/busybox:busybox:latest" "$TEST_TMP/unpacked" >/dev/null 2>&1 &&
  install -m 0755 "$INHERITED" "$TEST_TMP/unpacked/rootfs/inherited" &&
  cp -a "$TEST_IMAGES/busybox" "$TEST_TMP/layout" &&
  umoci repack --image "$TEST_TMP/layout:inherited:latest" "$TEST_TMP/unpacked" >/dev/null 2>&1 &&
  "$OCIRUN" image import "oci:$TEST_TMP/layout:inherited:latest" >/dev/null 2>&1 ||
  { not_ok "build the image holding the helper"; tap_done; exit 1; }

# ---- the control: a process that clears its parent-death signal outlives its parent ----
setsid sh -c "setpriv --pdeathsig KILL $INHERITED clear-pdeathsig 30 >'$TEST_TMP/control.out' & sleep 1; kill -9 \$\$" \
  >/dev/null 2>&1
sleep 0.5
control=$(pgrep -x -f "$INHERITED clear-pdeathsig 30" | head -1)
check "control: a child given SIGKILL as its parent-death signal, once it clears it, outlives its killed parent" \
  sh -c "grep -qx cleared '$TEST_TMP/control.out' && [ -n '$control' ]"
[ -n "$control" ] && kill -9 "$control" 2>/dev/null

# ---- the workload clears its own, the runner is killed: everything goes ----
# (the command itself, not a shell's child: where the command was pid 1,
# clearing its own signal was all it took)
"$OCIRUN" run --unsafe-no-cgroup --timeout 600 --name doomed inherited:latest \
  /inherited clear-pdeathsig 30 >"$TEST_TMP/run.out" 2>"$TEST_TMP/run.err" &
runner=$!
for _ in $(seq 100); do grep -qx cleared "$TEST_TMP/run.out" 2>/dev/null && break; sleep 0.1; done
workload=$(pgrep -x -f "/inherited clear-pdeathsig 30" | head -1)
pid1=$(tr -d ' ' <"/proc/$runner/task/$runner/children" 2>/dev/null)
check "the workload cleared its own parent-death signal (the runner relayed its 'cleared')" \
  sh -c "grep -qx cleared '$TEST_TMP/run.out' && [ -n '$workload' ] && [ -n '$pid1' ]"
kill -9 "$runner"
wait "$runner" 2>/dev/null
check "the runner killed: the workload is gone at once (within 5 s), not at its 600 s deadline" gone_within "$workload" 5
check "... and so is the run's pid 1" gone_within "${pid1:-0}" 5
"$OCIRUN" sweep >"$TEST_TMP/sweep.out" 2>&1
check "sweep then removes the dead runner's record" sh -c "grep -q 'swept doomed' '$TEST_TMP/sweep.out' && [ ! -e '$OCIRUN_ROOT/run/doomed.json' ]"

# ---- sweep kills a dead run's recorded pid 1 when there is no slice ----
# A record as a runner that died while its pid 1 lived would leave it (the
# init keeps this from happening with ocirun's own runs; a record is state
# on disk, and sweep must not trust that the processes went with it).
mkdir -p "$OCIRUN_ROOT/run"
record() { # NAME PID START_TIME: a record of a dead owner, naming PID as pid 1
  python3 - "$OCIRUN_ROOT/run/$1.json" "$1" "$2" "$3" <<'PY'
import json, os, subprocess, sys
path, name, pid, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
dead = subprocess.Popen(["true"]); dead.wait()
owner_start = 1
json.dump({"name": name, "owner_pid": dead.pid, "owner_start_time": owner_start,
           "cgroup_path": None, "run_dir": None, "container_pid": pid,
           "container_start_time": start}, open(path, "w"))
os.chmod(path, 0o600)
PY
}
setsid sleep "$m_fake" &
fake=$!
record fake "$fake" "$(start_time $fake)"
setsid sleep "$m_reused" &
reused=$!
record reused "$reused" $(($(start_time $reused) + 1))
"$OCIRUN" sweep >"$TEST_TMP/sweep.out" 2>&1
sed 's/^/# /' "$TEST_TMP/sweep.out"
check "sweep kills the recorded pid 1 of a run without a slice" gone_within "$fake" 5
check "... and says so" grep -q "swept fake .*killed pid 1 $fake" "$TEST_TMP/sweep.out"
check "a pid whose start time is not the recorded one (reused) is not killed" alive "$reused"
check "... and that record is swept" test ! -e "$OCIRUN_ROOT/run/reused.json"
kill "$fake" "$reused" 2>/dev/null
wait 2>/dev/null
tap_done
