#!/bin/bash
# Fuzzes the seccomp profile parser (src/seccomp_profile.c) with libFuzzer
# under address and undefined-behaviour sanitizers for FUZZ_SECONDS (default
# 20), seeded with the printed default profile and small hand-written ones.
. "$top_srcdir/tests/lib.sh"

seconds=${FUZZ_SECONDS:-20}
libs="libseccomp libcap libcjson libcrypto"
if ! command -v clang >/dev/null || ! pkg-config --exists $libs; then
  skip "clang with libFuzzer or a library's pkg-config file is missing"
  tap_done
  exit
fi
binary="$TEST_TMP/seccomp_profile_fuzzer"
# shellcheck disable=SC2046
if clang -std=gnu17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$top_builddir" -I"$top_srcdir" -I"$top_srcdir/src" $(pkg-config --cflags $libs) \
  "$top_srcdir/tests/helpers/seccomp_profile_fuzzer.c" "$top_srcdir/src/seccomp_profile.c" \
  "$top_srcdir/src/seccomp_names.c" "$top_srcdir/src/capabilities.c" "$top_srcdir/oci/error.c" \
  $(pkg-config --libs $libs) -o "$binary" 2>"$TEST_TMP/build.log"; then
  ok "fuzzer builds"
else
  not_ok "fuzzer builds"
  sed 's/^/# /' "$TEST_TMP/build.log" | head -20
  tap_done
  exit
fi

corpus="$TEST_TMP/corpus"
mkdir -p "$corpus"
"$OCIRUN" seccomp-profile >"$corpus/default.json"
"$OCIRUN" seccomp-profile --cap-drop ALL >"$corpus/resolved.json"
printf '%s' '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getcwd"],"action":"SCMP_ACT_ERRNO","errnoRet":38,"args":[{"index":0,"value":1,"valueTwo":2,"op":"SCMP_CMP_MASKED_EQ"}],"includes":{"caps":["CAP_SYS_ADMIN"],"arches":["amd64"],"minKernel":"4.8"},"excludes":{"arches":["x32"]}}]}' >"$corpus/small.json"
printf '%s' '{"defaultAction":"SCMP_ACT_ERRNO","archMap":[{"architecture":"SCMP_ARCH_X86_64","subArchitectures":["SCMP_ARCH_X86"]}],"architectures":["SCMP_ARCH_X32"],"syscalls":[{"name":"read","action":"SCMP_ACT_LOG"}]}' >"$corpus/arches.json"
[ -s "$corpus/default.json" ] && ok "seed corpus written" || not_ok "seed corpus written"

if (cd "$TEST_TMP" && "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -print_final_stats=1 "$corpus") >"$TEST_TMP/fuzz.log" 2>&1; then
  ok "no crash, leak or sanitizer report in ${seconds}s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$TEST_TMP/fuzz.log" | grep -o '[0-9]*$') runs)"
else
  not_ok "fuzzing found a failure"
  grep -E 'ERROR|SUMMARY|runtime error' "$TEST_TMP/fuzz.log" | head -20 | sed 's/^/# /'
  for crash in "$TEST_TMP"/crash-* "$TEST_TMP"/leak-* "$TEST_TMP"/timeout-*; do
    [ -e "$crash" ] && cp "$crash" "$top_builddir/" && echo "# reproducer: $top_builddir/$(basename "$crash")"
  done
fi
tap_done
