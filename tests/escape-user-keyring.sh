#!/bin/bash
# The user keyrings of uid 0 (@u and @us), which every process of uid 0 in
# the host's user namespace shares, whoever started it: a root run without
# a user namespace of its own is such a process. The run's new session
# keyring (join_new_session_keyring) hides the caller's session keyring,
# not these: linked into that session keyring, @u's keys are the
# process's to read. Only the seccomp filter's denial of keyctl (the
# default profile's) keeps a root workload from them; with a profile that
# allows keyctl it reads them (a TAP `# TODO`). The key is added with a
# timeout and unlinked at exit: nothing of it outlives the test. Host
# only, without a cgroup.
. "$top_srcdir/tests/lib.sh"

root_with_python "escape-user-keyring"

# A key in root's user keyring, gone after 120 s whatever becomes of this
# test, and unlinked at exit.
key=$(python3 -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
secret = b"root-user-keyring-5151"
key = libc.syscall(248, b"user", b"ocirun-user-keyring-probe", secret, len(secret), -4)  # add_key @u
libc.syscall(250, 15, key, 120)  # KEYCTL_SET_TIMEOUT
print(key)')
trap 'python3 -c "import ctypes; ctypes.CDLL(None).syscall(250, 9, $key, -4)"; rm -rf "$TEST_TMP"' EXIT
check "a key in root's user keyring ($key)" test "${key:--1}" -gt 0

# The reader: a session keyring of its own (as the run's), @u linked into
# it, the key searched and read.
READER=$top_srcdir/tests/helpers/keyring-reader.py
read_key=(ocirun-user-keyring-probe --own-session --link-user)
setsid python3 "$READER" "${read_key[@]}" </dev/null >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "control: another root process, in a session keyring of its own, reads it" \
  grep -qx "payload root-user-keyring-5151" "$TEST_TMP/out"

"$OCIRUN" run --unsafe-no-cgroup -i python:3.13-slim python3 - "${read_key[@]}" <"$READER" \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "the default profile: a root workload cannot reach root's user keyring (keyctl denied)" \
  sh -c "grep -q 'no key: errno 1\$' '$TEST_TMP/out' && ! grep -q root-user-keyring '$TEST_TMP/out'"
"$OCIRUN" run --unsafe-no-cgroup --user 65534 --security-opt seccomp=unconfined -i python:3.13-slim \
  python3 - "${read_key[@]}" <"$READER" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "seccomp=unconfined, --user 65534: another uid's user keyring, not root's" \
  sh -c "grep -q 'no key' '$TEST_TMP/out' && ! grep -q root-user-keyring '$TEST_TMP/out'"
"$OCIRUN" run --unsafe-no-cgroup --security-opt seccomp=unconfined -i python:3.13-slim \
  python3 - "${read_key[@]}" <"$READER" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
sed 's/^/# workload: /' "$TEST_TMP/out"
todo "seccomp=unconfined, root: the workload cannot read root's user keyring" \
  sh -c "! grep -q root-user-keyring '$TEST_TMP/out'"
tap_done
