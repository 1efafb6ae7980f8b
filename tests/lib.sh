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
# show: the first lines of $TEST_TMP/out and $TEST_TMP/err, as TAP comments.
show() { sed 's/^/# out: /' "$TEST_TMP/out" | head -15; sed 's/^/# err: /' "$TEST_TMP/err" | head -15; }
# verdict DESCRIPTION COMMAND...: check, and on failure show what the last
# command that wrote $TEST_TMP/out and err printed.
verdict() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else
    not_ok "$what"
    show
  fi
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
# What the last command wrote, $TEST_TMP/out or $TEST_TMP/err, each name
# saying how it matches: out_has_literal TEXT, err_has_literal TEXT: TEXT
# appears as written (grep -F); out_has_line TEXT: a whole line is TEXT;
# out_matches ERE, err_matches ERE: a line matches the extended regular
# expression ERE (grep -E). Predicates: wrap them in check or verdict.
out_has_literal() { grep -qF -- "$1" "$TEST_TMP/out"; }
err_has_literal() { grep -qF -- "$1" "$TEST_TMP/err"; }
out_has_line() { grep -qxF -- "$1" "$TEST_TMP/out"; }
out_matches() { grep -qE -- "$1" "$TEST_TMP/out"; }
err_matches() { grep -qE -- "$1" "$TEST_TMP/err"; }
# needs_root REASON: without root, one skip saying REASON, and the script ends.
needs_root() {
  [ "$(id -u)" -eq 0 ] && return 0
  skip "$1"
  tap_done
  exit 0
}
# The 32-bit syscall entry (int 0x80) exists only where the kernel has IA32
# emulation; on a kernel without it the instruction kills the process, so
# there is no 32-bit ABI to bypass the filter through. int80_probes SYSPROBE
# sets HOST_INT80 (yes/no) and prints one skip line when it is off; then
# without_int80 WORDS... drops the int80 probes and expectations.
int80_probes() {
  if "$1" int80-getpid 2>/dev/null | grep -qx "int80-getpid errno=0"; then
    HOST_INT80=yes
  else
    HOST_INT80=no
    skip "int 0x80 probes: this kernel has no 32-bit syscall entry (IA32 emulation off: int80-getpid dies outside any container too); the guest's kernel runs them (tests/guest/confine.sh)"
  fi
}
without_int80() {
  local word
  for word in "$@"; do
    case $word in int80-*) [ "${HOST_INT80:-yes}" = yes ] || continue ;; esac
    printf '%s\n' "$word"
  done
}
# root_with_image NAME IMAGE REF: the script needs root (else one skip and
# exit) and the test image IMAGE (scripts/make-test-images), built and
# imported into the private store as REF.
root_with_image() {
  needs_root "$1 needs root"
  "$top_srcdir/scripts/make-test-images" "$2" "$TEST_IMAGES" >/dev/null 2>&1 ||
    { not_ok "build the $2 test image"; tap_done; exit 1; }
  "$OCIRUN" image import "oci:$TEST_IMAGES/$2:$3" >/dev/null 2>&1 ||
    { not_ok "import the $2 test image"; tap_done; exit 1; }
}
root_with_busybox() { root_with_image "$1" busybox busybox:latest; }
root_with_python() { root_with_image "$1" python python:3.13-slim; }
# todo DESCRIPTION COMMAND...: a known hole, still open (docs/threat-model.md
# names it): "ok" once the command succeeds (then make it a check), else
# "not ok ... # TODO", an expected failure.
todo() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else
    tap_n=$((tap_n + 1))
    echo "not ok $tap_n - $what # TODO open hole"
  fi
}
# with_pipes CMD...: runs CMD (an `ocirun create`, or an `exec --detach`)
# as an OCI caller does: its stdout and stderr are pipes (a created
# container keeps its stdio, so ocirun refuses a terminal or a file for it),
# copied as they come into this function's own stdout and stderr, stdin
# /dev/null when it is a terminal or a file. On return, everything CMD itself
# wrote is in place; what a container it started writes later goes on
# arriving until the container is gone: pipes_drained waits for that.
PIPES_COPIERS=""
PIPES_N=0
with_pipes() {
  local n=$((PIPES_N += 1)) mark="@@ocirun-test-pipe-$$-$PIPES_N@@" status i
  local out=$TEST_TMP/pipe-$n.out err=$TEST_TMP/pipe-$n.err wo we
  mkfifo "$out" "$err" || return 1
  python3 -u "$top_srcdir/tests/helpers/pipe-copy.py" "$mark" "$out.done" <"$out" &
  PIPES_COPIERS="$PIPES_COPIERS $!"
  python3 -u "$top_srcdir/tests/helpers/pipe-copy.py" "$mark" "$err.done" <"$err" >&2 &
  PIPES_COPIERS="$PIPES_COPIERS $!"
  exec {wo}>"$out" {we}>"$err"
  rm -f "$out" "$err"
  if [ ! -t 0 ] && [ ! -f /dev/stdin ]; then
    "$@" >&"$wo" 2>&"$we" {wo}>&- {we}>&-
  else
    "$@" </dev/null >&"$wo" 2>&"$we" {wo}>&- {we}>&-
  fi
  status=$?
  printf '%s' "$mark" >&"$wo"
  printf '%s' "$mark" >&"$we"
  exec {wo}>&- {we}>&-
  for i in $(seq 200); do
    [ -e "$out.done" ] && [ -e "$err.done" ] && break
    sleep 0.05
  done
  rm -f "$out.done" "$err.done"
  return "$status"
}
# pipes_drained: waits until every with_pipes copy has ended (each ends
# when the last process holding its pipe, the container, is gone).
pipes_drained() {
  [ -z "$PIPES_COPIERS" ] || wait $PIPES_COPIERS 2>/dev/null
  PIPES_COPIERS=""
}
# oci_root ROOT VERB ARGS...: `ocirun --root ROOT VERB ARGS...`, through
# with_pipes for the verbs whose process keeps ocirun's stdio (create, and
# exec --detach), as podman's conmon and containerd's shim call them.
oci_root() {
  local root=$1 a
  shift
  case "${1:-}" in
  create)
    with_pipes "$OCIRUN" --root "$root" "$@"
    return
    ;;
  exec)
    for a in "$@"; do
      case $a in
      --detach | -d)
        with_pipes "$OCIRUN" --root "$root" "$@"
        return
        ;;
      esac
    done
    ;;
  esac
  "$OCIRUN" --root "$root" "$@"
}
# The OCI verbs' state root is the script's $ROOT ($OCIRUN_ROOT when it sets
# none). oci VERB ARGS...: oci_root with it. state_of ID KEY [DEFAULT]: KEY of
# `ocirun state ID` (DEFAULT when the state has no KEY; nothing when there is
# no container ID); status_of ID, pid_of ID: its status, its pid (0 if none).
# container_gone ID: there is no container ID.
oci() { oci_root "${ROOT:-$OCIRUN_ROOT}" "$@"; }
state_of() {
  "$OCIRUN" --root "${ROOT:-$OCIRUN_ROOT}" state "$1" 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1], sys.argv[2]))' "$2" "${3:-}" 2>/dev/null
}
status_of() { state_of "$1" status; }
pid_of() { state_of "$1" pid 0; }
container_gone() { ! "$OCIRUN" --root "${ROOT:-$OCIRUN_ROOT}" state "$1" >/dev/null 2>&1; }
# oci_bundle DIR ROOTFS [PYTHON [ARG...]]: an OCI bundle made afresh in DIR:
# `ocirun spec`'s config.json with root.path ROOTFS, then PYTHON run on it
# (c is the document, args the ARGs, sys.argv[1] the config's path,
# DOCKER_CAPS Docker's default capabilities). ROOTFS
# is a tree many bundles share (its absolute path, used where it is), or the
# word busybox: a copy of busybox's layers of the bundle's own, DIR/rootfs.
oci_bundle() {
  local dir=$1 rootfs=$2 python=${3:-}
  shift 2
  [ $# -eq 0 ] || shift
  rm -rf "$dir" && mkdir -p "$dir" || return 1
  if [ "$rootfs" = busybox ]; then
    [ -d "$TEST_TMP/busybox-rootfs" ] ||
      { busybox_rootfs "$TEST_TMP/busybox-rootfs.new" && mv "$TEST_TMP/busybox-rootfs.new" "$TEST_TMP/busybox-rootfs"; } ||
      return 1
    cp -a "$TEST_TMP/busybox-rootfs" "$dir/rootfs" || return 1
    rootfs=rootfs
  fi
  "$OCIRUN" spec --bundle "$dir" >/dev/null &&
    python3 - "$dir/config.json" "$rootfs" "$python" "$@" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["root"]["path"] = sys.argv[2]
args = sys.argv[4:]
DOCKER_CAPS = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
               "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
               "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"]
exec(sys.argv[3])
json.dump(c, open(sys.argv[1], "w"))
PY
}
# sleeper_bundle DIR [PYTHON [ARG...]]: oci_bundle DIR busybox, the root
# writable, no linux.resources (the host's tests create without a cgroup),
# no terminal, the process `sleep 1000`; then PYTHON.
sleeper_bundle() {
  local dir=$1 python=${2:-}
  shift
  [ $# -eq 0 ] || shift
  oci_bundle "$dir" busybox 'c["linux"].pop("resources", None)
c["root"]["readonly"] = False
c["process"]["terminal"] = False
c["process"]["args"] = ["sleep", "1000"]
'"$python" "$@"
}
# process_gone PID: PID has ended, or is a zombie, within 10 s.
process_gone() {
  for _ in $(seq 100); do
    [ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null || return 0
    sleep 0.1
  done
  return 1
}
# start_time PID: when PID started (field 22 of /proc/PID/stat, read after
# the command name, which may hold spaces), as run records keep it.
start_time() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20; }
# run_leftovers [STORE]: what runs of STORE ($OCIRUN_ROOT) left, one per
# line: records and run dirs in STORE/run, and mount points under it.
# nothing_left [STORE]: there is none.
run_leftovers() {
  local runs=${1:-$OCIRUN_ROOT}/run
  ls -A "$runs" 2>/dev/null
  grep -F "$runs" /proc/self/mountinfo | cut -d' ' -f5
}
nothing_left() { [ -z "$(run_leftovers "$@")" ]; }
# left_behind WHAT SLICES RUN_STATE PROCESSES: one TAP line "WHAT: nothing
# left behind", not ok naming what is when any of the three lists is not empty.
left_behind() {
  if [ -z "$2$3$4" ]; then ok "$1: nothing left behind"; else
    not_ok "$1: nothing left behind (slices: ${2:-none}; run state: ${3:-none}; processes: ${4:-none})"
  fi
}
# process_with MARKER: a process `sleep MARKER` exists now.
process_with() { pgrep -x -f "sleep $1" >/dev/null; }
# status_field FIELD FILE: FIELD's value in FILE, a copy of /proc/PID/status.
status_field() { sed -n "s/^$1:[[:space:]]*//p" "$2"; }
# pid_of_sleep MARKER: the host pid of the process `sleep MARKER`, once it
# runs (10 s at most; nothing printed and status 1 if it never does).
pid_of_sleep() {
  local f i
  for i in $(seq 50); do
    for f in /proc/[0-9]*/cmdline; do
      if [ "$( (tr '\0' ' ' <"$f") 2>/dev/null)" = "sleep $1 " ]; then
        f=${f#/proc/}
        echo "${f%/cmdline}"
        return 0
      fi
    done
    sleep 0.2
  done
  return 1
}
# busybox_variant REF CONFIG_JSON [PATH KIND DATA_OR_TARGET MODE]...: imports busybox
# with config keys replaced and files added in one more layer (with
# VARIANT_IMAGE=python: python:REF, from the python test image).
busybox_variant() {
  local ref=$1 config=$2 base=${VARIANT_IMAGE:-busybox}
  shift 2
  rm -rf "$TEST_TMP/variant"
  cp -a "$TEST_IMAGES/$base" "$TEST_TMP/variant" || return 1
  PYTHONPATH="$top_srcdir/scripts/images" python3 -B - "$TEST_TMP/variant" "$base:$ref" "$config" "$@" <<'PY' || return 1
import json, os, sys
from oci_layout import tar_bytes, tar_entry, write_gzip_layer, write_image
path, ref, overrides, rest = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4:]
def blob(digest):
    with open(os.path.join(path, "blobs", "sha256", digest[7:]), "rb") as f:
        return f.read()
index = json.load(open(os.path.join(path, "index.json")))
manifest = json.loads(blob(index["manifests"][0]["digest"]))
config = json.loads(blob(manifest["config"]["digest"]))
config.setdefault("config", {}).update(overrides)
layers = [dict(l) for l in manifest["layers"]]
if rest:
    members = []
    for i in range(0, len(rest), 4):
        name, kind, data, mode = rest[i:i + 4]
        if kind == "symlink":
            members.append(tar_entry(name, "symlink", target=data))
        else:
            members.append(tar_entry(name, "file", data.encode(), mode=int(mode, 8)))
    desc, diff_id = write_gzip_layer(path, tar_bytes(members))
    layers.append(desc)
    config["rootfs"]["diff_ids"].append(diff_id)
write_image(path, layers, config, ref)
PY
  "$OCIRUN" image import "oci:$TEST_TMP/variant:$base:$ref" >/dev/null 2>&1 &&
    "$OCIRUN" image inspect "$base:$ref" >/dev/null 2>&1
}
# sysprobe_image REF: busybox with tests/helpers/sysprobe at /sysprobe, one
# more layer, imported as busybox:REF.
sysprobe_image() {
  rm -rf "$TEST_TMP/variant" && cp -a "$TEST_IMAGES/busybox" "$TEST_TMP/variant" &&
    PYTHONPATH="$top_srcdir/scripts/images" python3 -B - "$TEST_TMP/variant" \
      "$top_builddir/tests/helpers/sysprobe" "busybox:$1" <<'PY' &&
import json, os, sys
from oci_layout import tar_bytes, tar_entry, write_gzip_layer, write_image
path, probe, ref = sys.argv[1:4]
def blob(digest):
    return open(os.path.join(path, "blobs", "sha256", digest[7:]), "rb").read()
manifest = json.loads(blob(json.load(open(os.path.join(path, "index.json")))["manifests"][0]["digest"]))
config = json.loads(blob(manifest["config"]["digest"]))
layers = [dict(l) for l in manifest["layers"]]
desc, diff_id = write_gzip_layer(path, tar_bytes([tar_entry("sysprobe", "file", open(probe, "rb").read(), mode=0o755)]))
layers.append(desc)
config["rootfs"]["diff_ids"].append(diff_id)
write_image(path, layers, config, ref)
PY
    "$OCIRUN" image import "oci:$TEST_TMP/variant:busybox:$1" >/dev/null 2>&1
}
# Guest cases (real cgroup v2, slices under /sys/fs/cgroup/ocirun):
# has_process SLICE: whether the run's slice holds a process (cgroup files
# have no size, so one line is read); start_run NAME: a run of `sleep 1000`
# in the background ($runner is its ocirun), back once its slice has a process.
has_process() { read -r _ <"/sys/fs/cgroup/ocirun/$1/cgroup.procs"; } 2>/dev/null
start_run() {
  "$OCIRUN" run --name "$1" --timeout 600 busybox:latest sleep 1000 >/dev/null 2>&1 &
  runner=$!
  for _ in $(seq 300); do
    has_process "$1" && return 0
    sleep 0.1
  done
  return 1
}
# start_named_run NAME MARKER RUN-ARGS...: `ocirun run --name NAME --timeout
# 600 RUN-ARGS...`, whose pid 1 ends as `sleep MARKER`, in the background
# ($runner is its ocirun, its stderr $TEST_TMP/run.err); back once pid 1
# runs ($pid1) and (10 s at most) the record names it; status 1 if pid 1
# never runs.
start_named_run() {
  local name=$1 marker=$2
  shift 2
  "$OCIRUN" run --name "$name" --timeout 600 "$@" >/dev/null 2>"$TEST_TMP/run.err" &
  runner=$!
  pid1=$(pid_of_sleep "$marker")
  [ -n "$pid1" ] || return 1
  for _ in $(seq 100); do
    grep -q container_pid "$OCIRUN_ROOT/run/$name.json" 2>/dev/null && break
    sleep 0.1
  done
}
tap_done() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }

# libFuzzer targets (tests/fuzz.sh, tests/*-fuzz.sh), built with clang's
# address and undefined-behaviour sanitizers.
# fuzz_build NAME BINARY "PKG-CONFIG LIBS" "-I DIRS" SOURCE...
fuzz_build() {
  local name=$1 binary=$2 libs=$3 includes=$4
  shift 4
  # shellcheck disable=SC2046,SC2086
  if clang -std=gnu17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$top_builddir" -I"$top_srcdir" $includes $(pkg-config --cflags $libs) \
    "$@" $(pkg-config --libs $libs) -lpthread -o "$binary" 2>"$TEST_TMP/$name.build"; then
    ok "$name: fuzzer builds"
  else
    not_ok "$name: fuzzer builds"
    sed 's/^/# /' "$TEST_TMP/$name.build" | head -20
    return 1
  fi
}
# fuzz_run NAME BINARY CORPUS [LIBFUZZER OPTION...]: runs for FUZZ_SECONDS
# (default 20); a crash, leak, timeout or sanitizer report fails, and the
# reproducer is copied into the build tree.
fuzz_run() {
  local name=$1 binary=$2 corpus=$3 seconds=${FUZZ_SECONDS:-20}
  shift 3
  if (cd "$TEST_TMP" && "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$@" "$corpus") >"$TEST_TMP/$name.log" 2>&1; then
    ok "$name: no crash, leak or sanitizer report in ${seconds}s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$TEST_TMP/$name.log" | grep -o '[0-9]*$') runs)"
  else
    not_ok "$name: fuzzing found a failure"
    grep -E 'ERROR|SUMMARY|escape|runtime error' "$TEST_TMP/$name.log" | head -20 | sed 's/^/# /'
    tail -n 5 "$TEST_TMP/$name.log" | sed 's/^/# last: /'
    for crash in "$TEST_TMP"/crash-* "$TEST_TMP"/leak-* "$TEST_TMP"/timeout-*; do
      [ -e "$crash" ] || continue
      cp "$crash" "$top_builddir/" && echo "# reproducer: $top_builddir/$(basename "$crash")"
      # Its first bytes, in hex: a CI log is often all that is left of it.
      od -An -tx1 -v "$crash" | head -n 16 | sed 's/^/# /'
    done
  fi
}
# fuzz_available "PKG-CONFIG LIBS": clang and the libraries are there, else one skip.
fuzz_available() {
  # shellcheck disable=SC2086
  if command -v clang >/dev/null && pkg-config --exists $1; then return 0; fi
  skip "clang with libFuzzer or a library's pkg-config file is missing"
  return 1
}
# fuzz_target NAME "PKG-CONFIG LIBS" "-I DIRS" SOURCE...: fuzz_available,
# then fuzz_build of $TEST_TMP/NAME_fuzzer (its path: $FUZZER); when either
# fails, the script ends there.
fuzz_target() {
  local name=$1 libs=$2 includes=$3
  shift 3
  FUZZER=$TEST_TMP/${name}_fuzzer
  fuzz_available "$libs" && fuzz_build "$name" "$FUZZER" "$libs" "$includes" "$@" || {
    tap_done
    exit
  }
}

# busybox_rootfs DIR: the busybox test image's layers unpacked into DIR (made
# if missing) by Python's tarfile, not by ocirun: a bundle's rootfs for the
# OCI command line's tests.
busybox_rootfs() {
  { [ -f "$TEST_IMAGES/busybox/index.json" ] ||
    "$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >/dev/null 2>&1; } &&
    mkdir -p "$1" && python3 - "$TEST_IMAGES/busybox" "$1" <<'PY'
import gzip, io, json, os, sys, tarfile
layout, rootfs = sys.argv[1], sys.argv[2]
def blob(digest):
    return open(os.path.join(layout, "blobs", "sha256", digest.split(":")[1]), "rb").read()
manifest = json.loads(blob(json.load(open(os.path.join(layout, "index.json")))["manifests"][0]["digest"]))
for layer in manifest["layers"]:
    data = blob(layer["digest"])
    tarfile.open(fileobj=io.BytesIO(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)).extractall(rootfs)
PY
}
# run_refused WHAT ERE ARGS...: `ocirun run --unsafe-no-cgroup ARGS` (a host
# run, within 60 s) exits 125 with a message matching ERE.
run_refused() {
  local what=$1 re=$2
  shift 2
  expect_exit 125 "$what: refused" timeout 60 "$OCIRUN" run --unsafe-no-cgroup "$@"
  err_matches "$re" && ok "$what: the message says why" ||
    { not_ok "$what: the message matches /$re/"; sed 's/^/# err: /' "$TEST_TMP/err" | head -5; }
}
# rootless_store UID: for an ordinary uid, a store under $TEST_TMP with the
# busybox test image imported as that uid; then as_user COMMAND... runs
# COMMAND as UID (no groups, a clean environment) on that store, and the
# array AS_USER is that prefix (for a tool that runs the command itself).
# Needs setpriv; returns 1 when the import fails.
rootless_store() {
  AS_USER=(setpriv --reuid="$1" --regid="$1" --clear-groups env -i PATH="$PATH"
    HOME="$TEST_TMP/rootless-home" OCIRUN_ROOT="$TEST_TMP/rootless-store")
  ROOTLESS_UID=$1
  chmod 0755 "$TEST_TMP"
  mkdir -p "$TEST_TMP/rootless-store" "$TEST_TMP/rootless-home"
  chown "$ROOTLESS_UID:$ROOTLESS_UID" "$TEST_TMP/rootless-store" "$TEST_TMP/rootless-home"
  rm -rf "$TEST_TMP/busybox-layout"
  cp -r "$TEST_IMAGES/busybox" "$TEST_TMP/busybox-layout" && chmod -R a+rX "$TEST_TMP/busybox-layout"
  as_user "$OCIRUN" image import "oci:$TEST_TMP/busybox-layout:busybox:latest" >/dev/null 2>&1
}
as_user() { "${AS_USER[@]}" "$@"; }
