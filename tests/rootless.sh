#!/bin/bash
# Rootless `ocirun run` on this host (cgroup v1, so --unsafe-no-cgroup; the
# delegated cgroup v2 case runs in the guest, tests/guest/rootless.sh).
# An ordinary uid with its own store: a user namespace maps it to the
# container's root. First with no /etc/subuid range (only id 0 exists
# inside, setgroups denied), then with one, which needs newuidmap and a
# passwd entry: both are given in a private mount namespace by binding
# test copies of /etc/passwd, /etc/subuid and /etc/subgid, so the host's
# own files are never changed.
. "$top_srcdir/tests/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
  skip "rootless tests need root (to become an ordinary uid) and setpriv"
  tap_done
  exit 0
fi
"$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >&2 ||
  { not_ok "make-test-images"; tap_done; exit 1; }
USER_ID=4252
RANGE_USER_ID=4253
chmod 0755 "$TEST_TMP"
store="$TEST_TMP/rootless-store"
mkdir "$store" "$TEST_TMP/home"
chown "$USER_ID:$USER_ID" "$store" "$TEST_TMP/home"
# The test image, readable by the ordinary uids (skopeo and umoci write 0600).
cp -r "$TEST_IMAGES/busybox" "$TEST_TMP/busybox-layout"
chmod -R a+rX "$TEST_TMP/busybox-layout"
layout="oci:$TEST_TMP/busybox-layout:busybox:latest"
as_user() { setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups env -i PATH="$PATH" \
  HOME="$TEST_TMP/home" OCIRUN_ROOT="$store" "$@"; }
run() { as_user "$OCIRUN" run --unsafe-no-cgroup "$@"; }
out_is() { [ "$(cat "$TEST_TMP/out")" = "$1" ]; }
user_processes() { pgrep -u "$1" 2>/dev/null; }
# user_left_behind WHAT UID STORE: no run state of STORE, no process of UID.
user_left_behind() {
  local procs
  # a killed run's pid 1 may linger a moment as a zombie until init reaps it
  for _ in $(seq 30); do
    procs=$(user_processes "$2")
    [ -n "$procs" ] || break
    sleep 0.1
  done
  left_behind "$1" "" "$(run_leftovers "$3" | grep -v '^seccomp')" "$procs"
}

expect_exit 0 "import busybox as the user" \
  as_user "$OCIRUN" image import "$layout"
expect_exit 0 "unpack busybox as the user" as_user "$OCIRUN" image unpack busybox:latest
rootfs=$(cat "$TEST_TMP/out")

# --- the user namespace: the caller is root inside, nothing else exists ---
expect_exit 0 "rootless run" run busybox:latest sh -c \
  'id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups'
check "the caller is uid 0 and gid 0 inside, mapped to $USER_ID alone, setgroups denied" \
  [ "$(tr -s ' \n' ' ' <"$TEST_TMP/out")" = "0 0 0 $USER_ID 1 0 $USER_ID 1 deny " ]
check "the development opt-out still warns" err_has_literal "WARNING: --unsafe-no-cgroup"

expect_exit 0 "the boundary, rootless" run --hostname rl busybox:latest sh -c \
  'hostname; ls /sys/class/net; grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status'
check "hostname, only lo, docker's default capabilities (over the namespace only), seccomp filter" \
  [ "$(tr -s '\t\n' '  ' <"$TEST_TMP/out")" = \
  "rl lo CapEff: 00000000a80425fb CapBnd: 00000000a80425fb NoNewPrivs: 0 Seccomp: 2 " ]
expect_exit 0 "--cap-drop ALL and no-new-privileges" run --cap-drop ALL \
  --security-opt no-new-privileges busybox:latest grep -E "^(CapEff|NoNewPrivs):" /proc/self/status
check "no capabilities, no-new-privileges set" \
  [ "$(tr -s '\t\n' '  ' <"$TEST_TMP/out")" = "CapEff: 0000000000000000 NoNewPrivs: 1 " ]
expect_exit 0 "a user namespace inside is refused by seccomp" run busybox:latest \
  sh -c 'unshare -U true 2>&1; echo status=$?'
check "unshare fails inside" out_has_literal "status=1"

# --- the root: an overlay whose writes never reach the cache ---
expect_exit 0 "write into the root" run busybox:latest sh -c 'echo hi >/written && cat /written'
check "the write is seen inside" out_is hi
check "and never reaches the cached rootfs" [ ! -e "$rootfs/written" ]
expect_exit 1 "--read-only" run --read-only busybox:latest sh -c 'echo x >/nope'
check "the read-only root refuses writes (EROFS)" err_has_literal "Read-only file system"
expect_exit 0 "--tmpfs, rootless" run --read-only --tmpfs /scratch:size=65536 busybox:latest \
  sh -c 'echo y >/scratch/f && cat /scratch/f && grep " /scratch " /proc/mounts'
check "the tmpfs works with its options" out_has_literal "size=64k"
expect_exit 0 "the host's tree is out of reach" run busybox:latest sh -c \
  'ls /; test ! -e "'"$TEST_TMP"'" && echo unseen; grep -c " /proc/timer_list " /proc/mounts'
check "the store path is not visible and /proc/timer_list is masked" \
  [ "$(tail -2 "$TEST_TMP/out" | tr '\n' ' ')" = "unseen 1 " ]
user_left_behind "single mapping" $USER_ID "$store"

# --- only root is mapped without a subordinate range ---
expect_exit 125 "--user 65534 without a range" run --user 65534:65534 busybox:latest true
check "the refusal names the user and what to do" \
  grep -q "rootless: --user uid 65534 gid 65534 cannot be mapped: .*/etc/subuid" "$TEST_TMP/err"
user_left_behind "refused user" $USER_ID "$store"

# --- the deadline kills every process, rootless too ---
expect_exit 124 "--timeout kills sleep and its children" run --timeout 2 busybox:latest \
  sh -c 'sleep 1000 & sleep 1000'
user_left_behind "deadline" $USER_ID "$store"

# --- ocirun killed outright: the run dies with it; the user's sweep cleans up ---
marker=$((424200 + RANDOM))
setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups env -i PATH="$PATH" \
  OCIRUN_ROOT="$store" "$OCIRUN" run --unsafe-no-cgroup --name rl-orphan busybox:latest \
  sh -c "sleep $marker & sleep $marker" >/dev/null 2>&1 &
runner=$!
for _ in $(seq 50); do pgrep -x -f "sleep $marker" >/dev/null && break; sleep 0.1; done
pgrep -x -f "sleep $marker" >/dev/null && ok "the run started" || not_ok "the run started"
{ kill -9 $runner && wait $runner; } 2>/dev/null
for _ in $(seq 30); do pgrep -x -f "sleep $marker" >/dev/null || break; sleep 0.1; done
check "SIGKILL to ocirun kills every process of the rootless run" eval '! pgrep -x -f "sleep $marker"'
check "the killed runner left its record" [ -e "$store/run/rl-orphan.json" ]
expect_exit 0 "sweep, as the user" as_user "$OCIRUN" sweep
check "sweep removed the record and the run directory" \
  [ ! -e "$store/run/rl-orphan.json" -a ! -e "$store/run/rl-orphan" ]
user_left_behind "killed runner" $USER_ID "$store"

# --- fail closed: no cgroup v2 here, and no opt-out ---
if [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]; then
  expect_exit 125 "rootless without --unsafe-no-cgroup on this host" \
    as_user "$OCIRUN" run busybox:latest true
  check "is refused for the missing cgroup v2" err_has_literal "cgroup v2 with memory, cpu and pids"
else
  skip "this host has cgroup v2: the guest covers delegation"
fi

# --- dry run shows the mapping ---
expect_exit 0 "--dry-run, rootless" run --dry-run busybox:latest true
check "--dry-run shows the user namespace" out_has_literal "user namespace: uid 0->$USER_ID (1); gid 0->$USER_ID (1)"
check "--dry-run shows the writable layer on disk, in the user's store" \
  out_has_literal "writable layer: on disk in $store/run/"

# --- docker's options that need what a rootless run has not ---
expect_exit 125 "rootless without a range: --group-add is refused" run --group-add 10 busybox:latest true
check "... not dropped: the run cannot have supplementary groups" err_has_literal "cannot have supplementary groups"
expect_exit 125 "rootless: --device with PERMS other than rwm is refused" run --device /dev/zero:/dev/z:r busybox:latest true
check "... there is no device program to restrict it" err_has_literal "no device program"
expect_exit 125 "rootless: --device-cgroup-rule is refused" run --device-cgroup-rule 'c 1:3 rwm' busybox:latest true
check "... naming the missing device program" err_has_literal "--device-cgroup-rule: no device program"
# --- the network, rootless: no privileged port for pasta, no host network ---
start=$(cat /proc/sys/net/ipv4/ip_unprivileged_port_start)
# the control: an unprivileged port is taken (the refusal below is the
# port's); where /dev/net/tun is root's alone, pasta cannot run rootless
# and that is what is refused
if as_user test -r /dev/net/tun -a -w /dev/net/tun; then
  expect_exit 0 "-p to an unprivileged port, rootless (--dry-run)" \
    run --dry-run --network pasta -p "$((start > 65000 ? 65000 : start + 1000)):80" busybox:latest true
else
  expect_exit 125 "-p to an unprivileged port, rootless, without access to /dev/net/tun" \
    run --dry-run --network pasta -p "$((start > 65000 ? 65000 : start + 1000)):80" busybox:latest true
  verdict "the refusal names /dev/net/tun" err_matches "/dev/net/tun cannot be opened by this user"
fi
if [ "$start" -gt 80 ]; then
  expect_exit 125 "-p to privileged port 80, rootless, is refused" \
    run --network pasta -p 80:80 busybox:latest true
  verdict "the refusal names the port and the sysctl" \
    err_matches "host port 80 is privileged .*ip_unprivileged_port_start"
else
  skip "-p 80 rootless: this host lets anyone bind port 80 (ip_unprivileged_port_start $start)"
fi
expect_exit 125 "--network host, rootless, is refused" run --network host busybox:latest true
check "the refusal says why" err_matches "--network host: not without privilege"
user_left_behind "the network refusals" $USER_ID "$store"

# --- the default store of an ordinary user is under its home ---
expect_exit 0 "image ls with no --root or OCIRUN_ROOT" setpriv --reuid=$USER_ID --regid=$USER_ID \
  --clear-groups env -i PATH="$PATH" HOME="$TEST_TMP/home" "$OCIRUN" image ls
check "the store is ~/.local/share/ocirun" [ -d "$TEST_TMP/home/.local/share/ocirun" ]
expect_exit 2 "no HOME and no store" setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups \
  env -i PATH="$PATH" "$OCIRUN" image ls
check "says what is missing" err_has_literal "HOME is unset"

# --- a subordinate range: other ids exist inside ---
if ! command -v newuidmap >/dev/null || ! command -v unshare >/dev/null; then
  skip "newuidmap (Debian's uidmap) is not installed"
  tap_done
  exit 0
fi
range_store="$TEST_TMP/range-store"
mkdir "$range_store"
chown "$RANGE_USER_ID:$RANGE_USER_ID" "$range_store"
cp /etc/passwd "$TEST_TMP/passwd"
echo "ocirun-rl:x:$RANGE_USER_ID:$RANGE_USER_ID::$TEST_TMP/home:/bin/sh" >>"$TEST_TMP/passwd"
echo "ocirun-rl:300000:65536" >"$TEST_TMP/subuid"
echo "$RANGE_USER_ID:400000:65536" >"$TEST_TMP/subgid"
# range_run SCRIPT: runs the shell SCRIPT as the range user in a mount
# namespace where the test's account files are bound over the host's.
range_run() {
  unshare -m sh -c 'mount --bind "$1/passwd" /etc/passwd && mount --bind "$1/subuid" /etc/subuid &&
    mount --bind "$1/subgid" /etc/subgid && shift && exec "$@"' sh "$TEST_TMP" \
    setpriv --reuid=$RANGE_USER_ID --regid=$RANGE_USER_ID --clear-groups env -i PATH="$PATH" \
    HOME="$TEST_TMP/home" OCIRUN_ROOT="$range_store" "$@"
}
touch /etc/subuid /etc/subgid 2>/dev/null # bind targets must exist
if [ ! -e /etc/subuid ] || [ ! -e /etc/subgid ]; then
  skip "no /etc/subuid to bind over"
  tap_done
  exit 0
fi
expect_exit 0 "import as the range user" \
  range_run "$OCIRUN" image import "$layout"
expect_exit 0 "run with a range" range_run "$OCIRUN" run --unsafe-no-cgroup busybox:latest \
  cat /proc/self/uid_map /proc/self/gid_map /proc/self/setgroups
check "uid 0 is the caller and 1..65536 the range; setgroups allowed" \
  [ "$(tr -s ' \n' ' ' <"$TEST_TMP/out")" = \
  " 0 $RANGE_USER_ID 1 1 300000 65536 0 $RANGE_USER_ID 1 1 400000 65536 allow " ]
expect_exit 0 "--user 65534:65534 with a range" range_run "$OCIRUN" run --unsafe-no-cgroup \
  --user 65534:65534 busybox:latest sh -c 'id -u; id -G; grep CapEff /proc/self/status'
check "runs as 65534 with only its own group and no capabilities" \
  [ "$(tr -s '\t\n' '  ' <"$TEST_TMP/out")" = "65534 65534 CapEff: 0000000000000000 " ]
# Files owned by a range id in a directory only it may write: the host user
# cannot remove them from the layer on disk by itself (the removal is done
# again in a user namespace mapped like the run's), nor measure them.
expect_exit 0 "a range id writes a private tree into the root" range_run "$OCIRUN" run \
  --unsafe-no-cgroup --user 65534:65534 busybox:latest \
  sh -c 'mkdir -p /tmp/private/a && echo x >/tmp/private/a/f && chmod 500 /tmp/private'
check "teardown removed everything" [ -z "$(ls -A "$range_store/run" | grep -v '^seccomp')" ]
check "no file of the range ids is left on the host" \
  [ -z "$(find "$TEST_TMP" -uid 300000 -o -uid 365533 2>/dev/null)" ]
check "no process of the range user is left" [ -z "$(user_processes $RANGE_USER_ID)" ]
expect_exit 137 "a range id's private tree past the layer's bound is killed" range_run "$OCIRUN" run \
  --unsafe-no-cgroup --user 65534:65534 --storage-opt size=4m busybox:latest \
  sh -c 'mkdir -p /tmp/private/a && chmod 700 /tmp/private &&
    dd if=/dev/zero of=/tmp/private/a/f bs=1M count=16 2>/dev/null && sleep 20'
check "the measure saw into it: the kill names the bound" err_has_literal "past its bound of 4096 KiB"
check "teardown removed it" [ -z "$(ls -A "$range_store/run" | grep -v '^seccomp')" ]
expect_exit 125 "--user 70000 is outside the range" range_run "$OCIRUN" run --unsafe-no-cgroup \
  --user 70000 busybox:latest true
check "the refusal says so" err_has_literal "outside the range"
tap_done
