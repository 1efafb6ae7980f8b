# Shared helpers for the TAP test scripts. Source it; it sets up a private
# OCIRUN_ROOT under a temporary directory removed at exit.
set -u
: "${OCIRUN:?OCIRUN must point at the built ocirun}"
: "${top_srcdir:?}"
: "${top_builddir:?}"

TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ocirun-test.XXXXXX")
export OCIRUN_ROOT="$TEST_TMP/root"
trap 'rm -rf "$TEST_TMP"' EXIT
# Test images built by scripts/make-test-images are cached here and reused.
TEST_IMAGES="${OCIRUN_TEST_IMAGES:-$top_builddir/test-images}"

tap_n=0
tap_failed=0

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - # SKIP $*"; }
# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else not_ok "$what"; fi
}
# expect_exit CODE DESCRIPTION COMMAND...: passes when the command exits CODE.
expect_exit() {
  local want=$1 what=$2 got
  shift 2
  "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  got=$?
  if [ "$got" -eq "$want" ]; then ok "$what"; else
    not_ok "$what (exit $got, wanted $want)"
    sed 's/^/# /' "$TEST_TMP/err" | head -20
  fi
}
# The last command's stdout/stderr (after expect_exit).
last_out() { cat "$TEST_TMP/out"; }
last_err() { cat "$TEST_TMP/err"; }
tap_done() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }
