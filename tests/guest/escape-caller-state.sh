#!/bin/bash
# In the cgroup v2 guest, in normal mode (a real slice): what a run must not
# take from its caller, each after its positive control (the host's
# tests/escape-caller-state.sh has the rest): the caller's oom_score_adj (the
# host cannot lower a score: its root lacks CAP_SYS_RESOURCE), its session
# keyring, its RLIMIT_RTPRIO and RLIMIT_NICE, and its realtime scheduling
# under --cpus.
. "$top_srcdir/tests/lib.sh"

"$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1 ||
  { echo "not ok - import the busybox image"; exit 0; }
# as_service CMD...: runs CMD with oom_score_adj -1000, as a service started
# with OOMScoreAdjust=-1000 (or sshd's listener, or a daemon's -999) would.
as_service() { sh -c 'echo -1000 >/proc/self/oom_score_adj && exec "$@"' as_service "$@"; }

# ---- the caller's oom_score_adj ----
as_service sh -c 'cat /proc/self/oom_score_adj' >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "control: a child of a -1000 caller is at -1000 (never OOM-killed)" grep -qx -- -1000 "$TEST_TMP/out"
as_service "$OCIRUN" run busybox:latest sh -c \
  'cat /proc/self/oom_score_adj; echo -500 >/proc/self/oom_score_adj || echo cannot-lower' \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "a -1000 caller's container starts at docker's 0: $(tr '\n' ' ' <"$TEST_TMP/out")" \
  test "$(head -1 "$TEST_TMP/out")" = 0
verdict "... and the workload cannot lower it again" grep -qx cannot-lower "$TEST_TMP/out"
# The consequence: under --memory, a container of a -1000 caller must still
# be OOM-killed (137, reported), not spin against its limit to the deadline.
as_service "$OCIRUN" run --memory 32m --memory-swap 32m --timeout 60 busybox:latest \
  dd if=/dev/zero of=/dev/null bs=64M count=1 >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
verdict "a -1000 caller: 64 MiB under --memory 32m is OOM-killed: 137 (exit $rc)" test "$rc" -eq 137
verdict "... and ocirun reports the OOM kill" grep -q "out of memory" "$TEST_TMP/err"
sh -c 'echo 500 >/proc/self/oom_score_adj && exec "$@"' - "$OCIRUN" run busybox:latest \
  cat /proc/self/oom_score_adj >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "a caller's score above 0 is kept (500)" grep -qx 500 "$TEST_TMP/out"

# ---- the caller's session keyring (normal mode) ----
if "$OCIRUN" image import "oci:$TEST_IMAGES/python:python:3.13-slim" >/dev/null 2>&1; then
  cat >"$TEST_TMP/holder.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.syscall(250, 1, None) < 0:  # KEYCTL_JOIN_SESSION_KEYRING, anonymous
    sys.exit("join a session keyring: errno %d" % ctypes.get_errno())
if libc.syscall(248, b"user", b"ocirun-review-secret", b"guest-secret-77", 15, -3) < 0:
    sys.exit("add_key: errno %d" % ctypes.get_errno())
os.execvp(sys.argv[1], sys.argv[1:])
PY
  cat >"$TEST_TMP/reader.py" <<'PY'
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
key = libc.syscall(250, 10, -3, b"user", b"ocirun-review-secret", 0)  # KEYCTL_SEARCH @s
buf = ctypes.create_string_buffer(64)
n = libc.syscall(250, 11, key, buf, 64) if key > 0 else -1  # KEYCTL_READ
print("payload", buf.raw[:max(n, 0)].decode() if n > 0 else "none")
PY
  python3 "$TEST_TMP/holder.py" python3 "$TEST_TMP/reader.py" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  verdict "control: a plain child of the caller reads the caller's session key" \
    grep -qx "payload guest-secret-77" "$TEST_TMP/out"
  python3 "$TEST_TMP/holder.py" "$OCIRUN" run --security-opt seccomp=unconfined -i \
    python:3.13-slim python3 - <"$TEST_TMP/reader.py" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  verdict "seccomp=unconfined: the workload ran and cannot read the caller's session key" \
    grep -qx "payload none" "$TEST_TMP/out"
  # RLIMIT_RTPRIO and RLIMIT_NICE above 0 let any uid take a realtime
  # policy or a negative nice value without privilege (limits.conf's rtprio
  # for an audio group, a service's LimitRTPRIO=). Guest only: raising a
  # hard limit needs CAP_SYS_RESOURCE, which the host's root lacks.
  take_back='import os
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10)); print("took-fifo")
except OSError as e:
    print("fifo", e.errno)
try:
    os.setpriority(os.PRIO_PROCESS, 0, -10); print("took-nice")
except OSError as e:
    print("nice", e.errno)'
  prlimit --rtprio=50 --nice=40 setpriv --reuid 65534 --regid 65534 --clear-groups \
    python3 -c "$take_back" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  verdict "control: uid 65534 under RLIMIT_RTPRIO 50 and RLIMIT_NICE 40 takes SCHED_FIFO and nice -10" \
    sh -c "grep -qx took-fifo '$TEST_TMP/out' && grep -qx took-nice '$TEST_TMP/out'"
  for user in "" "--user 65534"; do
    # shellcheck disable=SC2086 # $user is one option and its value, or nothing
    prlimit --rtprio=50 --nice=40 "$OCIRUN" run $user python:3.13-slim \
      python3 -c "$take_back" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
    verdict "such a caller's workload ${user:-(root)} takes neither: $(tr '\n' ' ' <"$TEST_TMP/out")" \
      sh -c "grep -q '^fifo ' '$TEST_TMP/out' && grep -q '^nice ' '$TEST_TMP/out'"
  done
else
  echo "not ok - import the python image"
fi
# ---- the caller's realtime scheduling and --cpus ----
# cpu.max throttles only ordinary tasks: a workload that inherits its
# caller's SCHED_FIFO spins past --cpus 0.2. The spinner ends by itself
# after 3 s of wall time; the slice's cpu.stat says what it used.
spin='end=$(($(date +%s) + 3)); while [ "$(date +%s)" -lt $end ]; do :; done; cat /sys/fs/cgroup/cpu.stat'
usage() { sed -n 's/^usage_usec //p' "$TEST_TMP/out"; }
chrt -f 10 sh -c 'chrt -p $$' >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "control: a child of a SCHED_FIFO caller is SCHED_FIFO" grep -q SCHED_FIFO "$TEST_TMP/out"
chrt -f 10 "$OCIRUN" run --cpus 0.2 --timeout 60 busybox:latest sh -c "$spin" \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
verdict "a SCHED_FIFO caller: 3 s of spinning under --cpus 0.2 uses under 1.5 s of CPU (exit $rc, usage_usec $(usage))" \
  test "$rc" -eq 0 -a -n "$(usage)" -a "$(usage)" -lt 1500000
exit 0
