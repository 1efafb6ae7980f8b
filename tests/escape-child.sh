#!/bin/bash
# Escapes through the container's first process and ocirun's own process:
# leaked descriptors and the working directory (CVE-2024-21626, -2016-9962),
# the caller's descriptors as stdio (issue 8 finding 3), signal state
# (finding 5), an empty argv[0] (finding 6), and ocirun's own binary as the
# container's exe (CVE-2019-5736). Each attack first shows, with a weakened
# setup the test builds itself, that its observable is real. Host only,
# with --unsafe-no-cgroup: none of these depends on the cgroup.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "escape-child"

run() { "$OCIRUN" run --unsafe-no-cgroup "$@"; }


# A host directory with a marker, which every attack below tries to reach.
hostdir=$TEST_TMP/hostdir
mkdir -p "$hostdir"
echo "host-marker-$$" >"$hostdir/marker"
marker="host-marker-$$"

# ============ working directory and leaked fds (CVE-2024-21626) ============
# Positive control: a process holding an fd to the host directory reaches it
# through /proc/self/fd/N.
(cd /proc/self/fd/3 && cat marker) 3<"$hostdir" >"$TEST_TMP/out" 2>&1
verdict "control: /proc/self/fd/3 of a process holding a host dir reaches the host" out_has_literal "$marker"
# Positive control: ocirun itself does hold the caller's fds 3..10 while it runs.
run busybox:latest sleep 2 3<"$hostdir" 4<"$hostdir" 5<"$hostdir" 6<"$hostdir" \
  7<"$hostdir" 8<"$hostdir" 9<"$hostdir" 10<"$hostdir" >/dev/null 2>&1 &
runner=$!
sleep 1
[ "$(readlink "/proc/$runner/fd/5")" = "$hostdir" ] &&
  ok "control: ocirun holds the caller's fd 5 (the host dir) during the run" ||
  not_ok "control: ocirun holds the caller's fd 5 (the host dir) during the run"
wait "$runner"

with_fds() {
  "$@" 3<"$hostdir" 4<"$hostdir" 5<"$hostdir" 6<"$hostdir" 7<"$hostdir" 8<"$hostdir" \
    9<"$hostdir" 10<"$hostdir"
}
for n in 3 4 5 6 7 8 9 10; do
  with_fds run -w "/proc/self/fd/$n" busybox:latest cat marker >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  status=$?
  if [ "$status" -eq 125 ] && ! out_has_literal "$marker" && err_has_literal "working directory"; then
    ok "-w /proc/self/fd/$n: refused (125), the host marker not read"
  else
    not_ok "-w /proc/self/fd/$n: refused (125), the host marker not read (exit $status)"
    show
  fi
done
for n in 3 4 5 8; do
  busybox_variant "wd$n" "{\"WorkingDir\": \"/proc/self/fd/$n\", \"Cmd\": [\"cat\", \"marker\"]}" ||
    not_ok "build the image with WorkingDir /proc/self/fd/$n"
  with_fds run "busybox:wd$n" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  status=$?
  if [ "$status" -eq 125 ] && ! out_has_literal "$marker" && err_has_literal "working directory"; then
    ok "image WorkingDir /proc/self/fd/$n: refused (125), the host marker not read"
  else
    not_ok "image WorkingDir /proc/self/fd/$n: refused (125), the host marker not read (exit $status)"
    show
  fi
done
# A symlink in the image to the magic link.
busybox_variant wdlink '{"WorkingDir": "/wd", "Cmd": ["cat", "marker"]}' wd symlink /proc/self/fd/3 0 ||
  not_ok "build the image with /wd -> /proc/self/fd/3"
with_fds run busybox:wdlink >"$TEST_TMP/out" 2>"$TEST_TMP/err"
status=$?
[ "$status" -eq 125 ] && ! out_has_literal "$marker" && err_has_literal "working directory" && ok "WorkingDir through a symlink to /proc/self/fd/3: refused" ||
  { not_ok "WorkingDir through a symlink to /proc/self/fd/3: refused (exit $status)"; show; }

# A missing working directory is created inside the root, even under an
# absolute symlink that names a host path. Control: a path-joining mkdir -p
# of the same symlink does create it on the host.
mkdir -p "$TEST_TMP/joined" "$TEST_TMP/hostside"
ln -s "$TEST_TMP/hostside" "$TEST_TMP/joined/esc"
mkdir -p "$TEST_TMP/joined/esc/control"
check "control: a joined-path mkdir -p through the symlink creates on the host" \
  test -d "$TEST_TMP/hostside/control"
busybox_variant wdmk "{\"WorkingDir\": \"/esc/made\", \"Cmd\": [\"pwd\"]}" esc symlink "$TEST_TMP/hostside" 0 ||
  not_ok "build the image with /esc -> a host path"
run busybox:wdmk >"$TEST_TMP/out" 2>"$TEST_TMP/err"
status=$?
# (refused, 125: the symlink dangles inside the root, and mkdir never follows it)
if { [ "$status" -eq 0 ] || [ "$status" -eq 125 ]; } && [ ! -e "$TEST_TMP/hostside/made" ]; then
  ok "a missing WorkingDir under a symlink to a host path is never created on the host (exit $status)"
else
  not_ok "a missing WorkingDir under a symlink to a host path is never created on the host (exit $status)"
  show
fi
expect_exit 0 "-w /a/b/c (missing) is created and entered" run -w /a/b/c busybox:latest pwd
out_has_literal "/a/b/c" && ok "pwd is /a/b/c" || not_ok "pwd is /a/b/c"

# ============ runtime fds visible to the container (CVE-2016-9962) ============
# which of fds 0..20 the shell itself holds (test opens none, unlike ls)
open_fds='for f in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do [ -e /proc/$$/fd/$f ] && printf "%s " $f; done; echo'
sh -c "$open_fds" 3<"$hostdir" >"$TEST_TMP/out" 2>&1
verdict "control: a plain child sees an inherited fd 3" grep -qw 3 "$TEST_TMP/out"
with_fds run -i busybox:latest sh -c "$open_fds"'; for f in 0 1 2; do readlink /proc/$$/fd/$f; done' \
  <"$hostdir/marker" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "the container's pid 1 has fds 0 1 2 only" test "$(head -1 "$TEST_TMP/out")" = "0 1 2 "
verdict "fds 0, 1, 2 are ocirun's pipes, none a caller's file" \
  test "$(tail -n 3 "$TEST_TMP/out" | grep -c '^pipe:\[')" -eq 3

# ============ stdio is never a caller's descriptor (finding 3) ============
echo "read-only input" >"$TEST_TMP/ro"
chmod 0444 "$TEST_TMP/ro"
sh -c 'echo pwned > /proc/self/fd/0' <"$TEST_TMP/ro" 2>/dev/null
check "control: root reopens a read-only stdin file for writing through /proc/self/fd/0" \
  grep -q pwned "$TEST_TMP/ro"
echo "read-only input" >"$TEST_TMP/ro"
run -i busybox:latest sh -c 'echo pwned > /proc/self/fd/0; cat' <"$TEST_TMP/ro" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "the workload cannot write the caller's stdin file" test "$(cat "$TEST_TMP/ro")" = "read-only input"
verdict "and stdin is still relayed" out_has_literal "read-only input"

echo "old log content" >"$TEST_TMP/log"
sh -c 'cat /proc/$$/fd/1 | cat >&2; : > /proc/$$/fd/1' >>"$TEST_TMP/log" 2>"$TEST_TMP/err"
check "control: through /proc/self/fd/1 a process reads and truncates its stdout log" \
  sh -c 'grep -q "old log content" "$1" && [ ! -s "$2" ]' _ "$TEST_TMP/err" "$TEST_TMP/log"
echo "old log content" >"$TEST_TMP/log"
run busybox:latest sh -c 'timeout 2 cat /proc/$$/fd/1 | cat >&2; : > /proc/$$/fd/1; echo after' \
  >>"$TEST_TMP/log" 2>"$TEST_TMP/err"
verdict "the workload cannot read the caller's stdout log" sh -c '! grep -q "old log content" "$1"' _ "$TEST_TMP/err"
verdict "nor truncate it; its output is appended" \
  test "$(cat "$TEST_TMP/log")" = "$(printf 'old log content\nafter')"

expect_exit 0 "no -i: stdin is at end of file at once" run --timeout 5 busybox:latest cat
# Backpressure: a reader that never reads must not hold off the deadline.
start=$(date +%s)
run --timeout 3 busybox:latest sh -c 'while :; do echo yyyyyyyyyyyyyyyyyyyyyyyyyyy; done' 2>/dev/null |
  { sleep 8; exec 0<&-; }
end=$(date +%s)
verdict "a stalled reader of stdout does not hold off --timeout" test $((end - start)) -le 9
# A terminal nobody reads (a pty; or one stopped with ^S) blocks a writer.
pty_run() {
  python3 - "$@" <<'PY'
import os, pty, subprocess, sys, time
primary, replica = pty.openpty()  # the primary is never read
start = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=replica, stderr=subprocess.DEVNULL)
try:
    rc = p.wait(timeout=20)
except subprocess.TimeoutExpired:
    p.kill()
    rc = "hung"
print(f"exit {rc} after {int(time.monotonic() - start)} s")
PY
}
pty_run timeout -s KILL 3 head -c 4000000 /dev/zero >"$TEST_TMP/out" 2>&1
verdict "control: a write of 4 MB to an unread pty blocks (killed by timeout)" out_has_literal "exit -9"
pty_run "$OCIRUN" run --unsafe-no-cgroup --timeout 3 busybox:latest sh -c 'while :; do echo y; done' \
  >"$TEST_TMP/out" 2>&1
verdict "a stalled terminal as stdout does not hold off --timeout (124)" \
  sh -c 'grep -qE "^exit 124 after [3-9] s" "$1"' _ "$TEST_TMP/out"
( run --timeout 10 busybox:latest sh -c 'while :; do echo y; done' | true ) 2>/dev/null
check "a reader gone (SIGPIPE) still lets ocirun tear down" nothing_left
printf 'abc' | run -i busybox:latest sh -c 'cat; echo; cat /dev/zero | head -c 3000000 | wc -c' \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "stdin and 3 MB of output relayed in full" sh -c 'grep -qx abc "$1" && grep -qx 3000000 "$1"' _ "$TEST_TMP/out"

# ============ signal state (finding 5) ============
(trap '' PIPE QUIT; grep '^SigIgn' /proc/self/status) >"$TEST_TMP/out"
mask=$(awk '{print $2}' "$TEST_TMP/out")
verdict "control: a caller that ignores SIGPIPE and SIGQUIT shows them in SigIgn ($mask)" \
  test $((0x$mask & 0x1004)) -eq $((0x1004))
python3 -c 'import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1}); os.execvp(sys.argv[1], sys.argv[1:])' \
  grep '^SigBlk' /proc/self/status >"$TEST_TMP/out"
verdict "control: a caller's blocked mask is inherited by what it execs" \
  sh -c '! grep -q "^SigBlk:[[:space:]]*0*$" "$1"' _ "$TEST_TMP/out"
(trap '' PIPE QUIT; exec python3 -c 'import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1}); os.execvp(sys.argv[1], sys.argv[1:])' \
  "$OCIRUN" run --unsafe-no-cgroup busybox:latest grep -E '^Sig(Ign|Blk)' /proc/self/status) \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "inside: SigIgn is empty" grep -q '^SigIgn:[[:space:]]*0*$' "$TEST_TMP/out"
verdict "inside: SigBlk is empty" grep -q '^SigBlk:[[:space:]]*0*$' "$TEST_TMP/out"
for sig in HUP QUIT; do
  # started directly (not through run()): $! is ocirun itself
  "$OCIRUN" run --unsafe-no-cgroup busybox:latest sleep "1$$$(kill -l "$sig")" >/dev/null 2>&1 &
  runner=$!
  pid_of_sleep "1$$$(kill -l "$sig")" >/dev/null || not_ok "SIG$sig: the run started"
  kill -"$sig" "$runner"
  wait "$runner"
  status=$?
  want=$((128 + $(kill -l "$sig")))
  [ "$status" -eq "$want" ] && ok "SIG$sig to ocirun: exit $want" ||
    not_ok "SIG$sig to ocirun: exit $want (got $status)"
  check "SIG$sig to ocirun: no run dir and no record left" nothing_left
done

# ============ empty argv[0] (finding 6) ============
expect_exit 125 "--entrypoint '' with no command: a usage error" run --entrypoint '' busybox:latest
expect_exit 125 "an empty command: a usage error" run busybox:latest ''
err_has_literal "empty" && ok "the message says the command is empty" || not_ok "the message says the command is empty"
busybox_variant emptyep '{"Entrypoint": [""], "Cmd": ["echo", "hi"]}' || not_ok "build the image with Entrypoint [\"\"]"
expect_exit 125 "an image whose Entrypoint is [\"\"]: a usage error" run busybox:emptyep
err_has_literal "Entrypoint" && ok "the message names the image's Entrypoint" || not_ok "the message names the image's Entrypoint"
expect_exit 0 "--entrypoint '' with a command runs the command (docker drops the entrypoint)" \
  run --entrypoint '' busybox:emptyep echo ok
out_has_literal ok && ok "and its output arrives" || not_ok "and its output arrives"

# ============ ocirun's binary as the container's exe (CVE-2019-5736) ============
unshare --fork --pid --mount-proc sh -c 'readlink /proc/$$/exe; true' >"$TEST_TMP/out" 2>&1
verdict "control: /proc/self/exe of a fresh process in new namespaces is its host binary" \
  test "$(cat "$TEST_TMP/out")" = "$(readlink -f "$(command -v sh)")"
# hold_exe_then_write COMMAND...: starts COMMAND, holds its /proc/PID/exe
# (O_PATH) while it runs, and once it has exited reopens that for writing;
# prints "written" when that worked.
hold_exe_then_write() {
  python3 - "$@" <<'PY'
import os, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1)
fd = os.open(f"/proc/{p.pid}/exe", os.O_PATH)
print("exe", os.readlink(f"/proc/{p.pid}/exe"))
p.wait()
try:
    w = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY)
    os.write(w, b"pwned")
    print("written")
except OSError as e:
    print("refused", e)
PY
}
unshare --fork --pid --mount-proc sh -c 'exec /proc/self/exe -c "echo ran-my-own-binary"' >"$TEST_TMP/out" 2>&1
verdict "control: exec of /proc/self/exe in a fresh process runs its own binary again" out_has_literal ran-my-own-binary
cp "$(command -v sleep)" "$TEST_TMP/victim"
hold_exe_then_write "$TEST_TMP/victim" 2 >"$TEST_TMP/out" 2>&1
check "control: a held /proc/PID/exe reopened for writing after exit overwrites the host binary" \
  grep -q pwned "$TEST_TMP/victim"

expect_exit 126 "image command /proc/self/exe is refused" run busybox:latest /proc/self/exe
err_has_literal "magic link" && ok "the message names the magic link" || not_ok "the message names the magic link"
busybox_variant exelink '{"Entrypoint": ["/evil"]}' evil symlink /proc/self/exe 0 ||
  not_ok "build the image with /evil -> /proc/self/exe"
expect_exit 126 "an image command that is a symlink to /proc/self/exe is refused" run busybox:exelink
# In an image with a glibc loader, the host binary would really start as pid 1.
if "$OCIRUN" image import "oci:$TEST_IMAGES/python:python:3.13-slim" >/dev/null 2>&1; then
  expect_exit 126 "python image: command /proc/self/exe is refused" \
    run python:3.13-slim /proc/self/exe --version
  verdict "python image: ocirun's binary never started in the container" \
    sh -c '! grep -qE "ocirun [0-9]|shared libraries" "$1"' _ "$TEST_TMP/err"
else
  skip "python test image not available"
fi

# Against a copy: if the attack works (an unfixed build), only the copy is lost.
cp "$OCIRUN" "$TEST_TMP/ocirun-copy"
digest_before=$(sha256sum <"$TEST_TMP/ocirun-copy")
# A script whose interpreter is /proc/self/exe: the kernel resolves that in
# the process that execs the script, so whatever ran the container's command
# runs again, as the container's pid 1, with the container's privileges.
printf '#!/proc/self/exe\n' >"$TEST_TMP/selfexe-script"
chmod 755 "$TEST_TMP/selfexe-script"
busybox_variant shebang '{"Entrypoint": ["/s"]}' s file '#!/proc/self/exe
' 0755 || not_ok "build the image with #!/proc/self/exe"
# hold_interpreter_then_write COMMAND...: runs COMMAND under strace with the
# return of every exec delayed 1.5 s, so that a #!/proc/self/exe interpreter
# lives long enough to be seen; holds that interpreter's /proc/PID/exe
# (O_PATH), as a second process in the container could, and once COMMAND has
# exited reopens it for writing; prints "exe TARGET", then "written" when
# that worked.
hold_interpreter_then_write() {
  python3 - strace -f -qq -o /dev/null -e trace=execve,execveat \
    -e inject=execve,execveat:delay_exit=1500000 "$@" <<'PY'
import os, subprocess, sys, time
def descendants(pid):
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                for child in map(int, f.read().split()):
                    found += [child] + descendants(child)
    except OSError:
        pass
    return found
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
fd, deadline = None, time.time() + 60
while fd is None and time.time() < deadline and p.poll() is None:
    for pid in descendants(p.pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if not f.read().startswith(b"/proc/self/exe\0"):
                    continue
            fd = os.open(f"/proc/{pid}/exe", os.O_PATH)
            print("exe", os.readlink(f"/proc/{pid}/exe"))
            break
        except OSError:
            pass
    time.sleep(0.01)
p.wait()
if fd is None:
    print("no interpreter seen")
    sys.exit(0)
try:
    w = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY)
    os.write(w, b"pwned")
    print("written")
except OSError as e:
    print("refused", e)
PY
}
if command -v strace >/dev/null; then
  cp "$(command -v bash)" "$TEST_TMP/victim-sh"
  hold_interpreter_then_write "$TEST_TMP/victim-sh" -c 'exec "$0"' "$TEST_TMP/selfexe-script" \
    >"$TEST_TMP/out" 2>&1
  verdict "control: a #!/proc/self/exe script exec'd by a plain binary runs that binary again" \
    grep -qx "exe $TEST_TMP/victim-sh" "$TEST_TMP/out"
  check "control: its held exe reopened for writing after exit overwrites the binary" \
    grep -q pwned "$TEST_TMP/victim-sh"
  hold_interpreter_then_write "$TEST_TMP/ocirun-copy" run --unsafe-no-cgroup busybox:shebang \
    >"$TEST_TMP/out" 2>&1
  verdict "a #!/proc/self/exe entrypoint's interpreter is the sealed exec stub, not ocirun" \
    grep -q '^exe /memfd:ocirun-exec-stub' "$TEST_TMP/out"
  verdict "the interpreter's held exe cannot be reopened for writing after the run (sealed)" \
    sh -c '! grep -q written "$1" && grep -q refused "$1"' _ "$TEST_TMP/out"
  verdict "ocirun's host binary is unchanged" test "$(sha256sum <"$TEST_TMP/ocirun-copy")" = "$digest_before"
  # Before the stub's exec the child is ocirun's binary: a root process with
  # the container's capabilities but not CAP_SYS_PTRACE (as a process sharing
  # its pid namespace would be) cannot open its exe, since it is
  # non-dumpable. strace holds the child just before it execs the stub.
  strace -f -qq -o /dev/null -e trace=execveat -e inject=execveat:delay_enter=3000000 \
    "$TEST_TMP/ocirun-copy" run --unsafe-no-cgroup busybox:latest sleep 5 >/dev/null 2>&1 &
  tracer=$!
  sleep 1.5
  runner=$(cat /proc/$tracer/task/*/children 2>/dev/null | awk '{print $1}')
  child=$(cat /proc/$runner/task/*/children 2>/dev/null | awk '{print $1}')
  check "the child, held before the stub's exec, still is ocirun's binary" \
    test "$(readlink "/proc/$child/exe")" = "$TEST_TMP/ocirun-copy"
  check "its exe cannot be opened by root without CAP_SYS_PTRACE (non-dumpable)" \
    sh -c '! setpriv --bounding-set=-sys_ptrace readlink "/proc/$1/exe"' _ "$child"
  # the stub's own exec is held 3 s too; then the same process is the workload
  workload_exe() {
    for _ in $(seq 60); do
      setpriv --bounding-set=-sys_ptrace readlink "/proc/$1/exe" 2>/dev/null | grep -q busybox && return
      sleep 0.2
    done
    return 1
  }
  # after the stub's exec that process is ocirun's init, the workload its child
  workload_of() {
    for _ in $(seq 60); do
      w=$(tr -d ' ' <"/proc/$1/task/$1/children" 2>/dev/null)
      [ -n "$w" ] && echo "$w" && return
      sleep 0.2
    done
  }
  workload=$(workload_of "$child")
  check "control: that root reads the exe of the workload (dumpable), the child of that process" \
    workload_exe "$workload"
  check "... while that process, now ocirun's init, stays non-dumpable: its exe cannot be read" \
    sh -c '! setpriv --bounding-set=-sys_ptrace readlink "/proc/$1/exe"' _ "$child"
  wait "$tracer"
  # In an image with a glibc loader, ocirun's own binary could start there.
  if VARIANT_IMAGE=python busybox_variant shebang '{"Entrypoint": ["/s"]}' s file '#!/proc/self/exe
' 0755; then
    hold_interpreter_then_write "$TEST_TMP/ocirun-copy" run --unsafe-no-cgroup python:shebang \
      >"$TEST_TMP/out" 2>&1
    verdict "python image: the #!/proc/self/exe interpreter is the sealed exec stub" \
      grep -q '^exe /memfd:ocirun-exec-stub' "$TEST_TMP/out"
    verdict "python image: its held exe cannot be reopened for writing (sealed)" \
      sh -c '! grep -q written "$1" && grep -q refused "$1"' _ "$TEST_TMP/out"
    verdict "python image: ocirun's host binary is unchanged" \
      test "$(sha256sum <"$TEST_TMP/ocirun-copy")" = "$digest_before"
  else
    skip "python test image not available"
  fi
else
  skip "strace not installed: the held-interpreter attack is not run"
fi
# Without strace, the container's own view: the stub, run as the
# interpreter, refuses to be one (ocirun's binary would have printed its own
# usage), and ocirun's file is untouched.
expect_exit 126 "a #!/proc/self/exe entrypoint runs the exec stub, which refuses (126)" \
  "$TEST_TMP/ocirun-copy" run --unsafe-no-cgroup busybox:shebang
err_has_literal "ocirun-exec-stub: not a program" && ! err_has_literal "unknown command" &&
  ok "the message is the stub's, not ocirun's usage" ||
  not_ok "the message is the stub's, not ocirun's usage"
verdict "a #!/proc/self/exe entrypoint leaves ocirun's host binary unchanged" \
  test "$(sha256sum <"$TEST_TMP/ocirun-copy")" = "$digest_before"
# ocirun itself runs from its own file (no re-exec from a copy): the
# container never sees that process, and its child execs through the stub.
"$TEST_TMP/ocirun-copy" run --unsafe-no-cgroup busybox:latest sleep 2 >/dev/null 2>&1 &
runner=$!
sleep 1
check "the runner is ocirun's own file, not a copy" \
  test "$(readlink "/proc/$runner/exe")" = "$TEST_TMP/ocirun-copy"
wait "$runner"

check "nothing left of any run" nothing_left
tap_done
