#!/bin/bash
# What a caller's descriptor is once it is handed over as a container
# process's stdio (create, exec ID, exec --detach): the process, and every
# process of the container that can read its /proc (pid 1, root with
# Docker's capabilities), holds it and reopens it through /proc/PID/fd.
# Only what is nothing but itself may be handed over: an anonymous pipe, a
# socket. A named FIFO is a file of the host (a root container chmods and
# chowns it, and reads what other writers put in it); an O_PATH descriptor
# of a socket file is a way to connect to the socket it names. And the
# container's own /dev/null, which stands in for a caller's, is found in
# the container's tree, where its workload may have made it a FIFO whose
# open would block exec for ever. Each technique first against a host
# process (it works), then through the doors. Host only, without a cgroup.
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT/oci
root_with_busybox "escape-stdio-handover"
SYSPROBE=$top_builddir/tests/helpers/sysprobe
PRIVATE=$TEST_TMP/private
mkdir -m 0700 "$PRIVATE"

# bundle DIR PYTHON: a busybox bundle of its own (rootfs DIR/rootfs, with
# sysprobe), root with Docker's capabilities, PYTHON applied to its config c
bundle() {
  sleeper_bundle "$1" 'c["process"]["capabilities"] = {k: DOCKER_CAPS for k in ("bounding", "effective", "permitted")}
'"$2" && cp "$SYSPROBE" "$1/rootfs/sysprobe"
}
bundle "$TEST_TMP/b" "" && oci create --unsafe-no-cgroup --bundle "$TEST_TMP/b" att >/dev/null 2>&1 &&
  oci start att || { not_ok "start the target container"; tap_done; exit 1; }
ok "a running container (root, Docker's capabilities) to exec into"
# refused WHAT STREAM KIND STATUS: exit 1, the message naming the stream and its kind
refused() {
  if [ "$4" -eq 1 ] && grep -q "$2 is $3" "$TEST_TMP/refused.err"; then ok "$1"; else
    not_ok "$1 (exit $4)"
    sed 's/^/# /' "$TEST_TMP/refused.err" | head -5
  fi
}

# ---- a named FIFO: a file of the host ----
FIFO=$PRIVATE/fifo
new_fifo() { rm -f "$FIFO" && mkfifo -m 0600 "$FIFO"; }
fifo_is() { stat -c %a:%u:%g "$FIFO"; }
changer='chmod 0666 /proc/self/fd/1; chown 1234:1234 /proc/self/fd/1; readlink /proc/self/fd/1; echo from-the-process'
new_fifo
exec {hold}<>"$FIFO" # reader and writer, so that no open of it blocks
sh -c "$changer" >"$FIFO" 2>/dev/null
check "control: a process handed a named FIFO (0600 root, in a 0700 directory) chmods and chowns the host's file through /proc/self/fd/1 ($(fifo_is))" \
  test "$(fifo_is)" = 666:1234:1234
exec {hold}>&-

new_fifo
exec {hold}<>"$FIFO"
"$OCIRUN" --root "$ROOT" exec att sh -c "$changer" </dev/null >"$FIFO" 2>"$FIFO"
got=$?
timeout 1 cat <&"$hold" >"$TEST_TMP/fifo.out"
exec {hold}>&-
check "exec with a named FIFO as stdout: the host's FIFO is still 0600 root ($(fifo_is))" test "$(fifo_is)" = 600:0:0
check "... the process's output reached it, relayed (exit $got)" \
  sh -c "[ $got -eq 0 ] && grep -qx from-the-process '$TEST_TMP/fifo.out'"
check "... and the process never held it: its stdout is ocirun's pipe" grep -q '^pipe:' "$TEST_TMP/fifo.out"

new_fifo
exec {hold}<>"$FIFO"
{ "$OCIRUN" --root "$ROOT" exec --detach att sh -c "$changer" </dev/null >"$FIFO"; } 2>&1 |
  timeout 20 cat >"$TEST_TMP/refused.err"
refused "exec --detach with a named FIFO as stdout is refused, naming it" stdout "a named FIFO" "${PIPESTATUS[0]}"
sleep 0.5
check "... and the host's FIFO is unchanged ($(fifo_is))" test "$(fifo_is)" = 600:0:0
{ "$OCIRUN" --root "$ROOT" create --unsafe-no-cgroup --bundle "$TEST_TMP/b" f1 </dev/null >"$FIFO"; } \
  2>&1 | timeout 20 cat >"$TEST_TMP/refused.err"
refused "create with a named FIFO as stdout is refused, naming it" stdout "a named FIFO" "${PIPESTATUS[0]}"
check "... and leaves no container" container_gone f1
exec {hold}>&-

# What OCI callers hand over still is: an anonymous pipe, and a FIFO
# whose name is gone (tests/lib.sh's with_pipes makes those).
exec {pipe}> >(cat >"$TEST_TMP/pipe.out")
ours=$(readlink /proc/self/fd/$pipe)
"$OCIRUN" --root "$ROOT" exec att readlink /proc/self/fd/1 </dev/null 1>&"$pipe" 2>&"$pipe"
exec {pipe}>&-
sleep 0.5
check "control: exec hands over an anonymous pipe as it is ($ours)" grep -qxF "$ours" "$TEST_TMP/pipe.out"
new_fifo
exec {hold}<>"$FIFO" {unlinked}>"$FIFO"
rm -f "$FIFO"
"$OCIRUN" --root "$ROOT" exec att readlink /proc/self/fd/1 </dev/null 1>&"$unlinked" 2>&"$unlinked"
exec {unlinked}>&-
timeout 1 cat <&"$hold" >"$TEST_TMP/unlinked.out"
exec {hold}>&-
check "control: ... and a FIFO whose name was removed" grep -q "fifo (deleted)" "$TEST_TMP/unlinked.out"

# ---- an O_PATH descriptor of a socket file: a way to connect to it ----
SOCKET=$PRIVATE/socket
python3 - "$SOCKET" "$TEST_TMP/socket.got" <<'PY' &
import os, socket, sys
server = socket.socket(socket.AF_UNIX)
server.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o600)
server.listen(8)
server.settimeout(60)
open(sys.argv[1] + ".ready", "w").close()
while True:
    try:
        client, _ = server.accept()
    except OSError:
        break
    with open(sys.argv[2], "ab") as got:
        got.write(client.recv(100))
PY
server=$!
for _ in $(seq 50); do [ -e "$SOCKET.ready" ] && break; sleep 0.1; done
# as_opath CMD...: runs CMD with stdin an O_PATH descriptor of the socket file
as_opath() {
  python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_PATH)
os.dup2(fd, 0)
os.execvp(sys.argv[2], sys.argv[2:])' "$SOCKET" "$@"
}
: >"$TEST_TMP/socket.got"
as_opath "$SYSPROBE" unix-connect=/proc/self/fd/0 >"$TEST_TMP/out" 2>&1
sleep 0.3
check "control: a process whose stdin is an O_PATH descriptor of a socket file (0600, in a 0700 directory) connects to it through /proc/self/fd/0" \
  grep -q sysprobe-connected "$TEST_TMP/socket.got"
: >"$TEST_TMP/socket.got"
as_opath "$OCIRUN" --root "$ROOT" exec att /sysprobe unix-connect=/proc/self/fd/0 2>&1 | cat >"$TEST_TMP/out"
sleep 0.3
sed 's/^/# /' "$TEST_TMP/out"
check "exec with it as stdin: the process cannot connect to the host's socket" \
  sh -c "grep -q 'unix-connect=/proc/self/fd/0 errno=E' '$TEST_TMP/out' && [ ! -s '$TEST_TMP/socket.got' ]"
as_opath "$OCIRUN" --root "$ROOT" create --unsafe-no-cgroup --bundle "$TEST_TMP/b" s1 2>&1 |
  timeout 20 cat >"$TEST_TMP/refused.err"
refused "create with it as stdin is refused, naming it" stdin "a socket file" "${PIPESTATUS[0]}"
check "... and leaves no container" container_gone s1
kill "$server" 2>/dev/null
wait "$server" 2>/dev/null

# ---- the container's /dev/null, which stands in for the caller's ----
# Without a /dev mount, /dev is a directory of the container's own tree:
# its root may rename it and make /dev/null a FIFO.
bundle "$TEST_TMP/n" 'c["mounts"] = [m for m in c["mounts"] if not m["destination"].startswith("/dev")]
c["process"]["args"] = ["sh", "-c", "mv /dev /dev.old && mkdir /dev && mkfifo /dev/null && touch /swapped; exec sleep 1000"]' &&
  oci create --unsafe-no-cgroup --bundle "$TEST_TMP/n" nul >/dev/null 2>&1 && oci start nul
for _ in $(seq 50); do [ -e "$TEST_TMP/n/rootfs/swapped" ] && break; sleep 0.1; done
check "control: the workload made its /dev/null a FIFO" test -p "$TEST_TMP/n/rootfs/dev/null"
expect_exit 124 "control: opening that FIFO for reading blocks (a host process, 2 s)" \
  timeout 2 sh -c ": <'$TEST_TMP/n/rootfs/dev/null'"
with_pipes timeout 20 "$OCIRUN" --root "$ROOT" exec nul true </dev/null >"$TEST_TMP/out" 2>"$TEST_TMP/err"
got=$?
sed 's/^/# /' "$TEST_TMP/err" | head -3
check "exec handed /dev/null fails at once instead of waiting for ever (exit $got; 124 would be the timeout)" test "$got" -eq 1
check "... naming the container's /dev/null" grep -q "the container's own /dev/null, which would stand in for it, is not that device" "$TEST_TMP/err"

for id in nul att f1 s1; do oci delete --force $id >/dev/null 2>&1; done
pipes_drained
tap_done
