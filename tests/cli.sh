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
# The C1 control CSI, as UTF-8 writes it (0xc2 0x9b), starts a sequence on a
# terminal that reads 8-bit controls: it is escaped too.
expect_exit 125 "a --memory value with a C1 control is a runtime error" "$OCIRUN" run --memory "$(printf '1\302\2332Jx')" busybox true
if grep -qF "'1\\xc2\\x9b2Jx'" "$TEST_TMP/err" && ! grep -q "$(printf '\302\233')" "$TEST_TMP/err"; then
  ok "the C1 control in the message is printed as \\xc2\\x9b"
else
  not_ok "the C1 control in the message is printed as \\xc2\\x9b"
fi

# --- options are matched by their full names ---
# getopt_long alone takes a unique prefix: `run --pid 5` was --pids-limit 5
# (docker's --pid is a pid namespace). Each abbreviation below, the issue's
# and one per command, is refused with the command's usage exit code, the
# message quoting what was typed and the one option it begins.
BUSYBOX=oci:$TEST_IMAGES/busybox
"$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >/dev/null 2>&1 || not_ok "build the busybox test image"
mkdir -p "$TEST_TMP/bundle"
# abbreviated EXIT TYPED FULL ARGS...: ARGS (which contain TYPED) exit EXIT,
# and stderr says "unknown option 'TYPED': did you mean FULL?".
abbreviated() {
  local want=$1 typed=$2 full=$3
  shift 3
  expect_exit "$want" "'ocirun $*' is refused (exit $want)" "$OCIRUN" "$@"
  grep -qF -- "unknown option '$typed': did you mean $full?" "$TEST_TMP/err" &&
    ok "'$typed' is named, with $full suggested" || { not_ok "'$typed' is named, with $full suggested"; show; }
}
abbreviated 125 --pid --pids-limit run --pid 5 --dry-run "$BUSYBOX" true
abbreviated 125 --tim --timeout run --tim 5 --dry-run "$BUSYBOX" true
abbreviated 125 --ent --entrypoint run --ent sh --dry-run "$BUSYBOX" true
abbreviated 125 --int --interactive run --int --dry-run "$BUSYBOX" true
abbreviated 125 --read --read-only run --read --dry-run "$BUSYBOX" true
abbreviated 125 --dry --dry-run run --dry "$BUSYBOX" true
abbreviated 125 --unsafe --unsafe-no-cgroup run --unsafe --dry-run "$BUSYBOX" true
abbreviated 2 --roo --root --roo "$TEST_TMP/root" image ls
abbreviated 2 --log-f --log-format --log-f json image ls
abbreviated 2 --nam --name image import --nam x:1 "$BUSYBOX"
abbreviated 2 --js --json image ls --js
abbreviated 2 --hel --help image inspect --hel busybox
abbreviated 2 --hel --help image rm --hel busybox
abbreviated 2 --hel --help image unpack --hel busybox
abbreviated 2 --back --backend probe --back docker busybox
abbreviated 2 --js --json compare --js "$top_srcdir/tests/fixtures/recipe-artifact.json" "$top_srcdir/tests/fixtures/recipe-artifact.json"
abbreviated 2 --prof --profile seccomp-profile --prof /nonexistent
abbreviated 2 --hel --help sweep --hel
abbreviated 2 --bund --bundle create --bund "$TEST_TMP/bundle" c1
abbreviated 2 --hel --help start --hel c1
abbreviated 2 --hel --help state --hel c1
abbreviated 2 --al --all kill --al c1
abbreviated 2 --forc --force delete --forc c1
abbreviated 2 --form --format ps --form json c1
abbreviated 2 --hel --help pause --hel c1
abbreviated 2 --hel --help resume --hel c1
abbreviated 2 --memory-sw --memory-swap update --memory-sw 64m c1
abbreviated 2 --det --detach exec --det c1 true
abbreviated 2 --hel --help features --hel
abbreviated 2 --rootl --rootless spec --rootl --bundle "$TEST_TMP/bundle"
check "the refused spec wrote no config.json" test ! -e "$TEST_TMP/bundle/config.json"
# A prefix of two options is refused too, naming what was typed.
expect_exit 125 "run --cap (a prefix of --cap-add and --cap-drop) is refused" "$OCIRUN" run --cap ALL --dry-run "$BUSYBOX" true
grep -qF -- "unknown option '--cap'" "$TEST_TMP/err" && ok "the ambiguous prefix is named" || not_ok "the ambiguous prefix is named"
expect_exit 2 "kill --all=1: a value for an option that takes none" "$OCIRUN" kill --all=1 c1
grep -qF -- "option '--all' takes no value" "$TEST_TMP/err" && ok "the unexpected value is named" || not_ok "the unexpected value is named"
# The full names are still taken: each command gets past its options (its
# exit is then the operation's, not a usage error's).
expect_exit 0 "run takes --pids-limit, --timeout, --entrypoint, --interactive, --read-only, --dry-run" \
  "$OCIRUN" run --pids-limit 5 --timeout 5 --entrypoint '' --interactive --read-only --dry-run "$BUSYBOX" true
grep -q '"limit":	5' "$TEST_TMP/out" && ok "--pids-limit 5 is the pids limit of the plan" || { not_ok "--pids-limit 5 is the pids limit of the plan"; show; }
expect_exit 0 "run takes --unsafe-no-cgroup" "$OCIRUN" run --unsafe-no-cgroup --dry-run "$BUSYBOX" true
expect_exit 0 "the global --root and --log-format are taken" "$OCIRUN" --root "$TEST_TMP/root" --log-format text image ls
expect_exit 0 "image import takes --name" "$OCIRUN" image import --name full:1 "$BUSYBOX"
expect_exit 0 "image ls takes --json" "$OCIRUN" image ls --json
for sub in inspect rm unpack; do expect_exit 0 "image $sub takes --help" "$OCIRUN" image "$sub" --help; done
expect_exit 3 "probe takes --backend and --timeout (then finds no cgroup v2 here)" "$OCIRUN" probe --backend direct --timeout 5 busybox
expect_exit 0 "compare takes --json" "$OCIRUN" compare --json "$top_srcdir/tests/fixtures/recipe-artifact.json" "$top_srcdir/tests/fixtures/recipe-artifact.json"
expect_exit 1 "seccomp-profile takes --profile (then cannot open it)" "$OCIRUN" seccomp-profile --profile /nonexistent
expect_exit 0 "sweep takes --help" "$OCIRUN" sweep --help
expect_exit 1 "create takes --bundle (then finds no config.json)" "$OCIRUN" create --bundle "$TEST_TMP/bundle" c1
for verb in start state pause resume features; do expect_exit 0 "$verb takes --help" "$OCIRUN" "$verb" --help; done
expect_exit 1 "kill takes --all (then finds no c1)" "$OCIRUN" kill --all c1
expect_exit 0 "delete takes --force (c1 is gone already)" "$OCIRUN" delete --force c1
expect_exit 1 "ps takes --format (then finds no c1)" "$OCIRUN" ps --format json c1
expect_exit 1 "update takes --memory and --memory-swap (then finds no c1)" "$OCIRUN" update --memory 64m --memory-swap 64m c1
expect_exit 1 "exec takes --detach (then finds no c1)" "$OCIRUN" exec --detach c1 true
expect_exit 0 "spec takes --rootless and --bundle" "$OCIRUN" spec --rootless --bundle "$TEST_TMP/bundle"
tap_done
