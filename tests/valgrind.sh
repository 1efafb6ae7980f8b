#!/bin/bash
# The image commands under valgrind: no invalid access, no uninitialised
# value, no definite leak, on success and on refusal paths.
. "$top_srcdir/tests/lib.sh"

if ! command -v valgrind >/dev/null; then
  skip "valgrind not installed"
  tap_done
  exit 0
fi
if ! "$top_srcdir/scripts/make-test-images" busybox multilayer hostile "$TEST_IMAGES" >"$TEST_TMP/images.log" 2>&1; then
  sed 's/^/# /' "$TEST_TMP/images.log"
  not_ok "test images built"
  tap_done
  exit 1
fi
hostile=$TEST_IMAGES/hostile

# vg WANT DESCRIPTION ARGS...: runs ocirun ARGS under valgrind. WANT is the
# exit code the command must have, or "fail" for any refusal (1-98).
vg() {
  local want=$1 what=$2 rc log=$TEST_TMP/valgrind.log
  shift 2
  rm -f "$log"
  timeout 600 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite --track-origins=yes --log-file="$log" \
    "$OCIRUN" --quiet "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  rc=$?
  if [ "$rc" -eq 99 ] || [ -s "$log" ]; then
    not_ok "$what: no valgrind error"
    head -40 "$log" | sed 's/^/# /'
  else
    ok "$what: no valgrind error"
  fi
  if [ "$want" = fail ]; then
    [ "$rc" -ge 1 ] && [ "$rc" -le 98 ] && ok "$what: refused (exit $rc)" ||
      { not_ok "$what: refused (exit $rc)"; sed 's/^/# /' "$TEST_TMP/err" | head -5; }
  elif [ "$want" != any ]; then
    [ "$rc" -eq "$want" ] && ok "$what: exit $want" ||
      { not_ok "$what: exit $want (got $rc)"; sed 's/^/# /' "$TEST_TMP/err" | head -5; }
  fi
}

# The commands checked, in order (later ones use the store the earlier ones
# filled). Runtime commands are added to this list the same way.
vg 0 "image import" image import "oci:$TEST_IMAGES/busybox:busybox:latest"
vg 0 "image import multilayer" image import "oci:$TEST_IMAGES/multilayer:multilayer:latest"
vg 0 "image ls" image ls
vg 0 "image inspect" image inspect busybox:latest
vg 0 "image unpack (cold)" image unpack busybox:latest
vg 0 "image unpack (warm)" image unpack busybox:latest
vg 0 "image unpack multilayer" image unpack multilayer:latest
vg 0 "image unpack oci: layout" image unpack "oci:$TEST_IMAGES/busybox:busybox:latest"
vg fail "image import of a layer whose digest lies" image import "oci:$hostile/layer-digest-mismatch:hostile:latest"
vg fail "image import of a malformed digest" image import "oci:$hostile/digest-traversal:hostile:latest"
vg fail "image unpack of a truncated gzip layer" image unpack "oci:$hostile/truncated-gzip:hostile:latest"
vg fail "image unpack with a diff_id mismatch" image unpack "oci:$hostile/diff-id-mismatch:hostile:latest"
vg any "image unpack of symlink loops" image unpack "oci:$hostile/symlink-loop:hostile:latest"
vg any "image unpack of a too long path" image unpack "oci:$hostile/long-path:hostile:latest"
vg fail "image inspect of an unknown image" image inspect no-such-image:latest
vg 0 "image rm" image rm multilayer:latest
tap_done
