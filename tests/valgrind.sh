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

# Debian 12's valgrind (3.19) does not know openat2 and answers ENOSYS, so
# every path ocirun resolves would fail under it. Then a test-only shim
# (scripts/valgrind-openat2-shim.c) turns openat2 into openat, without
# containment: hostile layers are then not run under valgrind.
valgrind --log-file="$TEST_TMP/probe.log" "$OCIRUN" image ls >/dev/null 2>&1
if ! grep -q 'unhandled amd64-linux syscall: 437' "$TEST_TMP/probe.log"; then
  mode=native
elif ${CC:-cc} -shared -fPIC -O1 -o "$TEST_TMP/openat2-shim.so" \
  "$top_srcdir/scripts/valgrind-openat2-shim.c" -ldl 2>"$TEST_TMP/shim.log"; then
  mode=shim
else
  sed 's/^/# /' "$TEST_TMP/shim.log"
  not_ok "the openat2 shim for this valgrind builds"
  tap_done
  exit 1
fi
echo "# valgrind $(valgrind --version), openat2: $mode"
# valgrind's own notes about an unknown syscall are not errors in ocirun.
valgrind_errors() {
  grep -v -e 'unhandled amd64-linux syscall' -e 'write your own handler' \
    -e 'README_MISSING_SYSCALL_OR_IOCTL' -e 'Nevertheless we consider this a bug' \
    -e 'valgrind.org/support/bug_reports' "$1"
}

# vg WANT DESCRIPTION ARGS...: runs ocirun ARGS under valgrind. WANT is the
# exit code the command must have, "fail" for any refusal (1-98), "any", or
# "contained" for a hostile layer (any exit; needs openat2).
vg() {
  local want=$1 what=$2 rc log=$TEST_TMP/valgrind.log
  shift 2
  rm -f "$log"
  if [ "$mode" = shim ]; then
    case $want in contained)
      skip "$what: hostile layers are not run without openat2's containment"
      return ;;
    esac
  fi
  [ "$want" = contained ] && want=any
  LD_PRELOAD=$([ "$mode" = shim ] && echo "$TEST_TMP/openat2-shim.so") timeout 600 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --show-leak-kinds=definite --track-origins=yes --log-file="$log" \
    "$OCIRUN" --quiet "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  rc=$?
  if [ "$rc" -eq 99 ] || [ -n "$(valgrind_errors "$log")" ]; then
    not_ok "$what: no valgrind error"
    valgrind_errors "$log" | head -40 | sed 's/^/# /'
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
# Tarballs written by skopeo, for the libarchive import paths.
if skopeo copy -q "oci:$TEST_IMAGES/busybox:busybox:latest" "docker-archive:$TEST_TMP/docker.tar:busybox:latest" &&
  skopeo copy -q "oci:$TEST_IMAGES/busybox:busybox:latest" "oci-archive:$TEST_TMP/oci.tar:busybox:latest"; then
  vg 0 "image import docker-archive" image import "docker-archive:$TEST_TMP/docker.tar"
  vg 0 "image import oci-archive" image import "oci-archive:$TEST_TMP/oci.tar:busybox:latest"
else
  not_ok "skopeo writes docker-archive and oci-archive tarballs"
fi
vg fail "image import of a docker-archive with a link loop" \
  image import "docker-archive:$hostile/docker-archive-link-loop/archive.tar"
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
vg contained "image unpack of symlink loops" image unpack "oci:$hostile/symlink-loop:hostile:latest"
vg contained "image unpack of a too long path" image unpack "oci:$hostile/long-path:hostile:latest"
vg fail "image inspect of an unknown image" image inspect no-such-image:latest
vg 0 "image rm" image rm multilayer:latest
tap_done
