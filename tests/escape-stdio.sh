#!/bin/bash
# The caller's stdio reaching a container: a running container's pid 1
# (the image's program, root with Docker's capabilities) reaches every
# process of the container through /proc/PID/fd, so a descriptor of the
# caller's given to any of them is the container's to reopen: a file given
# for reading is written, an append-only log read and truncated, a
# terminal kept after ocirun has returned (and read from, written to). Each
# attack first against a host process holding the same descriptors (the
# technique works), then through every door that can hand stdio: exec
# (relayed), exec --detach and create (refused), and the host's /dev/null
# (the container gets its own). On the host without a cgroup.
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT/oci
root_with_busybox "escape-stdio"
m_victim=4${$}1
value() { sed -n "s/^$2=//p" "$1" | head -1; }

ROOTFS=$TEST_TMP/rootfs
mkdir -p "$ROOTFS" && busybox_rootfs "$ROOTFS"
# The attacker, pid 1 of the container: every 50 ms, for every other
# process, it writes into its stdin, copies its stdout to /stolen if it is
# a file, empties it, and holds the first terminal it finds as fd 3, kept
# (and written to) after the process ends.
cat >"$ROOTFS/attack" <<'SH'
#!/bin/sh
trap "" PIPE
held=
while :; do
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = 1 ] || [ "$p" = $$ ] && continue
    echo pwned >"$d/fd/0" 2>/dev/null
    # (reading a pipe or a terminal would block this loop: files only)
    [ -f "$d/fd/1" ] && cat "$d/fd/1" >>/stolen 2>/dev/null
    true >"$d/fd/1" 2>/dev/null
    # a terminal (a character device but not one of major 1, /dev/null's
    # kin); a failed exec redirection would end this shell: tried in a
    # subshell first
    [ -z "$held" ] && [ -c "$d/fd/0" ] && [ "$(stat -L -c %t "$d/fd/0")" != 1 ] &&
      (exec 3<>"$d/fd/0") 2>/dev/null && exec 3<>"$d/fd/0" && held=$p
  done
  [ -n "$held" ] && echo INJECTED >&3 2>/dev/null
  sleep 0.05
done
SH
chmod 755 "$ROOTFS/attack"
# bundle DIR PYTHON: a config.json on the shared rootfs (writable), no
# terminal, no linux.resources, PYTHON applied
bundle() {
  oci_bundle "$1" "$ROOTFS" 'c["root"]["readonly"] = False
c["process"]["terminal"] = False
c["linux"].pop("resources", None)
'"$2"
}
# Docker's capability set: root with CAP_DAC_OVERRIDE writes a 0444 file
bundle "$TEST_TMP/b" 'c["process"]["args"] = ["/attack"]
c["process"]["capabilities"] = {k: DOCKER_CAPS for k in ("bounding", "effective", "permitted")}'
oci create --unsafe-no-cgroup --bundle "$TEST_TMP/b" att >/dev/null 2>&1 && oci start att ||
  { not_ok "start the attacking container"; tap_done; exit 1; }
ok "a container whose pid 1 attacks every other process's stdio"

victims() { # the caller's files, fresh
  printf 'original\n' >"$TEST_TMP/readonly" && chmod 0444 "$TEST_TMP/readonly"
  printf 'secret-line\n' >"$TEST_TMP/log"
}
untouched() {
  [ "$(cat "$TEST_TMP/readonly")" = original ] && grep -qx secret-line "$TEST_TMP/log"
}

# ---- the control: the same descriptors held by a host process ----
victims
sleep 2 <"$TEST_TMP/readonly" >>"$TEST_TMP/log" &
victim=$!
sleep 0.5
echo pwned >"/proc/$victim/fd/0" 2>/dev/null
stolen=$(cat "/proc/$victim/fd/1" 2>/dev/null)
: >"/proc/$victim/fd/1" 2>/dev/null
wait $victim
check "control: root reopening a process's stdin writes the caller's 0444 file" \
  grep -qx pwned "$TEST_TMP/readonly"
check "control: ... reads the caller's append-only log, and empties it" \
  sh -c "[ '$stolen' = secret-line ] && [ ! -s '$TEST_TMP/log' ]"

# ---- exec from files: relayed, the attacker gets ocirun's pipes ----
victims
"$OCIRUN" --root "$ROOT" exec att sleep 2 <"$TEST_TMP/readonly" >>"$TEST_TMP/log" 2>&1
check "exec: the caller's 0444 stdin file and append-only log are untouched" untouched
check "... and nothing of the log reached the container (its /stolen, read from the host)" \
  sh -c "! grep -q secret-line '$ROOTFS/stolen' 2>/dev/null"

# ---- exec from a terminal: relayed, the terminal is never the container's ----
victims
script -qfec "'$OCIRUN' --root '$ROOT' exec att sleep 2; sleep 1.5" "$TEST_TMP/typescript" </dev/null >/dev/null 2>&1
check "exec from a terminal: nothing the container injected reaches the caller's terminal, during or after" \
  sh -c "! grep -q INJECTED '$TEST_TMP/typescript'"
script -qfec "sleep 2 & p=\$!; sleep 0.5; exec 3<>/proc/\$p/fd/0; wait \$p; echo INJECTED >&3; sleep 0.5" \
  "$TEST_TMP/typescript.control" </dev/null >/dev/null 2>&1
check "control: a process holding the terminal writes into it after the holder has ended" \
  grep -q INJECTED "$TEST_TMP/typescript.control"

# ---- the doors that cannot relay: create and exec --detach refuse ----
# refused WHAT STREAM STATUS: exited 1 with a message naming the stream
refused() {
  if [ "$3" -eq 1 ] && grep -q "$2 is a" "$TEST_TMP/refused.err"; then ok "$1"; else
    not_ok "$1 (exit $3)"
    sed 's/^/# /' "$TEST_TMP/refused.err" | head -5
  fi
}
victims
"$OCIRUN" --root "$ROOT" create --unsafe-no-cgroup --bundle "$TEST_TMP/b" f1 <"$TEST_TMP/readonly" 2>&1 |
  timeout 20 cat >"$TEST_TMP/refused.err"
refused "create with a file as stdin is refused, naming stdin" stdin "${PIPESTATUS[0]}"
check "... and leaves no container" container_gone f1
{ "$OCIRUN" --root "$ROOT" create --unsafe-no-cgroup --bundle "$TEST_TMP/b" f2 </dev/null >>"$TEST_TMP/log"; } 2>&1 |
  timeout 20 cat >"$TEST_TMP/refused.err"
got=${PIPESTATUS[0]}
refused "create with an append-only log as stdout is refused, naming stdout" stdout "$got"
check "... and leaves no container" container_gone f2
script -qfec "'$OCIRUN' --root '$ROOT' create --unsafe-no-cgroup --bundle '$TEST_TMP/b' f3; echo exit=\$?" \
  "$TEST_TMP/typescript.create" </dev/null >/dev/null 2>&1
check "create from a terminal is refused, naming stdin" \
  sh -c "grep -q 'stdin is a terminal' '$TEST_TMP/typescript.create' && grep -q 'exit=1' '$TEST_TMP/typescript.create'"
check "... and leaves no container" container_gone f3
{ "$OCIRUN" --root "$ROOT" exec -d att sleep 1 </dev/null >>"$TEST_TMP/log"; } 2>&1 |
  timeout 20 cat >"$TEST_TMP/refused.err"
got=${PIPESTATUS[0]}
refused "exec --detach with a file as stdout is refused, naming it" stdout "$got"
check "... and the caller's files are untouched" untouched
expect_exit 0 "control: exec --detach with pipes and /dev/null" with_pipes "$OCIRUN" --root "$ROOT" exec -d att sleep 1

# ---- the host's null devices: never the container's to chmod or chown ----
# A caller's /dev/null (or full, zero, random, urandom), handed over, is the
# host's inode, and so are the container's own default devices (bound from
# the host): a root with CAP_FOWNER/CAP_CHOWN changed the host's node
# through either. A failure here changes the host's nodes: the exit trap
# restores them.
DEVICES="/dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty"
# each node's mode and owner as they are now, restored at exit
restore=$(for f in $DEVICES; do stat -c "chmod %a %n; chown %u:%g %n;" "$f"; done)
trap 'eval "$restore"; rm -rf "$TEST_TMP"' EXIT
mknod "$TEST_TMP/full-copy" c 1 7 && chmod 0666 "$TEST_TMP/full-copy"
sh -c 'chmod 0600 /proc/self/fd/0' <"$TEST_TMP/full-copy"
check "control: chmod through /proc/self/fd/0 changes the device node the caller handed over" \
  test "$(stat -c %a "$TEST_TMP/full-copy")" = 600
before=$(stat -c %a:%u:%g /dev/full)
bundle "$TEST_TMP/n" 'c["process"]["capabilities"] = {k: ["CAP_CHOWN", "CAP_FOWNER", "CAP_DAC_OVERRIDE"] for k in ("bounding", "effective", "permitted")}
c["process"]["args"] = ["sh", "-c", "for f in /proc/self/fd/0 /dev/full /dev/null; do chmod 0600 $f; chown 1234 $f; done 2>&1; echo done"]'
oci create --unsafe-no-cgroup --bundle "$TEST_TMP/n" n1 </dev/full >"$TEST_TMP/null.out" 2>&1 && oci start n1
for _ in $(seq 50); do grep -q done "$TEST_TMP/null.out" && break; sleep 0.1; done
sed 's/^/# container: /' "$TEST_TMP/null.out"
check "create handed the host's /dev/full: neither it nor the container's /dev/full and /dev/null changed on the host" \
  sh -c "[ \"\$(stat -c %a:%u:%g /dev/full)\" = '$before' ] && [ \"\$(stat -c %a:%u /dev/null)\" = 666:0 ]"
check "... each refused as read-only" test "$(grep -c 'Read-only file system' "$TEST_TMP/null.out")" -ge 6
with_pipes "$OCIRUN" --root "$ROOT" exec att sh -c 'chmod 0600 /proc/self/fd/0; chown 1234 /proc/self/fd/0' \
  </dev/full >"$TEST_TMP/null.exec" 2>&1
check "exec handed the host's /dev/full: unchanged on the host" test "$(stat -c %a:%u:%g /dev/full)" = "$before"

devices_before=$(stat -c %a:%u:%g $DEVICES | tr '\n' ' ')
"$OCIRUN" run --unsafe-no-cgroup busybox:latest sh -c \
  "for f in $DEVICES; do chmod 0600 \$f; chown 1234 \$f; done 2>&1" >"$TEST_TMP/run-devices" 2>&1
check "run (root, Docker's capabilities): chmod and chown of its default devices leave the host's nodes unchanged" \
  test "$(stat -c %a:%u:%g $DEVICES | tr '\n' ' ')" = "$devices_before"
check "... each refused as read-only" test "$(grep -c 'Read-only file system' "$TEST_TMP/run-devices")" -eq 12

oci delete --force n1 >/dev/null 2>&1
oci delete --force att >/dev/null 2>&1
pipes_drained
tap_done
