#!/bin/bash
# `ocirun sweep` on the host: records of crashed runners (owner pid gone, or
# the pid reused by another process) are cleaned up, with their run dirs
# (unmounting what is left mounted, never following symlinks out); live runs
# and things that are not cgroups are left alone; a run name held by a dead
# record is reusable, one held by a live run is not. A docker probe killed
# mid-run (a fake docker CLI) leaves a record from which sweep removes its
# container at the recorded engine, or keeps it while the engine is gone.
. "$top_srcdir/tests/lib.sh"

needs_root "sweep needs root"

state=$OCIRUN_ROOT/run
mkdir -p "$state"
# record NAME PID START [CGROUP] [RUN_DIR]
record() {
  local json="{\"name\":\"$1\",\"owner_pid\":$2,\"owner_start_time\":$3"
  [ -n "${4:-}" ] && json="$json,\"cgroup_path\":\"$4\""
  [ -n "${5:-}" ] && json="$json,\"run_dir\":\"$5\""
  echo "$json}" >"$state/$1.json"
}
# A pid that is certainly not running.
sleep 0 &
dead_pid=$!
wait $dead_pid

expect_exit 0 "sweep with no run state at all" "$OCIRUN" sweep
last_out | grep -q "swept 0 runs" && ok "it reports nothing swept" || not_ok "it reports nothing swept"
expect_exit 0 "sweep --help" "$OCIRUN" sweep --help
expect_exit 2 "sweep rejects arguments" "$OCIRUN" sweep extra

# A crashed run: dead owner, a run dir with nested files, a symlink leading
# out of it, a mount left under it, and a cgroup path that no longer exists.
outside=$TEST_TMP/outside
mkdir -p "$outside" && echo keep >"$outside/precious"
dead_dir=$state/dead
mkdir -p "$dead_dir/upper/a/b/c" "$dead_dir/rootfs"
echo x >"$dead_dir/upper/a/b/c/file"
ln -s "$outside" "$dead_dir/upper/escape"
ln -s "$outside/precious" "$dead_dir/upper/a/escape-file"
mount -t tmpfs tmpfs "$dead_dir/rootfs" && echo y >"$dead_dir/rootfs/in-mount"
record dead "$dead_pid" 12345 /sys/fs/cgroup/ocirun-sweep-test-gone/dead "$dead_dir"

# A live run: this shell, with its real start time.
live_dir=$state/live
mkdir -p "$live_dir/upper"
record live $$ "$(start_time $$)" "" "$live_dir"

# A reused pid: this shell's pid, but a different start time.
reused_dir=$state/reused
mkdir -p "$reused_dir"
record reused $$ 1 "" "$reused_dir"

# A leftover temporary record of a dead writer, and a garbage record.
echo '{}' >"$state/.tmp-$dead_pid-half.json"
echo 'not json' >"$state/garbage.json"

expect_exit 0 "sweep after a crashed runner" "$OCIRUN" sweep
last_out | grep -q "^swept dead " && ok "the dead run is reported" || not_ok "the dead run is reported"
last_out | grep -q "^swept reused " && ok "the reused-pid run is reported" ||
  not_ok "the reused-pid run is reported"
last_out | grep -q "swept 2 runs" && ok "two runs are counted" || not_ok "two runs are counted"
[ ! -e "$state/dead.json" ] && [ ! -e "$dead_dir" ] && ok "the dead run's record and dir are gone" ||
  not_ok "the dead run's record and dir are gone"
! grep -qF "$dead_dir" /proc/self/mountinfo && ok "the mount under the dead run dir is gone" ||
  not_ok "the mount under the dead run dir is gone"
[ "$(cat "$outside/precious" 2>/dev/null)" = keep ] && ok "symlinks out of the run dir are not followed" ||
  not_ok "symlinks out of the run dir are not followed"
[ ! -e "$state/reused.json" ] && [ ! -e "$reused_dir" ] && ok "the reused-pid run is removed" ||
  not_ok "the reused-pid run is removed"
[ -e "$state/live.json" ] && [ -d "$live_dir/upper" ] && ok "the live run is left alone" ||
  not_ok "the live run is left alone"
[ ! -e "$state/.tmp-$dead_pid-half.json" ] && ok "a dead writer's temporary record is removed" ||
  not_ok "a dead writer's temporary record is removed"
[ -e "$state/garbage.json" ] && ok "an unreadable record is kept" || not_ok "an unreadable record is kept"
last_err | grep -q "garbage.json" && ok "and reported on stderr" || not_ok "and reported on stderr"
rm -f "$state/garbage.json"

# A record's name is whatever its file holds: sweep reports a record that
# names another run with that name escaped, so terminal controls in it
# (an OSC title, a bell) reach the caller's terminal as text.
printf '{"name":"evil\\u001b]0;owned\\u0007","owner_pid":%s,"owner_start_time":1}\n' \
  "$dead_pid" >"$state/controls.json"
check "control: the record's name holds an escape byte" \
  python3 -c 'import json,sys; sys.exit("\x1b" not in json.load(open(sys.argv[1]))["name"])' \
  "$state/controls.json"
expect_exit 0 "sweep with a record whose name holds control bytes" "$OCIRUN" sweep
check "control: the record is reported as naming another run" grep -q "controls.json': it names run 'evil" "$TEST_TMP/err"
check "no raw control byte reaches stderr" sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$TEST_TMP/err'"
check "... they are written as \\xNN" grep -qF "it names run 'evil\x1b]0;owned\x07'" "$TEST_TMP/err"
rm -f "$state/controls.json"

# A record whose cgroup path is an ordinary directory: sweep refuses to
# remove it (it only ever removes cgroup v2 directories) and says so.
plain=$TEST_TMP/not-a-cgroup
mkdir -p "$plain/child"
record bogus "$dead_pid" 1 "$plain"
expect_exit 1 "sweep fails on a record whose cgroup is not a cgroup" "$OCIRUN" sweep
[ -d "$plain/child" ] && ok "the non-cgroup directory is untouched" ||
  not_ok "the non-cgroup directory is untouched"
last_err | grep -q "not cgroup2" && ok "the refusal names the reason" || not_ok "the refusal names the reason"
[ -e "$state/bogus.json" ] && ok "the record is kept for a later look" || not_ok "the record is kept for a later look"
rm -f "$state/bogus.json"

# --- a docker probe whose runner was killed: sweep removes its container ---
# A fake docker CLI first in PATH: it logs each call with the DOCKER_HOST it
# got, keeps "containers" as files, and answers what the docker backend asks.
# Its state dir is written into it: sweep runs the CLI with a clean
# environment. $fake/mode: run (start exits 1), block (start tells the FIFO
# $fake/started and sleeps), stuck (rm removes nothing), down (no engine).
fake=$TEST_TMP/fake-docker
mkdir -p "$fake/bin" "$fake/containers" "$TEST_TMP/no-docker"
mkfifo "$fake/started"
{
  echo '#!/bin/sh'
  echo "state='$fake'"
  cat <<'EOF'
echo "DOCKER_HOST=${DOCKER_HOST-unset} $*" >>"$state/log"
env >"$state/env.last"
mode=$(cat "$state/mode")
if [ "$mode" = down ]; then
  echo "Cannot connect to the Docker daemon at ${DOCKER_HOST:-unix:///var/run/docker.sock}. Is the docker daemon running?" >&2
  exit 1
fi
case "$1" in
info) echo '{"OSType":"linux","CgroupVersion":"2","KernelVersion":"6.1.0-fake"}' ;;
version) echo 24.0.7-fake ;;
image) echo '{"Id":"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","RepoDigests":[]}' ;;
create)
  while [ $# -gt 0 ]; do [ "$1" = --name ] && name=$2; shift; done
  : >"$state/containers/$name"
  echo 4f3c0ffee ;;
start)
  if [ "$mode" = block ]; then
    echo $$ >"$state/start.pid"
    echo started >"$state/started"
    exec sleep 1000
  fi
  cat >/dev/null
  exit 1 ;;
inspect) echo 1 ;;
rm)
  for name; do :; done
  [ "$mode" = stuck ] || rm -f "$state/containers/$name"
  echo "$name" ;;
ps)
  for arg; do case "$arg" in name=*) name=${arg#name=^} name=${name%\$} ;; esac; done
  [ ! -e "$state/containers/$name" ] || echo "$name" ;;
*) echo "fake docker: unexpected call: $*" >&2; exit 1 ;;
esac
EOF
} >"$fake/bin/docker"
chmod +x "$fake/bin/docker"
fake_host=unix://$fake/engine.sock
# fake_probe [DOCKER_HOST]: ocirun probe --backend docker against the fake,
# in the background (without DOCKER_HOST when none is given).
fake_probe() {
  local host=(-u DOCKER_HOST)
  [ -z "${1:-}" ] || host=("DOCKER_HOST=$1")
  env "${host[@]}" PATH="$fake/bin:$PATH" "$OCIRUN" probe -q --backend docker -o "$TEST_TMP/fake.json" fake:latest \
    >"$TEST_TMP/probe.out" 2>"$TEST_TMP/probe.err" &
  probe_pid=$!
}
# killed_probe [DOCKER_HOST]: a probe SIGKILLed while the engine runs its
# container; sets name (the container's) and record_file.
killed_probe() {
  echo block >"$fake/mode"
  fake_probe "$@"
  timeout 60 cat "$fake/started" >/dev/null
  name=$(ls "$fake/containers")
  record_file=$state/$name.json
  verdict "the probe's record exists while the engine runs its container" [ -f "$record_file" ]
  kill -KILL "$probe_pid"
  wait "$probe_pid" 2>/dev/null
  kill "$(cat "$fake/start.pid")"
  echo run >"$fake/mode"
}
fake_sweep() { PATH="$fake/bin:$PATH" expect_exit "$@"; }
gone() { [ ! -e "$state/$1.json" ] && [ ! -e "$fake/containers/$1" ]; }

echo run >"$fake/mode"
fake_probe "$fake_host"
wait "$probe_pid"
status=$?
[ "$status" -eq 1 ] && ok "a probe against the fake engine runs to its verdict" ||
  { not_ok "a probe against the fake engine runs to its verdict (exit $status)"; sed 's/^/# /' "$TEST_TMP/probe.err" | tail; }
grep -q "^DOCKER_HOST=$fake_host rm --force ocirun-probe-" "$fake/log" && [ -z "$(ls "$fake/containers")" ] &&
  ok "its container is removed" || not_ok "its container is removed"
[ -z "$(find "$state" -maxdepth 1 -name 'ocirun-probe-*')" ] && ok "a probe that ends leaves no record" ||
  not_ok "a probe that ends leaves no record: $(ls "$state")"

killed_probe "$fake_host"
if python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))
sys.exit(0 if r == {"name": sys.argv[2], "owner_pid": int(sys.argv[3]), "owner_start_time": r["owner_start_time"],
                    "docker_container": sys.argv[2], "docker_host": sys.argv[4]} else 1)' \
  "$record_file" "$name" "$probe_pid" "$fake_host"; then
  ok "the record names the runner, the container and the DOCKER_HOST it used"
else
  not_ok "the record names the runner, the container and the DOCKER_HOST it used"
  sed 's/^/# /' "$record_file"
fi
[ -e "$fake/containers/$name" ] && ok "after SIGKILL the container is left in the engine" ||
  not_ok "after SIGKILL the container is left in the engine"
: >"$fake/log"
rm -f "$fake/env.last"
DOCKER_HOST=unix:///elsewhere.sock FAKE_SECRET=1 fake_sweep 0 "sweep after a killed docker probe" "$OCIRUN" sweep
verdict "it reports the container and its engine" \
  grep -qx "swept $name (owner pid $probe_pid gone): docker container $name at $fake_host" "$TEST_TMP/out"
verdict "it ran docker rm -f, then listed by exact name, at the recorded DOCKER_HOST" \
  diff <(printf 'DOCKER_HOST=%s %s\n' "$fake_host" "rm -f $name" \
    "$fake_host" "ps -a --filter name=^$name\$ --format {{.Names}}") "$fake/log"
# (dash adds PWD itself)
verdict "the docker CLI got a clean environment: PATH, LC_ALL=C and the recorded DOCKER_HOST" \
  diff <(printf '%s\n' "DOCKER_HOST=$fake_host" LC_ALL=C "PATH=$fake/bin:$PATH") \
  <(grep -v '^PWD=' "$fake/env.last" | sort)
verdict "the container and the record are gone" gone "$name"

# Without DOCKER_HOST the record names the default endpoint. With the engine
# gone (and then the CLI), the record stays and sweep says why; once the
# engine answers again, a later sweep finishes the job.
killed_probe
echo down >"$fake/mode"
fake_sweep 1 "sweep with the engine gone fails" "$OCIRUN" sweep
verdict "it names the container and the endpoint it could not reach" grep -q \
  "cannot reach the Docker engine at unix:///var/run/docker.sock to remove container $name (Cannot connect" "$TEST_TMP/err"
verdict "and says the record is kept" grep -q "record kept for a later sweep" "$TEST_TMP/err"
[ -e "$record_file" ] && [ -e "$fake/containers/$name" ] && ok "the record stays" || not_ok "the record stays"
PATH="$TEST_TMP/no-docker" expect_exit 1 "sweep without a docker CLI fails" "$OCIRUN" sweep
verdict "it says the CLI could not be run" grep -q "$name at unix:///var/run/docker.sock: run the docker CLI" "$TEST_TMP/err"
echo stuck >"$fake/mode"
fake_sweep 1 "sweep fails when the container is still listed after rm" "$OCIRUN" sweep
verdict "it says the container is still listed" grep -q "docker container $name at .* is still listed after docker rm -f (exit status 0)" "$TEST_TMP/err"
echo run >"$fake/mode"
fake_sweep 0 "a later sweep finishes the job" "$OCIRUN" sweep
verdict "the container and the record are gone" gone "$name"

# A teardown that cannot verify the container gone keeps the record.
echo stuck >"$fake/mode"
fake_probe "$fake_host"
wait "$probe_pid"
name=$(ls "$fake/containers")
verdict "an unverified teardown keeps the record" [ -e "$state/$name.json" ]
verdict "and the probe's error says sweep removes the container" \
  grep -q "run/$name.json is kept: .ocirun sweep. removes the container" "$TEST_TMP/probe.err"
echo run >"$fake/mode"
fake_sweep 0 "sweep removes it" "$OCIRUN" sweep
verdict "the container and the record are gone" gone "$name"

# A record cannot make sweep remove a container ocirun did not create.
: >"$fake/log"
echo "{\"name\":\"foreign\",\"owner_pid\":$dead_pid,\"owner_start_time\":1,\"docker_container\":\"-f\"}" >"$state/foreign.json"
fake_sweep 1 "a record naming another container is refused" "$OCIRUN" sweep
verdict "the refusal names it" grep -q "docker container '-f' is not a name ocirun probe gives" "$TEST_TMP/err"
[ -e "$state/foreign.json" ] && [ ! -s "$fake/log" ] && ok "no docker call, the record is kept" ||
  not_ok "no docker call, the record is kept"
rm -f "$state/foreign.json"

# Run names: a dead record's name is reusable, a live run's is not.
if "$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >/dev/null 2>&1 &&
  "$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1; then
  expect_exit 125 "a live run's name is refused" \
    "$OCIRUN" run --unsafe-no-cgroup --name live busybox:latest true
  last_err | grep -q "in use by a live run" && ok "the refusal says the name is in use" ||
    not_ok "the refusal says the name is in use"
  [ -d "$live_dir/upper" ] && ok "the live run is still untouched" || not_ok "the live run is still untouched"
  [ -z "$(find "$state" -maxdepth 1 -name '.tmp-*')" ] && ok "the refused run leaves no temporary record" ||
    not_ok "the refused run leaves no temporary record: $(find "$state" -maxdepth 1 -name '.tmp-*')"
  record stale "$dead_pid" 1 "" ""
  expect_exit 0 "a dead record's name is reused" \
    "$OCIRUN" run --unsafe-no-cgroup --name stale busybox:latest true
  [ ! -e "$state/stale.json" ] && ok "the run removes its record at the end" ||
    not_ok "the run removes its record at the end"

  # A runner killed while its writable layer on disk holds a hostile tree:
  # sweep removes it all, and nothing behind a symlink the workload planted.
  m_crash=1${$}7
  "$OCIRUN" run --unsafe-no-cgroup --name crashed busybox:latest sh -c "
    d=/deep; for i in \$(seq 100); do d=\$d/d; done; mkdir -p \$d && echo x >\$d/f
    mkdir -p /locked/inner && echo y >/locked/inner/f && chmod 000 /locked/inner /locked
    echo z >/no-mode && chmod 000 /no-mode
    ln -s $outside /escape && ln -s $outside/precious /escape-file
    dd if=/dev/zero of=/data bs=1M count=8 2>/dev/null; echo done >/written; sleep $m_crash" \
    >/dev/null 2>&1 &
  runner=$!
  for _ in $(seq 200); do [ -e "$state/crashed/upper/written" ] && break; sleep 0.1; done
  [ -e "$state/crashed/upper/written" ] && [ -L "$state/crashed/upper/escape" ] &&
    ok "a live run's layer is on disk, with the workload's symlink out" ||
    not_ok "a live run's layer is on disk, with the workload's symlink out"
  kill -KILL $runner
  wait $runner 2>/dev/null
  sleeper=$(pid_of_sleep "$m_crash")
  [ -n "$sleeper" ] && kill -KILL "$sleeper" 2>/dev/null
  [ -d "$state/crashed/upper/locked" ] && ok "the killed runner left its layer" ||
    not_ok "the killed runner left its layer"
  expect_exit 0 "sweep after a runner killed with a hostile layer" "$OCIRUN" sweep
  [ ! -e "$state/crashed" ] && [ ! -e "$state/crashed.json" ] && ok "the layer and the record are gone" ||
    not_ok "the layer and the record are gone: $(ls -A "$state")"
  [ "$(cat "$outside/precious")" = keep ] && ok "the file behind the layer's symlink is untouched" ||
    not_ok "the file behind the layer's symlink is untouched"
else
  not_ok "build and import the busybox test image"
fi
rm -rf "$state/live.json" "$live_dir"

tap_done
