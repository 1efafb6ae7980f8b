#!/bin/bash
# In the guest (cgroup v2): `ocirun exec NAME CMD` into a live `ocirun run
# --name NAME` with its real slice: the process is in the run's cgroup,
# counts against its limits, gets its capabilities and docker's default
# seccomp filter (a syscall it denies fails in both), dies with the run,
# and the run's teardown leaves nothing (no slice, record or run dir). Then
# the same for a rootless run, exec'd into by its own user.
. "$top_srcdir/tests/lib.sh"

"$OCIRUN" image import "oci:$OCIRUN_GUEST_IMAGES/sysprobe:sysprobe:latest" >/dev/null 2>&1 ||
  { echo "not ok - import the sysprobe image"; exit 0; }
m_web=3${$}1 m_end=3${$}2 m_rl=3${$}3 m_fork=3${$}4

# --- a root run with its slice ---
if ! start_named_run web "$m_web" --pids-limit 8 sysprobe:latest sh -c "/sysprobe keyctl >/run-probe; exec sleep $m_web"; then
  not_ok "the run started"
  sed 's/^/# /' "$TEST_TMP/run.err"
  exit 0
fi
ok "the run started"

expect_exit 0 "exec reads its cgroup and pid 1's" "$OCIRUN" exec web cat /proc/self/cgroup /proc/1/cgroup
verdict "exec is in pid 1's cgroup, seen from the run's cgroup namespace ($(last_out | tr '\n' ' '))" \
  [ "$(last_out | sort -u | wc -l)" -eq 1 ]
verdict "exec is in the run's cgroup namespace" \
  [ "$("$OCIRUN" exec web readlink /proc/self/ns/cgroup)" = "$(readlink /proc/$pid1/ns/cgroup)" ]
# exec --cgroup SUB: a sub-cgroup made under the run's slice
mkdir /sys/fs/cgroup/ocirun/web/exec-sub
expect_exit 0 "exec --cgroup exec-sub reads its cgroup" "$OCIRUN" exec --cgroup exec-sub web cat /proc/self/cgroup
verdict "exec --cgroup: the process is in the sub-cgroup ($(last_out | tr '\n' ' '))" out_matches '^0::.*/exec-sub$'
expect_exit 0 "control: exec without --cgroup reads its cgroup" "$OCIRUN" exec web cat /proc/self/cgroup
verdict "control: without --cgroup it is the slice itself ($(last_out | tr '\n' ' '))" out_has_line "0::/"
expect_exit 1 "exec --cgroup into a sub-cgroup that does not exist fails" "$OCIRUN" exec --cgroup no-such web true
verdict "... saying it must exist" err_has_literal "(it must exist)"
expect_exit 1 "exec --cgroup ../x is refused" "$OCIRUN" exec --cgroup ../x web true
verdict "... by its name" err_has_literal "plain names"
rmdir /sys/fs/cgroup/ocirun/web/exec-sub
expect_exit 0 "exec runs a detached sleep" with_pipes "$OCIRUN" exec -d --pid-file "$TEST_TMP/exec.pid" web sleep "$m_end"
exec_pid=$(cat "$TEST_TMP/exec.pid")
verdict "the exec'd process is in the run's slice (host view)" \
  [ "$(cat /proc/$exec_pid/cgroup)" = "0::/ocirun/web" ]
verdict "the slice lists it" grep -qx "$exec_pid" /sys/fs/cgroup/ocirun/web/cgroup.procs
expect_exit 0 "exec reads its status" "$OCIRUN" exec web cat /proc/self/status
cp "$TEST_TMP/out" "$TEST_TMP/exec.status"
for field in CapEff CapBnd Seccomp NoNewPrivs; do
  verdict "$field is the run's ($(status_field $field /proc/$pid1/status))" \
    [ "$(status_field $field "$TEST_TMP/exec.status")" = "$(status_field $field /proc/$pid1/status)" ]
done
expect_exit 0 "exec: the probe of a syscall docker's profile denies" "$OCIRUN" exec web /sysprobe keyctl
verdict "keyctl is denied to exec as to the run ($(cat /proc/$pid1/root/run-probe))" \
  [ "$(last_out)" = "keyctl errno=EPERM" ] && [ "$(cat /proc/$pid1/root/run-probe)" = "keyctl errno=EPERM" ]
# Ten sleeps under --pids-limit 8 (the shell may give up at the first
# refused fork); then they are killed from outside.
"$OCIRUN" exec web sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do sleep $m_fork & done" >/dev/null 2>&1
pkill -9 -x -f "sleep $m_fork"
verdict "exec counts against the run's pids limit (pids.events: $(cat /sys/fs/cgroup/ocirun/web/pids.events))" \
  [ "$(sed -n 's/^max //p' /sys/fs/cgroup/ocirun/web/pids.events)" -gt 0 ]
expect_exit 1 "exec --cwd into a missing directory fails" "$OCIRUN" exec --cwd /no/such web true

# The run ends (its pid 1 killed from outside): the exec'd processes go with
# it, and the run's teardown succeeds: no slice, no record, no run dir.
"$OCIRUN" exec web sleep "$m_end" >/dev/null 2>&1 &
execer=$!
for _ in $(seq 50); do [ "$(pgrep -c -x -f "sleep $m_end")" -ge 2 ] && break; sleep 0.1; done
kill -9 "$pid1"
wait "$execer"
got=$?
verdict "an attached exec ends with the run (exit $got)" [ "$got" -eq 137 ]
wait "$runner"
got=$?
verdict "the run exits 137 and its teardown succeeds (exit $got)" [ "$got" -eq 137 ]
sed 's/^/# run: /' "$TEST_TMP/run.err"
for _ in $(seq 50); do pgrep -x -f "sleep $m_end" >/dev/null || break; sleep 0.1; done
verdict "no exec'd process outlives the run" sh -c "! pgrep -x -f 'sleep $m_end'"
verdict "the slice is gone" [ ! -e /sys/fs/cgroup/ocirun/web ]
verdict "the record and run dir are gone" [ -z "$(ls -A "$OCIRUN_ROOT/run" | grep -v '^seccomp')" ]
expect_exit 1 "exec into the ended run exits 1" "$OCIRUN" exec web true
verdict "... saying it is not running" err_has_literal "'web' is not running"

# --- rootless: the run's user namespace is joined by its own user ---
USER_ID=4242
cg=/sys/fs/cgroup/exec-live-test
store="$TEST_TMP/store"
chmod 0755 "$TEST_TMP"
mkdir "$store" && chown $USER_ID:$USER_ID "$store"
cp -r "$OCIRUN_GUEST_IMAGES/sysprobe" "$TEST_TMP/layout" && chmod -R a+rX "$TEST_TMP/layout"
grep -qw pids /sys/fs/cgroup/cgroup.subtree_control || echo "+memory +cpu +pids" >/sys/fs/cgroup/cgroup.subtree_control
mkdir -p "$cg/session" &&
  chown $USER_ID:$USER_ID "$cg" "$cg/cgroup.procs" "$cg/cgroup.subtree_control" "$cg/cgroup.threads"
[ -w /proc/sys/kernel/unprivileged_userns_clone ] && echo 1 >/proc/sys/kernel/unprivileged_userns_clone
# as_user COMMAND...: COMMAND as the user, from a leaf of its delegated subtree
as_user() {
  sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg/session" \
    setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups env -i PATH="$PATH" \
    OCIRUN_ROOT="$store" "$@"
}
as_user "$OCIRUN" image import "oci:$TEST_TMP/layout:sysprobe:latest" >/dev/null 2>&1
verdict "rootless: import the image as the user" [ $? -eq 0 ]
as_user "$OCIRUN" run --name rl --hostname rlhost --timeout 600 sysprobe:latest sleep "$m_rl" \
  >/dev/null 2>"$TEST_TMP/rl.err" &
rl_runner=$!
rl_pid1=$(pid_of_sleep "$m_rl")
for _ in $(seq 100); do grep -q container_pid "$store/run/rl.json" 2>/dev/null && break; sleep 0.1; done
verdict "rootless: the run started" [ -n "$rl_pid1" ]
as_user "$OCIRUN" exec rl sh -c 'hostname; id -u; cat /proc/self/uid_map | tr -s " " " "' \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "rootless: exec by the run's user (exit $?)" [ -s "$TEST_TMP/out" ]
verdict "rootless: exec sees the run's hostname, is uid 0 of the run's user namespace" \
  [ "$(head -2 "$TEST_TMP/out" | tr '\n' ' ')" = "rlhost 0 " ]
verdict "rootless: the same uid map as the run's pid 1" \
  [ "$(tail -1 "$TEST_TMP/out")" = "$(tr -s ' ' ' ' </proc/$rl_pid1/uid_map)" ]
with_pipes as_user "$OCIRUN" exec -d --pid-file "$store/exec.pid" rl sleep "$m_rl" >/dev/null 2>"$TEST_TMP/err"
rl_exec=$(cat "$store/exec.pid" 2>/dev/null)
verdict "rootless: the exec'd process is in the run's slice" \
  [ -n "$rl_exec" ] && [ "$(cat /proc/$rl_exec/cgroup)" = "$(cat /proc/$rl_pid1/cgroup)" ]
"$OCIRUN" --root "$store" exec rl true >/dev/null 2>"$TEST_TMP/err"
verdict "rootless: root cannot be led into the user's run by its store (exit $?)" err_has_literal "not by you"
kill -9 "$rl_pid1"
wait "$rl_runner"
verdict "rootless: the run ends (exit $?)" true
for _ in $(seq 50); do pgrep -u $USER_ID >/dev/null || break; sleep 0.1; done
verdict "rootless: nothing left (processes, slice, run state)" \
  sh -c "! pgrep -u $USER_ID >/dev/null && [ -z \"\$(find $cg -mindepth 1 -maxdepth 1 -type d ! -name session)\" ] && [ -z \"\$(ls -A $store/run | grep -v '^seccomp')\" ]"
echo $$ >/sys/fs/cgroup/cgroup.procs
rmdir "$cg/session" "$cg" 2>/dev/null
tap_done
exit 0
