#!/bin/bash
# scripts/make-test-images itself: the images are valid for independent
# readers (skopeo, umoci), usable (busybox runs, python has json), cached,
# built once under concurrency, and a failed build leaves nothing behind.
. "$top_srcdir/tests/lib.sh"

mk=$top_srcdir/scripts/make-test-images
if ! "$mk" all "$TEST_IMAGES" >"$TEST_TMP/images.log" 2>&1; then
  sed 's/^/# /' "$TEST_TMP/images.log" | tail -20
  not_ok "make-test-images all"
  tap_done
  exit 1
fi
ok "make-test-images all"

# Independent readers accept every image.
skopeo_reads() { skopeo inspect --raw "oci:$1" >/dev/null 2>&1; }
for image in busybox:busybox:latest python:python:3.13-slim multilayer:multilayer:latest \
  hostile/device-node:hostile:latest; do
  check "skopeo reads $image" skopeo_reads "$TEST_IMAGES/$image"
done

# busybox: runs, with the users the runtime tests rely on.
umoci unpack --image "$TEST_IMAGES/busybox:busybox:latest" "$TEST_TMP/bb" >/dev/null 2>&1
bb=$TEST_TMP/bb/rootfs
[ "$(chroot "$bb" /bin/sh -c 'echo hello' 2>&1)" = hello ] && ok "busybox sh runs" || not_ok "busybox sh runs"
for user in 'root:x:0:0' 'tester:x:1000:1000' 'nobody:x:65534:65534'; do
  grep -q "^$user:" "$bb/etc/passwd" && ok "busybox has $user" || not_ok "busybox has $user"
done
[ "$(stat -c %a "$bb/tmp")" = 1777 ] && ok "busybox /tmp is 1777" || not_ok "busybox /tmp is 1777"

# python: python - reads its program from stdin, as nobody, with json.
umoci unpack --image "$TEST_IMAGES/python:python:3.13-slim" "$TEST_TMP/py" >/dev/null 2>&1
got=$(echo 'import json, os; print(json.dumps({"uid": os.getuid()}))' |
  chroot --userspec=65534:65534 "$TEST_TMP/py/rootfs" python - 2>&1)
[ "$got" = '{"uid": 65534}' ] && ok "python - runs as nobody with json" ||
  not_ok "python - runs as nobody with json (got '$got')"
layer_size=$(skopeo inspect --raw "oci:$TEST_IMAGES/python:python:3.13-slim" |
  python3 -c 'import json, sys; print(sum(l["size"] for l in json.load(sys.stdin)["layers"]))')
[ "$layer_size" -lt $((40 * 1024 * 1024)) ] && ok "python layer under 40 MB ($layer_size bytes)" ||
  not_ok "python layer under 40 MB ($layer_size bytes)"

# multilayer: the expectation holds for umoci's unpack.
umoci unpack --image "$TEST_IMAGES/multilayer:multilayer:latest" "$TEST_TMP/ml" >/dev/null 2>&1
check "multilayer matches multilayer.expect (umoci unpack)" \
  "$top_srcdir/scripts/images/check-tree" "$TEST_IMAGES/multilayer.expect" "$TEST_TMP/ml/rootfs"
layers=$(skopeo inspect --raw "oci:$TEST_IMAGES/multilayer:multilayer:latest" |
  python3 -c 'import json, sys; print(len(json.load(sys.stdin)["layers"]))')
[ "$layers" -ge 3 ] && ok "multilayer has $layers layers" || not_ok "multilayer has >= 3 layers ($layers)"

# hostile: every case has an expectation with an outcome.
cases=0 bad=
for dir in "$TEST_IMAGES"/hostile/*/; do
  cases=$((cases + 1))
  grep -Eq '^outcome (refuse|contain|succeed)$' "$dir/expect" 2>/dev/null || bad="$bad ${dir%/}"
done
[ "$cases" -ge 40 ] && [ -z "$bad" ] && ok "$cases hostile cases, each with an outcome" ||
  not_ok "hostile cases with an outcome ($cases cases; without:$bad)"

# Cached: a second run builds nothing and touches no stamp.
stamps_before=$(stat -c '%n %Y' "$TEST_IMAGES"/.*.stamp)
"$mk" all "$TEST_IMAGES" >"$TEST_TMP/again.log" 2>&1
! grep -q building "$TEST_TMP/again.log" && [ "$(stat -c '%n %Y' "$TEST_IMAGES"/.*.stamp)" = "$stamps_before" ] &&
  ok "a second run reuses every image" || not_ok "a second run reuses every image"

# Concurrent runs build an image once.
fresh=$TEST_TMP/fresh
for _ in 1 2 3; do "$mk" busybox "$fresh" >>"$TEST_TMP/concurrent.log" 2>&1 & done
wait
[ "$(grep -c 'building busybox' "$TEST_TMP/concurrent.log")" -eq 1 ] && ok "three concurrent runs build once" ||
  not_ok "three concurrent runs build once"
check "the concurrently built image is valid" skopeo_reads "$fresh/busybox:busybox:latest"

# A failing build leaves no image, no stamp and no build directory.
mkdir -p "$TEST_TMP/fakebin"
printf '#!/bin/sh\necho "umoci: failing on purpose" >&2\nexit 1\n' >"$TEST_TMP/fakebin/umoci"
chmod +x "$TEST_TMP/fakebin/umoci"
broken=$TEST_TMP/broken
PATH="$TEST_TMP/fakebin:$PATH" "$mk" busybox "$broken" >/dev/null 2>&1
rc=$?
[ "$rc" -ne 0 ] && ok "a failing build exits non-zero" || not_ok "a failing build exits non-zero"
left=$(ls -A "$broken" | grep -v '^\.lock\.')
[ -z "$left" ] && ok "a failing build leaves nothing" || not_ok "a failing build leaves nothing ($left)"
tap_done
