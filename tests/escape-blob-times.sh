#!/bin/bash
# A blob's times, which whoever writes the store sets as it likes (`touch
# -d`, a copy that keeps times, a machine whose clock ran ahead): the
# collection of unnamed blobs (oci/store.c: keep_unnamed) judges a blob's
# age by them. An mtime set ahead made a blob look written during every
# later collection: `image rm` kept the removed image's own blobs, for
# ever, saying a later image rm would collect them. An mtime set back must
# not make a young blob look old either. Host only.
. "$top_srcdir/tests/lib.sh"

export OCIRUN_ROOT=$TEST_TMP/store-root
BLOBS=$OCIRUN_ROOT/store/blobs/sha256
import() { "$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1; }
"$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >/dev/null 2>&1
import || { not_ok "import the busybox test image"; tap_done; exit 1; }
n_blobs() { find "$BLOBS" -type f | wc -l; }

touch -d '+1 year' "$BLOBS"/*
one=$(find "$BLOBS" -type f | head -1)
check "control: the writer set every blob's mtime a year ahead, while their ctime is now" \
  sh -c "[ \$(stat -c %Y '$one') -gt \$((\$(date +%s) + 86400 * 300)) ] && [ \$(stat -c %Z '$one') -le \$((\$(date +%s) + 5)) ]"
"$OCIRUN" image rm busybox:latest >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "image rm collects the removed image's own blobs whatever their mtime says ($(head -1 "$TEST_TMP/out"))" \
  grep -q "removed busybox:latest (3 blobs collected" "$TEST_TMP/out"
check "... and none is left ($(n_blobs))" test "$(n_blobs)" -eq 0

# A blob no image names, just written, its mtime set two days back: still
# young (a copy into the store may be running), kept.
import
printf 'a blob being copied in\n' >"$TEST_TMP/blob"
sum=$(sha256sum "$TEST_TMP/blob" | cut -d' ' -f1)
cp "$TEST_TMP/blob" "$BLOBS/$sum" && touch -d '-2 days' "$BLOBS/$sum"
"$OCIRUN" image rm busybox:latest >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "an unnamed blob just written, its mtime set two days back, is kept as young" \
  sh -c "grep -q 'kept 1 blob' '$TEST_TMP/out' && [ -e '$BLOBS/$sum' ]"
tap_done
