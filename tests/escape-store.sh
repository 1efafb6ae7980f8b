#!/bin/bash
# Issue 8, finding 4 (the store trusted blindly) and finding 5's relative
# --root, on the host (runs with --unsafe-no-cgroup). Every attack first
# shows that it is real (its target exists and is reachable the way the
# attack needs, or sweep does act on a planted record), then that ocirun
# does not act outside the store:
#   - a store, a folder of it or a directory above it that another user may
#     change is refused, with the fix named (the same store tightened works);
#   - a planted record cannot make sweep delete outside the store or touch
#     a cgroup that is not its run's;
#   - a cache entry whose rootfs is a symlink to / never becomes a root;
#   - a run folder swapped for a symlink mid-run leaves the target alone;
#   - sweep waits for a name's lock and leaves a record that changed
#     meanwhile (a new run of that name) alone;
#   - a relative --root writes records that sweep cleans up.
. "$top_srcdir/tests/lib.sh"

needs_root "escape-store needs root"
"$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >/dev/null 2>&1 ||
  { not_ok "build the busybox test image"; tap_done; exit 1; }
import() { "$OCIRUN" --root "$1" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1; }
import "$OCIRUN_ROOT" || { not_ok "import the busybox test image"; tap_done; exit 1; }
state=$OCIRUN_ROOT/run
mkdir -p "$state"
sleep 0 &
dead_pid=$!
wait $dead_pid
# record DIR NAME PID START [EXTRA-JSON]
record() {
  echo "{\"name\":\"$2\",\"owner_pid\":$3,\"owner_start_time\":$4${5:+,$5}}" >"$1/$2.json"
}

# --- 1. a store others can change is refused, with the fix ---
loose=$TEST_TMP/loose-store
expect_exit 0 "control: a fresh store (0700, root's) is used" "$OCIRUN" --root "$loose" image ls
check "control: it was created 0700" test "$(stat -c %a "$loose")" = 700
chmod 0777 "$loose"
expect_exit 1 "a world-writable store is refused" "$OCIRUN" --root "$loose" image ls
verdict "the refusal names the path, the mode and the chmod" err_has_literal "'$loose' has mode 0777: group or others may write to it. Fix: chmod go-w '$loose'"
expect_exit 125 "run refuses it too" "$OCIRUN" --root "$loose" run --unsafe-no-cgroup busybox:latest true
expect_exit 1 "sweep refuses it too" "$OCIRUN" --root "$loose" sweep
chmod 0770 "$loose"
expect_exit 1 "a group-writable store is refused" "$OCIRUN" --root "$loose" image ls
chmod 0700 "$loose" && chown 65534:65534 "$loose"
expect_exit 1 "a store owned by another uid is refused" "$OCIRUN" --root "$loose" image ls
verdict "the refusal names the owner and the chown" err_has_literal "'$loose' is owned by uid 65534, not by you (uid 0): that user could change what ocirun runs. Fix: chown 0 '$loose'"
chown 0:0 "$loose"
expect_exit 0 "control: the same store, 0700 and root's again, works" "$OCIRUN" --root "$loose" image ls
for folder in run cache tmp store seccomp-cache; do
  mkdir -p "$loose/$folder"
  chmod 0777 "$loose/$folder"
  case $folder in
  run) expect_exit 1 "a world-writable $folder/ is refused (sweep)" "$OCIRUN" --root "$loose" sweep ;;
  seccomp-cache)
    # A compiled filter planted there would be loaded: the cache is skipped.
    import "$loose"
    expect_exit 0 "a world-writable seccomp-cache/ is not used (the run compiles its own filter)" \
      "$OCIRUN" --root "$loose" run --unsafe-no-cgroup busybox:latest true
    check "and nothing was written into it" test -z "$(ls -A "$loose/$folder")" ;;
  *) expect_exit 1 "a world-writable $folder/ is refused" "$OCIRUN" --root "$loose" image ls ;;
  esac
  [ "$folder" = seccomp-cache ] || verdict "the refusal names $folder/" err_has_literal "'$loose/$folder' has mode 0777"
  chmod 0700 "$loose/$folder"
done
mv "$loose/run" "$TEST_TMP/real-run" && ln -s "$TEST_TMP/real-run" "$loose/run"
expect_exit 1 "a run/ that is a symlink is refused" "$OCIRUN" --root "$loose" sweep
verdict "the refusal says it is a symlink" err_has_literal "'$loose/run' is a symlink"
rm "$loose/run"

# Above the store: a directory others may write without the sticky bit.
open_parent=$TEST_TMP/open-parent
mkdir -p "$open_parent/store" && chmod 0700 "$open_parent/store" && chmod 0777 "$open_parent"
expect_exit 1 "a store under a world-writable directory is refused" "$OCIRUN" --root "$open_parent/store" image ls
verdict "the refusal names the directory above and the fix" err_has_literal "'$open_parent', above the store '$open_parent/store', has mode 0777"
chmod 1777 "$open_parent"
expect_exit 0 "control: the same directory with the sticky bit (like /tmp) is fine" "$OCIRUN" --root "$open_parent/store" image ls
chmod 0755 "$open_parent" && chown 65534 "$open_parent"
expect_exit 1 "a store under a directory another uid owns is refused" "$OCIRUN" --root "$open_parent/store" image ls
verdict "the refusal names that owner" err_has_literal "'$open_parent', above the store '$open_parent/store', is owned by uid 65534"
chown 0 "$open_parent"

# --- 2. a planted record cannot make sweep act outside the store ---
victim=$TEST_TMP/victim
mkdir -p "$victim/sub" && echo keep >"$victim/sub/precious"
cp -a "$victim" "$TEST_TMP/victim-copy"
check "control: a directory like the victim is removable by root" rm -r "$TEST_TMP/victim-copy"
record "$state" planted "$dead_pid" 1 "\"run_dir\":\"$victim\""
mkdir -p "$state/planted/rootfs"
expect_exit 0 "sweep acts on the planted record" "$OCIRUN" sweep
verdict "control: the record was judged stale and swept" grep -q "^swept planted " "$TEST_TMP/out"
check "its own run dir (derived from the name) is gone" test ! -e "$state/planted" -a ! -e "$state/planted.json"
check "the directory the record named is intact" test "$(cat "$victim/sub/precious")" = keep
# A record's name must be its file's: the name decides every path.
record "$state" alias "$dead_pid" 1
sed -i 's/"name":"alias"/"name":"..\/..\/victim"/' "$state/alias.json"
expect_exit 0 "sweep with a record naming another run" "$OCIRUN" sweep
verdict "it is skipped and reported" err_has_literal "it names run '../../victim'"
check "and the victim is intact" test -e "$victim/sub/precious"
rm -f "$state/alias.json"

# A forged cgroup: the record of run "forged" names someone else's cgroup.
unified=""
for dir in /sys/fs/cgroup/unified /sys/fs/cgroup; do
  [ "$(stat -f -c %T "$dir" 2>/dev/null)" = cgroup2fs ] && unified=$dir && break
done
if [ -n "$unified" ] && [ -e "$unified/cgroup.procs" ]; then
  group=$unified/ocirun-escape-store-$$
  mkdir -p "$group/victim" "$group/forged-control"
  sleep 1000 &
  victim_pid=$!
  echo "$victim_pid" >"$group/victim/cgroup.procs"
  sleep 1000 &
  control_pid=$!
  echo "$control_pid" >"$group/forged-control/cgroup.procs"
  record "$state" forged-control "$dead_pid" 1 "\"cgroup_path\":\"$group/forged-control\""
  expect_exit 0 "control: sweep kills and removes a run's own cgroup" "$OCIRUN" sweep
  sleep 0.5
  check "control: that cgroup's process is dead and the cgroup gone" \
    sh -c "! kill -0 $control_pid 2>/dev/null && [ ! -e '$group/forged-control' ]"
  record "$state" forged "$dead_pid" 1 "\"cgroup_path\":\"$group/victim\""
  expect_exit 1 "sweep refuses a record whose cgroup is not its run's" "$OCIRUN" sweep
  verdict "the refusal names the cgroup" err_has_literal "recorded cgroup '$group/victim' is not cgroup2 slice"
  check "the other cgroup and its process are untouched" \
    sh -c "kill -0 $victim_pid && grep -qx $victim_pid '$group/victim/cgroup.procs'"
  check "the record is kept" test -e "$state/forged.json"
  rm -f "$state/forged.json"
  kill "$victim_pid" "$control_pid" 2>/dev/null
  wait "$victim_pid" "$control_pid" 2>/dev/null
  rmdir "$group/victim" "$group/forged-control" "$group" 2>/dev/null
else
  skip "no cgroup2 hierarchy on this host: the forged cgroup is tested in the guest"
fi

# --- 3. a cache entry whose rootfs is a symlink to / ---
marker=$TEST_TMP/host-marker-$$
echo host >"$marker"
rootfs=$("$OCIRUN" --quiet image unpack busybox:latest)
check "control: the host marker exists and the image has no such path" \
  test -e "$marker" -a ! -e "$rootfs$marker"
mv "$rootfs" "$rootfs.real" && ln -s / "$rootfs"
check "control: the entry's rootfs now really leads to /" test "$(readlink "$rootfs")" = / -a -e "$rootfs$marker"
expect_exit 125 "a run on that entry is refused" "$OCIRUN" run --unsafe-no-cgroup busybox:latest cat "$marker"
verdict "the refusal names the rootfs" err_has_literal "/rootfs' (never through a symlink)"
check "the host marker was never read by the container" test -z "$(last_out)"
rm "$rootfs" && mv "$rootfs.real" "$rootfs"
expect_exit 0 "control: the same entry restored runs" "$OCIRUN" run --unsafe-no-cgroup busybox:latest true
# The entry directory itself a symlink to a tree planted elsewhere.
entry=$(dirname "$rootfs")
mkdir -p "$TEST_TMP/planted-entry" && ln -s / "$TEST_TMP/planted-entry/rootfs" && touch "$TEST_TMP/planted-entry/complete"
mv "$entry" "$entry.real" && ln -s "$TEST_TMP/planted-entry" "$entry"
expect_exit 125 "an entry that is a symlink is refused" "$OCIRUN" run --unsafe-no-cgroup busybox:latest cat "$marker"
check "the host marker was never read by the container" test -z "$(last_out)"
rm "$entry" && mv "$entry.real" "$entry"

# --- 4. the run folder swapped for a symlink mid-run ---
swap_root=$TEST_TMP/swap-store
import "$swap_root" || not_ok "import into the swap store"
elsewhere=$TEST_TMP/elsewhere
mkdir -p "$elsewhere/swapped/rootfs" && echo keep >"$elsewhere/swapped/precious"
"$OCIRUN" --root "$swap_root" run --unsafe-no-cgroup --name swapped busybox:latest sleep 5 \
  >"$TEST_TMP/swap.out" 2>"$TEST_TMP/swap.err" &
runner=$!
# until the run has started (its record names pid 1, for exec NAME): the
# swap is meant for the teardown, not for that record's update
for _ in $(seq 200); do
  [ -d "$swap_root/run/swapped/rootfs" ] && grep -qs container_pid "$swap_root/run/swapped.json" && break
  sleep 0.05
done
check "control: the run's directory exists while it runs" test -d "$swap_root/run/swapped"
mv "$swap_root/run" "$swap_root/run.moved" && ln -s "$elsewhere" "$swap_root/run"
check "control: the run folder's path now leads to the target" test -e "$swap_root/run/swapped/precious"
wait "$runner"
status=$?
check "the runner reports a failed teardown (exit $status)" test "$status" -ne 0
check "the target's directory is intact" test "$(cat "$elsewhere/swapped/precious" 2>/dev/null)" = keep -a -d "$elsewhere/swapped/rootfs"
grep -qF "'$swap_root/run' is a symlink" "$TEST_TMP/swap.err" && ok "the teardown error names the symlink" ||
  { not_ok "the teardown error names the symlink"; sed 's/^/# /' "$TEST_TMP/swap.err"; }
rm "$swap_root/run" && mv "$swap_root/run.moved" "$swap_root/run"
expect_exit 0 "sweep cleans up the run once the folder is back" "$OCIRUN" --root "$swap_root" sweep
check "nothing of the run is left" test -z "$(ls -A "$swap_root/run")"

# --- 5. sweep against a new run taking the same name: the name's lock ---
# hold_lock NAME: a process (flock, its sleep without the fd) holds the
# name's lock until release_lock.
hold_lock() {
  flock -o "$state/.lock-$1" sleep 1000 &
  holder=$!
  for _ in $(seq 100); do grep -q "FLOCK.* $holder " /proc/locks && return 0; sleep 0.05; done
  return 1
}
# blocked PID: the process waits for a lock.
blocked() {
  for _ in $(seq 100); do grep -q -- "-> FLOCK.* $1 " /proc/locks && return 0; sleep 0.05; done
  return 1
}
release_lock() {
  kill $(cat "/proc/$holder/task/$holder/children") 2>/dev/null
  wait "$holder" 2>/dev/null
}
record "$state" contested "$dead_pid" 1
mkdir -p "$state/contested/rootfs"
check "control: another process holds the name's lock" hold_lock contested
"$OCIRUN" sweep >"$TEST_TMP/sweep.out" 2>"$TEST_TMP/sweep.err" &
sweeper=$!
check "control: sweep waits for the lock" blocked "$sweeper"
check "control: nothing is removed while it waits" test -e "$state/contested.json" -a -d "$state/contested"
release_lock
wait "$sweeper"
check "control: once the lock is free, sweep removes the stale run" \
  test ! -e "$state/contested.json" -a ! -e "$state/contested" -a ! -e "$state/.lock-contested"
record "$state" contested "$dead_pid" 1
mkdir -p "$state/contested/rootfs"
check "a run taking the name holds its lock" hold_lock contested
"$OCIRUN" sweep >"$TEST_TMP/sweep.out" 2>"$TEST_TMP/sweep.err" &
sweeper=$!
check "sweep judged the stale record and waits" blocked "$sweeper"
# The new run: it sweeps the old record and links in its own, live one.
rm "$state/contested.json"
record "$state" contested $$ "$(start_time $$)"
echo mine >"$state/contested/rootfs/new-run"
release_lock
wait "$sweeper"
grep -q "swept 0 runs" "$TEST_TMP/sweep.out" && ok "sweep acts on nothing" ||
  { not_ok "sweep acts on nothing"; sed 's/^/# /' "$TEST_TMP/sweep.out" "$TEST_TMP/sweep.err"; }
check "the new run keeps its record" grep -q "\"owner_pid\":$$," "$state/contested.json"
check "and its run directory" test -e "$state/contested/rootfs/new-run"
rm -rf "$state/contested.json" "$state/contested" "$state/.lock-contested"
# Lock files of names without a record: removed unless someone holds them.
: >"$state/.lock-orphan"
check "a name's lock is held by another process" hold_lock held
expect_exit 0 "sweep with lock files and no records" "$OCIRUN" sweep
check "an unheld lock file without a record is removed" test ! -e "$state/.lock-orphan"
check "a held one stays" test -e "$state/.lock-held"
release_lock
rm -f "$state/.lock-held"

# --- 6. a relative --root: records sweep can clean ---
rel_parent=$TEST_TMP/rel
mkdir -p "$rel_parent"
(cd "$rel_parent" && import relative-store) || not_ok "import into a relative --root"
(cd "$rel_parent" && exec "$OCIRUN" --root relative-store run --unsafe-no-cgroup --name crashed \
  busybox:latest sleep 1000 >/dev/null 2>&1) &
runner=$!
for _ in $(seq 100); do [ -d "$rel_parent/relative-store/run/crashed/rootfs" ] && break; sleep 0.05; done
kill -KILL "$runner"
wait "$runner" 2>/dev/null
check "control: the killed runner left its record and run dir" \
  test -e "$rel_parent/relative-store/run/crashed.json" -a -d "$rel_parent/relative-store/run/crashed"
check "the record names the run dir by an absolute path" \
  grep -qF "\"run_dir\":\"$rel_parent/relative-store/run/crashed\"" "$rel_parent/relative-store/run/crashed.json"
expect_exit 0 "sweep from another directory" sh -c "cd / && exec '$OCIRUN' --root '$rel_parent/relative-store' sweep"
verdict "it reports the crashed run" grep -q "^swept crashed " "$TEST_TMP/out"
check "its record and run dir are gone" test -z "$(ls -A "$rel_parent/relative-store/run")"

tap_done
