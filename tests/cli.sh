#!/bin/bash
# The command line itself: help, version, unknown commands.
. "$top_srcdir/tests/lib.sh"

expect_exit 0 "--help exits 0" "$OCIRUN" --help
grep -q '^Usage: ocirun' "$TEST_TMP/out" && ok "--help prints usage on stdout" || not_ok "--help prints usage on stdout"
expect_exit 0 "--version exits 0" "$OCIRUN" --version
grep -q "^ocirun version [0-9]" "$TEST_TMP/out" && ok "--version prints the version" || not_ok "--version prints the version"
expect_exit 2 "unknown command exits 2" "$OCIRUN" frobnicate
grep -q "unknown command 'frobnicate'" "$TEST_TMP/err" && ok "unknown command is named" || not_ok "unknown command is named"
expect_exit 2 "no command exits 2" "$OCIRUN"
expect_exit 2 "unknown global option exits 2" "$OCIRUN" --bogus image ls
# Error messages quote user and image input: control characters are escaped.
expect_exit 125 "a bad --memory value is a runtime error" "$OCIRUN" run --memory "$(printf '1\033[2Jx')" busybox true
if grep -q "'1\\\\x1b\[2Jx'" "$TEST_TMP/err" && ! grep -q "$(printf '\033')" "$TEST_TMP/err"; then
  ok "the escape character in the message is printed as \\x1b"
else
  not_ok "the escape character in the message is printed as \\x1b"
fi
tap_done
