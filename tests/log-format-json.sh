#!/bin/bash
# --log-format json covers every verb, not only the OCI ones: with it,
# everything ocirun itself writes on stderr for `run`, `image`, `probe` and
# `sweep` (warnings, refusals, errors, a sweep's report of what it found) is
# one JSON object per line, each with its level and message; the text form
# of the same commands is the positive control (it prints lines the check
# rejects). A workload's own stderr is its own and is not checked: the
# commands here run workloads that write nothing to stderr.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "log-format-json"

# json_only: every non-empty line of the last stderr is a JSON object with
# a "level" and a "msg"; at least one line (a check of nothing passes).
json_only() {
  python3 - "$TEST_TMP/err" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1], errors="replace").read().split("\n") if l]
if not lines:
    sys.exit("no line at all")
for line in lines:
    event = json.loads(line)
    if not isinstance(event, dict) or "level" not in event or "msg" not in event:
        sys.exit("not an event: " + line)
PY
}
# text_seen: the last stderr has a line that is not JSON (the control).
text_seen() { ! json_only 2>/dev/null && [ -s "$TEST_TMP/err" ]; }

both() { # both DESCRIPTION CODE ARGS...: text form, then json form
  local what=$1 code=$2
  shift 2
  expect_exit "$code" "$what (text)" "$OCIRUN" "$@"
  check "... its stderr is text lines (the control)" text_seen
  expect_exit "$code" "$what (json)" "$OCIRUN" --log-format json "$@"
  check "... its stderr is only JSON lines" json_only || show
}

both "run with --unsafe-no-cgroup: a warning" 0 run --unsafe-no-cgroup busybox:latest true
both "run of an image that is not there" 125 run --unsafe-no-cgroup no-such-image:1 true
both "run of a command that is not there" 127 run --unsafe-no-cgroup busybox:latest /no/such/command
both "run with a bad --memory" 125 run --memory lots busybox:latest true
both "image import of a path that is not there" 1 image import "oci:$TEST_TMP/none:x:1"
both "image rm of an image that is not there" 1 image rm no-such-image:1
both "probe of an image that is not there" 125 probe --unsafe-no-cgroup -o "$TEST_TMP/a.json" no-such-image:1

# sweep: a dead runner's record (a result line as it is removed: on stdout
# as text, an event on stderr as JSON) and a record that is not JSON (a
# warning)
state=$OCIRUN_ROOT/run
mkdir -p "$state"
sweep_records() {
  sleep 0 &
  local dead=$!
  wait "$dead"
  mkdir -p "$state/gone-$1"
  echo "{\"name\":\"gone-$1\",\"owner_pid\":$dead,\"owner_start_time\":1,\"run_dir\":\"$state/gone-$1\"}" \
    >"$state/gone-$1.json"
  echo 'not json' >"$state/garbage-$1.json"
}
sweep_records text
expect_exit 0 "sweep of a dead runner's record and a garbage one (text)" "$OCIRUN" sweep
check "... it was swept" out_matches "^swept gone-text"
check "... its stderr is text lines (the control)" text_seen || show
sweep_records json
expect_exit 0 "sweep of a dead runner's record and a garbage one (json)" "$OCIRUN" --log-format json sweep
check "... it was swept, said as a result event" err_matches '"event":"result","what":"swept","subject":"gone-json"'
check "... its stderr is only JSON lines" json_only || show
tap_done
