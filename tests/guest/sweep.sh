#!/bin/bash
# In the guest: a runner killed with SIGKILL mid-run leaves its slice, run
# dir (with the overlay root mounted) and record; `ocirun sweep` removes all
# of them and every process of the run, and leaves a live run alone.
. "$top_srcdir/tests/lib.sh"

parent=/sys/fs/cgroup/ocirun
"$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1 ||
  { not_ok "import the busybox image"; exit 0; }
check "a run starts" start_run crashed
crashed_runner=$runner
kill -9 "$crashed_runner"
wait "$crashed_runner" 2>/dev/null
check "a live run starts" start_run alive
alive_runner=$runner

[ -d "$parent/crashed" ] && ok "the crashed runner left its slice" || not_ok "the crashed runner left its slice"
[ -e "$OCIRUN_ROOT/run/crashed.json" ] && ok "and its record" || not_ok "and its record"

"$OCIRUN" sweep >"$TEST_TMP/out" 2>"$TEST_TMP/err"
status=$?
[ $status -eq 0 ] && ok "sweep succeeds" || { not_ok "sweep succeeds (exit $status)"; sed 's/^/# /' "$TEST_TMP/err"; }
grep -q "^swept crashed " "$TEST_TMP/out" && ok "sweep reports the crashed run" ||
  { not_ok "sweep reports the crashed run"; sed 's/^/# /' "$TEST_TMP/out"; }
[ ! -e "$parent/crashed" ] && ok "the crashed run's slice is gone" || not_ok "the crashed run's slice is gone"
[ ! -e "$OCIRUN_ROOT/run/crashed.json" ] && [ ! -e "$OCIRUN_ROOT/run/crashed" ] &&
  ok "its record and run dir are gone" || not_ok "its record and run dir are gone"
! grep -qF "$OCIRUN_ROOT/run/crashed" /proc/self/mountinfo && ok "nothing of it is mounted" ||
  not_ok "nothing of it is mounted"
[ "$(pgrep -x -f 'sleep 1000' | wc -l)" -eq 1 ] && ok "only the live run's process remains" ||
  not_ok "only the live run's process remains ($(pgrep -x -f 'sleep 1000' | wc -l) left)"
has_process alive && [ -e "$OCIRUN_ROOT/run/alive.json" ] &&
  ok "the live run is untouched" || not_ok "the live run is untouched"

# The live run ends normally when its process is killed from outside.
kill -9 "$(pgrep -x -f 'sleep 1000')" 2>/dev/null
wait "$alive_runner"
[ ! -e "$parent/alive" ] && [ -z "$(ls -A "$OCIRUN_ROOT/run")" ] && ok "the live run tears down after itself" ||
  not_ok "the live run tears down after itself"
tap_done >/dev/null
exit 0
