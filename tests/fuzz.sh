#!/bin/bash
# Builds every libFuzzer target tests/fuzz/*_fuzzer.c with clang's fuzzer,
# address and undefined-behaviour sanitizers against the oci/ sources, and
# runs each for a bounded time (FUZZ_SECONDS, default 20) on a copy of its
# committed seed corpus tests/fuzz/corpus/NAME/ (with tests/fuzz/NAME.dict
# as its dictionary when there is one). A crash, leak, sanitizer
# report or escape check fails the test.
. "$top_srcdir/tests/lib.sh"

seconds=${FUZZ_SECONDS:-20}
libs="libarchive libcjson libcrypto libisal libzstd"

if ! command -v clang >/dev/null || ! pkg-config --exists $libs; then
  skip "clang with libFuzzer or a library's pkg-config file is missing"
  tap_done
  exit
fi

targets=("$top_srcdir"/tests/fuzz/*_fuzzer.c)
[ -e "${targets[0]}" ] && ok "fuzz targets found: ${#targets[@]}" || not_ok "no fuzz targets in tests/fuzz"

for target in "${targets[@]}"; do
  [ -e "$target" ] || continue
  name=$(basename "$target" _fuzzer.c)
  binary="$TEST_TMP/${name}_fuzzer"
  # shellcheck disable=SC2046
  if clang -std=gnu17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$top_builddir" -I"$top_srcdir" -I"$top_srcdir/oci" $(pkg-config --cflags $libs) \
    "$target" "$top_srcdir"/oci/*.c $(pkg-config --libs $libs) -lpthread \
    -o "$binary" 2>"$TEST_TMP/$name.build"; then
    ok "$name: fuzzer builds"
  else
    not_ok "$name: fuzzer builds"
    sed 's/^/# /' "$TEST_TMP/$name.build" | head -20
    continue
  fi

  corpus="$TEST_TMP/corpus-$name"
  mkdir -p "$corpus"
  if [ -d "$top_srcdir/tests/fuzz/corpus/$name" ]; then
    cp "$top_srcdir/tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null
    [ -n "$(ls -A "$corpus")" ] && ok "$name: seed corpus is not empty" ||
      not_ok "$name: seed corpus is not empty"
  else
    not_ok "$name: seed corpus tests/fuzz/corpus/$name exists"
  fi

  dict=()
  [ -f "$top_srcdir/tests/fuzz/$name.dict" ] && dict=(-dict="$top_srcdir/tests/fuzz/$name.dict")
  if (cd "$TEST_TMP" && "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    "${dict[@]}" -print_final_stats=1 "$corpus") >"$TEST_TMP/$name.log" 2>&1; then
    ok "$name: no crash in ${seconds}s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$TEST_TMP/$name.log" | grep -o '[0-9]*$') runs)"
  else
    not_ok "$name: fuzzing found a failure"
    grep -E 'ERROR|SUMMARY|escape|runtime error' "$TEST_TMP/$name.log" | head -20 | sed 's/^/# /'
    # Keep the reproducer where a developer can find it.
    for crash in "$TEST_TMP"/crash-* "$TEST_TMP"/leak-* "$TEST_TMP"/timeout-*; do
      [ -e "$crash" ] && cp "$crash" "$top_builddir/" && echo "# reproducer: $top_builddir/$(basename "$crash")"
    done
  fi
done
tap_done
