#!/bin/bash
# In the cgroup v2 guest: podman and containerd drive an OCI runtime through
# its command line (create, start, state, kill, delete, exec). Each caller runs
# every case first with a runtime it ships with (the control: runc under
# containerd, crun under podman), which must pass, else the harness itself is
# broken; then with $OCIRUN.
#
# Part of `make check` through tests/guest/oci-callers.sh. Run it by hand:
#   cd BUILDDIR && OCIRUN=$PWD/ocirun top_srcdir=SRC top_builddir=$PWD \
#     TEST_IMAGES=$PWD/test-images SRC/scripts/vm-run SRC/tests/guest/callers/oci-callers.sh
# (the busybox and python test images must exist: scripts/make-test-images).
# Environment: OCIRUN_CALLERS ("containerd podman docker" by default: which
# callers),
# OCIRUN_CALLERS_RUNTIMES ("control ocirun": which runtimes),
# OCIRUN_CALLERS_TIMEOUT (seconds per caller command, default 120),
# OCIRUN_CALLERS_TRACE=1 (run each runtime through a wrapper that logs every
# call and its exit status; the log is printed as comments at the end).
images=${TEST_IMAGES:-}
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/guest/callers/lib.sh"
# The images the guest was given win over lib.sh's default.
[ -n "$images" ] && [ -d "$images" ] && TEST_IMAGES=$images

work=$TEST_TMP/callers
trap 'TERM=xterm tmux -L ocirun-callers kill-server 2>/dev/null; callers_cleanup "$work"; rm -rf "$TEST_TMP"' EXIT
callers=${OCIRUN_CALLERS:-containerd podman docker}
runtimes=${OCIRUN_CALLERS_RUNTIMES:-control ocirun}
tmo=${OCIRUN_CALLERS_TIMEOUT:-120}
ctr=$work/bin/ctr
podman=$work/bin/podman
docker=$work/bin/docker
probe_py=$top_srcdir/src/probe/probe.py
out=$TEST_TMP/out
err=$TEST_TMP/err

note() { echo "# ${SECONDS}s: $*"; }
# bounded COMMAND...: a caller command, bounded (a runtime that hangs must
# not hang the file); stdout to $out, stderr to $err; returns its status.
bounded() { timeout -k 5 "$tmo" "$@" >"$out" 2>"$err" </dev/null; }
# tail_of FILE: its last lines as comments.
tail_of() { sed 's/^/#   /' "$1" | tail -"${2:-12}"; }

# The runtime under test: label (runc, crun, ocirun), binary, whether it is
# the control, and why it cannot be driven at all (empty: it can).
rt_label=
rt_bin=
rt_control=
rt_blocked=
control_failures=0
# use_runtime LABEL BINARY control|test
use_runtime() {
  rt_label=$1
  rt_bin=$2
  rt_control=$([ "$3" = control ] && echo yes)
  rt_blocked=
  [ -n "$rt_control" ] || rt_blocked=$ocirun_blocked
  if [ "${OCIRUN_CALLERS_TRACE:-0}" = 1 ]; then
    rt_bin=$(tracer "$rt_label" "$2")
  fi
}
# for_each_runtime CONTROL CASES: the function CASES with the control
# runtime (CONTROL, on PATH), then with $OCIRUN, as $runtimes asks.
for_each_runtime() {
  local r
  for r in $runtimes; do
    case $r in
    control) use_runtime "$1" "$(command -v "$1")" control ;;
    ocirun) use_runtime ocirun "$OCIRUN" test ;;
    *) continue ;;
    esac
    "$2"
    note "$caller: $rt_label done"
  done
}
# tracer LABEL BINARY: prints the path of a wrapper that logs each call.
tracer() {
  local w=$work/trace-$1
  cat >"$w" <<EOF
#!/bin/sh
'$2' "\$@"
s=\$?
echo "$1 \$* => \$s" >>'$work/trace.log'
exit \$s
EOF
  chmod 0755 "$w"
  echo "$w"
}
# pass/fail DESCRIPTION: one result for the runtime under test; a control's
# failure is said loudly.
pass() { ok "$caller $rt_label$([ -n "$rt_control" ] && echo ' (control)'): $*"; }
fail() {
  if [ -n "$rt_control" ]; then
    control_failures=$((control_failures + 1))
    not_ok "$caller $rt_label (control): $* -- THE CONTROL FAILED: the harness is broken, not ocirun"
  else
    not_ok "$caller $rt_label: $*"
  fi
}
# harness_broken DESCRIPTION: a caller could not be set up.
harness_broken() {
  control_failures=$((control_failures + 1))
  not_ok "$* -- THE HARNESS IS BROKEN, not ocirun"
}
# runnable DESCRIPTION: false, after one "not ok" naming the reason, when the
# runtime cannot be driven at all.
runnable() {
  [ -z "$rt_blocked" ] && return 0
  not_ok "$caller $rt_label: $1 (not run: $rt_blocked)"
  return 1
}
# expect_status WANT DESCRIPTION COMMAND...: the command exits WANT.
expect_status() {
  local want=$1 what=$2 got
  shift 2
  runnable "$what" || return 1
  bounded "$@"
  got=$?
  if [ "$got" -eq "$want" ]; then pass "$what"; else
    fail "$what (exit $got, wanted $want)"
    tail_of "$err"
    tail_of "$out" 5
  fi
}
# out_is WANT DESCRIPTION: the last command's stdout is exactly WANT (a
# terminal's carriage returns dropped).
out_is() {
  local got
  runnable "$2" || return 1
  got=$(tr -d '\r' <"$out")
  if [ "$got" = "$1" ]; then pass "$2"; else fail "$2 (stdout '$got', wanted '$1')"; fi
}
# wait_for SECONDS COMMAND...: polls until the command succeeds.
wait_for() {
  local n=$(($1 * 4))
  shift
  while [ "$n" -gt 0 ]; do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.25
    n=$((n - 1))
  done
  return 1
}

# cgroup_is GLOB DESCRIPTION: a running container's cgroup is where the
# caller's linux.cgroupsPath put it (and where nothing_left looks).
cgroup_is() {
  runnable "$2" || return 0
  # shellcheck disable=SC2086 # a glob
  if ls -d /sys/fs/cgroup/$1 >/dev/null 2>&1; then pass "$2"; else
    fail "$2 (no /sys/fs/cgroup/$1)"
  fi
}
# nothing_left CGROUP_GLOB/ [STATE_DIR ID_PREFIX]: once the caller deleted
# every container, the runtime removed their cgroups (CGROUP_GLOB under
# /sys/fs/cgroup; a cgroup gone means no process of the container lives on),
# and nothing named after one of them is left anywhere under STATE_DIR (the
# --root the caller gave; the runtime's own layout directories may stay).
nothing_left() {
  local glob=$1 state=${2:-} prefix=${3:-} cgroups
  runnable "the runtime left no cgroup and no state behind" || return 0
  # shellcheck disable=SC2086 # a glob
  cgroups=$(ls -d /sys/fs/cgroup/$glob 2>/dev/null | tr '\n' ' ')
  [ -z "$state" ] || state=$(find "$state" -name "$prefix*" 2>/dev/null | tr '\n' ' ')
  if [ -z "$cgroups$state" ]; then pass "the runtime left no cgroup and no state behind"; else
    fail "the runtime left no cgroup and no state behind (cgroups: ${cgroups:-none}; state: ${state:-none})"
  fi
}

# --- the OCI verbs of ocirun ---
missing=
for verb in create start state kill delete exec; do
  "$OCIRUN" "$verb" --help >/dev/null 2>&1 || missing="$missing $verb"
done
ocirun_blocked=
case " $missing " in
*" create "*) ocirun_blocked="ocirun has no OCI runtime verb 'create' yet: '$OCIRUN create --help' fails" ;;
esac
if [ -n "$missing" ]; then note "ocirun verbs missing:$missing"; else note "ocirun has create, start, state, kill, delete, exec"; fi

# ====================================================================
# containerd: ctr run --runc-binary RUNTIME, through the runc v2 shim
# ====================================================================
ctr_cases() {
  local id=cc-$rt_label what st pid
  # Exit status and stdout, busybox.
  expect_status 0 "ctr run busybox true exits 0" \
    "$ctr" run --rm --runc-binary "$rt_bin" busybox:latest "$id-true" true
  expect_status 3 "ctr run busybox sh -c 'exit 3': the exit status reaches ctr" \
    "$ctr" run --rm --runc-binary "$rt_bin" busybox:latest "$id-exit" sh -c 'echo hello from $$; exit 3'
  out_is "hello from 1" "ctr run: stdout reaches ctr, the command is pid 1"
  expect_status 0 "ctr run python:3.13-slim python3 -c ..." \
    "$ctr" run --rm --runc-binary "$rt_bin" python:3.13-slim "$id-py" \
    python3 -c 'import sys; print(sum(range(10)), sys.version_info[0])'
  out_is "45 3" "ctr run python: the interpreter's output"

  # A long-running container: exec into it, then kill it. ctr run attached in
  # the background waits for it and exits with its status; TERM is trapped,
  # so exit 7 proves the signal reached the container's pid 1.
  what="ctr run a trapping loop, ctr task exec into it, ctr task kill (TERM)"
  runnable "$what" || return 0
  timeout -k 5 "$tmo" "$ctr" run --rm --runc-binary "$rt_bin" busybox:latest "$id-long" \
    sh -c 'trap "exit 7" TERM; echo running; while :; do sleep 1; done' \
    >"$TEST_TMP/long.out" 2>"$TEST_TMP/long.err" </dev/null &
  pid=$!
  if wait_for 60 grep -q running "$TEST_TMP/long.out"; then pass "ctr run: the long container runs"; else
    fail "ctr run: the long container runs (nothing printed within 60 s)"
    tail_of "$TEST_TMP/long.err"
  fi
  cgroup_is "$callers_namespace/$id-long" "the container's cgroup is the spec's cgroupsPath (/$callers_namespace/ID)"
  expect_status 4 "ctr task exec: runs in the container and its status reaches ctr" \
    "$ctr" task exec --exec-id probe "$id-long" sh -c 'tr "\0" " " </proc/1/cmdline; exit 4'
  out_is "sh -c trap \"exit 7\" TERM; echo running; while :; do sleep 1; done " \
    "ctr task exec: sees the container's pid 1"
  # ctr task exec -t: the shim asks the runtime for exec --tty with a
  # console socket of its own.
  terminal_case "ctr task exec -t in tmux" "$id-exectty" "$ctr" task exec -t --exec-id tty "$id-long" sh
  expect_status 0 "ctr task kill (SIGTERM) is accepted" "$ctr" task kill "$id-long"
  st=0
  wait "$pid" || st=$?
  if [ "$st" -eq 7 ]; then pass "ctr task kill: TERM reached pid 1 (it exited 7)"; else
    fail "ctr task kill: TERM reached pid 1 (ctr run exited $st, wanted 7)"
    tail_of "$TEST_TMP/long.err"
  fi
  bounded "$ctr" containers ls -q
  if ! grep -q "^$id" "$out"; then pass "no container left (ctr run --rm)"; else
    fail "no container left (ctr run --rm): $(tr '\n' ' ' <"$out")"
  fi
  nothing_left "$callers_namespace/*/" "/run/containerd/runc/$callers_namespace" "$id-"
}

containerd_caller() {
  caller=containerd
  note "containerd: starting"
  if ! callers_start_containerd "$work"; then
    harness_broken "containerd starts"
    tail_of "$work/containerd/containerd.log"
    return
  fi
  ok "containerd starts (overlayfs snapshotter on tmpfs, CRI off)"
  local layout
  for layout in busybox python; do
    if callers_ctr_import "$work" "$TEST_IMAGES/$layout" >"$out" 2>"$err"; then
      ok "ctr images import the $layout test image (OCI layout as an oci-archive)"
    else
      harness_broken "ctr images import the $layout test image"
      tail_of "$err"
    fi
  done
  note "containerd: images imported"
  for_each_runtime runc ctr_cases
}

# ====================================================================
# podman: podman --runtime RUNTIME, through conmon
# ====================================================================
# The recipe's flags (docs/docker-path.md, src/probe/probe_recipe.c), plus
# --read-only-tmpfs=false: podman's --read-only alone also mounts writable
# tmpfs on /var/tmp, /tmp and /run (docker's does not), and the probe's
# read-only check writes under /var/tmp.
recipe_flags=(--read-only-tmpfs=false
  --network none --read-only --memory 128m --memory-swap 128m --cpus 0.5 --pids-limit 32
  --cap-drop ALL --security-opt no-new-privileges --user 65534:65534
  --tmpfs /tmp:rw,noexec,nosuid,size=1048576)
bb=localhost/busybox:latest
py=localhost/python:3.13-slim

# tmux on a server of its own; the guest's environment has no TERM.
tmx() { TERM=xterm tmux -L ocirun-callers "$@"; }
# pane_has SESSION TEXT: the tmux pane shows TEXT.
pane_has() { tmx capture-pane -p -t "$1" 2>/dev/null | grep -qF -- "$2"; }
# pane_tail SESSION: its last lines, as comments.
pane_tail() { tmx capture-pane -p -t "$1" | grep . | sed 's/^/#   /' | tail -8; }
# terminal_case WHAT SESSION COMMAND...: COMMAND (a caller asking for a
# terminal, running sh) in a tmux pane of 100x30: a prompt, keys reach the
# shell on the pty (/dev/pts/N), at the pane's size, exit 5 is the
# caller's status.
terminal_case() {
  local what=$1 s=$2
  shift 2
  runnable "$what: a shell prompt" || return 0
  tmx kill-session -t "$s" 2>/dev/null
  tmx new-session -d -s "$s" -x 100 -y 30 "$(printf '%q ' "$@"); echo caller-exited-\$?; sleep 600"
  if wait_for 60 pane_has "$s" "/ #"; then pass "$what: a shell prompt"; else
    fail "$what: a shell prompt (the pane after 60 s:)"
    pane_tail "$s"
  fi
  tmx send-keys -t "$s" 'echo "[$((6*7))] [$(tty)] [$(stty size)]"' Enter
  if wait_for 30 pane_has "$s" "[42] [/dev/pts/"; then
    pass "$what: keys reach the shell on a pty and its output reaches the pane"
  else
    fail "$what: keys reach the shell on a pty and its output reaches the pane"
    pane_tail "$s"
  fi
  if pane_has "$s" "[30 100]"; then pass "$what: the terminal has the pane's size (30 rows, 100 columns)"; else
    fail "$what: the terminal has the pane's size (30 rows, 100 columns)"
  fi
  tmx send-keys -t "$s" 'exit 5' Enter
  if wait_for 60 pane_has "$s" "caller-exited-5"; then pass "$what: exit 5 in the shell is the caller's status"; else
    fail "$what: exit 5 in the shell is the caller's status"
    pane_tail "$s"
  fi
  tmx kill-session -t "$s" 2>/dev/null
}

podman_cases() {
  local name=pc-$rt_label what t0 elapsed st failed p=("$podman" --runtime "$rt_bin")
  expect_status 0 "podman run busybox true exits 0" "${p[@]}" run --rm --network none "$bb" true
  expect_status 3 "podman run busybox sh -c 'exit 3': the exit status reaches podman" \
    "${p[@]}" run --rm --network none "$bb" sh -c 'echo hello from $$; exit 3'
  out_is "hello from 1" "podman run: stdout reaches podman, the command is pid 1"

  # The recipe: the probe (src/probe/probe.py) on stdin of the python image,
  # with the recipe's flags; it exits 0 only when every check of
  # docs/docker-path.md's table holds.
  what="podman run -i with the recipe's flags: the probe passes every check"
  if runnable "$what"; then
    timeout -k 5 "$tmo" "${p[@]}" run --rm -i "${recipe_flags[@]}" "$py" python - \
      <"$probe_py" >"$out" 2>"$err"
    st=$?
    failed=$(python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))
print(" ".join(k for k, v in a["checks"].items() if not v) or "none")' "$out" 2>/dev/null)
    if [ "$st" -eq 0 ] && [ "$failed" = none ]; then pass "$what"; else
      fail "$what (exit $st; failed checks: ${failed:-no JSON})"
      tail_of "$out" 20
      tail_of "$err"
    fi
  fi

  # exec, then stop: TERM is trapped, so exit 7 well inside the timeout
  # proves podman stop's signal reached pid 1 (not the SIGKILL fallback).
  expect_status 0 "podman run -d a trapping loop" "${p[@]}" run -d --network none --name "$name-long" "$bb" \
    sh -c 'trap "exit 7" TERM; while :; do sleep 1; done'
  cgroup_is "libpod_parent/libpod-*" "the container's cgroup is the spec's cgroupsPath (/libpod_parent/libpod-ID)"
  expect_status 4 "podman exec: runs in the container and its status reaches podman" \
    "${p[@]}" exec "$name-long" sh -c 'tr "\0" " " </proc/1/cmdline; exit 4'
  out_is 'sh -c trap "exit 7" TERM; while :; do sleep 1; done ' "podman exec: sees the container's pid 1"
  what="podman stop -t 60: TERM stops the container (exit 7) well within the timeout"
  if runnable "$what"; then
    t0=$SECONDS
    bounded "${p[@]}" stop -t 60 "$name-long"
    st=$?
    elapsed=$((SECONDS - t0))
    bounded "${p[@]}" inspect --format '{{.State.Status}} {{.State.ExitCode}}' "$name-long"
    if [ "$st" -eq 0 ] && [ "$(cat "$out")" = "exited 7" ] && [ "$elapsed" -lt 50 ]; then
      pass "$what (${elapsed}s)"
    else
      fail "$what (podman stop exit $st after ${elapsed}s; state '$(cat "$out")')"
      tail_of "$err"
    fi
  fi
  expect_status 0 "podman rm of the stopped container" "${p[@]}" rm "$name-long"

  # kill: SIGKILL of a sleeping container; podman wait returns 137.
  expect_status 0 "podman run -d sleep 1000" "${p[@]}" run -d --network none --name "$name-sleep" "$bb" sleep 1000
  expect_status 0 "podman kill of a sleeping container" "${p[@]}" kill "$name-sleep"
  expect_status 0 "podman wait after the kill" "${p[@]}" wait "$name-sleep"
  out_is 137 "podman kill: the container died of SIGKILL (137)"
  expect_status 0 "podman rm of the killed container" "${p[@]}" rm "$name-sleep"

  # A terminal: podman run -it in a tmux pane of 100x30; keys in, screen out.
  what="podman run -it in tmux: a shell prompt"
  runnable "$what" || return 0
  local s=$name-tty
  tmx kill-session -t "$s" 2>/dev/null
  tmx new-session -d -s "$s" -x 100 -y 30 \
    "$(printf '%q ' "${p[@]}") run -it --rm --network none --name $s $bb sh; echo podman-exited-\$?; sleep 600"
  if wait_for 60 pane_has "$s" "/ #"; then pass "$what"; else
    fail "$what (the pane after 60 s:)"
    tmx capture-pane -p -t "$s" | grep . | sed 's/^/#   /' | tail -8
  fi
  tmx send-keys -t "$s" 'echo "[$((6*7))] [$(tty)] [$(stty size)]"' Enter
  if wait_for 30 pane_has "$s" "[42] [/dev/pts/0]"; then
    pass "podman run -it: keys reach the shell on /dev/pts/0 and its output reaches the pane"
  else
    fail "podman run -it: keys reach the shell on /dev/pts/0 and its output reaches the pane"
    tmx capture-pane -p -t "$s" | grep . | sed 's/^/#   /' | tail -8
  fi
  if pane_has "$s" "[30 100]"; then pass "podman run -it: the terminal has the pane's size (30 rows, 100 columns)"; else
    fail "podman run -it: the terminal has the pane's size (30 rows, 100 columns)"
  fi
  tmx send-keys -t "$s" 'exit 5' Enter
  if wait_for 60 pane_has "$s" "podman-exited-5"; then pass "podman run -it: exit 5 in the shell is podman's status"; else
    fail "podman run -it: exit 5 in the shell is podman's status"
    tmx capture-pane -p -t "$s" | grep . | sed 's/^/#   /' | tail -8
  fi
  tmx kill-session -t "$s" 2>/dev/null

  # podman exec -it into a running container: conmon asks the runtime for
  # exec --tty --console-socket with a process file (terminal, consoleSize).
  expect_status 0 "podman run -d sleep 1000 (for exec -it)" \
    "${p[@]}" run -d --network none --name "$name-execit" "$bb" sleep 1000
  terminal_case "podman exec -it in tmux" "$name-exectty" "${p[@]}" exec -it "$name-execit" sh
  expect_status 0 "podman rm -f of the exec -it container" "${p[@]}" rm -f "$name-execit"
  bounded "${p[@]}" ps -a -q --filter "name=^$name-"
  if [ ! -s "$out" ]; then pass "no container left"; else fail "no container left: $(tr '\n' ' ' <"$out")"; fi
  nothing_left "libpod_parent/libpod-*/"
}

# podman_load_start: loads both images into podman in the background (most
# of it is decompressing the python layer: a minute or two under TCG), while
# containerd's cases run; podman_caller waits for it.
podman_load_pid=
podman_load_start() {
  local ref
  (
    for ref in busybox:latest python:3.13-slim; do
      callers_podman_load "$work" "$TEST_IMAGES/${ref%%:*}" "$ref" >"$work/load-${ref%%:*}.log" 2>&1
      echo $? >"$work/load-${ref%%:*}.status"
    done
  ) &
  podman_load_pid=$!
}

podman_caller() {
  caller=podman
  local ref name ok_load=1
  wait "$podman_load_pid"
  note "podman: images loaded"
  for ref in busybox:latest python:3.13-slim; do
    name=${ref%%:*}
    if [ "$(cat "$work/load-$name.status" 2>/dev/null)" = 0 ]; then
      ok "podman pull oci: of the $name test image, tagged localhost/$ref"
    else
      ok_load=0
      harness_broken "podman pull oci: of the $name test image"
      tail_of "$work/load-$name.log"
    fi
  done
  [ "$ok_load" = 1 ] || return
  for_each_runtime crun podman_cases
}

# ====================================================================
# docker: dockerd 20.10 with --add-runtime ocirun=$OCIRUN; docker run
# --runtime RUNTIME, through dockerd's own containerd and the runc v2 shim
# ====================================================================
# The recipe's flags as the recipe passes them to docker (docs/docker-path.md).
docker_recipe_flags=(--network none --read-only --memory 128m --memory-swap 128m --cpus 0.5
  --pids-limit 32 --cap-drop ALL --security-opt no-new-privileges --user 65534:65534
  --tmpfs /tmp:rw,noexec,nosuid,size=1048576)
# The probe's checks (docs/docker-path.md's table) in busybox's sh, one line
# each; the recipe's image has python, the test's busybox does not.
docker_probe='echo "uid $(id -u)"
for f in memory.max pids.max cpu.max; do echo "$f $(cat /sys/fs/cgroup/$f)"; done
sed -nE "s/^(CapEff|NoNewPrivs):[[:space:]]*/\1 /p" /proc/self/status
echo net $(ls /sys/class/net)
touch /var/tmp/probe 2>&1 | grep -q "Read-only file system" && echo "var/tmp EROFS"
echo hi >/tmp/probe && [ "$(cat /tmp/probe)" = hi ] && rm /tmp/probe && echo "tmp written"
o=,$(awk "\$2 == \"/tmp\" { print \$4 }" /proc/mounts),
case $o in *,nosuid,*) case $o in *,noexec,*) echo "tmp nosuid,noexec" ;; esac ;; esac'
docker_probe_want='uid 65534
memory.max 134217728
pids.max 32
cpu.max 50000 100000
CapEff 0000000000000000
NoNewPrivs 1
net lo
var/tmp EROFS
tmp written
tmp nosuid,noexec'

# io_weights PID: "io.weight VALUE; io.bfq.weight VALUE" of the cgroup the
# process is in (its /proc/PID/cgroup line, read in the guest: the host's
# side of the container's cgroup), "none" for a file the kernel lacks.
io_weights() {
  local cg f v line=
  cg=$(sed -n 's/^0:://p' "/proc/$1/cgroup" 2>/dev/null)
  [ -n "$cg" ] || { echo "no cgroup for pid $1"; return; }
  for f in io.weight io.bfq.weight; do
    v=$(tr '\n' ' ' 2>/dev/null <"/sys/fs/cgroup$cg/$f") || v=none
    line="$line${line:+; }$f ${v% }"
  done
  echo "$line"
}
# weight_is WANT_V2 WANT_BFQ PID: the cgroup's default io.weight is WANT_V2,
# or its io.bfq.weight is WANT_BFQ (runc writes only the latter where the
# kernel has BFQ; ocirun writes both).
weight_is() {
  local w
  w=$(io_weights "$3")
  case "$w" in
  "io.weight default $1;"* | *"io.bfq.weight default $2") return 0 ;;
  esac
  echo "# $w"
  return 1
}

docker_cases() {
  # dockerd's names for the two: its default and the one it was given.
  local name=dc-$rt_label what pid d=("$docker" run --runtime "$rt_label")
  expect_status 0 "docker run busybox true exits 0" "${d[@]}" --rm --network none busybox:latest true
  expect_status 3 "docker run busybox sh -c 'exit 3': the exit status reaches docker" \
    "${d[@]}" --rm --network none busybox:latest sh -c 'echo hello from $$; exit 3'
  out_is "hello from 1" "docker run: stdout reaches docker, the command is pid 1"
  expect_status 0 "docker run with the recipe's flags runs busybox's probe" \
    "${d[@]}" --rm -i "${docker_recipe_flags[@]}" busybox:latest sh -c "$docker_probe"
  out_is "$docker_probe_want" "docker run with the recipe's flags: every check of the probe's table holds"

  # A long container without a weight (the control of what io_weights
  # reads: the default), exec into it, stop it (TERM trapped: exit 7).
  expect_status 0 "docker run -d a trapping loop" "${d[@]}" -d --network none --name "$name-long" \
    busybox:latest sh -c 'trap "exit 7" TERM; while :; do sleep 1; done'
  what="docker run without --blkio-weight: io.weight is the default, 100"
  if runnable "$what"; then
    pid=$("$docker" inspect --format '{{.State.Pid}}' "$name-long" 2>/dev/null)
    if weight_is 100 100 "${pid:-0}"; then pass "$what"; else fail "$what"; fi
  fi
  expect_status 4 "docker exec: runs in the container and its status reaches docker" \
    "$docker" exec "$name-long" sh -c 'tr "\0" " " </proc/1/cmdline; exit 4'
  out_is 'sh -c trap "exit 7" TERM; while :; do sleep 1; done ' "docker exec: sees the container's pid 1"
  expect_status 0 "docker stop -t 60" "$docker" stop -t 60 "$name-long"
  bounded "$docker" inspect --format '{{.State.Status}} {{.State.ExitCode}}' "$name-long"
  out_is "exited 7" "docker stop: TERM reached pid 1 (it exited 7)"
  expect_status 0 "docker rm of the stopped container" "$docker" rm "$name-long"

  # --blkio-weight 300: dockerd writes blockIO.weight 300 (cgroup v1's
  # scale); on cgroup v2 that is io.weight 1 + (300-10)*9999/990 = 2930.
  expect_status 0 "docker run -d --blkio-weight 300" "${d[@]}" -d --network none --blkio-weight 300 \
    --name "$name-weight" busybox:latest sleep 1000
  what="docker run --blkio-weight 300: the container's cgroup has io.weight 2930 (io.bfq.weight 300)"
  if runnable "$what"; then
    pid=$("$docker" inspect --format '{{.State.Pid}}' "$name-weight" 2>/dev/null)
    if weight_is 2930 300 "${pid:-0}"; then pass "$what"; else fail "$what"; fi
  fi
  expect_status 0 "docker rm -f of the weighted container" "$docker" rm -f "$name-weight"

  bounded "$docker" ps -a -q --filter "name=^$name-"
  if [ ! -s "$out" ]; then pass "no container left"; else fail "no container left: $(tr '\n' ' ' <"$out")"; fi
  # State under the --root the shim gives, named by the 64-digit ids.
  nothing_left "docker/*/" "$work/docker-exec/runtime-$rt_label" "$(printf '%.0s?' $(seq 64))"
}

docker_caller() {
  caller=docker
  note "docker: starting dockerd"
  if ! callers_start_dockerd "$work" "$OCIRUN"; then
    harness_broken "dockerd starts"
    tail_of "$work/dockerd.log"
    return
  fi
  ok "dockerd starts (overlay2 on tmpfs, no bridge, the runtime ocirun added)"
  if callers_docker_load "$work" "$TEST_IMAGES/busybox" busybox:latest >"$out" 2>"$err"; then
    ok "skopeo loads the busybox test image into dockerd"
  else
    harness_broken "skopeo loads the busybox test image into dockerd"
    tail_of "$err"
    return
  fi
  for_each_runtime runc docker_cases
}

for tool in ctr containerd containerd-shim-runc-v2 runc crun podman conmon tmux dockerd docker skopeo; do
  command -v "$tool" >/dev/null 2>&1 || not_ok "$tool is installed (scripts/install-deps)"
done
for layout in busybox python; do
  [ -f "$TEST_IMAGES/$layout/index.json" ] ||
    not_ok "the $layout test image is in $TEST_IMAGES (scripts/make-test-images $layout)"
done
if ! callers_write_wrappers "$work"; then
  not_ok "write the ctr and podman wrappers"
  tap_done
  exit 0
fi
case " $callers " in *" podman "*) podman_load_start ;; esac
for c in $callers; do
  case $c in
  containerd) containerd_caller ;;
  podman) podman_caller ;;
  docker) docker_caller ;;
  *) not_ok "unknown caller '$c' in OCIRUN_CALLERS" ;;
  esac
done

if [ "$control_failures" -eq 0 ]; then
  ok "every control case passed: the harness works"
else
  not_ok "every control case passed: $control_failures control or setup case(s) FAILED, the harness is broken and the ocirun results above mean nothing"
fi
if [ -f "$work/trace.log" ]; then
  echo "# the runtimes' calls (OCIRUN_CALLERS_TRACE=1), W=$work:"
  sed "s|$work|W|g; s/^/#   /" "$work/trace.log"
fi
note "done"
tap_done
exit 0
