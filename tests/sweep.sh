#!/bin/bash
# `ocirun sweep` on the host: records of crashed runners (owner pid gone, or
# the pid reused by another process) are cleaned up, with their run dirs
# (unmounting what is left mounted, never following symlinks out); live runs
# and things that are not cgroups are left alone; a run name held by a dead
# record is reusable, one held by a live run is not.
. "$top_srcdir/tests/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
  skip "sweep needs root"
  tap_done
  exit 0
fi

state=$OCIRUN_ROOT/run
mkdir -p "$state"
# Start time (field 22 of /proc/PID/stat) of a process.
start_time() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20; }
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
else
  not_ok "build and import the busybox test image"
fi
rm -rf "$state/live.json" "$live_dir"

tap_done
