#!/bin/bash
# `ocirun run` on the host: namespaces, mounts, user, env, caps, seccomp,
# exit codes, deadline and teardown, with --unsafe-no-cgroup because this
# hybrid host has no cgroup v2 controllers (the limits are tested in the
# guest). Uses the busybox test image.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "run-host"

run() { "$OCIRUN" run --unsafe-no-cgroup "$@"; }

# `sleep MARKER` processes mark each run; unique to this test run so that
# other runs of this test on the machine cannot confuse it.
m_kill=1${$}1 m_orphan=1${$}2 m_timeout=1${$}3 m_sigterm=1${$}4

# --- exit codes ---
expect_exit 0 "true exits 0" run busybox:latest true
expect_exit 3 "the command's status is returned" run busybox:latest sh -c 'exit 3'
expect_exit 127 "a missing command exits 127" run busybox:latest no-such-command
err_has_literal "no-such-command" && ok "the missing command is named" || not_ok "the missing command is named"
expect_exit 126 "a non-executable file exits 126" run busybox:latest /etc/passwd
check "nothing left after exec failures" nothing_left
# The command is the child of ocirun's init (pid 1 of the container, the
# runner's child): killed from outside, its signal is the run's status.
"$OCIRUN" run --unsafe-no-cgroup --name killme busybox:latest sleep "$m_kill" >/dev/null 2>&1 &
runner=$!
child=$(pid_of_sleep "$m_kill")
init=$(tr -d " " </proc/$runner/task/$runner/children 2>/dev/null)
[ -n "$child" ] && [ -n "$init" ] && grep -qw "$child" /proc/$init/task/$init/children && kill -9 "$child"
wait $runner
got=$?
[ "$got" -eq 137 ] && ok "killed by SIGKILL exits 128+9" || not_ok "killed by SIGKILL exits 128+9 (got $got)"
# Not pid 1, the command gets its own signals' default actions (a shell as
# pid 1 ignored its own SIGTERM).
expect_exit 143 "the command's own SIGTERM ends it: 128+15" run busybox:latest sh -c 'kill -TERM $$; sleep 5' 

# ocirun killed outright: pid 1 (here after a user switch, which clears the
# parent-death signal unless it is set again) dies with it, and the namespace
"$OCIRUN" run --unsafe-no-cgroup --name orphan --user 1000 busybox:latest sh -c "sleep $m_orphan & sleep $m_orphan" >/dev/null 2>&1 &
runner=$!
for _ in $(seq 200); do process_with "$m_orphan" && break; sleep 0.1; done
{ kill -9 $runner && wait $runner; } 2>/dev/null
for _ in $(seq 30); do process_with "$m_orphan" || break; sleep 0.1; done
! process_with "$m_orphan" && ok "SIGKILL to ocirun kills every process of the run" ||
  not_ok "SIGKILL to ocirun kills every process of the run"
"$OCIRUN" sweep >/dev/null 2>&1
check "sweep cleans up after the killed runner" nothing_left

# --- environment ---
export OCIRUN_TEST_SECRET=leak
expect_exit 0 "env runs" run busybox:latest env
! out_has_literal OCIRUN_TEST_SECRET && ! out_has_literal OCIRUN_ROOT && ok "no host variables leak" || not_ok "no host variables leak"
out_has_literal "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" && out_has_literal "HOME=/root" &&
  ok "PATH from the image and HOME from passwd" || not_ok "PATH from the image and HOME from passwd"
printf '# comment\nFROM_FILE=yes\n\nOCIRUN_TEST_SECRET\n' >"$TEST_TMP/envfile"
expect_exit 0 "-e and --env-file" run -e A=1 -e B=x=y --env-file "$TEST_TMP/envfile" busybox:latest env
out_has_literal "A=1" && out_has_literal "B=x=y" && out_has_literal "FROM_FILE=yes" && out_has_literal "OCIRUN_TEST_SECRET=leak" &&
  ok "-e NAME=VALUE, --env-file, and a bare NAME copied on request" ||
  not_ok "-e NAME=VALUE, --env-file, and a bare NAME copied on request"
expect_exit 0 "-w" run -w /tmp/newdir busybox:latest pwd
[ "$(last_out)" = /tmp/newdir ] && ok "-w sets (and creates) the working directory" ||
  not_ok "-w sets (and creates) the working directory"

# --- user ---
expect_exit 0 "--user 65534:65534" run --user 65534:65534 busybox:latest id
[ "$(last_out)" = "uid=65534(nobody) gid=65534(nogroup)" ] && ok "numeric user and group" ||
  not_ok "numeric user and group: $(last_out)"
expect_exit 0 "--user tester" run --user tester busybox:latest sh -c 'id -u; id -g; echo $HOME'
[ "$(last_out | tr '\n' ' ')" = "1000 1000 /home/tester " ] && ok "a user name from the image's passwd" ||
  not_ok "a user name from the image's passwd: $(last_out)"
expect_exit 125 "an unknown user name exits 125" run --user nosuchuser busybox:latest true
err_has_literal "nosuchuser" && ok "the unknown user is named" || not_ok "the unknown user is named"

# --- namespaces ---
expect_exit 0 "--hostname" run --hostname box1 busybox:latest hostname
[ "$(last_out)" = box1 ] && ok "hostname is the container's" || not_ok "hostname is the container's"
expect_exit 0 "/etc/hostname" run --read-only --hostname box2 busybox:latest cat /etc/hostname /etc/hosts
[ "$(last_out | head -1)" = box2 ] && out_has_literal "127.0.0.1	localhost" &&
  ok "/etc/hostname and /etc/hosts describe the run, even with --read-only" ||
  not_ok "/etc/hostname and /etc/hosts describe the run: $(last_out)"
grep -qx busybox "$OCIRUN_ROOT"/cache/*/rootfs/etc/hostname && ok "the cached /etc/hostname is untouched" ||
  not_ok "the cached /etc/hostname is untouched"
expect_exit 0 "network" run busybox:latest sh -c 'ls /sys/class/net; cat /sys/class/net/lo/operstate /sys/class/net/lo/flags'
[ "$(last_out | head -1)" = lo ] && [ "$(last_out | wc -l)" -eq 3 ] && ok "only lo exists" ||
  not_ok "only lo exists: $(last_out | tr '\n' ' ')"
flags=$(last_out | tail -1)
[ $((flags & 1)) -eq 1 ] && ok "lo is up" || not_ok "lo is up (flags $flags)"
expect_exit 0 "pid" run busybox:latest sh -c 'echo $$; cat /proc/1/comm; cut -d" " -f4 /proc/self/stat'
[ "$(last_out | tr '\n' ' ')" = "2 ocirun-init 1 " ] && ok "the command is pid 2, the child of ocirun's init as pid 1" ||
  not_ok "the command is pid 2, the child of ocirun's init as pid 1: $(last_out | tr '\n' ' ')"
expect_exit 0 "session" run busybox:latest sh -c 'cut -d" " -f5,6,7 /proc/self/stat'
[ "$(last_out)" = "2 1 0" ] && ok "the command leads its own process group in pid 1's session, with no controlling terminal" ||
  not_ok "the command leads its own process group in pid 1's session, with no controlling terminal: $(last_out)"

# --- filesystem ---
expect_exit 1 "--read-only" run --read-only busybox:latest touch /marker
err_has_literal "Read-only file system" && ok "the root is read-only (EROFS)" || not_ok "the root is read-only (EROFS)"
expect_exit 0 "writable root" run busybox:latest sh -c 'echo x >/written-by-run && cat /written-by-run'
[ -z "$(find "$OCIRUN_ROOT" -name written-by-run)" ] && ok "writes do not reach the cache" ||
  not_ok "writes do not reach the cache"
expect_exit 0 "--tmpfs" run --read-only --tmpfs /scratch:size=1m,mode=0750 busybox:latest sh -c \
  'stat -c %a /scratch; dd if=/dev/zero of=/scratch/f bs=1024 count=2048 2>&1; cp /bin/busybox /scratch/bb 2>/dev/null; /scratch/bb true; echo "exec=$?"'
[ "$(last_out | head -1)" = 750 ] && ok "tmpfs mode" || not_ok "tmpfs mode: $(last_out | head -1)"
out_has_literal "No space left on device" && ok "tmpfs size is enforced" || not_ok "tmpfs size is enforced"
out_has_literal "exec=126" && ok "tmpfs is noexec by default" || not_ok "tmpfs is noexec by default"
expect_exit 0 "masked paths" run busybox:latest sh -c \
  'for f in /proc/kcore /proc/keys /proc/timer_list; do [ -e $f ] && cat $f >/dev/null && echo "$f $(cat $f | wc -c)"; done; ls /proc/acpi | wc -l; echo 1 >/proc/sys/kernel/domainname; echo "w=$?"'
for f in /proc/kcore /proc/keys /proc/timer_list; do
  [ -e $f ] || continue
  out_has_literal "$f 0" && ok "$f is masked (reads empty)" || not_ok "$f is masked: $(last_out | grep $f)"
done
[ "$(last_out | grep -v '^/proc' | head -1)" = 0 ] && ok "/proc/acpi is an empty directory" || not_ok "/proc/acpi is empty"
out_has_literal "w=1" && ok "/proc/sys is read-only" || not_ok "/proc/sys is read-only"
expect_exit 0 "/dev" run busybox:latest sh -c 'ls /dev | tr "\n" " "; echo hi >/dev/null && echo ok'
for d in null zero full random urandom tty pts shm mqueue ptmx fd stdin stdout stderr; do
  out_has_literal " $d " || out_has_literal "$d " || { not_ok "/dev has $d"; continue; }
done
out_has_literal "ok" && ok "/dev is the minimal set and /dev/null works" || not_ok "/dev/null works"

# --- the root's writable layer: on disk in the run dir, bounded, removed ---
# A hostile layer: a deep tree, directories and files the workload made
# unreadable, a symlink to a host directory (whose file must survive), and
# 8 MiB of data. `layer_marker NAME` is what the host sees of it while the
# run lives: the marker written into the container's root, found in
# $OCIRUN_ROOT/run/NAME/upper.
outside=$TEST_TMP/outside-layer
mkdir -p "$outside" && echo keep >"$outside/precious"
hostile_layer="echo on-disk >/layer-marker
  d=/deep; for i in \$(seq 100); do d=\$d/d; done; mkdir -p \$d && echo x >\$d/f
  mkdir -p /locked/inner && echo y >/locked/inner/f && chmod 000 /locked/inner /locked
  echo z >/no-mode && chmod 000 /no-mode
  ln -s $outside /escape && ln -s $outside/precious /escape-file
  dd if=/dev/zero of=/data bs=1M count=8 2>/dev/null"
layer_marker() { cat "$OCIRUN_ROOT/run/$1/upper/layer-marker" 2>/dev/null; }
# run_hostile NAME [OPTION...]: a live run that wrote the hostile layer and
# sleeps; $runner is its ocirun, back once the marker is on the host (or
# not, after 20 s).
run_hostile() {
  local name=$1
  shift
  "$OCIRUN" run --unsafe-no-cgroup --name "$name" "$@" busybox:latest \
    sh -c "$hostile_layer; echo written >/ready; sleep $m_layer" >/dev/null 2>"$TEST_TMP/$name.err" &
  runner=$!
  for _ in $(seq 200); do
    { [ "$(layer_marker "$name")" = on-disk ] || process_with "$m_layer"; } && break
    sleep 0.1
  done
  for _ in $(seq 50); do process_with "$m_layer" && break; sleep 0.1; done
}
m_layer=1${$}6
run_hostile layer
[ "$(layer_marker layer)" = on-disk ] &&
  ok "a default run's writes land on disk in \$ROOT/run/NAME/upper while it runs" ||
  not_ok "a default run's writes land on disk in \$ROOT/run/NAME/upper while it runs"
[ "$(stat -f -c %T "$OCIRUN_ROOT/run/layer/upper" 2>/dev/null)" = "$(stat -f -c %T "$OCIRUN_ROOT")" ] &&
  ok "the upper is on the store's filesystem" || not_ok "the upper is on the store's filesystem"
kill -TERM $runner
wait $runner
check "teardown removes the hostile layer" nothing_left
check "the file behind the planted symlink is untouched" test "$(cat "$outside/precious")" = keep
# the control: --root-tmpfs keeps the writes in memory, and the host sees none
run_hostile layer-tmpfs --root-tmpfs
process_with "$m_layer" && [ -z "$(layer_marker layer-tmpfs)" ] &&
  ok "control: with --root-tmpfs the host sees no write in the run dir" ||
  not_ok "control: with --root-tmpfs the host sees no write in the run dir"
kill -TERM $runner
wait $runner
check "nothing left after --root-tmpfs" nothing_left

expect_exit 0 "the root's filesystem reports the tmpfs's size" run --root-tmpfs --storage-opt size=3m \
  busybox:latest sh -c 'stat -f -c "%b %S" /; grep " / / " /proc/self/mountinfo'
[ "$(last_out | head -1 | awk '{ print $1 * $2 }')" = $((3 << 20)) ] &&
  ok "--root-tmpfs --storage-opt size=3m: the root holds 3 MiB" ||
  not_ok "--root-tmpfs --storage-opt size=3m: the root holds 3 MiB: $(last_out | head -1)"
expect_exit 0 "--root-tmpfs alone" run --root-tmpfs busybox:latest stat -f -c "%b %S" /
[ "$(last_out | awk '{ print $1 * $2 }')" = $((64 << 20)) ] &&
  ok "--root-tmpfs: 64 MiB by default, never half of RAM" ||
  not_ok "--root-tmpfs: 64 MiB by default: $(last_out)"
expect_exit 1 "writing past the tmpfs's size fails" run --root-tmpfs --storage-opt size=2m \
  busybox:latest dd if=/dev/zero of=/fill bs=1M count=4
err_has_literal "No space left on device" && ok "with ENOSPC" || not_ok "with ENOSPC: $(last_err)"

# the disk layer's bound: 32 MiB past a bound of 8 MiB is killed and said;
# the control, the same write under the default bound, runs to its end
expect_exit 0 "control: 32 MiB under the default bound" run busybox:latest \
  sh -c 'dd if=/dev/zero of=/fill bs=1M count=32 2>/dev/null; sleep 2; echo survived'
out_has_literal survived && ok "control: the run survives its writes" || not_ok "control: the run survives its writes"
start=$(date +%s)
expect_exit 137 "32 MiB past --storage-opt size=8m is killed (137)" run --storage-opt size=8m \
  busybox:latest sh -c 'dd if=/dev/zero of=/fill bs=1M count=32 2>/dev/null; sleep 20; echo survived'
elapsed=$(($(date +%s) - start))
! out_has_literal survived && [ "$elapsed" -lt 15 ] && ok "it is stopped within the soft bound's lag (${elapsed}s)" ||
  not_ok "it is stopped within the soft bound's lag (${elapsed}s)"
err_has_literal "past its bound of 8192 KiB (--storage-opt size=), and was killed" &&
  ok "the kill is reported, naming the bound" || not_ok "the kill is reported, naming the bound: $(last_err)"
check "nothing left after the bound's kill" nothing_left
# a tree deeper than the measure's stack cannot be measured: the run ends
# (fail closed), and teardown still removes every level
start=$(date +%s)
expect_exit 125 "a layer 300 directories deep ends the run" run busybox:latest \
  sh -c 'd=/deep; for i in $(seq 300); do d=$d/d; done; mkdir -p $d && sleep 20; echo survived'
elapsed=$(($(date +%s) - start))
! out_has_literal survived && [ "$elapsed" -lt 15 ] && err_has_literal "deeper than 256 directories, more than ocirun measures" &&
  ok "it is stopped, and the message says why (${elapsed}s)" ||
  not_ok "it is stopped, and the message says why (${elapsed}s): $(last_err)"
check "nothing left of the 300 levels" nothing_left
expect_exit 0 "--dry-run shows the layer and its bound" "$OCIRUN" run --dry-run --storage-opt size=1g busybox:latest true
out_has_literal "writable layer: on disk in $OCIRUN_ROOT/run/" && out_has_literal "soft bound 1 GiB" &&
  ok "the plan names the disk layer and its bound" || not_ok "the plan names the disk layer and its bound"
expect_exit 0 "--dry-run --root-tmpfs" "$OCIRUN" run --dry-run --root-tmpfs busybox:latest true
out_has_literal "root-scratch" && out_has_literal "mode=0700,size=67108864" && out_has_literal "writable layer: a tmpfs of 64 MiB in memory" &&
  ok "the plan names the tmpfs and its size" || not_ok "the plan names the tmpfs and its size"

# A store on a filesystem overlayfs refuses as an upper layer (an overlay
# here; 9p in the guest): the layer falls back to the bounded tmpfs, and
# says so. The control: the kernel refuses an overlay upper there.
ovl=$TEST_TMP/ovl
mkdir -p "$ovl/lower" "$ovl/upper" "$ovl/work" "$ovl/mnt"
if mount -t overlay -o "lowerdir=$ovl/lower,upperdir=$ovl/upper,workdir=$ovl/work" overlay "$ovl/mnt"; then
  mkdir -p "$ovl/mnt/u" "$ovl/mnt/w" "$ovl/mnt/l" "$ovl/nested" && mkdir -m 0700 "$ovl/mnt/store"
  ! mount -t overlay -o "lowerdir=$ovl/mnt/l,upperdir=$ovl/mnt/u,workdir=$ovl/mnt/w" overlay "$ovl/nested" 2>/dev/null &&
    ok "control: overlayfs refuses an upper on the overlay store" ||
    { umount "$ovl/nested"; not_ok "control: overlayfs refuses an upper on the overlay store"; }
  OCIRUN_ROOT=$ovl/mnt/store "$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1
  expect_exit 0 "a store on overlay: the run writes into its root" env OCIRUN_ROOT="$ovl/mnt/store" \
    "$OCIRUN" run --unsafe-no-cgroup busybox:latest sh -c 'echo hi >/x && cat /x && stat -f -c "%b %S" /'
  [ "$(last_out | head -1)" = hi ] && [ "$(last_out | sed -n 2p | awk '{ print $1 * $2 }')" = $((64 << 20)) ] &&
    ok "in the bounded tmpfs (64 MiB)" || not_ok "in the bounded tmpfs (64 MiB): $(last_out | tr '\n' ' ')"
  err_has_literal "the store's filesystem (overlay) cannot hold an overlay upper layer" &&
    ok "stderr says why the layer is in memory" || not_ok "stderr says why the layer is in memory: $(last_err)"
  expect_exit 0 "--dry-run, the store on overlay" env OCIRUN_ROOT="$ovl/mnt/store" \
    "$OCIRUN" run --unsafe-no-cgroup --dry-run busybox:latest true
  out_has_literal "writable layer: a tmpfs of 64 MiB in memory (the store's filesystem, overlay, cannot hold" &&
    ok "the plan says so" || not_ok "the plan says so"
  [ -z "$(ls -A "$ovl/mnt/store/run" 2>/dev/null)" ] && ok "nothing left in the overlay store" ||
    not_ok "nothing left in the overlay store"
  umount "$ovl/mnt"
else
  not_ok "mount an overlay for the store"
fi

# --- --read-only is nosuid: a setuid-root copy of sysprobe run as uid 65534 ---
suid_image() {
  local work=$TEST_TMP/suid
  cp -a "$TEST_IMAGES/busybox" "$work" &&
    umoci unpack --image "$work:busybox:latest" "$TEST_TMP/suid-bundle" >/dev/null &&
    install -o 0 -g 0 -m 4755 "$top_builddir/tests/helpers/sysprobe" "$TEST_TMP/suid-bundle/rootfs/sysprobe-suid" &&
    echo secret >"$TEST_TMP/suid-bundle/rootfs/root-only" && chmod 0600 "$TEST_TMP/suid-bundle/rootfs/root-only" &&
    umoci repack --image "$work:suid:latest" "$TEST_TMP/suid-bundle" >/dev/null &&
    rm -rf "$TEST_TMP/suid-bundle" && "$OCIRUN" image import "oci:$work:suid:latest" >/dev/null
}
if [ -x "$top_builddir/tests/helpers/sysprobe" ] && command -v umoci >/dev/null &&
  suid_image 2>"$TEST_TMP/suid.err"; then
  expect_exit 0 "control: the setuid file without --read-only" run --user 65534:65534 suid:latest /sysprobe-suid ids
  last_out | grep -qE "^ids Uid=65534[[:space:]]+0[[:space:]]" &&
    ok "control: it runs as euid 0 (docker's behaviour, --read-only or not)" ||
    not_ok "control: it runs as euid 0: $(last_out)"
  expect_exit 0 "--read-only: the setuid file" run --read-only --user 65534:65534 suid:latest /sysprobe-suid ids
  last_out | grep -qE "^ids Uid=65534[[:space:]]+65534[[:space:]]+65534[[:space:]]+65534[[:space:]]" &&
    ok "--read-only: euid stays 65534 (the root is nosuid)" || not_ok "--read-only: euid stays 65534: $(last_out)"
  expect_exit 0 "--read-only: mount options" run --read-only suid:latest grep " / / " /proc/self/mountinfo
  last_out | grep -qE " / / ro,nosuid,nodev" && ok "--read-only: the root is ro,nosuid,nodev" ||
    not_ok "--read-only: the root is ro,nosuid,nodev: $(last_out)"
else
  not_ok "build the setuid image: $(cat "$TEST_TMP/suid.err" 2>/dev/null)"
fi

# --- confinement ---
expect_exit 0 "--cap-drop ALL" run --cap-drop ALL busybox:latest grep -E '^(CapEff|CapPrm|CapBnd)' /proc/self/status
[ "$(last_out | grep -c '0000000000000000')" -eq 3 ] && ok "no capabilities with --cap-drop ALL" ||
  not_ok "no capabilities with --cap-drop ALL"
expect_exit 0 "no-new-privileges" run --security-opt no-new-privileges busybox:latest grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status
out_has_literal "NoNewPrivs:	1" && ok "NoNewPrivs is 1" || not_ok "NoNewPrivs is 1"
out_has_literal "Seccomp:	2" && ok "seccomp filter mode 2" || not_ok "seccomp filter mode 2"
expect_exit 0 "seccomp=unconfined" run --security-opt seccomp=unconfined busybox:latest grep '^Seccomp:' /proc/self/status
out_has_literal "Seccomp:	0" && ok "seccomp=unconfined loads no filter" || not_ok "seccomp=unconfined loads no filter"

# --- stdin ---
got=$(echo piped-in | run -i busybox:latest cat)
[ "$got" = piped-in ] && ok "-i attaches stdin" || not_ok "-i attaches stdin"
got=$(echo piped-in | run busybox:latest cat)
[ -z "$got" ] && ok "without -i stdin is /dev/null" || not_ok "without -i stdin is /dev/null"

# --- deadline ---
start=$(date +%s)
expect_exit 124 "--timeout exits 124" run --timeout 1 busybox:latest sh -c "sleep $m_timeout & sleep $m_timeout"
elapsed=$(($(date +%s) - start))
[ "$elapsed" -lt 10 ] && ok "the deadline is kept ($elapsed s)" || not_ok "the deadline is kept ($elapsed s)"
err_has_literal "timed out" && ok "the timeout is reported" || not_ok "the timeout is reported"
! process_with "$m_timeout" && ok "the command and its children are gone" || not_ok "the command and its children are gone"
check "nothing left after the timeout" nothing_left

# --- SIGTERM to ocirun: the run is killed and torn down ---
"$OCIRUN" run --unsafe-no-cgroup --name sigterm busybox:latest sh -c "sleep $m_sigterm & sleep $m_sigterm" >/dev/null 2>"$TEST_TMP/sigterm.err" &
runner=$!
for _ in $(seq 200); do process_with "$m_sigterm" && break; sleep 0.1; done
kill -TERM $runner
wait $runner
got=$?
[ "$got" -eq 143 ] && ok "SIGTERM to ocirun exits 128+15" || not_ok "SIGTERM to ocirun exits 128+15 (got $got)"
grep -q "interrupted" "$TEST_TMP/sigterm.err" && ok "the interruption is reported" || not_ok "the interruption is reported"
! process_with "$m_sigterm" && ok "SIGTERM: every process of the run is gone" || not_ok "SIGTERM: every process of the run is gone"
check "nothing left after SIGTERM" nothing_left

# --- entrypoint and the image's cmd ---
expect_exit 0 "the image's cmd (sh) reads stdin with -i" sh -c "echo 'echo from-cmd' | $OCIRUN run --unsafe-no-cgroup -i busybox:latest"
out_has_literal "from-cmd" && ok "the image's cmd runs when no command is given" || not_ok "the image's cmd runs when no command is given"
expect_exit 0 "--entrypoint" run --entrypoint echo busybox:latest one two
[ "$(last_out)" = "one two" ] && ok "--entrypoint with a command" || not_ok "--entrypoint with a command: $(last_out)"

# --- a step failing inside the new namespaces: 125, named, nothing left ---
expect_exit 125 "a tmpfs over a file fails in the child" run --tmpfs /etc/passwd busybox:latest true
err_has_literal "/etc/passwd" && err_has_literal "mount plan" && ok "the failing mount step and path are named" ||
  not_ok "the failing mount step and path are named: $(last_err)"
check "nothing left after a failed setup" nothing_left
expect_exit 125 "a missing seccomp profile" run --security-opt seccomp=/nonexistent/profile.json busybox:latest true
err_has_literal "/nonexistent/profile.json" && ok "the missing profile is named" || not_ok "the missing profile is named: $(last_err)"

# --- a hostile image: /proc is a symlink out of the way; refused, not followed ---
hostile_image() {
  local work=$TEST_TMP/hostile
  cp -a "$TEST_IMAGES/busybox" "$work" &&
    umoci unpack --image "$work:busybox:latest" "$TEST_TMP/bundle" >/dev/null &&
    rmdir "$TEST_TMP/bundle/rootfs/proc" && ln -s /etc "$TEST_TMP/bundle/rootfs/proc" &&
    umoci repack --image "$work:hostile:latest" "$TEST_TMP/bundle" >/dev/null &&
    rm -rf "$TEST_TMP/bundle" &&
    "$OCIRUN" image import "oci:$work:hostile:latest" >/dev/null
}
if command -v umoci >/dev/null && hostile_image 2>"$TEST_TMP/hostile.err"; then
  expect_exit 125 "an image with /proc -> /etc is refused" run hostile:latest true
  err_has_literal "/proc" && err_has_literal "symbolic links" && ok "the refusal names /proc and the symlink" ||
    not_ok "the refusal names /proc and the symlink: $(last_err)"
  check "nothing left after the hostile image" nothing_left
else
  not_ok "build the hostile /proc image: $(cat "$TEST_TMP/hostile.err")"
fi

# --- a name in use by a live run is refused, and the live run is untouched ---
"$OCIRUN" run --unsafe-no-cgroup --name taken busybox:latest sleep "$m_sigterm" >/dev/null 2>&1 &
runner=$!
for _ in $(seq 200); do process_with "$m_sigterm" && [ -d "$OCIRUN_ROOT/run/taken" ] && break; sleep 0.1; done
expect_exit 125 "a second run named 'taken' exits 125" run --name taken busybox:latest true
err_has_literal "taken" && ok "the taken name is named" || not_ok "the taken name is named: $(last_err)"
process_with "$m_sigterm" && [ -d "$OCIRUN_ROOT/run/taken" ] && ok "the live run is untouched" ||
  not_ok "the live run is untouched"
kill -TERM $runner
wait $runner

# --- bad input: one message naming the option, exit 125, nothing left ---
bad() {
  local what=$1 name=$2
  shift 2
  expect_exit 125 "$what exits 125" "$OCIRUN" run "$@"
  err_has_literal "$name" && ok "$what: the message names $name" || not_ok "$what: the message names $name: $(last_err)"
}
bad "--memory 12x" --memory --memory 12x busybox:latest true
bad "--cpus -1" --cpus --cpus -1 busybox:latest true
bad "--pids-limit 0" --pids-limit --pids-limit 0 busybox:latest true
bad "--tmpfs relative/path" --tmpfs --tmpfs relative/path busybox:latest true
bad "--tmpfs bad option" --tmpfs --tmpfs /x:bogus busybox:latest true
bad "--network bridge" --network --network bridge busybox:latest true
bad "unknown option" --frobnicate --frobnicate busybox:latest true
bad "--cap-drop unknown" --cap-drop --cap-drop NOT_A_CAP busybox:latest true
bad "--security-opt unknown" --security-opt --security-opt apparmor=x busybox:latest true
bad "--unsafe-no-cgroup with --memory" --unsafe-no-cgroup --unsafe-no-cgroup --memory 64m busybox:latest true
bad "unknown image" no-such-image --unsafe-no-cgroup no-such-image:latest true
bad "--workdir relative" --workdir --unsafe-no-cgroup --workdir rel busybox:latest true
check "nothing left after bad input" nothing_left
leftover=
for m in "$m_kill" "$m_orphan" "$m_timeout" "$m_sigterm"; do process_with "$m" && leftover="$leftover $m"; done
[ -z "$leftover" ] && ok "no process left from any run" || not_ok "no process left from any run:$leftover"

# --- without the opt-out this hybrid host is refused clearly ---
if ! grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
  expect_exit 125 "no cgroup v2 controllers: refused" "$OCIRUN" run busybox:latest true
  err_has_literal "cgroup" && ok "the refusal names cgroup" || not_ok "the refusal names cgroup"
fi
expect_exit 0 "the opt-out warns" run busybox:latest true
err_has_literal "WARNING: --unsafe-no-cgroup" && ok "--unsafe-no-cgroup warns on stderr" || not_ok "--unsafe-no-cgroup warns on stderr"

# (an ordinary user: tests/rootless.sh)

# --- help and dry run ---
expect_exit 0 "run --help" "$OCIRUN" run --help
for o in --name --network --read-only --memory --memory-swap --cpus --pids-limit --cap-drop \
  --cap-add --security-opt --user --tmpfs --env --env-file --workdir --hostname --interactive \
  --entrypoint --timeout --cgroup-parent --dry-run --unsafe-no-cgroup; do
  out_has_literal "$o" || missing="$missing $o"
done
[ -z "${missing:-}" ] && ok "--help lists every option" || not_ok "--help lists every option (missing:$missing)"
# The check above can fail: an option the help does not list is seen missing.
! out_has_literal "--no-such-option" && ok "the --help check sees an unlisted option as missing" ||
  not_ok "the --help check sees an unlisted option as missing"
expect_exit 0 "--dry-run" "$OCIRUN" run --dry-run --name dry --read-only --tmpfs /t:size=1m \
  --memory 64m --cpus 0.5 --pids-limit 32 --cap-drop ALL busybox:latest echo hi
out_has_literal "root-overlay" && out_has_literal "pivot-root" && out_has_literal "root-read-only" && out_has_literal "/t" && out_has_literal "/proc/kcore" &&
  ok "--dry-run prints the mount plan" || not_ok "--dry-run prints the mount plan"
out_has_literal "cpu.max: 50000 100000" && out_has_literal "pids.max: 32" && out_has_literal "memory.max: 67108864" &&
  ok "--dry-run prints the cgroup limits" || not_ok "--dry-run prints the cgroup limits"
out_has_literal "'echo' 'hi'" && out_has_literal "PATH=" && ok "--dry-run prints argv and env" || not_ok "--dry-run prints argv and env"
check "--dry-run creates nothing" nothing_left

# --- a live run keeps its image's rootfs: image rm refuses, and removes nothing ---
m_busy=1${$}5
"$OCIRUN" run --unsafe-no-cgroup --name busy busybox:latest sleep "$m_busy" >/dev/null 2>&1 &
runner=$!
for _ in $(seq 200); do process_with "$m_busy" && break; sleep 0.1; done
process_with "$m_busy" && ok "a run on busybox is live" || not_ok "a run on busybox is live"
busy_rootfs=$("$OCIRUN" image unpack busybox:latest 2>/dev/null)
expect_exit 1 "image rm while a run uses the image" "$OCIRUN" image rm busybox:latest
err_has_literal "nothing was removed: the rootfs of layer chain sha256:" && err_has_literal "is in use by a run" &&
  ok "the refusal says the image is in use" || not_ok "the refusal says the image is in use: $(last_err)"
check "the name and the rootfs are still there" \
  sh -c '"$1" image inspect busybox:latest >/dev/null && test -f "$2/bin/busybox"' sh "$OCIRUN" "$busy_rootfs"
kill -TERM $runner
wait $runner
expect_exit 0 "image rm once the run is over" "$OCIRUN" image rm busybox:latest
check "the rootfs went with the image" test ! -e "$busy_rootfs"
check "the run left nothing" nothing_left

tap_done
