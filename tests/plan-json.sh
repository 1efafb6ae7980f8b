#!/bin/bash
# The plan as --dry-run prints it, as text and (ocirun --log-format json) as
# one JSON object on stdout: the two say the same (tests/helpers/plan-compare.py
# holds every field of one against the other), and a change of flag shows in
# both. Nothing is created. Uses the busybox test image.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "plan-json"

compare="$top_srcdir/tests/helpers/plan-compare.py"
# plan_of NAME FLAGS...: the text form in $TEST_TMP/NAME.text, the JSON form
# in NAME.json (and its stderr in NAME.err), both of one dry run's flags.
plan_of() {
  local name=$1
  shift
  "$OCIRUN" run --dry-run --name planned "$@" busybox:latest echo hi >"$TEST_TMP/$name.text" 2>/dev/null &&
    "$OCIRUN" --log-format json run --dry-run --name planned "$@" busybox:latest echo hi \
      >"$TEST_TMP/$name.json" 2>"$TEST_TMP/$name.err"
}
# same NAME_TEXT NAME_JSON: whether the text of one and the JSON of the other agree.
same() { python3 "$compare" "$TEST_TMP/$1.text" "$TEST_TMP/$2.json" >"$TEST_TMP/diff"; }

check "--dry-run, as text and as JSON" plan_of first --memory 64m --pids-limit 32 --cap-drop ALL \
  --cap-add NET_RAW -e FOO=bar --tmpfs /t:size=1m --read-only --timeout 7
check "the JSON form is one valid JSON object on one line" python3 -c '
import json, sys
text = open(sys.argv[1]).read()
assert text.count("\n") == 1 and isinstance(json.loads(text), dict)' "$TEST_TMP/first.json"
check "its stderr carries JSON lines only" python3 -c '
import json, sys
for line in open(sys.argv[1]):
    json.loads(line)' "$TEST_TMP/first.err"
same first first && ok "every field of the JSON form matches the text form" ||
  not_ok "every field of the JSON form matches the text form ($(head -3 "$TEST_TMP/diff"))"
check "the plan's memory.max is 64m in the JSON form" python3 -c '
import json, sys
plan = json.load(open(sys.argv[1]))["plan"]
assert {"file": "memory.max", "value": "67108864"} in plan["cgroup"]["files"]
assert plan["capabilities"]["bounding"] == ["NET_RAW"]
assert {"name": "FOO", "value": "bar"} in plan["env"] and plan["argv"] == ["echo", "hi"]
assert plan["timeout_seconds"] == 7 and plan["devices"]["program"] is True' "$TEST_TMP/first.json"

# Another --memory and --cap-add: both forms change, and the comparison,
# which agreed above, now sees the first text disagree with the new JSON.
check "--dry-run with another --memory and --cap-add" plan_of second --memory 128m --pids-limit 32 \
  --cap-drop ALL --cap-add CHOWN -e FOO=bar --tmpfs /t:size=1m --read-only --timeout 7
same second second && ok "the second plan's two forms agree" ||
  not_ok "the second plan's two forms agree ($(head -3 "$TEST_TMP/diff"))"
grep -qxF "  memory.max: 134217728" "$TEST_TMP/second.text" && grep -qE "^  bounding +CHOWN$" "$TEST_TMP/second.text" &&
  ok "the text form shows the new memory.max and capability" ||
  not_ok "the text form shows the new memory.max and capability"
check "so does the JSON form" python3 -c '
import json, sys
plan = json.load(open(sys.argv[1]))["plan"]
assert {"file": "memory.max", "value": "134217728"} in plan["cgroup"]["files"]
assert plan["capabilities"]["bounding"] == ["CHOWN"]' "$TEST_TMP/second.json"
! same first second && grep -q "^cgroup files" "$TEST_TMP/diff" && grep -q "^capabilities bounding" "$TEST_TMP/diff" &&
  ok "the comparison sees the change (the first text against the second JSON)" ||
  not_ok "the comparison sees the change (the first text against the second JSON)"

# Without a slice: no cgroup and no device program, in both forms.
check "--dry-run --unsafe-no-cgroup" plan_of unsliced --unsafe-no-cgroup
same unsliced unsliced && ok "--unsafe-no-cgroup: the two forms agree" ||
  not_ok "--unsafe-no-cgroup: the two forms agree ($(head -3 "$TEST_TMP/diff"))"
check "--unsafe-no-cgroup: cgroup null, no device program" python3 -c '
import json, sys
plan = json.load(open(sys.argv[1]))["plan"]
assert plan["cgroup"] is None and plan["devices"] == {"program": False, "without": "--unsafe-no-cgroup"}' \
  "$TEST_TMP/unsliced.json"

check "a dry run creates nothing" nothing_left

tap_done
