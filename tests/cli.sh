#!/bin/bash
# The command line itself: help, version, unknown commands.
. "$top_srcdir/tests/lib.sh"

expect_exit 0 "--help exits 0" "$OCIRUN" --help
grep -q '^Usage: ocirun' "$TEST_TMP/out" && ok "--help prints usage on stdout" || not_ok "--help prints usage on stdout"
expect_exit 0 "--version exits 0" "$OCIRUN" --version
grep -q "^ocirun [0-9]" "$TEST_TMP/out" && ok "--version prints the version" || not_ok "--version prints the version"
expect_exit 2 "unknown command exits 2" "$OCIRUN" frobnicate
grep -q "unknown command 'frobnicate'" "$TEST_TMP/err" && ok "unknown command is named" || not_ok "unknown command is named"
expect_exit 2 "no command exits 2" "$OCIRUN"
expect_exit 2 "unknown global option exits 2" "$OCIRUN" --bogus image ls
tap_done
