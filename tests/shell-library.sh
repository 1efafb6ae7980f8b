#!/bin/bash
# tests/lib.sh itself: each reader's name says how it matches, and the
# bundle maker, the run and process helpers do what their comments say.
# No root; the busybox bundle needs the test image.
. "$top_srcdir/tests/lib.sh"

# ---- how the output readers match ----
printf 'abc\nwhole line\nx+y\n' >"$TEST_TMP/out"
printf 'Error: A(1)\n' >"$TEST_TMP/err"
check "out_has_literal finds fixed text with a regex character in it" out_has_literal "x+y"
check "out_has_literal: '.' is a dot, not any character" eval '! out_has_literal "a.c"'
check "out_matches: an extended regular expression ('a.c' finds abc)" out_matches "a.c"
check "out_matches: '+' repeats (x+y does not find the text x+y)" eval '! out_matches "x+y"'
check "out_has_line: a whole line" out_has_line "whole line"
check "out_has_line: part of a line is not a line" eval '! out_has_line "whole"'
check "err_has_literal: parentheses are themselves" err_has_literal "A(1)"
check "err_matches: parentheses group (A(1) does not find the text A(1))" eval '! err_matches "A(1)"'
check "err_matches: anchors and escapes" err_matches '^Error: A\(1\)$'

# ---- the bundle maker ----
json_of() { python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
B=$TEST_TMP/bundle
check "oci_bundle with a shared rootfs and arguments" \
  oci_bundle "$B" /shared/rootfs 'c["test"] = args; c["caps"] = len(DOCKER_CAPS)' one two
check "... root.path is the shared rootfs, used where it is" \
  test "$(json_of "$B/config.json" 'c["root"]["path"]')" = /shared/rootfs -a ! -e "$B/rootfs"
check "... PYTHON ran on the document with the ARGs and Docker's 14 capabilities" \
  test "$(json_of "$B/config.json" '(c["test"], c["caps"])')" = "(['one', 'two'], 14)"
touch "$B/stale"
oci_bundle "$B" /shared/rootfs
check "... made afresh: a second call leaves nothing of the first" \
  test ! -e "$B/stale" -a "$(json_of "$B/config.json" '"test" in c')" = False
if [ -f "$TEST_IMAGES/busybox/index.json" ]; then
  check "sleeper_bundle: busybox's own copy" sleeper_bundle "$B" 'c["extra"] = 1'
  check "... its rootfs is busybox's, at DIR/rootfs" \
    test -e "$B/rootfs/bin/busybox" -a "$(json_of "$B/config.json" 'c["root"]')" = "{'path': 'rootfs', 'readonly': False}"
  check "... sleep 1000, no terminal, no linux.resources, then PYTHON" \
    test "$(json_of "$B/config.json" '(c["process"]["args"], c["process"]["terminal"], "resources" in c["linux"], c["extra"])')" = "(['sleep', '1000'], False, False, 1)"
else
  skip "sleeper_bundle: the busybox test image is not built ($TEST_IMAGES)"
fi

# ---- containers, runs and processes ----
check "status_of a container that does not exist: nothing" test -z "$(status_of no-such)"
check "container_gone: no such container" container_gone no-such
check "start_time: field 22 of /proc/PID/stat" \
  test "$(start_time $$)" = "$(python3 -c 'import sys; print(open("/proc/%s/stat" % sys.argv[1]).read().rsplit(")", 1)[1].split()[19])' $$)"
sleep 0 &
dead=$!
wait $dead
check "process_gone: an ended process" process_gone $dead
S=$TEST_TMP/store
mkdir -p "$S/run"
check "nothing_left: an empty run folder" nothing_left "$S"
touch "$S/run/x.json"
check "nothing_left: a record is something left" eval '! nothing_left "$S"'
check "run_leftovers names it" test "$(run_leftovers "$S")" = x.json
check "left_behind: ok when the three lists are empty" \
  test "$(left_behind what "" "" "")" = "ok $((tap_n + 1)) - what: nothing left behind"
check "left_behind: not ok naming what is left" \
  test "$(left_behind what "" "x.json" "")" = "not ok $((tap_n + 1)) - what: nothing left behind (slices: none; run state: x.json; processes: none)"
tap_done
