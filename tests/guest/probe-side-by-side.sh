#!/bin/bash
# Runs INSIDE the cgroup v2 guest (tests/guest.sh): ocirun probe against a
# Docker engine and against ocirun's own runtime, on the same image ID loaded
# from the same OCI layout; both artifacts validate against the schema and
# `ocirun compare` finds the recipe's observations equal, and the host's own
# observation (host_observed) equals the probe's. Also: an image whose python
# lies fails on both backends, a hostile probe output (a key given twice,
# invalid UTF-8) is refused on both backends while the same object without
# the defect passes, a failed check (no --read-only, direct), a hang killed at
# the deadline on both backends, and a stopped engine. Prints TAP lines
# without numbers; exits 0. Takes about 12 minutes under TCG on a machine
# loaded with other guests (dockerd's image load and its container starts
# dominate).
set -u
: "${OCIRUN:?}" "${top_srcdir:?}" "${TEST_IMAGES:?}"

work=$(mktemp -d /tmp/probe-side-by-side.XXXXXX)
export OCIRUN_ROOT=$work/root
export DOCKER_HOST=unix://$work/docker.sock
schema=$top_srcdir/docs/artifact.schema.json
dockerd_pid=

cleanup() {
  if [ -n "$dockerd_pid" ]; then
    kill "$dockerd_pid" 2>/dev/null
    wait "$dockerd_pid" 2>/dev/null
  fi
  umount -R "$work/docker-exec" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
show() { sed 's/^/# /' "$1" | tail -"${2:-15}"; }
# run_probe EXPECTED-EXIT NAME ARGS...: ocirun probe -q -o $work/NAME.json ARGS...
run_probe() {
  local want=$1 name=$2 got
  shift 2
  "$OCIRUN" probe -q -o "$work/$name.json" "$@" >"$work/$name.out" 2>"$work/$name.err"
  got=$?
  if [ "$got" -eq "$want" ]; then ok "$name: ocirun probe $* exits $want"; else
    not_ok "$name: ocirun probe $* exits $want (got $got)"
    show "$work/$name.err"
  fi
}
# json_true NAME EXPR DESCRIPTION: a Python expression over `a`, $work/NAME.json.
json_true() {
  if python3 -c 'import json, sys; a = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
    "$work/$1.json" "$2" 2>"$work/json-err"; then ok "$1: $3"; else
    not_ok "$1: $3"
    show "$work/json-err" 3
  fi
}
check_name() { echo "[c for c in a['checks'] if c['name'] == '$1'][0]"; }
validate() {
  if [ -x "$top_srcdir/scripts/validate-artifact" ]; then
    "$top_srcdir/scripts/validate-artifact" "$schema" "$@"
  else
    python3 -c 'import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
for f in sys.argv[2:]: jsonschema.validate(json.load(open(f)), s)' "$schema" "$@"
  fi
}
no_probe_containers() {
  [ -z "$(docker ps -a --filter name=ocirun-probe- --format '{{.Names}}' 2>&1)" ]
}

if [ ! -d "$TEST_IMAGES/python" ]; then
  not_ok "the python test image is missing ($TEST_IMAGES/python): build it on the host first"
  exit 0
fi

# --- a private Docker engine (machine-notes.md's flags, but overlay2: vfs
# copies the whole python rootfs for every container, minutes under TCG) ---
dockerd --iptables=false --bridge=none --ip-forward=false --storage-driver=overlay2 \
  --data-root "$work/docker" --exec-root "$work/docker-exec" --pidfile "$work/docker.pid" \
  -H "$DOCKER_HOST" >"$work/dockerd.log" 2>&1 &
dockerd_pid=$!
for _ in $(seq 1 600); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
if [ "$(docker info --format '{{.CgroupVersion}}' 2>/dev/null)" = 2 ]; then
  ok "dockerd answers and reports cgroup v2"
else
  not_ok "dockerd answers and reports cgroup v2"
  show "$work/dockerd.log"
  exit 0
fi

# --- the same OCI layout into both ---
if skopeo copy --quiet --dest-daemon-host "$DOCKER_HOST" \
  "oci:$TEST_IMAGES/python:python:3.13-slim" docker-daemon:python:3.13-slim >"$work/skopeo.log" 2>&1; then
  ok "skopeo loads the python image into dockerd"
else
  not_ok "skopeo loads the python image into dockerd"
  show "$work/skopeo.log"
fi
docker image inspect python:3.13-slim >/dev/null 2>&1 && ok "dockerd has python:3.13-slim" ||
  { not_ok "dockerd has python:3.13-slim"; show "$work/dockerd.log"; }
"$OCIRUN" image import "oci:$TEST_IMAGES/python:python:3.13-slim" >"$work/import.log" 2>&1 ||
  { not_ok "ocirun image import"; show "$work/import.log"; }
docker_id=$(docker image inspect --format '{{.Id}}' python:3.13-slim 2>/dev/null)
direct_id=$("$OCIRUN" image inspect python:3.13-slim 2>/dev/null |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["Id"])' 2>/dev/null)
if [ -n "$docker_id" ] && [ "$docker_id" = "$direct_id" ]; then
  ok "the image ID (config digest) is the same in dockerd and in ocirun's store"
else
  not_ok "the image ID is the same in dockerd ($docker_id) and in ocirun's store ($direct_id)"
fi

# --- side by side: both pass, validate, and compare equal ---
# Under emulation (and other guests sharing the CPUs) dockerd can take more
# than the recipe's 30 s to start a container: a generous deadline here, the
# deadline itself is tested by the hang below.
slow=(--timeout 900)
echo "# ${SECONDS}s: image loaded into both"
run_probe 0 docker --backend docker "${slow[@]}" python:3.13-slim
run_probe 0 direct --backend direct "${slow[@]}" "$docker_id"
for name in docker direct; do
  json_true $name "a['passed'] is True and a['failed_checks'] == [] and a['teardown_verified'] is True" \
    "every check passed and teardown verified"
  json_true $name "a['image_id'] == '$docker_id'" "the artifact names the shared image ID"
  json_true $name "a['backend'] == '$name' and a['engine']['cgroup_version'] == 2" "backend and cgroup v2 recorded"
  if validate "$work/$name.json" >"$work/validate-$name.log" 2>&1; then
    ok "$name: the artifact validates against docs/artifact.schema.json"
  else
    not_ok "$name: the artifact validates against docs/artifact.schema.json"
    show "$work/validate-$name.log"
  fi
done
json_true docker "a['docker_server'] == '$(docker version --format '{{.Server.Version}}')' and a['engine_argv'][:3] == ['docker', 'create', '--interactive'] and a['engine_argv'][3:-3] == a['flags']" \
  "docker_server is the engine's version; the flags are the argv docker create received"
json_true direct "a['docker_server'] is None and a['engine']['name'] == 'ocirun-direct'" "no docker server for the direct backend"
if "$OCIRUN" compare "$work/docker.json" "$work/direct.json" >"$work/compare.out" 2>&1; then
  ok "ocirun compare finds the recipe's observations equal (exit 0)"
else
  not_ok "ocirun compare finds the recipe's observations equal (exit $?)"
  show "$work/compare.out" 40
fi
no_probe_containers && ok "no probe container left in dockerd" || not_ok "no probe container left in dockerd"

# --- the second observer: the host saw what the probe saw ---
json_true docker "a['host_observed']['observer'] == 'docker inspect and procfs' and a['host_observed']['missing'] is None and $(check_name host_observed)['passed']" \
  "host_observed was made from /proc/<State.Pid> (a local engine)"
json_true direct "a['host_observed']['observer'] == 'procfs' and a['host_observed']['missing'] is None and $(check_name host_observed)['passed']" \
  "host_observed was made from /proc/<pid> at exec"
for name in docker direct; do
  json_true $name "all(a['host_observed'][k] == a['observed'][k] for k in a['observed']) and not any('disagreement' in c for c in a['checks'])" \
    "host_observed equals observed, key by key (cgroup files included)"
  json_true $name "a['host_observed']['cgroup_v2'] == {'memory.max': '134217728', 'pids.max': '32', 'cpu.max': '50000 100000'} and a['host_observed']['uid'] == 65534 and a['host_observed']['capabilities'] == 0 and a['host_observed']['network_interfaces'] == ['lo']" \
    "the host read the slice's limits, uid 65534, no capabilities, loopback only"
done
json_true docker "a['host_observed']['engine_config']['Memory'] == 134217728 and a['host_observed']['engine_config']['ReadonlyRootfs'] is True and a['host_observed']['engine_config']['NetworkMode'] == 'none'" \
  "the engine's own word is recorded beside it (engine_config)"

# --- an image whose python lies (a script printing the passing object),
# run without --user and --read-only: it must fail on both backends ---
if python3 -B "$top_srcdir/scripts/images/make-liar.py" "$TEST_IMAGES/busybox" "$work/liar" >"$work/liar.log" 2>&1 &&
  skopeo copy --quiet --dest-daemon-host "$DOCKER_HOST" "oci:$work/liar:liar:wait" docker-daemon:liar:wait >>"$work/liar.log" 2>&1 &&
  "$OCIRUN" image import "oci:$work/liar:liar:wait" >>"$work/liar.log" 2>&1; then
  ok "the lying image is in dockerd and in ocirun's store"
else
  not_ok "the lying image is in dockerd and in ocirun's store"
  show "$work/liar.log"
fi
for backend in docker direct; do
  run_probe 1 "$backend-liar" --backend "$backend" "${slow[@]}" --debug-drop-flag --user \
    --debug-drop-flag --read-only liar:wait
  json_true "$backend-liar" "a['observed']['uid'] == 65534 and a['observed']['root_read_only'] is True and $(check_name uid)['seen'] == $(check_name uid)['expected']" \
    "positive control: observed is the forged passing object"
  json_true "$backend-liar" "$(check_name uid)['disagreement'] == 'uid: container says 65534, host saw 0' and $(check_name root_read_only)['disagreement'] == 'root_read_only: container says true, host saw false'" \
    "uid and root_read_only fail, naming both values"
  grep -Fq "check failed: uid: container says 65534, host saw 0" "$work/$backend-liar.err" &&
    ok "$backend-liar: stderr names the disagreement" || { not_ok "$backend-liar: stderr names the disagreement"; show "$work/$backend-liar.err"; }
done
no_probe_containers && ok "no probe container left after the liar" || not_ok "no probe container left after the liar"

# --- a hostile probe output under the whole recipe: the forged object, true
# here (the host agrees), passes; with a key given twice or invalid UTF-8 it
# is refused by the one parser both backends' output goes through ---
for case in clean duplicate utf8-value; do
  skopeo copy --quiet --dest-daemon-host "$DOCKER_HOST" "oci:$work/liar:liar:$case" \
    "docker-daemon:liar:$case" >>"$work/liar.log" 2>&1 &&
    "$OCIRUN" image import "oci:$work/liar:liar:$case" >>"$work/liar.log" 2>&1 ||
    { not_ok "liar:$case is in dockerd and in ocirun's store"; show "$work/liar.log"; }
done
for backend in docker direct; do
  run_probe 0 "$backend-clean" --backend "$backend" "${slow[@]}" liar:clean
  json_true "$backend-clean" "a['passed'] is True and a['observed_extra']['masked_paths']['/proc/kcore'] == 'masked'" \
    "control: the forged object without a defect is read, and passes"
  for case in duplicate utf8-value; do
    run_probe 1 "$backend-$case" --backend "$backend" "${slow[@]}" "liar:$case"
    json_true "$backend-$case" "a['passed'] is False and 'probe_output' in a['failed_checks'] and a['observed']['uid'] is None and a['observed_extra'] == {}" \
      "the output is refused: the probe fails and nothing of it is kept"
    if "$OCIRUN" compare --json "$work/$backend-$case.json" "$work/$backend-$case.json" >"$work/$backend-$case.cmp" 2>&1 &&
      python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["differences"] != [])' "$work/$backend-$case.cmp"; then
      ok "$backend-$case: compare of the artifact with itself finds no difference"
    else
      not_ok "$backend-$case: compare of the artifact with itself finds no difference"
      show "$work/$backend-$case.cmp"
    fi
  done
  json_true "$backend-duplicate" "\"the key '/proc/kcore' is given twice\" in $(check_name probe_output)['seen']" \
    "the key given twice is named"
  json_true "$backend-utf8-value" "'invalid UTF-8' in $(check_name probe_output)['seen']" "invalid UTF-8 is named"
done
no_probe_containers && ok "no probe container left after the hostile outputs" ||
  not_ok "no probe container left after the hostile outputs"

# --- a failed check: the recipe without --read-only (the verdict is the same
# host-side code for both backends; one docker container less under TCG) ---
for backend in direct; do
  run_probe 1 "$backend-no-ro" --backend "$backend" "${slow[@]}" --debug-drop-flag --read-only python:3.13-slim
  json_true "$backend-no-ro" "'root_read_only' in a['failed_checks'] and $(check_name root_read_only)['seen'] is False and a['observed']['root_read_only'] is False" \
    "the artifact names the failed check root_read_only and what was seen"
  json_true "$backend-no-ro" "a['probe_exit_code'] == 1 and a['teardown_verified'] is True and '--read-only' not in a['flags']" \
    "the probe exited 1, teardown verified, the flags are the ones used"
  grep -Fq "check root_read_only failed: expected true, seen false" "$work/$backend-no-ro.err" &&
    ok "$backend-no-ro: stderr names the failed check" || not_ok "$backend-no-ro: stderr names the failed check"
done

# --- a hang: killed at the deadline, teardown verified ---
for backend in docker direct; do
  start=$(date +%s)
  run_probe 1 "$backend-hang" --backend "$backend" --timeout 5 --debug-env OCIRUN_PROBE_DEBUG_SLEEP=600 python:3.13-slim
  elapsed=$(($(date +%s) - start))
  json_true "$backend-hang" "$(check_name probe_exit)['seen'] == 'killed at the 5 s deadline' and a['teardown_verified'] is True" \
    "killed at the deadline with teardown verified (${elapsed}s in all)"
done
# --- SIGTERM to ocirun while dockerd runs the probe: still torn down ---
"$OCIRUN" probe -q -o "$work/docker-term.json" --backend docker "${slow[@]}" \
  --debug-env OCIRUN_PROBE_DEBUG_SLEEP=600 python:3.13-slim >"$work/docker-term.err" 2>&1 &
probe_pid=$!
for _ in $(seq 1 600); do
  [ -n "$(docker ps --filter name=ocirun-probe- --filter status=running --format '{{.Names}}' 2>/dev/null)" ] && break
  sleep 0.5
done
kill -TERM "$probe_pid"
wait "$probe_pid"
status=$?
[ "$status" -eq 1 ] && ok "docker-term: SIGTERM during the run: exit 1" ||
  { not_ok "docker-term: SIGTERM during the run: exit 1 (got $status)"; show "$work/docker-term.err"; }
json_true docker-term "a['error'].startswith('interrupted') and a['teardown_verified'] is True" \
  "the artifact records the interruption and a verified teardown"
no_probe_containers && ok "no probe container left after the failures" || not_ok "no probe container left after the failures"
if ls -d /sys/fs/cgroup/ocirun/ocirun-probe-* >/dev/null 2>&1; then
  not_ok "no probe cgroup left: $(ls -d /sys/fs/cgroup/ocirun/ocirun-probe-*)"
else ok "no probe cgroup left"; fi

echo "# ${SECONDS}s: failures done"
# --- the engine stopped: unsupported ---
kill "$dockerd_pid"
wait "$dockerd_pid" 2>/dev/null
dockerd_pid=
run_probe 3 stopped --backend docker python:3.13-slim
grep -Fq "unsupported: no reachable Docker engine" "$work/stopped.err" &&
  ok "stopped engine: the reason is given" || { not_ok "stopped engine: the reason is given"; show "$work/stopped.err"; }
exit 0
