#!/bin/bash
# Terminals on the host (without a cgroup: the host is hybrid cgroup v1):
# `ocirun exec --tty` with a caller's --console-socket (conmon's and
# containerd's way: tests/helpers/console-receiver.py plays their part) and
# with a process file whose process.terminal is true; `ocirun exec -t` and
# `ocirun run -t` where ocirun itself relays the pty to its own terminal
# (driven through `script` and tmux); and the security rules: the pty is of the container's
# devpts, the caller's terminal never reaches the process, the master never
# enters the container, and the caller's terminal settings come back.
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT
receiver=$top_srcdir/tests/helpers/console-receiver.py
tmx() { TERM=xterm tmux -L "ocirun-terminal-$$" "$@"; }
pane_has() { tmx capture-pane -p -t t 2>/dev/null | grep -qF -- "$1"; }
wait_for() {
  local i
  for i in $(seq $(($1 * 10))); do
    "${@:2}" && return 0
    sleep 0.1
  done
  return 1
}
trap 'tmx kill-server 2>/dev/null; "$OCIRUN" --root "$ROOT" delete -f x1 >/dev/null 2>&1; "$OCIRUN" --root "$ROOT" delete -f h2 >/dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT

# A busybox bundle (the test image's layers) whose pid 1 sleeps.
B=$TEST_TMP/bundle
SLEEPER='c["process"]["args"] = ["sleep", "1000"]
c["linux"].pop("resources", None)'
oci_bundle "$B" busybox "$SLEEPER"
check "a busybox bundle" test -s "$B/config.json"
expect_exit 0 "create and start a container" \
  eval "oci create --unsafe-no-cgroup --bundle '$B' x1 </dev/null && oci start x1"
pid1=$(oci state x1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])' 2>/dev/null)
host_devpts=$(stat -c %d /dev/pts)

# --- a caller's console socket ---
SOCK=$TEST_TMP/console.sock
expect_exit 0 "exec --tty --console-socket: the caller receives the pty's master" \
  python3 "$receiver" "$SOCK" 'echo "[$((6*7))] [$(tty)]"; exit 5' \
  "$OCIRUN" --root "$ROOT" exec --tty --console-socket "$SOCK" x1 sh
check "... which is a terminal" out_has_literal "received a terminal: True"
check "... the keys typed into it reach the shell, on the container's /dev/pts/0" out_has_literal "[42] [/dev/pts/0]"
check "... and the shell's exit status is exec's" out_has_literal "exit-status: 5"

# conmon's `podman exec -it`: a process file with terminal and consoleSize,
# --detach, --pid-file.
cat >"$TEST_TMP/process.json" <<'J'
{"terminal": true, "consoleSize": {"height": 30, "width": 100}, "args": ["sh"], "cwd": "/",
 "env": ["PATH=/bin:/usr/bin"], "user": {"uid": 0, "gid": 0}}
J
expect_exit 0 "exec --process (terminal true, consoleSize 30x100) --console-socket" \
  python3 "$receiver" "$SOCK" 'echo "[$(tty)] [$(stty size)]"; exit 6' \
  "$OCIRUN" --root "$ROOT" exec --process "$TEST_TMP/process.json" --console-socket "$SOCK" x1
check "... the process's terminal is the pty, at consoleSize" out_has_literal "[/dev/pts/0] [30 100]"
check "... and its exit status is exec's" out_has_literal "exit-status: 6"
sed 's/"args": \["sh"\]/"args": ["sleep", "1000"]/' "$TEST_TMP/process.json" >"$TEST_TMP/sleep.json"
python3 "$receiver" "$SOCK" '' "$OCIRUN" --root "$ROOT" exec --process "$TEST_TMP/sleep.json" \
  --console-socket "$SOCK" --detach --pid-file "$TEST_TMP/x.pid" x1 >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
receiver_pid=$!
wait_for 20 test -s "$TEST_TMP/x.pid"
xpid=$(cat "$TEST_TMP/x.pid" 2>/dev/null)
check "exec --detach --console-socket: the pid file names a live process" test -d "/proc/${xpid:-none}"
# Every descriptor of the process: the pty's peer on the container's
# devpts (its /dev/pts: the same filesystem as pid 1's), never the host's,
# never the master (/dev/ptmx, or pts/ptmx), never the caller's terminal.
fds_on_container_devpts() {
  local f dev ctr n=0
  ctr=$(stat -c %d "/proc/${pid1:-none}/root/dev/pts") || return 1
  [ "$ctr" != "$host_devpts" ] || return 1
  for f in /proc/"$1"/fd/*; do
    n=$((n + 1))
    dev=$(stat -L -c '%d %t' "$f") || return 1
    [ "$dev" = "$ctr 88" ] || { echo "# $f: $(readlink "$f") dev $dev" && return 1; }
    case $(readlink "$f") in /dev/pts/[0-9]*) ;; *) return 1 ;; esac
  done
  [ "$n" -eq 3 ]
}
check "... its fds 0, 1, 2 (and nothing else) are the pty's peer on the container's devpts, not the host's, not the master" \
  fds_on_container_devpts "${xpid:-none}"
check "... the pty is its controlling terminal (tty_nr in /proc/PID/stat)" \
  sh -c "[ \"\$(cut -d' ' -f7 /proc/${xpid:-none}/stat)\" != 0 ]"
kill -KILL "${xpid:-none}" 2>/dev/null
wait "$receiver_pid"

# --- refusals ---
expect_exit 1 "exec --console-socket without a terminal is refused" \
  oci exec --console-socket "$SOCK" x1 true
check "... naming --console-socket" grep -q "console-socket given but the process has no terminal" "$TEST_TMP/err"
expect_exit 1 "exec --tty --detach without a console socket is refused" oci exec --tty --detach x1 sleep 1
check "... saying why" grep -q "detach with a terminal needs --console-socket" "$TEST_TMP/err"
expect_exit 1 "exec --tty --console-socket to a socket nobody listens on fails" \
  oci exec --tty --console-socket "$TEST_TMP/nobody.sock" x1 sleep 1
check "... naming the socket" grep -q "nobody.sock" "$TEST_TMP/err"

# --- ocirun relays the terminal (exec -t without a console socket) ---
# script(1) gives ocirun a terminal of 33x111; keys come through a pipe.
tty_exec() {
  (
    sleep 1
    printf '%s\r' "$1"
    sleep 3
  ) | script -qec "stty rows 33 cols 111; $OCIRUN --root $ROOT exec -t x1 sh; echo exec-status-\$?; stty -a" /dev/null >"$TEST_TMP/out" 2>&1
}
tty_exec 'echo "[$((6*7))] [$(tty)] [$(stty size)]"; exit 7'
check "exec -t: the keys reach the shell on the container's /dev/pts/0, at the caller's size (33x111)" \
  out_has_literal "[42] [/dev/pts/0] [33 111]"
check "... the shell's exit status is exec's" out_has_literal "exec-status-7"
check "... and the caller's terminal is back in canonical mode with echo" \
  sh -c "tr -d '\r' <'$TEST_TMP/out' | grep -qE '(^| )icanon( |$)' && tr -d '\r' <'$TEST_TMP/out' | grep -qE '(^| )echo( |$)'"
# The takeover class: inside, the process's 0, 1, 2 are its own pty on the
# container's devpts; the caller's terminal (script's pty, on the host's
# devpts) is not among them. The control: exec without -t hands the
# caller's descriptors as they are, so the same command sees the host's.
same_devpts='for f in 0 1 2; do [ "$(stat -L -c %d /proc/$$/fd/$f)" = "$(stat -c %d /dev/pts)" ] || echo "fd-$f-elsewhere"; done; echo checked'
tty_exec "$same_devpts"
check "exec -t: fds 0, 1, 2 inside are on the container's devpts" \
  sh -c "grep -q checked '$TEST_TMP/out' && ! grep -q 'fd-[0-9]-elsewhere' '$TEST_TMP/out'"
script -qec "$OCIRUN --root $ROOT exec x1 sh -c '$same_devpts'" /dev/null </dev/null >"$TEST_TMP/out" 2>&1
check "control: exec without -t under a terminal: the caller's terminal is fd 0 inside" \
  sh -c "grep -q checked '$TEST_TMP/out' && grep -q fd-0-elsewhere '$TEST_TMP/out'"
# A signal to ocirun while it relays goes to the process, which says so and
# exits by its own trap (so neither ocirun's death nor a kill can pass for
# it); the caller's terminal, raw while relayed, comes back.
script -qec "stty rows 33 cols 111; $OCIRUN --root $ROOT exec -t x1 sh -c 'trap \"echo got-TERM; exit 42\" TERM; echo trapping; sleep 30 & wait' </dev/tty & p=\$!; sleep 2; kill -TERM \$p; wait \$p; echo exec-status-\$?; stty -a" /dev/null </dev/null >"$TEST_TMP/out" 2>&1
check "exec -t, SIGTERM to ocirun: the process gets it (its trap's output, exit 42)" \
  sh -c "grep -q got-TERM '$TEST_TMP/out' && grep -q exec-status-42 '$TEST_TMP/out'"
check "... and the caller's terminal is back in canonical mode with echo" \
  sh -c "tr -d '\r' <'$TEST_TMP/out' | grep -qE '(^| )icanon( |$)' && tr -d '\r' <'$TEST_TMP/out' | grep -qE '(^| )echo( |$)'"
script -qec "$OCIRUN --root $ROOT exec x1 sh -c 'trap \"echo got-HUP; exit 43\" HUP; echo trapping; sleep 30 & wait' & p=\$!; sleep 2; kill -HUP \$p; wait \$p; echo exec-status-\$?" /dev/null </dev/null >"$TEST_TMP/out" 2>&1
check "exec relayed without -t, SIGHUP to ocirun: the process gets it (exit 43)" \
  sh -c "grep -q got-HUP '$TEST_TMP/out' && grep -q exec-status-43 '$TEST_TMP/out'"

# A signal in the window between the process's start and the relay (the
# pty attached, the caller's terminal raw, the pid file being written):
# strace holds the pid file's rename for 3s, and SIGTERM reaches ocirun
# once the pid file's temporary file (named with ocirun's pid) exists. The
# process must get it (its trap kills its sleep, of an argv of its own, and
# says so) and the caller's terminal come back, as for a signal while
# relaying; ocirun killed there leaves the terminal raw and, without -t,
# the process running.
cat >"$TEST_TMP/window.sh" <<'WINDOW'
dir=$1 seconds=$2
shift 2
rm -rf "$dir" && mkdir "$dir" || exit
strace -qq -o /dev/null -e trace=renameat,renameat2 -e inject=renameat,renameat2:delay_enter=3000000 \
  "$OCIRUN" --root "$ROOT" exec --pid-file "$dir/exec.pid" "$@" x1 \
  sh -c 'trap "kill \$!; echo got-TERM; exit 42" TERM; sleep '"$seconds"' & wait' </dev/tty &
job=$!
for i in $(seq 100); do
  set -- "$dir"/.ocirun-pid-*
  [ -e "$1" ] && break
  sleep 0.1
done
p=${1#"$dir"/.ocirun-pid-}
kill -TERM "${p%%-*}"
wait $job
echo exec-status-$?
stty -a
WINDOW
window_signal() { # the sleep's seconds, then exec's options
  script -qec "ROOT=$ROOT sh $TEST_TMP/window.sh $TEST_TMP/pid-dir $*" /dev/null </dev/null >"$TEST_TMP/out" 2>&1
}
trapped_term() { grep -q got-TERM "$TEST_TMP/out" && grep -q exec-status-42 "$TEST_TMP/out"; }
no_sleep_left() { ! ps -eo args | grep -qx "sleep $1"; }
if command -v strace >/dev/null 2>&1; then
  window_signal 4241 -t
  check "exec -t, SIGTERM to ocirun before it relays (its pid file held): the process gets it (exit 42)" \
    trapped_term
  check "... its pid file is written" test -s "$TEST_TMP/pid-dir/exec.pid"
  check "... nothing of it is left" no_sleep_left 4241
  check "... and the caller's terminal is back in canonical mode with echo" \
    sh -c "tr -d '\r' <'$TEST_TMP/out' | grep -qE '(^| )icanon( |$)' && tr -d '\r' <'$TEST_TMP/out' | grep -qE '(^| )echo( |$)'"
  window_signal 4242
  check "exec relayed without -t, SIGTERM to ocirun before it relays: the process gets it (exit 42)" \
    trapped_term
  check "... nothing of it is left" no_sleep_left 4242
else
  skip "SIGTERM before exec relays: no strace to hold the pid file's write"
fi

# An OCI caller's pipes handed over (nothing relayed), ocirun waiting for
# the process: a signal to ocirun goes to the process too, rather than
# ending ocirun and leaving the process running.
exec 3> >(cat >"$TEST_TMP/out")
"$OCIRUN" --root "$ROOT" exec x1 sh -c 'trap "kill \$!; echo got-TERM; exit 42" TERM; echo trapping; sleep 4246 & wait' </dev/null >&3 2>&3 &
p=$!
exec 3>&-
sleep 2
kill -TERM "$p"
wait "$p"
echo "exec-status-$?" >>"$TEST_TMP/status"
sleep 0.5
check "exec with its pipes handed over, SIGTERM to ocirun: the process gets it (exit 42)" \
  sh -c "grep -q got-TERM '$TEST_TMP/out' && grep -q exec-status-42 '$TEST_TMP/status'"
check "... nothing of it is left" no_sleep_left 4246

# A pid file that cannot be written (its directory does not exist), once
# the process has started: the process is killed and reaped, the caller's
# terminal comes back, and exec fails naming the pid file.
nodir=$TEST_TMP/no-such-dir/exec.pid
script -qec "$OCIRUN --root $ROOT exec -t --pid-file $nodir x1 sleep 4243 </dev/tty; echo exec-status-\$?; stty -a" /dev/null </dev/null >"$TEST_TMP/out" 2>&1
check "exec -t, a pid file that cannot be written: exit 1, naming it" \
  sh -c "grep -q exec-status-1 '$TEST_TMP/out' && grep -qF '$nodir' '$TEST_TMP/out'"
check "... nothing of the process is left" no_sleep_left 4243
check "... and the caller's terminal is back in canonical mode with echo" \
  sh -c "tr -d '\r' <'$TEST_TMP/out' | grep -qE '(^| )icanon( |$)' && tr -d '\r' <'$TEST_TMP/out' | grep -qE '(^| )echo( |$)'"
for mode in relayed handed-over detached; do
  case $mode in
  relayed) script -qec "$OCIRUN --root $ROOT exec --pid-file $nodir x1 sleep 4244; echo exec-status-\$?" /dev/null </dev/null >"$TEST_TMP/out" 2>&1 ;;
  handed-over) { "$OCIRUN" --root "$ROOT" exec --pid-file "$nodir" x1 sleep 4244 </dev/null 2>&1 | timeout 10 cat; echo "exec-status-${PIPESTATUS[0]}"; } >"$TEST_TMP/out" ;;
  detached) { "$OCIRUN" --root "$ROOT" exec -d --pid-file "$nodir" x1 sleep 4244 </dev/null 2>&1 | timeout 10 cat; echo "exec-status-${PIPESTATUS[0]}"; } >"$TEST_TMP/out" ;;
  esac
  check "exec ($mode), a pid file that cannot be written: exit 1, naming it" \
    sh -c "grep -q exec-status-1 '$TEST_TMP/out' && grep -qF '$nodir' '$TEST_TMP/out'"
  check "... nothing of the process is left" no_sleep_left 4244
done

# The caller's terminal hung up while exec -t relays it (its master
# closed): the process gets the SIGHUP, and the terminal refusing its
# settings back is exec's error (exit 1, saying so on stderr), not a
# silent exit that claims the terminal was restored.
python3 - "$OCIRUN" "$ROOT" "$TEST_TMP/stderr" >"$TEST_TMP/out" 2>&1 <<'HANGUP'
import fcntl, os, pty, select, subprocess, sys, termios, time
ocirun, root, errors = sys.argv[1:]
master, slave = pty.openpty()
def own_terminal():
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
with open(errors, "w") as stderr:
    p = subprocess.Popen([ocirun, "--root", root, "exec", "-t", "x1", "sh", "-c", "echo ready; exec sleep 4245"],
                         stdin=slave, stdout=slave, stderr=stderr, preexec_fn=own_terminal)
os.close(slave)
seen, deadline = b"", time.time() + 20
while b"ready" not in seen and time.time() < deadline:
    if select.select([master], [], [], 1)[0]:
        seen += os.read(master, 1024)
time.sleep(0.5)
os.close(master)
try:
    print("exec-status-%d" % p.wait(timeout=20))
except subprocess.TimeoutExpired:
    p.kill()
    print("exec-still-running")
HANGUP
check "exec -t, the caller's terminal hung up: exit 1" out_has_literal "exec-status-1"
check "... saying its settings could not be restored" grep -q "restore the settings of fd 0" "$TEST_TMP/stderr"
check "... nothing of the process is left" no_sleep_left 4245

# tmux: a real terminal, resized while the shell runs (SIGWINCH).
if command -v tmux >/dev/null 2>&1; then
  tmx new-session -d -s t -x 100 -y 30 "$OCIRUN --root $ROOT exec -t x1 sh; echo exec-exited-\$?; sleep 600"
  if wait_for 20 pane_has "/ #"; then ok "exec -t in tmux: a shell prompt"; else not_ok "exec -t in tmux: a shell prompt"; fi
  tmx send-keys -t t 'echo "[$(stty size)]"' Enter
  if wait_for 20 pane_has "[30 100]"; then ok "exec -t in tmux: the pane's size"; else not_ok "exec -t in tmux: the pane's size"; fi
  tmx resize-window -t t -x 120 -y 40 2>/dev/null || tmx resize-pane -t t -x 120 -y 40
  sleep 0.5
  tmx send-keys -t t 'echo "[$(stty size)]"' Enter
  if wait_for 20 pane_has "[40 120]"; then ok "exec -t in tmux: a resize reaches the pty (SIGWINCH)"; else
    not_ok "exec -t in tmux: a resize reaches the pty (SIGWINCH)"
    tmx capture-pane -p -t t | grep . | sed 's/^/#   /' | tail -5
  fi
  tmx send-keys -t t 'exit 9' Enter
  if wait_for 20 pane_has "exec-exited-9"; then ok "exec -t in tmux: exit 9 is exec's status"; else not_ok "exec -t in tmux: exit 9 is exec's status"; fi
  tmx kill-server 2>/dev/null
else
  skip "tmux is not installed"
fi

expect_exit 0 "kill the container" oci kill x1 KILL
wait_for 10 sh -c "'$OCIRUN' --root '$ROOT' state x1 | grep -q stopped"
expect_exit 0 "delete it" oci delete x1

# --- a host pty through the container's /dev/ptmx (the CVE-2016-9962 class) ---
# The configuration binds the host's devpts at /hostpts; the container
# (root in it) points its /dev/ptmx there. exec -t must refuse that pty.
HB=$TEST_TMP/hostpts-bundle
oci_bundle "$HB" busybox "$SLEEPER"'
c["mounts"].append({"destination": "/hostpts", "type": "bind", "source": "/dev/pts", "options": ["rbind", "nosuid", "noexec"]})'
expect_exit 0 "a container with the host's devpts bound at /hostpts" \
  eval "oci create --unsafe-no-cgroup --bundle '$HB' h2 </dev/null && oci start h2"
script -qec "$OCIRUN --root $ROOT exec -t h2 tty" /dev/null </dev/null >"$TEST_TMP/out" 2>&1
check "control: exec -t there while its /dev/ptmx is its own: a pty of its devpts" out_has_literal "/dev/pts/0"
expect_exit 0 "the container points its /dev/ptmx at the host's" oci exec h2 ln -sf /hostpts/ptmx /dev/ptmx
script -qec "$OCIRUN --root $ROOT exec -t h2 tty; echo exec-status-\$?" /dev/null </dev/null >"$TEST_TMP/out" 2>&1
check "exec -t refuses the host's pty" out_has_literal "exec-status-1"
check "... saying why" out_has_literal "the container's /dev/ptmx is the host's devpts"
python3 "$receiver" "$SOCK" 'tty' "$OCIRUN" --root "$ROOT" exec --tty --console-socket "$SOCK" h2 sh >"$TEST_TMP/out" 2>&1
check "exec --console-socket refuses it too, and sends nothing" \
  sh -c "grep -q 'no file descriptor came' '$TEST_TMP/out' || grep -q 'no connection' '$TEST_TMP/out' || grep -q 'exit-status: 1' '$TEST_TMP/out'"
check "... and no terminal reached the caller" sh -c "! grep -q 'received a terminal' '$TEST_TMP/out'"
expect_exit 0 "delete it" oci delete -f h2

# --- ocirun run -t: ocirun relays the pty (docker run -it) ---
if "$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1; then
  ok "import the busybox test image"
else
  not_ok "import the busybox test image"
fi
run_tty() {
  local keys=$1
  shift
  (
    sleep 1.5
    printf '%s\r' "$keys"
    sleep 3
  ) | script -qec "stty rows 33 cols 111; $OCIRUN run --unsafe-no-cgroup $(printf '%q ' "$@") 2>/dev/null; echo run-status-\$?; stty -a" /dev/null >"$TEST_TMP/out" 2>&1
}
canonical_again() {
  tr -d '\r' <"$TEST_TMP/out" | grep -qE '(^| )icanon( |$)' && tr -d '\r' <"$TEST_TMP/out" | grep -qE '(^| )echo( |$)'
}
run_tty 'echo "[$((6*7))] [$(tty)] [$(stty size)]"; exit 3' -it busybox:latest sh
check "run -it: the keys reach the shell on the container's /dev/pts/0, at the caller's size (33x111)" \
  out_has_literal "[42] [/dev/pts/0] [33 111]"
check "... the shell's exit status is run's" out_has_literal "run-status-3"
check "... and the caller's terminal is back in canonical mode with echo" canonical_again
run_tty '' -t busybox:latest sh -c "$same_devpts"
check "run -t: fds 0, 1, 2 of pid 1 are on the container's devpts" \
  sh -c "grep -q checked '$TEST_TMP/out' && ! grep -q 'fd-[0-9]-elsewhere' '$TEST_TMP/out'"
run_tty '' busybox:latest sh -c "$same_devpts"
check "control: run without -t: its fds are ocirun's pipes, not on its devpts" \
  sh -c "grep -q checked '$TEST_TMP/out' && grep -q fd-0-elsewhere '$TEST_TMP/out'"
# SIGTERM to ocirun while the shell waits for keys: the run is torn down
# (143) and the caller's terminal comes back from raw mode.
(sleep 6) | script -qec "stty rows 33 cols 111; $OCIRUN run --unsafe-no-cgroup -it busybox:latest sh 2>/dev/null & p=\$!; sleep 2; kill -TERM \$p; wait \$p; echo run-status-\$?; stty -a" /dev/null >"$TEST_TMP/out" 2>&1
check "run -it, SIGTERM to ocirun: exit 143" out_has_literal "run-status-143"
check "... and the caller's terminal is back in canonical mode with echo" canonical_again
echo hello | "$OCIRUN" run --unsafe-no-cgroup -it busybox:latest sh -c 'read x; echo "got $x on $(tty)"' >"$TEST_TMP/out" 2>"$TEST_TMP/err"
check "run -it with stdin a pipe (no raw mode): the input reaches the pty" out_has_literal "got hello on /dev/pts/0"
if command -v tmux >/dev/null 2>&1; then
  tmx new-session -d -s t -x 100 -y 30 "$OCIRUN run --unsafe-no-cgroup -it busybox:latest sh 2>/dev/null; echo run-exited-\$?; sleep 600"
  if wait_for 20 pane_has "/ #"; then ok "run -it in tmux: a shell prompt"; else not_ok "run -it in tmux: a shell prompt"; fi
  tmx resize-window -t t -x 120 -y 40 2>/dev/null || tmx resize-pane -t t -x 120 -y 40
  sleep 0.5
  tmx send-keys -t t 'echo "[$(stty size)]"' Enter
  if wait_for 20 pane_has "[40 120]"; then ok "run -it in tmux: a resize reaches the pty (SIGWINCH)"; else
    not_ok "run -it in tmux: a resize reaches the pty (SIGWINCH)"
    tmx capture-pane -p -t t | grep . | sed 's/^/#   /' | tail -5
  fi
  tmx send-keys -t t 'exit 4' Enter
  if wait_for 20 pane_has "run-exited-4"; then ok "run -it in tmux: exit 4 is run's status"; else not_ok "run -it in tmux: exit 4 is run's status"; fi
  tmx kill-server 2>/dev/null
else
  skip "tmux is not installed"
fi
check "run -t: nothing of the runs is left" sh -c "[ -z \"\$(ls -A '$ROOT/run' 2>/dev/null)\" ]"

tap_done
