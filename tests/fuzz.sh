#!/bin/bash
# Builds every libFuzzer target tests/fuzz/*_fuzzer.c with clang's fuzzer,
# address and undefined-behaviour sanitizers against the oci/ sources, and
# runs each for a bounded time (FUZZ_SECONDS, default 20) on a copy of its
# committed seed corpus tests/fuzz/corpus/NAME/ (with tests/fuzz/NAME.dict
# as its dictionary when there is one). A crash, leak, sanitizer
# report or escape check fails the test.
. "$top_srcdir/tests/lib.sh"

libs="libarchive libcjson libcrypto libisal libzstd"
fuzz_available "$libs" || { tap_done; exit; }

targets=("$top_srcdir"/tests/fuzz/*_fuzzer.c)
[ -e "${targets[0]}" ] && ok "fuzz targets found: ${#targets[@]}" || not_ok "no fuzz targets in tests/fuzz"

for target in "${targets[@]}"; do
  [ -e "$target" ] || continue
  name=$(basename "$target" _fuzzer.c)
  binary="$TEST_TMP/${name}_fuzzer"
  fuzz_build "$name" "$binary" "$libs" "-I$top_srcdir/oci" "$target" "$top_srcdir"/oci/*.c || continue

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
  fuzz_run "$name" "$binary" "$corpus" "${dict[@]}"
done
tap_done
