#!/bin/bash
# ocirun probe on the host (hybrid cgroups: no cgroup v2 controllers): the
# docker backend against no engine and against a cgroup v1 engine is
# "unsupported" and leaves nothing (and `ocirun sweep` removes a dead probe's
# container from that engine, keeping its record while it is down); the
# direct backend is "unsupported" unless --unsafe-no-cgroup, which runs the
# real probe in the python image and gives a complete artifact that fails;
# -o is atomic; a failed check and a hang are named in the artifact; the host
# observer sees what a genuine probe sees, and an image whose python prints a
# passing observation fails, naming both values. The passing side-by-side run
# is tests/guest/.
. "$top_srcdir/tests/lib.sh"

schema="$top_srcdir/docs/artifact.schema.json"
validate="$top_srcdir/scripts/validate-artifact"

# json_true FILE EXPR DESCRIPTION: a Python expression over `a`, FILE parsed as JSON.
json_true() {
  if python3 -c 'import json, sys; a = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
    "$1" "$2" 2>"$TEST_TMP/json-err"; then ok "$3"; else
    not_ok "$3"
    sed 's/^/# /' "$TEST_TMP/json-err" | tail -3
  fi
}
check_name() { echo "[c for c in a['checks'] if c['name'] == '$1'][0]"; }
valid_artifact() {
  if [ -f "$schema" ] && [ -x "$validate" ]; then
    if "$validate" "$schema" "$1" >"$TEST_TMP/validate" 2>&1; then ok "$2"; else
      not_ok "$2"
      sed 's/^/# /' "$TEST_TMP/validate" | head -10
    fi
  else skip "$2: no schema yet"; fi
}

# --- the command line ---
expect_exit 0 "probe --help exits 0" "$OCIRUN" probe --help
grep -q -- '--backend direct|docker' "$TEST_TMP/out" && ok "--help documents --backend" || not_ok "--help documents --backend"
expect_exit 2 "probe without IMAGE is a usage error" "$OCIRUN" probe
expect_exit 2 "an unknown backend is a usage error" "$OCIRUN" probe --backend podman img
expect_exit 2 "--unsafe-no-cgroup with the docker backend is refused" \
  "$OCIRUN" probe --backend docker --unsafe-no-cgroup img
expect_exit 2 "a non-numeric --timeout is refused" "$OCIRUN" probe --timeout soon img

# --- the probe program by itself, on the (unconfined) host ---
mkdir -p "$TEST_TMP/nojson/json"
echo 'raise ImportError("the probe must not need json")' >"$TEST_TMP/nojson/json/__init__.py"
PYTHONPATH="$TEST_TMP/nojson" python3 - <"$top_srcdir/src/probe/probe.py" >"$TEST_TMP/host-probe.json" 2>"$TEST_TMP/host-probe.err"
status=$?
[ "$status" -eq 1 ] && ok "the probe exits 1 on the unconfined host" ||
  { not_ok "the probe exits 1 on the unconfined host (got $status)"; sed 's/^/# /' "$TEST_TMP/host-probe.err"; }
json_true "$TEST_TMP/host-probe.json" "list(a)[:7] == ['uid', 'cgroup_v2', 'root_read_only', 'owned_tmp_write', 'network_interfaces', 'no_new_privileges', 'capabilities'] and a['uid'] == $(id -u)" \
  "without the json module it prints the recipe's keys, then its extras"
json_true "$TEST_TMP/host-probe.json" "a['checks']['uid'] is False and a['checks']['owned_tmp_write'] is True and set(a['observed_extra']) >= {'seccomp_mode', 'cap_bnd', 'masked_paths', 'tmp_mount_options'}" \
  "its own per-check results are reported"

# --- docker backend, no engine: unsupported, nothing written ---
DOCKER_HOST="unix://$TEST_TMP/no-engine.sock" expect_exit 3 "docker backend without an engine exits 3" \
  "$OCIRUN" probe --backend docker -o "$TEST_TMP/none.json" python:3.13-slim
verdict "the reason names the missing engine" err_has_literal "unsupported: no reachable Docker engine"
[ ! -e "$TEST_TMP/none.json" ] && [ ! -s "$TEST_TMP/out" ] && ok "no artifact for an unsupported host" ||
  not_ok "no artifact for an unsupported host"

PATH=/nonexistent expect_exit 3 "docker backend without a docker CLI exits 3" \
  "$OCIRUN" probe --backend docker python:3.13-slim
verdict "the reason names the missing CLI" err_has_literal "unsupported: the docker CLI cannot be run"

# --- docker backend against this host's own engine (cgroup v1): unsupported ---
if command -v dockerd >/dev/null && command -v docker >/dev/null; then
  # A private engine: its own data root, exec root and socket under TEST_TMP.
  d=$TEST_TMP/dockerd
  mkdir -p "$d"
  export DOCKER_HOST="unix://$d/docker.sock"
  # start_dockerd: starts it (again) and waits until it answers.
  start_dockerd() {
    dockerd --iptables=false --bridge=none --ip-forward=false --storage-driver=vfs \
      --data-root "$d/data" --exec-root "$d/exec" --pidfile "$d/docker.pid" -H "$DOCKER_HOST" \
      >>"$d/log" 2>&1 &
    dockerd_pid=$!
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
  }
  trap 'kill $dockerd_pid 2>/dev/null; wait $dockerd_pid 2>/dev/null; umount -R "$d/exec" "$d/data" 2>/dev/null; rm -rf "$TEST_TMP"' EXIT
  start_dockerd
  # orphan_container: a container as a probe whose runner died leaves it,
  # with its run record (dead owner, this engine); prints its name.
  sleep 0 &
  dead_pid=$!
  wait "$dead_pid"
  orphan_container() {
    local name
    name=ocirun-probe-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
    docker create --name "$name" ocirun-sweep-test:1 /none >/dev/null 2>>"$d/create.err" || return 1
    mkdir -p "$OCIRUN_ROOT/run"
    echo "{\"name\":\"$name\",\"owner_pid\":$dead_pid,\"owner_start_time\":1,\"docker_container\":\"$name\",\"docker_host\":\"$DOCKER_HOST\"}" \
      >"$OCIRUN_ROOT/run/$name.json"
    echo "$name"
  }
  listed() { docker ps -a --filter "name=^$1\$" --format '{{.Names}}'; }
  if docker info >/dev/null 2>&1; then
    engine_cgroup=$(docker info --format '{{.CgroupVersion}}')
    if [ "$engine_cgroup" = 2 ]; then
      skip "this host's engine reports cgroup v2: the v1 case runs on hybrid hosts only"
    else
      expect_exit 3 "docker backend against a cgroup v$engine_cgroup engine exits 3" \
        "$OCIRUN" probe --backend docker python:3.13-slim
      verdict "the reason is the recipe's own" \
        err_has_literal "requires Linux containers with cgroup v2; this host is unsupported"
    fi
    left=$(docker ps -a --filter name=ocirun-probe- --format '{{.Names}}')
    [ -z "$left" ] && ok "no container left in the engine" || not_ok "no container left in the engine: $left"

    # sweep against a real engine: a dead probe's container is removed and
    # verified gone; with the engine stopped, the record is kept.
    mkdir -p "$TEST_TMP/empty-rootfs"
    tar -C "$TEST_TMP/empty-rootfs" -c . | docker import - ocirun-sweep-test:1 >/dev/null
    if orphan=$(orphan_container) && kept=$(orphan_container); then
      mv "$OCIRUN_ROOT/run/$kept.json" "$TEST_TMP/kept.json"
      expect_exit 0 "sweep with a dead probe's record" env -u DOCKER_HOST "$OCIRUN" sweep
      [ -z "$(listed "$orphan")" ] && [ -n "$(listed "$kept")" ] &&
        ok "its container is gone from the real engine (and only it)" ||
        not_ok "its container is gone from the real engine (and only it)"
      [ ! -e "$OCIRUN_ROOT/run/$orphan.json" ] && ok "its record is gone" || not_ok "its record is gone"
      mv "$TEST_TMP/kept.json" "$OCIRUN_ROOT/run/$kept.json"
    else
      not_ok "create containers in the private engine"
      sed 's/^/# /' "$d/create.err" | tail -5
    fi
  else
    not_ok "private dockerd did not answer"
    sed 's/^/# /' "$d/log" | tail -5
  fi
  kill "$dockerd_pid"
  wait "$dockerd_pid" 2>/dev/null
  unset DOCKER_HOST
  # The engine is gone: the same command now finds no engine.
  DOCKER_HOST="unix://$d/docker.sock" expect_exit 3 "docker backend against a stopped engine exits 3" \
    "$OCIRUN" probe --backend docker python:3.13-slim
  if [ -n "${kept:-}" ]; then
    expect_exit 1 "sweep with the engine stopped fails" "$OCIRUN" sweep
    grep -Fq "cannot reach the Docker engine at unix://$d/docker.sock to remove container $kept" "$TEST_TMP/err" &&
      ok "it names the container and the engine" || { not_ok "it names the container and the engine"; show; }
    [ -e "$OCIRUN_ROOT/run/$kept.json" ] && ok "the record is kept" || not_ok "the record is kept"
    export DOCKER_HOST="unix://$d/docker.sock"
    start_dockerd
    expect_exit 0 "once the engine is back, sweep finishes the job" env -u DOCKER_HOST "$OCIRUN" sweep
    [ -z "$(listed "$kept")" ] && [ ! -e "$OCIRUN_ROOT/run/$kept.json" ] &&
      ok "the container and its record are gone" || not_ok "the container and its record are gone"
    kill "$dockerd_pid"
    wait "$dockerd_pid" 2>/dev/null
    unset DOCKER_HOST
  fi
else
  skip "dockerd not installed"
fi

# --- direct backend on a host without cgroup v2 controllers ---
if [ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ]; then
  expect_exit 3 "direct backend on a hybrid host exits 3" "$OCIRUN" probe python:3.13-slim
  verdict "the reason names cgroup v2" err_has_literal "unsupported: cgroup v2"
else
  skip "host has cgroup v2: the unsupported case runs on hybrid hosts only"
fi

# --- direct backend with --unsafe-no-cgroup: the real probe, a failing artifact ---
"$top_srcdir/scripts/make-test-images" python "$TEST_IMAGES" >"$TEST_TMP/images.log" 2>&1 ||
  { sed 's/^/# /' "$TEST_TMP/images.log" | tail; }
expect_exit 0 "import the python test image" "$OCIRUN" image import "oci:$TEST_IMAGES/python:python:3.13-slim"
image_id=$("$OCIRUN" image inspect python:3.13-slim | python3 -c 'import json,sys; print(json.load(sys.stdin)["Id"])')

expect_exit 1 "--unsafe-no-cgroup probe exits 1 (it can never pass)" \
  "$OCIRUN" probe --unsafe-no-cgroup python:3.13-slim
cp "$TEST_TMP/out" "$TEST_TMP/unsafe.json"
cp "$TEST_TMP/err" "$TEST_TMP/unsafe.err"
a=$TEST_TMP/unsafe.json
json_true "$a" "True" "the artifact on stdout is JSON"
valid_artifact "$a" "the artifact validates against the schema"
json_true "$a" "list(a['observed']) == ['uid', 'cgroup_v2', 'root_read_only', 'owned_tmp_write', 'network_interfaces', 'no_new_privileges', 'capabilities']" \
  "observed has exactly the recipe's seven keys"
json_true "$a" "type(a['observed']['uid']) is int and type(a['observed']['capabilities']) is int and all(type(a['observed'][k]) is bool for k in ('root_read_only','owned_tmp_write','no_new_privileges')) and type(a['observed']['network_interfaces']) is list" \
  "the observations have the recipe's types"
json_true "$a" "a['observed']['uid'] == 65534 and a['observed']['capabilities'] == 0 and a['observed']['no_new_privileges'] is True" \
  "the probe really ran behind the boundary (uid 65534, no capabilities, no-new-privileges)"
json_true "$a" "a['observed']['root_read_only'] is True and a['observed']['owned_tmp_write'] is True and a['observed']['network_interfaces'] == ['lo']" \
  "read-only root, writable /tmp, loopback only"
json_true "$a" "a['observed']['cgroup_v2'] == {'memory.max': None, 'pids.max': None, 'cpu.max': None}" \
  "no cgroup values without a cgroup"
json_true "$a" "a['passed'] is False and 'unsafe_no_cgroup' in a['failed_checks'] and $(check_name unsafe_no_cgroup)['passed'] is False" \
  "the artifact fails with an unsafe_no_cgroup check"
json_true "$a" "{'memory.max', 'pids.max', 'cpu.max'} <= set(a['failed_checks']) and $(check_name uid)['passed'] and $(check_name root_read_only)['passed']" \
  "the cgroup checks fail, the others pass"
json_true "$a" "a['engine']['unsafe_no_cgroup'] is True and a['engine']['name'] == 'ocirun-direct' and a['backend'] == 'direct' and a['docker_server'] is None" \
  "the engine object records the opt-out"
json_true "$a" "a['image_id'] == '$image_id' and a['provenance']['configuration']['image_id'] == a['image_id']" \
  "the artifact names the resolved image ID"
json_true "$a" "a['teardown_verified'] is True and a['probe_exit_code'] == 1" "teardown verified; the probe's own exit code is kept"
json_true "$a" "a['container_name'].startswith('ocirun-probe-') and len(a['container_name']) == 25 and a['flags'][:2] == ['--name', a['container_name']]" \
  "a unique container name, first in the flags"
json_true "$a" "a['engine_argv'][-3:] == [a['image_id'], 'python', '-'] and a['engine_argv'][0] == 'run'" \
  "the run was given the image ID and python -"
probe_sha=$(sha256sum <"$top_srcdir/src/probe/probe.py" | cut -d' ' -f1)
json_true "$a" "a['provenance']['identities']['src/probe/probe.py'] == '$probe_sha'" \
  "identities: the embedded probe's sha256 equals src/probe/probe.py's"
ocirun_sha=$(sha256sum <"$OCIRUN" | cut -d' ' -f1)
json_true "$a" "a['provenance']['identities']['ocirun'] == '$ocirun_sha'" "identities: the ocirun binary's sha256"
json_true "$a" "len(a['provenance']['identities']['seccomp-profile']) == 64" "identities: the seccomp profile's sha256"
json_true "$a" "'passing is not proof against escape or kernel flaws' in a['provenance']['exclusions']" "exclusions say passing is not proof"
json_true "$a" "a['observed_extra']['seccomp_mode'] == 2 and a['observed_extra']['cap_bnd'] == 0" "extra: seccomp filter mode and an empty bounding set"
if grep -Fq "check unsafe_no_cgroup failed: expected false, seen true" "$TEST_TMP/unsafe.err" &&
  grep -Eq '^memory\.max .*FAIL$' "$TEST_TMP/unsafe.err"; then
  ok "stderr names each failed check and prints the summary table"
else
  not_ok "stderr names each failed check and prints the summary table"
  sed 's/^/# /' "$TEST_TMP/unsafe.err" | head -30
fi
[ -z "$(ls -A "$OCIRUN_ROOT/run" 2>/dev/null)" ] && ok "no run state left behind" || not_ok "no run state left behind"

# --- -o FILE: written atomically (a new inode renamed over the old file) ---
mkdir -p "$TEST_TMP/o"
echo old >"$TEST_TMP/o/a.json"
inode_before=$(stat -c %i "$TEST_TMP/o/a.json")
expect_exit 1 "-o: the probe still exits 1" "$OCIRUN" probe -q --unsafe-no-cgroup -o "$TEST_TMP/o/a.json" python:3.13-slim
[ ! -s "$TEST_TMP/out" ] && ok "-o: nothing on stdout" || not_ok "-o: nothing on stdout"
json_true "$TEST_TMP/o/a.json" "a['backend'] == 'direct'" "-o: the file holds the artifact"
[ "$(stat -c %i "$TEST_TMP/o/a.json")" != "$inode_before" ] && ok "-o: the file was replaced by rename" ||
  not_ok "-o: the file was replaced by rename"
[ "$(ls -A "$TEST_TMP/o")" = a.json ] && ok "-o: no temporary file left" || not_ok "-o: no temporary file left: $(ls -A "$TEST_TMP/o")"
grep -q '^check ' "$TEST_TMP/err" && not_ok "-q: no summary table" || ok "-q: no summary table"
# A failed write leaves no temporary file: a directory in the artifact's
# place makes the final rename fail (EISDIR, for root too).
mkdir -p "$TEST_TMP/o-fail/a.json/keep"
expect_exit 125 "-o onto a directory: the write fails" \
  "$OCIRUN" probe -q --unsafe-no-cgroup -o "$TEST_TMP/o-fail/a.json" python:3.13-slim
verdict "-o: the failed step and the path are named" \
  err_has_literal "rename the artifact $TEST_TMP/o-fail/a.json into place"
[ "$(ls -A "$TEST_TMP/o-fail")" = a.json ] && [ -d "$TEST_TMP/o-fail/a.json/keep" ] &&
  ok "-o: after a failed write, no temporary file is left" ||
  not_ok "-o: after a failed write, no temporary file is left: $(ls -A "$TEST_TMP/o-fail")"
expect_exit 125 "-o into a missing directory fails before running" \
  "$OCIRUN" probe -q --unsafe-no-cgroup -o "$TEST_TMP/missing/a.json" python:3.13-slim
verdict "-o: the unusable directory is named" \
  err_has_literal "cannot write the artifact into '$TEST_TMP/missing'"
grep -q "WARNING: --unsafe-no-cgroup" "$TEST_TMP/err" && not_ok "-o: checked before the run starts" ||
  ok "-o: checked before the run starts"
expect_exit 125 "an image not in the store: nothing runs" "$OCIRUN" probe --unsafe-no-cgroup nosuch:latest

# --- a probe that fails a check: without --read-only ---
expect_exit 1 "without --read-only the probe exits 1" \
  "$OCIRUN" probe -q --unsafe-no-cgroup --debug-drop-flag --read-only python:3.13-slim
a=$TEST_TMP/no-ro.json
cp "$TEST_TMP/out" "$a"
json_true "$a" "'root_read_only' in a['failed_checks'] and a['observed']['root_read_only'] is False and $(check_name root_read_only)['seen'] is False" \
  "the artifact names the failed check root_read_only and what was seen"
json_true "$a" "'--read-only' not in a['flags'] and 'recipe_flags' in a['failed_checks']" \
  "the flags are the ones really used, and differ from the recipe's"
verdict "stderr names the failed check and what was seen" \
  err_has_literal "check root_read_only failed: expected true, seen false"

# --- the host observer (a second observer, outside the container) ---
# A genuine run: the host read the probe's live process and saw what it saw.
a=$TEST_TMP/unsafe.json
json_true "$a" "a['host_observed']['missing'] is None and a['host_observed']['observer'] == 'procfs' and $(check_name host_observed)['passed']" \
  "host_observed: the host observed the probe's live process"
json_true "$a" "list(a['observed']) == [k for k in a['host_observed'] if k in a['observed']] and all(a['host_observed'][k] == a['observed'][k] for k in a['observed'])" \
  "host_observed: the seven observations equal the probe's (cgroup values null on both sides: no slice)"
json_true "$a" "a['host_observed']['uid'] == 65534 and a['host_observed']['root_read_only'] is True and a['host_observed']['network_interfaces'] == ['lo'] and a['host_observed']['capabilities'] == 0" \
  "host_observed: uid 65534, read-only root, loopback only, no capabilities, from the host's /proc"
json_true "$a" "a['host_observed']['seccomp_mode'] == 2 and a['host_observed']['cap_bnd'] == 0 and a['host_observed']['tmp_mount_options'] == a['observed_extra']['tmp_mount_options']" \
  "host_observed: a seccomp filter, an empty bounding set, /tmp's options as the probe reads them"
json_true "$a" "all('host_seen' in c for c in a['checks'][:10]) and not any('disagreement' in c for c in a['checks'])" \
  "each recipe check records what the host saw; a genuine run has no disagreement"

# An image whose python lies: a shell script printing a passing observation.
# Without --user and --read-only the truth is uid 0 and a writable root.
if python3 -B "$top_srcdir/scripts/images/make-liar.py" "$TEST_IMAGES/busybox" "$TEST_TMP/liar" >"$TEST_TMP/liar.log" 2>&1 &&
  "$OCIRUN" image import "oci:$TEST_TMP/liar:liar:wait" >/dev/null 2>&1 &&
  "$OCIRUN" image import "oci:$TEST_TMP/liar:liar:quick" >/dev/null 2>&1; then
  ok "build and import the lying images"
else
  not_ok "build and import the lying images"
  sed 's/^/# /' "$TEST_TMP/liar.log" | tail -5
fi
liar_flags="--unsafe-no-cgroup --debug-drop-flag --user --debug-drop-flag --read-only"
# shellcheck disable=SC2086
expect_exit 1 "a lying python: the probe fails" "$OCIRUN" probe -q $liar_flags liar:wait
a=$TEST_TMP/liar-wait.json
cp "$TEST_TMP/out" "$a"
cp "$TEST_TMP/err" "$TEST_TMP/liar-wait.err"
# Positive control: the lie reached the artifact, and judged on the
# container's word alone (the checks as they were before the host observer)
# every recipe check would pass.
json_true "$a" "a['observed'] == {'uid': 65534, 'cgroup_v2': {'memory.max': '134217728', 'pids.max': '32', 'cpu.max': '50000 100000'}, 'root_read_only': True, 'owned_tmp_write': True, 'network_interfaces': ['lo'], 'no_new_privileges': True, 'capabilities': 0}" \
  "positive control: the artifact's observed is the forged passing object"
json_true "$a" "all(c['seen'] == c['expected'] for c in a['checks'] if c['name'] in ('uid', 'no_new_privileges', 'capabilities', 'network_interfaces', 'memory.max', 'pids.max', 'root_read_only', 'owned_tmp_write')) and $(check_name cpu.max)['seen'] == '50000 100000' and {'nosuid', 'noexec'} <= set($(check_name tmp_mount_options)['seen'].split(','))" \
  "positive control: judged on the container's word alone, every recipe check would pass"
json_true "$a" "a['host_observed']['missing'] is None and a['host_observed']['uid'] == 0 and a['host_observed']['root_read_only'] is False" \
  "the host saw the truth: uid 0 and a writable root"
json_true "$a" "{'uid', 'root_read_only', 'memory.max', 'pids.max', 'cpu.max'} <= set(a['failed_checks']) and $(check_name uid)['passed'] is False and $(check_name uid)['host_seen'] == 0" \
  "the checks the lie covered fail"
json_true "$a" "$(check_name uid)['disagreement'] == 'uid: container says 65534, host saw 0'" \
  "the uid check names both values"
valid_artifact "$a" "the lying image's artifact validates against the schema"
for said in "uid: container says 65534, host saw 0" "root_read_only: container says true, host saw false" \
  'memory.max: container says "134217728", host saw null'; do
  grep -Fq "check failed: $said" "$TEST_TMP/liar-wait.err" && ok "stderr: $said" ||
    { not_ok "stderr: $said"; sed 's/^/# /' "$TEST_TMP/liar-wait.err" | head -20; }
done

# A liar that does not wait for its program: the host either sees it alive
# (and disagrees) or finds it gone (and the observation is missing): it
# fails either way.
# shellcheck disable=SC2086
expect_exit 1 "a lying python that exits at once: the probe fails" "$OCIRUN" probe -q $liar_flags liar:quick
a=$TEST_TMP/liar-quick.json
cp "$TEST_TMP/out" "$a"
json_true "$a" "a['observed']['uid'] == 65534 and 'uid' in a['failed_checks'] and $(check_name uid)['disagreement'] in ('uid: container says 65534, host saw 0', 'uid: container says 65534, host observation missing: ' + str(a['host_observed']['missing']))" \
  "the uid check fails, naming the host's value or the missing observation"

# --- a hostile probe output: one strict parse, the refusal recorded ---
# liar:CASE prints the forged object with one defect (make-liar.py). Each
# artifact must be JSON that Python reads as ocirun does, say why the output
# was refused, hold no observation from it, and compare equal to itself.
# liar:clean, without a defect, is the control: its output is read.
for case in clean utf8-value utf8-key duplicate type unknown huge; do
  "$OCIRUN" image import "oci:$TEST_TMP/liar:liar:$case" >/dev/null 2>&1 ||
    not_ok "import liar:$case"
done
probe_case() {
  expect_exit 1 "liar:$1: the probe fails" "$OCIRUN" probe -q --unsafe-no-cgroup "liar:$1"
  cp "$TEST_TMP/out" "$TEST_TMP/case-$1.json"
  json_true "$TEST_TMP/case-$1.json" "True" "liar:$1: Python's json reads the artifact"
  valid_artifact "$TEST_TMP/case-$1.json" "liar:$1: the artifact validates against the schema"
  expect_exit 0 "liar:$1: compare of the artifact with itself exits 0" \
    "$OCIRUN" compare --json "$TEST_TMP/case-$1.json" "$TEST_TMP/case-$1.json"
  json_true "$TEST_TMP/out" "a['differences'] == []" "liar:$1: compare finds no difference with itself"
}
probe_case clean
a=$TEST_TMP/case-clean.json
json_true "$a" "a['observed']['uid'] == 65534 and a['observed_extra']['masked_paths']['/proc/kcore'] == 'masked' and a['observed_extra']['hostname'] == 'liar'" \
  "control: the output without a defect is read"
json_true "$a" "'probe_output' not in a['failed_checks'] and not [c for c in a['checks'] if c['name'] == 'probe_output']" \
  "control: no probe_output check"
refused() { # CASE REASON: the refusal is recorded and no observation is kept
  probe_case "$1"
  a=$TEST_TMP/case-$1.json
  json_true "$a" "'probe_output' in a['failed_checks'] and $(check_name probe_output)['passed'] is False and '''$2''' in $(check_name probe_output)['seen']" \
    "liar:$1: the probe_output check fails: $2"
  json_true "$a" "all(v is None for k, v in a['observed'].items() if k != 'cgroup_v2') and set(a['observed']['cgroup_v2'].values()) == {None} and a['observed_extra'] == {}" \
    "liar:$1: nothing of the refused output is kept"
  json_true "$a" "all(32 <= ord(c) < 127 for c in $(check_name probe_output)['seen'] + $(check_name probe_output)['output_start'])" \
    "liar:$1: the reason and the output's start are escaped ASCII"
}
refused utf8-value "not valid JSON at byte 296: invalid UTF-8"
refused utf8-key ": invalid UTF-8"
refused duplicate "observed_extra.masked_paths: the key '/proc/kcore' is given twice"
refused type "uid: expected an integer from 0 to 4294967295"
refused unknown "an unknown key 'host_pid_namespace' in observed_extra"
refused huge "more than the 65536 a probe may print"
[ "$(stat -c %s "$TEST_TMP/case-huge.json")" -lt 65536 ] && ok "liar:huge: the artifact stays small" ||
  not_ok "liar:huge: the artifact stays small ($(stat -c %s "$TEST_TMP/case-huge.json") bytes)"

# No process to observe: the observation is missing and the check fails closed.
"$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1
expect_exit 1 "an image without python: the probe fails" "$OCIRUN" probe -q --unsafe-no-cgroup busybox:latest
a=$TEST_TMP/no-python.json
cp "$TEST_TMP/out" "$a"
json_true "$a" "a['host_observed']['missing'] == 'the probe never ran' and a['host_observed']['uid'] is None and 'host_observed' in a['failed_checks'] and $(check_name host_observed)['disagreement'] == 'host_observed: the host observation is missing: the probe never ran'" \
  "host_observed is missing, says why, and its check fails"
json_true "$a" "all($(check_name uid)[k] is not None for k in ('disagreement',)) and 'host observation missing' in $(check_name uid)['disagreement']" \
  "a recipe check without the host's observation fails and says so"
valid_artifact "$a" "an artifact with a missing host observation validates against the schema"

# --- a probe that hangs: killed at the deadline, teardown verified ---
start=$(date +%s)
expect_exit 1 "a hanging probe exits 1" \
  "$OCIRUN" probe -q --unsafe-no-cgroup --timeout 3 --debug-env OCIRUN_PROBE_DEBUG_SLEEP=120 python:3.13-slim
elapsed=$(($(date +%s) - start))
[ "$elapsed" -lt 30 ] && ok "it is killed at the deadline (${elapsed}s)" || not_ok "it is killed at the deadline (${elapsed}s)"
a=$TEST_TMP/hang.json
cp "$TEST_TMP/out" "$a"
json_true "$a" "$(check_name probe_exit)['seen'] == 'killed at the 3 s deadline' and a['probe_exit_code'] is None" \
  "the artifact says the probe was killed at the deadline"
json_true "$a" "a['teardown_verified'] is True and $(check_name teardown)['passed']" "teardown verified after the kill"
json_true "$a" "['--env', 'OCIRUN_PROBE_DEBUG_SLEEP=120'] == a['flags'][-2:]" "the test hook is visible in the flags"
valid_artifact "$a" "the hang artifact validates against the schema"
[ -z "$(ls -A "$OCIRUN_ROOT/run" 2>/dev/null)" ] && ok "no run state left after the kill" || not_ok "no run state left after the kill"

# --- SIGTERM to ocirun: the run is stopped, torn down, and the artifact says so ---
"$OCIRUN" probe -q --unsafe-no-cgroup --debug-env OCIRUN_PROBE_DEBUG_SLEEP=120 python:3.13-slim \
  >"$TEST_TMP/term.json" 2>"$TEST_TMP/term.err" &
probe_pid=$!
sleep 2
kill -TERM "$probe_pid"
wait "$probe_pid"
status=$?
[ "$status" -eq 1 ] && ok "SIGTERM: the probe exits 1" || not_ok "SIGTERM: the probe exits 1 (got $status)"
a=$TEST_TMP/term.json
json_true "$a" "a['error'].startswith('interrupted') and a['passed'] is False and a['teardown_verified'] is True" \
  "SIGTERM: the artifact records the interruption and a verified teardown"
[ -z "$(ls -A "$OCIRUN_ROOT/run" 2>/dev/null)" ] && ok "SIGTERM: no run state left" || not_ok "SIGTERM: no run state left"

tap_done
