#!/bin/bash
# Fuzzes `ocirun compare` and the artifact reader (src/command_compare.c,
# src/artifact_read.c) with libFuzzer under address and undefined-behaviour
# sanitizers for FUZZ_SECONDS (default 20), seeded with the test fixtures.
. "$top_srcdir/tests/lib.sh"

seconds=${FUZZ_SECONDS:-20}
if ! command -v clang >/dev/null || ! pkg-config --exists libcjson; then
  skip "clang with libFuzzer or libcjson's pkg-config file is missing"
  tap_done
  exit
fi
binary="$TEST_TMP/compare_fuzzer"
# shellcheck disable=SC2046
if clang -std=gnu17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$top_builddir" -I"$top_srcdir" -I"$top_srcdir/src" $(pkg-config --cflags libcjson) \
  "$top_srcdir/tests/helpers/compare_fuzzer.c" "$top_srcdir/src/command_compare.c" \
  "$top_srcdir/src/artifact_read.c" "$top_srcdir/oci/error.c" \
  $(pkg-config --libs libcjson) -o "$binary" 2>"$TEST_TMP/build.log"; then
  ok "fuzzer builds"
else
  not_ok "fuzzer builds"
  sed 's/^/# /' "$TEST_TMP/build.log" | head -20
  tap_done
  exit
fi

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
if (cd "$TEST_TMP" && "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -close_fd_mask=3 -print_final_stats=1 "$corpus") >"$TEST_TMP/fuzz.log" 2>&1; then
  ok "no crash, leak or sanitizer report in ${seconds}s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$TEST_TMP/fuzz.log" | grep -o '[0-9]*$') runs)"
else
  not_ok "fuzzing found a failure"
  grep -E 'ERROR|SUMMARY|runtime error' "$TEST_TMP/fuzz.log" | head -20 | sed 's/^/# /'
  for crash in "$TEST_TMP"/crash-* "$TEST_TMP"/leak-* "$TEST_TMP"/timeout-*; do
    [ -e "$crash" ] && cp "$crash" "$top_builddir/" && echo "# reproducer: $top_builddir/$(basename "$crash")"
  done
fi
tap_done
