#!/bin/bash
# In the guest: a store on a network filesystem (the build tree, shared over
# 9p). overlayfs refuses 9p as an upper layer, so the run's writable layer
# falls back to a tmpfs of its own (bounded by its size), says so in the
# plan and on stderr, and such a store works for import, unpack, run and
# teardown.
. "$top_srcdir/tests/lib.sh"

store="$top_builddir/guest-store-9p.$$"
trap 'rm -rf "$store" "$TEST_TMP"' EXIT
# (statfs over 9p reports the server's filesystem type: ask the mount table)
fstype=$(findmnt -n -o FSTYPE -T "$top_builddir")
if [ "$fstype" != 9p ]; then
  skip "the build tree is not on 9p here ($fstype)"
  tap_done
  exit 0
fi
export OCIRUN_ROOT="$store"
expect_exit 0 "import busybox into a store on 9p" \
  "$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest"
expect_exit 0 "run with the store on 9p, writing into the root" \
  "$OCIRUN" run busybox:latest sh -c 'echo hi >/written && cat /written && cat /etc/hostname'
check "the write is seen inside" [ "$(head -1 "$TEST_TMP/out")" = hi ]
check "stderr says the layer fell back to a tmpfs, naming 9p" \
  grep -q "the store's filesystem (9p) cannot hold an overlay upper layer" "$TEST_TMP/err"
expect_exit 0 "--dry-run with the store on 9p" "$OCIRUN" run --dry-run busybox:latest true
check "the plan names the tmpfs, its size and why" \
  grep -q "writable layer: a tmpfs of 64 MiB in memory (the store's filesystem, 9p, cannot hold" "$TEST_TMP/out"
expect_exit 0 "run --read-only with the store on 9p" "$OCIRUN" run --read-only busybox:latest true
check "teardown left no run state" [ -z "$(ls -A "$store/run" | grep -v '^seccomp')" ]
check "no slice left" [ -z "$(find /sys/fs/cgroup/ocirun -mindepth 1 -type d 2>/dev/null)" ]
tap_done
