#!/bin/bash
# The cgroup v2 tests, for real, on a hybrid-v1 host: builds the test images
# on the host, boots ONE qemu guest (scripts/vm-run) that runs every
# tests/guest/*.sh case (tests/guest/run-all), and renumbers their results
# into this TAP stream. A guest that cannot boot is a failure, not a skip.
. "$top_srcdir/tests/lib.sh"

needs_root "the guest tests need root (qemu's 9p share of / must read everything)"

# Images are built on the host (ten times faster than in the guest) into the
# build tree, which the guest sees writable at the same path.
"$top_srcdir/scripts/make-test-images" busybox python "$TEST_IMAGES" >"$TEST_TMP/images.log" 2>&1 &&
  ok "build the busybox and python test images" || {
  not_ok "build the busybox and python test images"
  sed 's/^/# /' "$TEST_TMP/images.log" | tail -20
}
guest_images=$top_builddir/guest-images
build_sysprobe_image() {
  local work=$TEST_TMP/sysprobe
  rm -rf "$guest_images/sysprobe" && mkdir -p "$guest_images" &&
    cp -a "$TEST_IMAGES/busybox" "$work" &&
    umoci unpack --image "$work:busybox:latest" "$TEST_TMP/bundle" >/dev/null &&
    install -m 0755 "$top_builddir/tests/helpers/sysprobe" "$TEST_TMP/bundle/rootfs/sysprobe" &&
    umoci repack --image "$work:sysprobe:latest" "$TEST_TMP/bundle" >/dev/null &&
    rm -rf "$TEST_TMP/bundle" && mv "$work" "$guest_images/sysprobe"
}
if [ -x "$top_builddir/tests/helpers/sysprobe" ]; then
  build_sysprobe_image >"$TEST_TMP/sysprobe.log" 2>&1 && ok "build the sysprobe image" || {
    not_ok "build the sysprobe image"
    sed 's/^/# /' "$TEST_TMP/sysprobe.log" | tail -20
  }
fi

# The guest: its own /tmp, so the host's private OCIRUN_ROOT means nothing there.
# vm-run shares only its working directory writable at the same path: start
# it in the deepest directory holding both the source and the build tree
# (CI builds in ./build of the checkout, under /tmp, which the guest covers).
share=$(cd "$top_builddir" && pwd -P)
src_real=$(cd "$top_srcdir" && pwd -P)
while [ "$share" != / ]; do
  case "$src_real/" in "$share"/*) break ;; esac
  share=$(dirname "$share")
done
# Apart (a source tree outside /tmp, seen through the read-only host share):
# share the build tree alone.
[ "$share" != / ] || share=$(cd "$top_builddir" && pwd -P)
cd "$share" || exit 1
rm -f "$top_builddir/.guest-wrote"
# Each case has its own bound in run-all; the whole boot gets room for several.
env -u OCIRUN_ROOT OCIRUN_VM_TIMEOUT="${OCIRUN_VM_TIMEOUT:-3000}" TEST_IMAGES="$TEST_IMAGES" OCIRUN_GUEST_IMAGES="$guest_images" \
  "$top_srcdir/scripts/vm-run" "$top_srcdir/tests/guest/run-all" >"$TEST_TMP/guest.out" 2>"$TEST_TMP/guest.err"
status=$?
results=0
while IFS= read -r line; do
  case $line in
  "ok - "*) ok "${line#ok - }"; results=$((results + 1)) ;;
  "not ok - "*"# TODO"*) tap_n=$((tap_n + 1)); echo "not ok $tap_n - ${line#not ok - }"; results=$((results + 1)) ;;
  "not ok - "*) not_ok "${line#not ok - }"; results=$((results + 1)) ;;
  *) echo "# $line" ;;
  esac
done <"$TEST_TMP/guest.out"
sed 's/^/# vm-run: /' "$TEST_TMP/guest.err"
[ -f "$top_builddir/.guest-wrote" ] && ok "the guest's writes to the build tree reach the host" ||
  not_ok "the guest's writes to the build tree reach the host"
rm -f "$top_builddir/.guest-wrote"
[ "$results" -gt 0 ] && ok "the guest booted and reported results" ||
  not_ok "the guest booted and reported results (vm-run exit $status)"
[ "$status" -eq 0 ] && ok "the guest runner finished cleanly" ||
  not_ok "the guest runner finished cleanly (vm-run exit $status)"
tap_done
