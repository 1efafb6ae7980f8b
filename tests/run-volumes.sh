#!/bin/bash
# `ocirun run -v/--volume` and `--mount`: host paths in and out of a run, a
# read-only bind refusing writes, a tmpfs through --mount, refusals that
# name the option and what was typed (a missing source, bad syntax),
# --dry-run showing every added mount and none that was not asked for, and
# named volumes (`ocirun volume`, -v NAME:/path, the first use's copy, rm
# refused while a run uses one).
# Host test: --unsafe-no-cgroup, as tests/run-host.sh.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "run-volumes"

run() { timeout 60 "$OCIRUN" run --unsafe-no-cgroup "$@"; }

SRC=$TEST_TMP/host-src OUT=$TEST_TMP/host-out
mkdir -p "$SRC" "$OUT"
echo "from the host" >"$SRC/input"

# --- a file in and a file out ---
expect_exit 0 "-v SRC:/src:ro -v OUT:/out runs" \
  run -v "$SRC:/src:ro" -v "$OUT:/out" busybox:latest sh -c 'cat /src/input; echo "from the run" >/out/result'
out_has_line "from the host" && ok "the host's file is read inside" || not_ok "the host's file is read inside"
[ "$(cat "$OUT/result" 2>/dev/null)" = "from the run" ] && ok "the run's file reaches the host" ||
  not_ok "the run's file reaches the host"
expect_exit 0 "--mount type=bind works as -v" \
  run --mount "type=bind,source=$SRC,target=/src" busybox:latest cat /src/input
out_has_line "from the host" && ok "--mount: the host's file is read inside" ||
  not_ok "--mount: the host's file is read inside"
echo "one file" >"$TEST_TMP/single"
expect_exit 0 "a file onto a file" run -v "$TEST_TMP/single:/etc/single" busybox:latest cat /etc/single
out_has_line "one file" && ok "a single file is bound" || not_ok "a single file is bound"

# --- read-only refuses writes (control: rw writes) ---
expect_exit 0 "control: a rw bind is written" run -v "$OUT:/out:rw" busybox:latest touch /out/rw-written
[ -e "$OUT/rw-written" ] && ok "control: the write reached the host" || not_ok "control: the write reached the host"
for ro in "-v $OUT:/out:ro" "-v $OUT:/out:readonly" "--mount type=bind,source=$OUT,target=/out,readonly"; do
  # shellcheck disable=SC2086 # the option and its value are two words
  expect_exit 1 "$ro: a write fails" run $ro busybox:latest touch /out/ro-written
  err_has_literal "Read-only file system" && [ ! -e "$OUT/ro-written" ] &&
    ok "$ro: EROFS, nothing written on the host" || not_ok "$ro: EROFS, nothing written on the host"
done

# --- a tmpfs through --mount ---
expect_exit 0 "--mount type=tmpfs with size and mode" \
  run --mount type=tmpfs,target=/scratch,tmpfs-size=2m,tmpfs-mode=700 busybox:latest \
  sh -c 'grep " /scratch " /proc/self/mountinfo; stat -c %a /scratch'
out_matches " /scratch .*nosuid,nodev,noexec.* tmpfs .*size=2048k" && out_has_line "700" &&
  ok "a 2 MiB tmpfs, noexec,nosuid,nodev, mode 700" || { not_ok "a 2 MiB tmpfs, noexec,nosuid,nodev, mode 700"; show; }

# --- a missing source: refused, named, never created (docker's --mount rule) ---
run_refused "-v of a missing source" "--volume '$TEST_TMP/missing:/m'.*$TEST_TMP/missing does not exist" \
  -v "$TEST_TMP/missing:/m" busybox:latest true
run_refused "--mount of a missing source" "--mount '.*$TEST_TMP/missing does not exist" \
  --mount "type=bind,source=$TEST_TMP/missing,target=/m" busybox:latest true
[ ! -e "$TEST_TMP/missing" ] && ok "the missing source was not created" || not_ok "the missing source was not created"

# --- bad syntax names the option ---
run_refused "-v without a target" "--volume '$SRC'.*SRC:DST" -v "$SRC" busybox:latest true
run_refused "-v with an unknown option" "--volume .*unknown option 'rx'" -v "$SRC:/d:rx" busybox:latest true
run_refused "--mount with an unknown field" "--mount .*unknown field 'size'" \
  --mount "type=bind,source=$SRC,target=/d,size=1" busybox:latest true
run_refused "--mount with an unknown type" "--mount .*type 'nfs'" --mount type=nfs,target=/d busybox:latest true
run_refused "--mount without a target" "--mount .*target=PATH is required" \
  --mount "type=bind,source=$SRC" busybox:latest true
run_refused "a target in /proc" "--volume .*/proc/sys.*refused" -v "$SRC:/proc/sys" busybox:latest true
check "nothing left after the refusals" nothing_left

# --- the hidden cost: every added mount shown, none that was not asked for ---
expect_exit 0 "--dry-run with -v and --mount" \
  run --dry-run -v "$SRC:/src:ro" --mount "type=bind,source=$OUT,target=/out,bind-propagation=rslave" \
  busybox:latest true
out_matches "^[0-9]+ +bind +/src +$SRC +rbind,ro,nosuid,nodev,rprivate" &&
  out_matches "^[0-9]+ +bind +/out +$OUT +rbind,rw,nosuid,nodev,rslave" &&
  ok "the plan shows both binds with their attributes" || { not_ok "the plan shows both binds"; grep bind "$TEST_TMP/out" | sed 's/^/# /'; }
out_has_literal "\"source\":	\"$SRC\"" && ok "the configuration shows the source" ||
  not_ok "the configuration shows the source"
expect_exit 0 "--log-format json --dry-run with -v" \
  timeout 60 "$OCIRUN" --log-format json run --unsafe-no-cgroup --dry-run -v "$SRC:/src:ro" busybox:latest true
python3 - "$TEST_TMP/out" "$SRC" <<'PY' && ok "the JSON plan and configuration each have the one bind" || not_ok "the JSON plan and configuration each have the one bind"
import json, sys
doc = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
ops = [o for o in doc["plan"]["mounts"] if o["kind"] == "bind"]
assert len(ops) == 1 and ops[0]["source"] == sys.argv[2] and "ro" in ops[0]["attrs"], ops
binds = [m for m in doc["configuration"]["mounts"] if m["type"] == "bind"]
assert len(binds) == 1 and binds[0]["source"] == sys.argv[2] and binds[0]["destination"] == "/src", binds
assert "ro" in binds[0]["options"] and "nosuid" in binds[0]["options"] and "nodev" in binds[0]["options"]
PY
expect_exit 0 "--dry-run without mount options" run --dry-run busybox:latest true
! out_matches "^[0-9]+ +bind " && ! out_has_literal '"type":	"bind"' &&
  ok "no bind in the plan or the configuration when none is asked" ||
  { not_ok "no bind when none is asked"; grep -n bind "$TEST_TMP/out" | sed 's/^/# /' | head; }

# --- rootless: a user binds only what the user can read ---
if command -v setpriv >/dev/null; then
  USER_ID=4262
  rootless_store $USER_ID || not_ok "rootless: import busybox as the user"
  mkdir -p "$TEST_TMP/mine" "$TEST_TMP/roots"
  echo "the user's" >"$TEST_TMP/mine/file" && chown -R "$USER_ID:$USER_ID" "$TEST_TMP/mine"
  echo "root's" >"$TEST_TMP/roots/file" && chmod 0700 "$TEST_TMP/roots"
  expect_exit 0 "rootless: -v of the user's directory" \
    as_user timeout 60 "$OCIRUN" run --unsafe-no-cgroup -v "$TEST_TMP/mine:/m" busybox:latest \
    sh -c 'cat /m/file; echo back >/m/out; grep " /m " /proc/self/mountinfo'
  out_has_line "the user's" && [ "$(stat -c %u "$TEST_TMP/mine/out" 2>/dev/null)" = "$USER_ID" ] &&
    ok "rootless: read inside, written back as the user" || { not_ok "rootless: read inside, written back as the user"; show; }
  out_matches " /m rw,nosuid,nodev" && ok "rootless: the bind is nosuid,nodev" || not_ok "rootless: the bind is nosuid,nodev"
  expect_exit 0 "control: root reads root's directory" cat "$TEST_TMP/roots/file"
  expect_exit 125 "rootless: -v of a directory the user cannot read is refused" \
    as_user timeout 60 "$OCIRUN" run --unsafe-no-cgroup -v "$TEST_TMP/roots:/r" busybox:latest cat /r/file
  err_has_literal "must be one the caller can read" && ok "rootless: the refusal says why" ||
    { not_ok "rootless: the refusal says why"; show; }
  expect_exit 125 "rootless: a named volume is refused (not supported rootless yet)" \
    as_user timeout 60 "$OCIRUN" run --unsafe-no-cgroup -v vol:/v busybox:latest true
else
  skip "rootless binds need setpriv"
fi

# --- named volumes ---
vol() { timeout 60 "$OCIRUN" volume "$@"; }
expect_exit 0 "volume create" vol create cache
out_has_line cache && [ -d "$OCIRUN_ROOT/volumes/cache/_data" ] && ok "made under ROOT/volumes/cache/_data" ||
  not_ok "made under ROOT/volumes/cache/_data"
expect_exit 0 "volume create of an existing one is no error" vol create cache
expect_exit 0 "-v cache:/data writes into the volume" run -v cache:/data busybox:latest sh -c 'echo kept >/data/f'
expect_exit 0 "a second run reads it" run -v cache:/d2 busybox:latest cat /d2/f
out_has_line kept && ok "the volume's content outlives the run" || not_ok "the volume's content outlives the run"
expect_exit 0 "first use of a new volume at /etc" run -v fresh:/etc busybox:latest cat /etc/passwd
out_matches "^root:" && ok "a new volume starts with the image's content at its target" ||
  not_ok "a new volume starts with the image's content at its target"
[ -e "$OCIRUN_ROOT/volumes/fresh/_data/passwd" ] && ok "the copy is in the volume" || not_ok "the copy is in the volume"
expect_exit 0 "nocopy: a new volume at /etc stays empty" \
  run --mount type=volume,source=bare,target=/etc,volume-nocopy busybox:latest ls -A /etc
[ ! -s "$TEST_TMP/out" ] && ok "nocopy: nothing copied" || { not_ok "nocopy: nothing copied"; show; }
expect_exit 0 "a used volume is not filled again" run -v cache:/etc busybox:latest ls -A /etc
out_has_line f && ! out_has_line passwd && ok "cache keeps only its own file" || { not_ok "cache keeps only its own file"; show; }
expect_exit 0 "volume ls" vol ls -q
out_has_line cache && out_has_line fresh && out_has_line bare && ok "ls names the three" || not_ok "ls names the three"
expect_exit 0 "volume inspect" vol inspect cache
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[0]["Name"]=="cache" and d[0]["Mountpoint"].endswith("/volumes/cache/_data")' \
  "$TEST_TMP/out" && ok "inspect: Name and Mountpoint" || not_ok "inspect: Name and Mountpoint"
expect_exit 1 "inspect of a missing volume fails" vol inspect nothing-here
expect_exit 0 "--dry-run with a new volume" run --dry-run -v ghost:/g busybox:latest true
out_matches "^[0-9]+ +bind +/g +$OCIRUN_ROOT/volumes/ghost/_data " && [ ! -e "$OCIRUN_ROOT/volumes/ghost" ] &&
  ok "the plan shows the volume's path; nothing is made" || not_ok "the plan shows the volume's path; nothing is made"
# rm and prune leave a volume a live run uses
timeout 60 "$OCIRUN" run --unsafe-no-cgroup -v cache:/data busybox:latest sh -c 'touch /data/running; sleep 5' >/dev/null 2>&1 &
runner=$!
for _ in $(seq 100); do [ -e "$OCIRUN_ROOT/volumes/cache/_data/running" ] && break; sleep 0.05; done
expect_exit 1 "volume rm of a volume in use is refused" vol rm cache
err_has_literal "in use by a live run" && [ -d "$OCIRUN_ROOT/volumes/cache/_data" ] &&
  ok "refused naming why; the volume is there" || { not_ok "refused naming why; the volume is there"; show; }
expect_exit 0 "volume prune while cache is in use" vol prune
[ -d "$OCIRUN_ROOT/volumes/cache/_data" ] && [ ! -e "$OCIRUN_ROOT/volumes/fresh" ] &&
  ok "prune removed the unused, kept the one in use" || not_ok "prune removed the unused, kept the one in use"
wait $runner
expect_exit 0 "volume rm once the run is over" vol rm cache
[ ! -e "$OCIRUN_ROOT/volumes/cache" ] && ok "the volume is gone" || not_ok "the volume is gone"
expect_exit 1 "volume rm of a missing volume fails" vol rm cache
err_has_literal "no such volume" && ok "naming it" || not_ok "naming it"

tap_done
