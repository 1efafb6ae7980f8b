#!/bin/bash
# `ocirun exec NAME CMD` into a live `ocirun run --name NAME`, on the host
# (--unsafe-no-cgroup: the slice is tests/guest/exec-live.sh's): the
# process sees the run's hostname, files and pid namespace, gets its
# seccomp filter, capabilities, env, user and cwd (each overridable), dies
# with the run; names that are not a live run, and records that are not
# ocirun's own files, are refused. Uses the busybox test image.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "exec-live"

RUN=$OCIRUN_ROOT/run
m_web=2${$}1 m_exec=2${$}2 m_dead=2${$}3 m_end=2${$}4

# The run's own filter denies mkdir: what exec gets must be that filter.
cat >"$TEST_TMP/no-mkdir.json" <<'J'
{"defaultAction": "SCMP_ACT_ALLOW",
 "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}
J
"$OCIRUN" run --unsafe-no-cgroup --timeout 1800 --name web --hostname webhost -e FOO=run -e KEEP=yes \
  -w /work --security-opt "seccomp=$TEST_TMP/no-mkdir.json" busybox:latest \
  sh -c "echo from-run >/marker; mkdir /run-dir 2>/run-mkdir.err; exec sleep $m_web" \
  >"$TEST_TMP/run.out" 2>"$TEST_TMP/run.err" &
runner=$!
# recorded_pid NAME: the run's pid 1 once its record names it (60 s at most)
recorded_pid() {
  for _ in $(seq 600); do
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["container_pid"])' \
      "$RUN/$1.json" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
pid1=$(recorded_pid web)
# the run's command: the child of its pid 1, ocirun's init
workload=$(cat /proc/$pid1/task/$pid1/children 2>/dev/null | tr -d ' ')
if [ -z "$pid1" ] || [ -z "$workload" ] || ! tr '\0' ' ' </proc/$workload/cmdline | grep -qx "sleep $m_web "; then
  not_ok "the run started"
  sed 's/^/# /' "$TEST_TMP/run.err"
  tap_done
  exit 1
fi
ok "the run started"
check "the record names the run's pid 1, ocirun's init, whose child is the command" \
  test "$(pid_of_sleep "$m_web")" = "$workload" -a "$(cat /proc/$pid1/comm)" = ocirun-init
check "config.json is kept in the run dir, 0600" test "$(stat -c %a "$RUN/web/config.json")" = 600

# --- the run's namespaces ---
expect_exit 0 "exec hostname" "$OCIRUN" exec web hostname
check "exec sees the run's hostname" test "$(last_out)" = webhost
expect_exit 0 "exec cat /marker" "$OCIRUN" exec web cat /marker
check "exec sees the run's files" test "$(last_out)" = from-run
expect_exit 0 "exec /proc/1/comm, /proc/2/cmdline" "$OCIRUN" exec web sh -c 'cat /proc/1/comm; tr "\0" " " </proc/2/cmdline; echo; echo $$'
check "exec is in the run's pid namespace (pid 1 its init, pid 2 its command)" \
  test "$(last_out | head -2 | tr '\n' '|')" = "ocirun-init|sleep $m_web |"
check "... as another pid than 1" test "$(last_out | tail -1)" -gt 1
check "exec is in the run's mount namespace" \
  test "$("$OCIRUN" exec web readlink /proc/self/ns/mnt)" = "$(readlink /proc/$pid1/ns/mnt)"

# --- the run's confinement ---
expect_exit 0 "exec reads its status" "$OCIRUN" exec web cat /proc/self/status
cp "$TEST_TMP/out" "$TEST_TMP/exec.status"
for field in CapEff CapPrm CapBnd CapInh NoNewPrivs Seccomp; do
  check "$field is the run's ($(status_field $field /proc/$workload/status))" \
    test "$(status_field $field "$TEST_TMP/exec.status")" = "$(status_field $field /proc/$workload/status)"
done
check "the run's own mkdir was denied by its filter" \
  "$OCIRUN" exec web grep -q "Operation not permitted" /run-mkdir.err
expect_exit 1 "exec: mkdir is denied by the run's filter" "$OCIRUN" exec web mkdir /exec-dir
err_has_literal "Operation not permitted" && ok "... with the filter's errno (EPERM)" ||
  not_ok "... with the filter's errno (EPERM)"

# --- env, user, cwd: the run's unless overridden ---
expect_exit 0 "exec env, id, pwd" "$OCIRUN" exec web sh -c 'echo "FOO=$FOO KEEP=$KEEP"; id -u; pwd'
check "the run's env, user and cwd" test "$(last_out | tr '\n' ' ')" = "FOO=run KEEP=yes 0 /work "
expect_exit 0 "exec -e -u --cwd" "$OCIRUN" exec -e FOO=exec -u 1000:1000 --cwd /tmp web \
  sh -c 'echo "FOO=$FOO KEEP=$KEEP"; env | grep -c ^FOO=; id -u; id -g; pwd; grep ^CapEff /proc/self/status'
check "-e replaces a variable, -u sets the user, --cwd the directory" \
  test "$(last_out | head -5 | tr '\n' ' ')" = "FOO=exec KEEP=yes 1 1000 1000 /tmp "
check "... and another user than root holds no capability (docker exec's rule)" \
  test "$(last_out | tail -1 | tr -d '\t ')" = "CapEff:0000000000000000"
expect_exit 0 "exec --no-new-privs" "$OCIRUN" exec --no-new-privs web grep ^NoNewPrivs /proc/self/status
check "--no-new-privs" test "$(last_out | tr -d '\t ')" = "NoNewPrivs:1"
expect_exit 3 "exec: the exit status is the process's" "$OCIRUN" exec web sh -c 'exit 3'
expect_exit 127 "exec: a missing command is 127" "$OCIRUN" exec web no-such-command
expect_exit 0 "exec --detach --pid-file (stdio: pipes)" with_pipes "$OCIRUN" exec -d --pid-file "$TEST_TMP/exec.pid" web sleep "$m_exec"
check "--pid-file names the detached process" \
  sh -c "tr '\0' ' ' </proc/$(cat "$TEST_TMP/exec.pid")/cmdline | grep -qx 'sleep $m_exec '"

# --- names that are not a live run ---
expect_exit 1 "an unknown name exits 1" "$OCIRUN" exec nosuch true
err_has_literal "'nosuch' is not running" && ok "... saying it is not running" || not_ok "... saying it is not running"
expect_exit 1 "a hostile name is refused" "$OCIRUN" exec ../web true
expect_exit 1 "a name starting with '.' is refused" "$OCIRUN" exec .lock-web true
err_has_literal "invalid run name" && ok "... as an invalid run name" || not_ok "... as an invalid run name"

# --- records that are not ocirun's own files ---
refused() { # DESC: exec web must exit 1 and say "refused"
  "$OCIRUN" exec web true >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  local got=$?
  if [ $got -eq 1 ] && err_has_literal refused; then ok "$1"; else
    not_ok "$1 (exit $got)"
    sed 's/^/# /' "$TEST_TMP/err"
  fi
}
chmod 0644 "$RUN/web.json"
refused "a record readable by others is refused"
chmod 0600 "$RUN/web.json"
chown 1000 "$RUN/web.json"
refused "a record owned by another user is refused"
chown 0 "$RUN/web.json"
chmod 0640 "$RUN/web/config.json"
refused "a config.json readable by the group is refused"
chmod 0600 "$RUN/web/config.json"
chmod 0755 "$RUN/web"
refused "a run dir others may read is refused"
chmod 0700 "$RUN/web"
cp -p "$RUN/web.json" "$TEST_TMP/web.json"
# a record pointing at a process that is not the runner's child (ours)
sleep 1000 &
stranger=$!
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
s = open("/proc/%s/stat" % sys.argv[2]).read().rsplit(")", 1)[1].split()
r["container_pid"], r["container_start_time"] = int(sys.argv[2]), int(s[19])
open(sys.argv[1], "w").write(json.dumps(r))' "$RUN/web.json" "$stranger"
refused "a record naming a process that is not the runner's child is refused"
kill $stranger
wait $stranger 2>/dev/null
cp -p "$TEST_TMP/web.json" "$RUN/web.json"
expect_exit 0 "the restored record is followed again" "$OCIRUN" exec web true

# --- an OCI container of the same name: ambiguous ---
mkdir -p "$OCIRUN_ROOT/containers/web"
cat >"$OCIRUN_ROOT/containers/web/state.json" <<EOF
{"ociVersion":"1.2.0","id":"web","bundle":"$TEST_TMP","pid":$pid1,"pidStartTime":1,
 "created":"2026-01-01T00:00:00Z","owner":0,"annotations":{},"hooks":{}}
EOF
chmod -R go-rwx "$OCIRUN_ROOT/containers"
expect_exit 1 "a name that is both a container and a live run is refused" "$OCIRUN" exec web true
err_has_literal "containers/web" && err_has_literal "run/web.json" && ok "... naming both" || not_ok "... naming both"
rm -rf "$OCIRUN_ROOT/containers/web"

# --- the run ends: what exec started ends with it, nothing is left ---
"$OCIRUN" exec web sleep "$m_end" >/dev/null 2>&1 &
execer=$!
for _ in $(seq 600); do pgrep -x -f "sleep $m_end" >/dev/null && break; sleep 0.1; done
kill -9 "$pid1"
wait "$execer"
got=$?
check "an exec'd process is killed when the run's pid 1 dies (exit $got)" test "$got" -eq 137
wait "$runner"
got=$?
check "the run exits 137, its teardown not failed by the exec (exit $got)" test "$got" -eq 137
for _ in $(seq 30); do process_with "$m_exec" || break; sleep 0.1; done
! process_with "$m_exec" && ! process_with "$m_end" && ok "no exec'd process outlives the run" ||
  not_ok "no exec'd process outlives the run"
check "nothing left: no record, no run dir, no mount" nothing_left
expect_exit 1 "exec into the ended run exits 1" "$OCIRUN" exec web true
err_has_literal "'web' is not running" && ok "... saying it is not running" || not_ok "... saying it is not running"

# --- a run whose runner died: not running, and sweepable ---
"$OCIRUN" run --unsafe-no-cgroup --timeout 1800 --name dead busybox:latest sleep "$m_dead" >/dev/null 2>&1 &
runner=$!
recorded_pid dead >/dev/null
{ kill -9 $runner && wait $runner; } 2>/dev/null
expect_exit 1 "exec into a run whose runner died exits 1" "$OCIRUN" exec dead true
err_has_literal "is not running" && ok "... saying it is not running" || not_ok "... saying it is not running: $(last_err)"
"$OCIRUN" sweep >/dev/null 2>&1
check "sweep cleans it up" nothing_left

tap_done
