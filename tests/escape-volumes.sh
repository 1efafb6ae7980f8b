#!/bin/bash
# Escape classes of -v/--volume and --mount binds, each with a positive
# control that shows the hole is real before showing it closed:
#  - the host source swapped for a symlink after it was parsed (ocirun is
#    held by strace at its open_tree while the path is swapped): the bind
#    is of the object opened then, not of the path looked up again;
#  - a target through an image symlink into /proc, into /dev, or out of
#    the root: refused, or made inside the root, never on the host;
#  - '..' and relative sources: refused;
#  - a read-only bind whose submounts stay writable: every submount is
#    read-only too (control: a plain ro remount on the host shows the hole);
#  - nosuid and nodev on every bind (control: the host's own node opens);
#  - a volume name with path characters: refused, nothing made anywhere.
# Host test: --unsafe-no-cgroup, as tests/run-host.sh.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "escape-volumes"

run() { timeout 60 "$OCIRUN" run --unsafe-no-cgroup "$@"; }
H=$TEST_TMP/host
mkdir -p "$H/real" "$H/evil"
echo real >"$H/real/marker"
echo evil >"$H/evil/marker"

# ====================================================================
# The source swapped for a symlink after it was parsed
# ====================================================================
NR_OPENAT=257 # x86_64
# swap_while_held WANT [PREFIX...]: `PREFIX ocirun run -v $H/link/:/data
# ... cat /data/marker` with $H/link -> real, held by strace 3 s on entry
# to the openat right after the one that opened the source while parsing
# the options (the earliest point after it, before anything is planned or
# cloned; which openat that is, a first traced run counts). The link is
# swapped to evil meanwhile. A runtime that looked the path up again later
# (the parent before it clones, or the child) would bind "evil". The run's
# stdout and stderr are left in swap.out and swap.err; WANT names the case.
swap_while_held() {
  local want=$1 n held
  shift
  rm -f "$H/link" && ln -s real "$H/link"
  timeout 60 strace -qq -o "$TEST_TMP/openats" -e trace=openat \
    "$@" "$OCIRUN" run --unsafe-no-cgroup -v "$H/link/:/data" busybox:latest true >/dev/null 2>&1
  n=$(grep -n "\"$H/link/\"" "$TEST_TMP/openats" | head -n 1 | cut -d: -f1)
  [ -n "$n" ] && ok "$want: control: the source is opened once, by openat number $n" ||
    not_ok "$want: control: the source is opened by an openat"
  timeout 60 strace -qq -o /dev/null -e trace=openat \
    -e inject=openat:delay_enter=3000000:when=$((${n:-0} + 1)) \
    "$@" "$OCIRUN" run --unsafe-no-cgroup -v "$H/link/:/data" busybox:latest cat /data/marker \
    >"$TEST_TMP/swap.out" 2>"$TEST_TMP/swap.err" &
  tracer=$!
  held=
  for _ in $(seq 100); do
    for pid in $(pgrep -f "ocirun run --unsafe-no-cgroup -v $H/link/:/data"); do
      [ "$(cut -d' ' -f1 "/proc/$pid/syscall" 2>/dev/null)" = "$NR_OPENAT" ] && held=$pid
    done
    [ -n "$held" ] && break
    sleep 0.05
  done
  [ -n "$held" ] && for fd in /proc/"$held"/fd/*; do readlink "$fd"; done | grep -qx "$H/real" &&
    ok "$want: control: ocirun is held with the source open ($H/real)" ||
    not_ok "$want: control: ocirun is held with the source open"
  rm "$H/link" && ln -s evil "$H/link"
  wait $tracer
  swap_status=$?
  [ "$(cat "$H/link/marker")" = evil ] && ok "$want: control: the path now leads to the attacker's directory" ||
    not_ok "$want: control: the path now leads to the attacker's directory"
  expect_exit 0 "$want: control: a run started after the swap binds the attacker's directory" \
    "$@" timeout 60 "$OCIRUN" run --unsafe-no-cgroup -v "$H/link/:/data" busybox:latest cat /data/marker
  out_has_line evil && ok "$want: control: it reads 'evil'" || not_ok "$want: control: it reads 'evil'"
  rm "$H/link"
}
if command -v strace >/dev/null && [ "$(uname -m)" = x86_64 ]; then
  swap_while_held "root"
  grep -qx real "$TEST_TMP/swap.out" && ok "root: the held run bound the directory opened when parsed ('real')" ||
    { not_ok "root: the held run bound the directory opened when parsed"; sed 's/^/# /' "$TEST_TMP/swap.out" "$TEST_TMP/swap.err" | head; }
  if command -v setpriv >/dev/null && rootless_store 4263; then
    chmod 0755 "$H" "$H/real" "$H/evil" && chmod 0644 "$H/real/marker" "$H/evil/marker"
    # rootless, the parent may not clone: the child opens the path again and
    # must find the inode the options opened, else the run fails
    swap_while_held "rootless" "${AS_USER[@]}"
    [ "$swap_status" -eq 125 ] && grep -q "swapped meanwhile" "$TEST_TMP/swap.err" &&
      ! grep -qx evil "$TEST_TMP/swap.out" &&
      ok "rootless: the held run is refused (exit 125, swapped meanwhile), nothing bound" ||
      { not_ok "rootless: the held run is refused, nothing bound (exit $swap_status)"; sed 's/^/# /' "$TEST_TMP/swap.out" "$TEST_TMP/swap.err" | head; }
  else
    skip "rootless swap: setpriv and a rootless store needed"
  fi
else
  skip "strace (and x86_64) needed to hold ocirun while the source is swapped"
fi

# ====================================================================
# A target through an image symlink: into /proc, into /dev, out of the root
# ====================================================================
OUTSIDE=/tmp/ocirun-escape-volumes-$$
# climb and abs lead to $OUTSIDE, which the image has too; dangling to
# $OUTSIDE-dangling, which it has not.
busybox_variant links '{}' \
  data symlink /proc/sys 0 \
  devlink symlink /dev 0 \
  climb symlink "../../../../../../..$OUTSIDE" 0 \
  abs symlink "$OUTSIDE" 0 \
  dangling symlink "/../../../../..$OUTSIDE-dangling" 0 \
  "${OUTSIDE#/}/in-the-image" file "" 0644 || not_ok "build the links image"
expect_exit 0 "control: the image's /data leads to procfs" run busybox:links cat /data/kernel/ostype
out_has_line Linux && ok "control: /data/kernel/ostype is the kernel's" || not_ok "control: /data/kernel/ostype is the kernel's"
run_refused "-v onto /data (a link to /proc/sys)" "procfs" -v "$H/real:/data" busybox:links true
run_refused "-v onto /data/kernel (inside procfs)" "procfs" -v "$H/real:/data/kernel" busybox:links true
run_refused "-v onto /devlink/x (a link to /dev)" "/dev" -v "$H/real:/devlink/x" busybox:links true
# control: a resolver that follows the image's links on the host (joining
# strings) creates the target on the host
rootfs=$(timeout 60 "$OCIRUN" image unpack busybox:links 2>/dev/null | tail -n 1)
mkdir -p "$(readlink -m "$rootfs/dangling")/sub"
[ -d "$OUTSIDE-dangling/sub" ] && ok "control: mkdir -p along the image's link lands on the host" ||
  not_ok "control: mkdir -p along the image's link lands on the host"
rm -rf "$OUTSIDE-dangling"
for link in climb abs; do
  expect_exit 0 "-v onto /$link/sub runs" run -v "$H/real:/$link/sub" busybox:links cat "$OUTSIDE/sub/marker"
  out_has_line real && [ ! -e "$OUTSIDE" ] && ok "/$link/sub: made and bound inside the root, nothing on the host" ||
    { not_ok "/$link/sub: made and bound inside the root, nothing on the host"; show; ls -la "$OUTSIDE" 2>&1 | sed 's/^/# /'; }
done
run -v "$H/real:/dangling/sub" busybox:links true >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
{ [ "$rc" -eq 0 ] || [ "$rc" -eq 125 ]; } && [ ! -e "$OUTSIDE-dangling" ] &&
  ok "/dangling/sub: bound inside or refused (exit $rc), nothing on the host" ||
  { not_ok "/dangling/sub: bound inside or refused (exit $rc), nothing on the host"; show; }
rm -rf "$OUTSIDE" "$OUTSIDE-dangling"

# ====================================================================
# '..' and relative sources
# ====================================================================
expect_exit 0 "control: the clean absolute source binds" run -v "$H/real:/d" busybox:latest cat /d/marker
cd "$H" || exit 1 # where ./real would lead
run_refused "a relative source ./real" "relative" -v ./real:/d busybox:latest true
run_refused "a relative source real/." "relative" -v real/.:/d busybox:latest true
cd / || exit 1
run_refused "a '..' source" "'\.\.'" -v "$H/evil/../real:/d" busybox:latest true
run_refused "a trailing '..' source" "'\.\.'" -v "$H/real/..:/d" busybox:latest true
run_refused "a '..' --mount source" "'\.\.'" --mount "type=bind,source=$H/evil/../real,target=/d" busybox:latest true
run_refused "a relative --mount source" "relative" --mount "type=bind,source=real,target=/d" busybox:latest true

# ====================================================================
# Read-only all the way down
# ====================================================================
mkdir -p "$H/tree/sub" "$H/control"
mount -t tmpfs -o size=1m tmpfs "$H/tree/sub"
# the hole: a bind made read-only at the top only
mount --rbind "$H/tree" "$H/control" && mount -o remount,bind,ro "$H/control"
touch "$H/control/top" 2>/dev/null && not_ok "control: the top of a plain ro bind is read-only" ||
  ok "control: the top of a plain ro bind is read-only"
touch "$H/control/sub/hole" 2>/dev/null && ok "control: its submount stays writable (the hole)" ||
  not_ok "control: its submount stays writable (the hole)"
umount -R "$H/control"
rm -f "$H/tree/sub/hole"
for ro in "-v $H/tree:/t:ro" "--mount type=bind,source=$H/tree,target=/t,readonly" \
  "--mount type=bind,source=$H/tree,target=/t,readonly,bind-recursive=readonly"; do
  # shellcheck disable=SC2086 # the option and its value are two words
  expect_exit 0 "$ro runs" run $ro busybox:latest sh -c \
    'touch /t/top 2>&1; touch /t/sub/x 2>&1; grep -E " /t(/sub)? " /proc/self/mountinfo'
  [ "$(grep -c "Read-only file system" "$TEST_TMP/out")" = 2 ] && [ ! -e "$H/tree/sub/x" ] &&
    ok "$ro: the top and the submount refuse writes" || { not_ok "$ro: the top and the submount refuse writes"; show; }
  [ "$(grep -cE " /t(/sub)? ro,nosuid,nodev" "$TEST_TMP/out")" = 2 ] && ok "$ro: both mounts ro,nosuid,nodev" ||
    { not_ok "$ro: both mounts ro,nosuid,nodev"; show; }
done
expect_exit 0 "bind-recursive=disabled: the submount is not bound at all" \
  run --mount "type=bind,source=$H/tree,target=/t,readonly,bind-recursive=disabled" busybox:latest \
  sh -c 'grep -c " /t/sub " /proc/self/mountinfo; touch /t/sub/x 2>&1; true'
out_has_line 0 && out_has_literal "Read-only file system" && [ ! -e "$H/tree/sub/x" ] &&
  ok "bind-recursive=disabled: no submount, and the directory under it read-only" ||
  { not_ok "bind-recursive=disabled: no submount"; show; }
umount "$H/tree/sub"

# ====================================================================
# nosuid and nodev on every bind
# ====================================================================
mknod "$H/real/null" c 1 3
echo x >"$H/real/null" && ok "control: the host's node under the source opens" ||
  not_ok "control: the host's node under the source opens"
expect_exit 0 "a device node under a bind" run -v "$H/real:/d" busybox:latest \
  sh -c '{ echo x >/d/null; } 2>&1; grep " /d " /proc/self/mountinfo'
out_matches "Permission denied" && ok "nodev: the node cannot be opened inside" || { not_ok "nodev: the node cannot be opened inside"; show; }
out_matches " /d rw,nosuid,nodev" && ok "the bind is nosuid,nodev" || { not_ok "the bind is nosuid,nodev"; show; }
rm "$H/real/null"
# ====================================================================
# A volume name with path characters
# ====================================================================
# control: joined as a string, such a name leads out of ROOT/volumes
[ "$(readlink -m "$OCIRUN_ROOT/volumes/../../escaped")" = "$(dirname "$OCIRUN_ROOT")/escaped" ] &&
  ok "control: ROOT/volumes/../../escaped is outside ROOT" || not_ok "control: ROOT/volumes/../../escaped is outside ROOT"
for name in ../../escaped .. . a/b /abs .hidden "$(printf 'nl\nx')" ""; do
  expect_exit 1 "volume create '$name' is refused" timeout 20 "$OCIRUN" volume create "$name"
  err_matches "invalid volume name" && ok "'$name': the message names the rule" ||
    { not_ok "'$name': the message names the rule"; show; }
  expect_exit 1 "volume rm '$name' is refused" timeout 20 "$OCIRUN" volume rm "$name"
done
run_refused "--mount type=volume,source=../../escaped" "invalid volume name" \
  --mount type=volume,source=../../escaped,target=/d busybox:latest true
run_refused "-v ../../escaped:/d (relative, not a name)" "relative" -v ../../escaped:/d busybox:latest true
[ ! -e "$(dirname "$OCIRUN_ROOT")/escaped" ] && [ -z "$(ls -A "$OCIRUN_ROOT/volumes" 2>/dev/null)" ] &&
  ok "nothing was made, in ROOT/volumes or outside it" || not_ok "nothing was made, in ROOT/volumes or outside it"

# ROOT/volumes swapped for a symlink or made writable by others: refused
# by the store's folder checks (another local user's redirection)
rm -rf "$OCIRUN_ROOT/volumes" && mkdir -p "$H/elsewhere" && ln -s "$H/elsewhere" "$OCIRUN_ROOT/volumes"
[ "$(readlink -f "$OCIRUN_ROOT/volumes")" = "$H/elsewhere" ] && ok "control: ROOT/volumes leads elsewhere" ||
  not_ok "control: ROOT/volumes leads elsewhere"
expect_exit 1 "volume create through a symlinked ROOT/volumes" timeout 20 "$OCIRUN" volume create x
err_has_literal "is a symlink" && [ -z "$(ls -A "$H/elsewhere")" ] &&
  ok "refused naming the symlink; nothing made where it leads" || { not_ok "refused naming the symlink"; show; }
run_refused "-v NAME: through a symlinked ROOT/volumes" "is a symlink" -v x:/x busybox:latest true
rm "$OCIRUN_ROOT/volumes" && mkdir -m 0777 "$OCIRUN_ROOT/volumes"
expect_exit 1 "volume create in a ROOT/volumes others may write" timeout 20 "$OCIRUN" volume create x
err_has_literal "group or others may write" && ok "refused naming the mode" || { not_ok "refused naming the mode"; show; }
rmdir "$OCIRUN_ROOT/volumes"

check "nothing left" nothing_left

tap_done
