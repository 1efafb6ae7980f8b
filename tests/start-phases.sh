#!/bin/bash
# The start-up breakdown (scripts/bench-start reads it): with --debug
# --log-format json, `ocirun run` emits a phase event at each stage of a
# start, the child's own (mount plan and pivot_root, command lookup,
# seccomp load: its CLOCK_MONOTONIC, sent on the report pipe) among the
# parent's, in the order they happen; without --debug, none. Host runs,
# with --unsafe-no-cgroup; create, whose parent reads the child's reports
# itself, gets no phase of the child's.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "start-phases"

run_json() { "$OCIRUN" --log-format json "$@"; }

# phases: the names of the phase events in the last stderr, on one line,
# then "backwards" if a phase's time is before the one printed above it.
phases() {
  python3 - "$TEST_TMP/err" <<'PY'
import json, sys
names, times = [], []
for line in open(sys.argv[1], errors="replace"):
    try:
        event = json.loads(line)
    except ValueError:
        continue
    if isinstance(event, dict) and event.get("event") == "phase":
        names.append(event["what"])
        times.append(event["monotonic_ns"])
print(" ".join(names))
if any(b < a for a, b in zip(times, times[1:])):
    print("backwards")
PY
}

ALL="begin image unpack-cache configuration plan slice spawned mounts command seccomp exec exited teardown"

expect_exit 0 "--debug --log-format json run" run_json --debug run --unsafe-no-cgroup busybox:latest true
got=$(phases)
[ "$got" = "$ALL" ] && ok "every phase, the child's (mounts, command, seccomp) between spawned and exec, in order" ||
  { not_ok "every phase, the child's (mounts, command, seccomp) between spawned and exec, in order"; echo "# got: $got"; }

# The same with a user switch and no-new-privileges off: the filter goes
# in before the user switch, the seccomp phase still ends the confinement.
expect_exit 0 "--debug run --user 1000 --security-opt no-new-privileges=false" \
  run_json --debug run --unsafe-no-cgroup --user 1000 --security-opt no-new-privileges=false \
  busybox:latest true
got=$(phases)
[ "$got" = "$ALL" ] && ok "... the same phases in order" ||
  { not_ok "... the same phases in order"; echo "# got: $got"; }

expect_exit 0 "--debug run --security-opt seccomp=unconfined" \
  run_json --debug run --unsafe-no-cgroup --security-opt seccomp=unconfined busybox:latest true
got=$(phases)
[ "$got" = "$ALL" ] && ok "... the same phases without a filter" ||
  { not_ok "... the same phases without a filter"; echo "# got: $got"; }

# A failure after the child's first phases: its report still reaches the
# parent behind them.
expect_exit 127 "--debug run of a missing command exits 127" \
  run_json --debug run --unsafe-no-cgroup busybox:latest no-such-command
err_has_literal "no-such-command" && ok "... naming the command" || not_ok "... naming the command"
got=$(phases)
[ "$got" = "begin image unpack-cache configuration plan slice spawned mounts exited teardown" ] &&
  ok "... its phases end at the mounts, no exec" || { not_ok "... its phases end at the mounts, no exec"; echo "# got: $got"; }

expect_exit 0 "--log-format json run without --debug" run_json run --unsafe-no-cgroup busybox:latest true
got=$(phases)
[ -z "$got" ] && ok "... no phase event" || { not_ok "... no phase event"; echo "# got: $got"; }

CB=$TEST_TMP/create-bundle
check "a busybox bundle" oci_bundle "$CB" busybox 'c["process"]["args"] = ["true"]; del c["linux"]["resources"]'
ROOT=$TEST_TMP/oci-root
expect_exit 0 "--debug --log-format json create" \
  with_pipes "$OCIRUN" --root "$ROOT" --debug --log-format json create --unsafe-no-cgroup --bundle "$CB" p1
check "... the container is created" test "$(status_of p1)" = created
got=$(phases)
case " $got " in
*" mounts "* | *" seccomp "*) not_ok "... no phase of the child's"; echo "# got: $got" ;;
*) ok "... no phase of the child's" ;;
esac
expect_exit 0 "start" "$OCIRUN" --root "$ROOT" start p1
expect_exit 0 "delete --force" "$OCIRUN" --root "$ROOT" delete --force p1
pipes_drained

check "nothing left" nothing_left
tap_done
