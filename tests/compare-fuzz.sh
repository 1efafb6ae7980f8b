#!/bin/bash
# Fuzzes `ocirun compare` and the artifact reader (src/cli/command_compare.c,
# src/probe/artifact_read.c) with libFuzzer under address and undefined-behaviour
# sanitizers for FUZZ_SECONDS (default 20), seeded with the test fixtures.
. "$top_srcdir/tests/lib.sh"

fuzz_target compare libcjson "-I$top_srcdir/src" \
  "$top_srcdir/tests/helpers/compare_fuzzer.c" "$top_srcdir/src/cli/command_compare.c" \
  "$top_srcdir/src/probe/artifact_read.c" "$top_srcdir/src/runtime/json_strict.c" \
  "$top_srcdir/oci/error.c" "$top_srcdir/oci/file_read.c" "$top_srcdir/oci/options.c" \
  "$top_srcdir/oci/in_root.c" "$top_srcdir/oci/events.c" "$top_srcdir/src/cli/log.c" \
  "$top_srcdir/oci/escape.c"

# Seeds: every pair of fixtures, joined by a NUL byte.
corpus="$TEST_TMP/corpus"
mkdir -p "$corpus"
n=0
for a in "$top_srcdir"/tests/fixtures/*.json; do
  for b in "$top_srcdir"/tests/fixtures/recipe-artifact.json "$top_srcdir"/tests/fixtures/docker-artifact-differs.json; do
    n=$((n + 1))
    { cat "$a"; printf '\0'; cat "$b"; } >"$corpus/pair-$n"
  done
done
[ "$n" -gt 0 ] && ok "seed corpus of $n pairs" || not_ok "seed corpus written"

# -close_fd_mask=3: compare's own output is noise here; libFuzzer and the
# sanitizers still report on their own descriptor.
fuzz_run compare "$FUZZER" "$corpus" -max_len=65536 -close_fd_mask=3
tap_done
