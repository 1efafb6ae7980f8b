#!/bin/bash
# What a run must not take from its caller (`ocirun run`): the caller's
# session keyring, its realtime scheduling, negative nice value and
# realtime I/O class, and a read-only device given as its stdout made
# writable by the relay. Each attack first shows, with a weakened setup the
# test builds itself, that its observable is real. Host only, with
# --unsafe-no-cgroup: none of these depends on the cgroup; the OOM score and
# the cgroup's view are tests/guest/escape-caller-state.sh.
. "$top_srcdir/tests/lib.sh"

root_with_python "escape-caller-state"

run() { "$OCIRUN" run --unsafe-no-cgroup "$@"; }

# ---- the caller's session keyring ----
# keyring_holder CMD...: runs CMD in a new session keyring holding a user key
# "ocirun-review-secret" (as pam_keyinit, kinit or fscrypt leave the caller).
cat >"$TEST_TMP/holder.py" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
session = libc.syscall(250, 1, None)  # KEYCTL_JOIN_SESSION_KEYRING, anonymous
if session < 0:
    sys.exit("join a session keyring: errno %d" % ctypes.get_errno())
print("holder-session", session)
secret = b"host-secret-4242"
if libc.syscall(248, b"user", b"ocirun-review-secret", secret, len(secret), -3) < 0:
    sys.exit("add_key: errno %d" % ctypes.get_errno())
sys.stdout.flush()
os.execvp(sys.argv[1], sys.argv[1:])
PY
# The reader finds the key in its session keyring and prints its payload.
READER=$top_srcdir/tests/helpers/keyring-reader.py
python3 "$TEST_TMP/holder.py" python3 "$READER" ocirun-review-secret >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "control: a plain child of the caller reads the caller's session key" \
  grep -qx "payload host-secret-4242" "$TEST_TMP/out"
for user in "" "--user 65534"; do
  # shellcheck disable=SC2086 # $user is one option and its value, or nothing
  python3 "$TEST_TMP/holder.py" "$OCIRUN" run --unsafe-no-cgroup $user \
    --security-opt seccomp=unconfined -i python:3.13-slim python3 - ocirun-review-secret \
    <"$READER" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  verdict "seccomp=unconfined ${user:-(root)}: the workload ran its reader" grep -qE "^(payload|no key)" "$TEST_TMP/out"
  verdict "seccomp=unconfined ${user:-(root)}: the workload cannot read the caller's session key" \
    sh -c "! grep -q host-secret-4242 '$TEST_TMP/out'"
done
python3 "$TEST_TMP/holder.py" "$OCIRUN" run --unsafe-no-cgroup --security-opt seccomp=unconfined \
  -i python:3.13-slim python3 -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("session", libc.syscall(250, 0, -3, 0))' >"$TEST_TMP/out" 2>"$TEST_TMP/err"
holder=$(sed -n 's/^holder-session //p' "$TEST_TMP/out")
inside=$(sed -n 's/^session //p' "$TEST_TMP/out")
verdict "the workload has a session keyring of its own ($inside, the caller's $holder)" \
  test -n "$holder" -a -n "$inside" -a "$inside" -gt 0 -a "$inside" != "$holder"

# ---- the caller's scheduling: realtime policy, negative nice, realtime I/O ----
"$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1 ||
  not_ok "import the busybox test image"
sched='awk "{print \"nice\", \$19, \"policy\", \$41, \"rtprio\", \$40}" /proc/self/stat; ionice -p $$'
as_realtime() { chrt -f 10 nice -n -15 ionice -c 1 -n 2 "$@"; }
as_realtime sh -c "$sched" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "control: a plain child of a SCHED_FIFO, nice -15, realtime-I/O caller keeps all three" \
  sh -c "grep -qx 'nice -15 policy 1 rtprio 10' '$TEST_TMP/out' && grep -q realtime '$TEST_TMP/out'"
as_realtime "$OCIRUN" run --unsafe-no-cgroup busybox:latest sh -c "$sched" \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "such a caller's workload runs at SCHED_OTHER, nice 0: $(head -1 "$TEST_TMP/out")" \
  grep -qx "nice 0 policy 0 rtprio 0" "$TEST_TMP/out"
verdict "... and not in the realtime I/O class: $(sed -n 2p "$TEST_TMP/out")" \
  sh -c "sed -n 2p '$TEST_TMP/out' | grep -q . && ! grep -q realtime '$TEST_TMP/out'"
raise='renice -n -15 -p $$ >/dev/null 2>&1 && echo raised-nice; echo done'
"$OCIRUN" run --unsafe-no-cgroup --cap-add SYS_NICE busybox:latest sh -c "$raise" \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "control: with --cap-add SYS_NICE the workload can lower its nice value to -15" \
  grep -qx raised-nice "$TEST_TMP/out"
as_realtime "$OCIRUN" run --unsafe-no-cgroup busybox:latest sh -c "$raise" \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "... without it, the workload cannot take the caller's -15 back" \
  sh -c "grep -qx done '$TEST_TMP/out' && ! grep -q raised '$TEST_TMP/out'"
chrt -b 0 nice -n 5 ionice -c 3 "$OCIRUN" run --unsafe-no-cgroup busybox:latest sh -c "$sched" \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "a weaker caller's choice is kept: SCHED_BATCH, nice 5, idle I/O" \
  sh -c "grep -qx 'nice 5 policy 3 rtprio 0' '$TEST_TMP/out' && grep -qx idle '$TEST_TMP/out'"

# ---- a read-only device as the caller's stdout ----
# The relay reopens a device given as stdout (so a stopped terminal cannot
# hold the deadline); a read-only fd must not become a writable one.
cat >"$TEST_TMP/ptyrun.py" <<'PY'
import os, pty, select, subprocess, sys
master, slave = pty.openpty()
mode = os.O_RDONLY if sys.argv[1] == "ro" else os.O_WRONLY
fd = os.open(os.ttyname(slave), mode | os.O_NOCTTY)
run = subprocess.run(sys.argv[2:], stdout=fd, stderr=subprocess.DEVNULL, timeout=60)
seen = b""
while select.select([master], [], [], 0.5)[0]:
    seen += os.read(master, 4096)
print("exit", run.returncode, "terminal got", seen.decode(errors="replace").strip() or "nothing")
PY
python3 "$TEST_TMP/ptyrun.py" rw "$OCIRUN" run --unsafe-no-cgroup busybox:latest echo marker-tty \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "control: through a writable pty fd as stdout the workload's output reaches the terminal" \
  grep -q "terminal got marker-tty" "$TEST_TMP/out"
python3 "$TEST_TMP/ptyrun.py" ro sh -c 'echo marker-tty' >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "control: a plain program cannot write a read-only pty fd given as stdout" \
  grep -q "terminal got nothing" "$TEST_TMP/out"
python3 "$TEST_TMP/ptyrun.py" ro "$OCIRUN" run --unsafe-no-cgroup busybox:latest echo marker-tty \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "a read-only pty fd as ocirun's stdout: the workload's output never reaches the terminal" \
  grep -q "terminal got nothing" "$TEST_TMP/out"

tap_done
