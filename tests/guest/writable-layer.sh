#!/bin/bash
# In the guest (cgroup v2): the root's writable layer under a memory limit.
# A CI job writing 100 MiB into its root under --memory 64m writes page
# cache of the store's disk filesystem, which the slice's reclaim writes
# back and drops: it is not OOM-killed (docker's behaviour). The control:
# the same write into a tmpfs layer (--root-tmpfs, sized past it) is memory
# the slice must hold, and is OOM-killed. The guest's /tmp is a tmpfs, so
# the store goes on an ext4 of its own, on a loop device over a file in the
# build tree (the host's disk, shared over 9p).
. "$top_srcdir/tests/lib.sh"

image="$top_builddir/guest-writable-layer.$$.ext4"
disk=$TEST_TMP/disk
loop=
cleanup() {
  mountpoint -q "$disk" && umount "$disk"
  [ -n "$loop" ] && losetup -d "$loop"
  rm -rf "$image" "$TEST_TMP"
}
trap cleanup EXIT
run() { "$OCIRUN" run "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"; }

mkdir -p "$disk"
if ! { truncate -s 512M "$image" && mkfs.ext4 -q "$image" && loop=$(losetup -f --show "$image") &&
  mount -t ext4 "$loop" "$disk"; } 2>"$TEST_TMP/disk.err"; then
  skip "no ext4 on a loop device in this guest (scripts/vm-run loads loop and ext4): $(head -3 "$TEST_TMP/disk.err" | tr '\n' ' ')"
  tap_done
  exit 0
fi
export OCIRUN_ROOT=$disk/store
mkdir -m 0700 "$OCIRUN_ROOT"
"$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >"$TEST_TMP/out" 2>"$TEST_TMP/err" ||
  { not_ok "import the busybox image"; show; exit 0; }

run --dry-run busybox:latest true
verdict "the store on ext4: the layer is on disk" grep -q "writable layer: on disk in $OCIRUN_ROOT/run/" "$TEST_TMP/out"

# (the loop device writes back over 9p under TCG: slow, so a long deadline)
start=$(date +%s)
run --timeout 900 --memory 64m --memory-swap 64m busybox:latest \
  sh -c 'dd if=/dev/zero of=/fill bs=1M count=100 2>/dev/null; stat -c %s /fill'
status=$?
echo "# the 100 MiB write took $(($(date +%s) - start)) s"
verdict "100 MiB written into the root under --memory 64m: not OOM-killed (exit $status)" \
  eval '[ $status -eq 0 ] && [ "$(cat "$TEST_TMP/out")" = 104857600 ]'
verdict "and no OOM reported" eval '! err_has_literal "out of memory"'

run --timeout 900 --memory 64m --memory-swap 64m --root-tmpfs --storage-opt size=200m busybox:latest \
  dd if=/dev/zero of=/fill bs=1M count=100
status=$?
verdict "control: the same write into a tmpfs layer is OOM-killed (exit $status)" [ $status -eq 137 ]
verdict "control: ocirun reports the OOM kill" err_has_literal "out of memory"

check "nothing left in the store's run folder" [ -z "$(ls -A "$OCIRUN_ROOT/run" 2>/dev/null)" ]
check "no slice left" [ -z "$(find /sys/fs/cgroup/ocirun -mindepth 1 -type d 2>/dev/null)" ]
tap_done >/dev/null
exit 0
