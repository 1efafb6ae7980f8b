#!/bin/bash
# `ocirun run -v/--volume` and `--mount`: host paths in and out of a run, a
# read-only bind refusing writes, a tmpfs through --mount, refusals that
# name the option and what was typed (a missing source, bad syntax), and
# --dry-run showing every added mount and none that was not asked for.
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
run_refused "-v of a named volume" "--volume 'data:/d'.*named volume" -v data:/d busybox:latest true
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

tap_done
