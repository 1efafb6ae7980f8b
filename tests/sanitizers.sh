#!/bin/bash
# Builds a second ocirun with AddressSanitizer and UndefinedBehaviorSanitizer
# (--enable-sanitizers) and re-runs test scripts against it. Fails if a test
# fails or a sanitizer report appears (reports go to files, so none is lost
# in a test's captured stderr).
. "$top_srcdir/tests/lib.sh"

# The test scripts re-run under the sanitizers; add runtime tests here.
SANITIZED_TESTS="cli image-store unpack hostile run-host confine-run sweep probe"

build=$TEST_TMP/build-sanitizers
reports=$TEST_TMP/sanitizer-reports
mkdir -p "$build" "$reports"

if ! (cd "$build" && "$top_srcdir/configure" --enable-sanitizers CFLAGS="-O1 -g" &&
  make -j"$(nproc)") >"$TEST_TMP/build.log" 2>&1; then
  tail -30 "$TEST_TMP/build.log" | sed 's/^/# /'
  not_ok "ocirun builds with --enable-sanitizers"
  tap_done
  exit 1
fi
ok "ocirun builds with --enable-sanitizers"
grep -q __asan_init "$build/ocirun" && ok "the binary is instrumented" || not_ok "the binary is instrumented"

# Make the images once, outside any sanitized run.
"$top_srcdir/scripts/make-test-images" all "$TEST_IMAGES" >/dev/null 2>&1 || true

# Set for the re-run tests: an instrumented binary is several times slower,
# so a test may skip its timing assertions when it sees this.
export OCIRUN_TEST_SANITIZED=1
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$reports/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan"
export LSAN_OPTIONS="log_path=$reports/lsan"

for t in $SANITIZED_TESTS; do
  script=$top_srcdir/tests/$t.sh
  if [ ! -f "$script" ]; then
    skip "tests/$t.sh under sanitizers: the test does not exist yet"
    continue
  fi
  OCIRUN=$build/ocirun OCIRUN_TEST_IMAGES=$TEST_IMAGES bash "$script" >"$TEST_TMP/$t.tap" 2>&1
  rc=$?
  failed=$(grep -c '^not ok' "$TEST_TMP/$t.tap")
  passed=$(grep -c '^ok' "$TEST_TMP/$t.tap")
  # A script that stopped early passes nothing: it needs its plan and a pass.
  if [ "$rc" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] && grep -q '^1\.\.' "$TEST_TMP/$t.tap"; then
    ok "tests/$t.sh passes under sanitizers ($passed passed)"
  else
    not_ok "tests/$t.sh passes under sanitizers (exit $rc, $passed passed, $failed failed)"
    grep '^not ok' "$TEST_TMP/$t.tap" | head -20 | sed 's/^/# /'
  fi
  found=$(ls "$reports")
  if [ -z "$found" ]; then ok "tests/$t.sh: no sanitizer report"; else
    not_ok "tests/$t.sh: no sanitizer report"
    for f in "$reports"/*; do grep -m3 -E 'ERROR|runtime error|SUMMARY|fatal error|HINT' "$f" | sed 's/^/# /'; done
    mkdir -p "$TEST_TMP/seen" && mv "$reports"/* "$TEST_TMP/seen/"
  fi
done
tap_done
