#!/bin/bash
# In the cgroup v2 guest, in normal mode (a real slice): the child's escape
# classes, each after its positive control (the host's tests/escape-child.sh
# has the full set): a leaked host dir through -w /proc/self/fd/N
# (CVE-2024-21626), fds other than 0-2 (CVE-2016-9962), the caller's stdio
# files (issue 8 finding 3), ignored signals (finding 5), /proc/self/exe as
# the command, a #!/proc/self/exe entrypoint and ocirun's exe (CVE-2019-5736).
. "$top_srcdir/tests/lib.sh"

"$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1 ||
  { echo "not ok - import the busybox image"; exit 0; }
hostdir=$TEST_TMP/hostdir
mkdir -p "$hostdir"
echo "guest-marker-$$" >"$hostdir/marker"

verdict "control: /proc/self/fd/3 of a process holding a host dir reaches it" \
  sh -c 'cd /proc/self/fd/3 && grep -q guest-marker marker' 3<"$hostdir"
"$OCIRUN" run -w /proc/self/fd/5 busybox:latest cat marker 3<"$hostdir" 4<"$hostdir" 5<"$hostdir" \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
verdict "-w /proc/self/fd/5 with fds 3-5 on a host dir: 125, marker not read (exit $rc)" \
  test "$rc" -eq 125 -a ! -s "$TEST_TMP/out"

open_fds='for f in 0 1 2 3 4 5 6 7 8 9 10 11 12; do [ -e /proc/$$/fd/$f ] && printf "%s " $f; done; echo'
sh -c "$open_fds" 3<"$hostdir" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "control: a plain child sees an inherited fd 3" grep -qw 3 "$TEST_TMP/out"
"$OCIRUN" run -i busybox:latest sh -c "$open_fds"'; readlink /proc/$$/fd/0' 3<"$hostdir" \
  <"$hostdir/marker" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "the container's pid 1 has fds 0 1 2 only, stdin an ocirun pipe" \
  sh -c '[ "$(head -1 "$1")" = "0 1 2 " ] && grep -q "^pipe:" "$1"' _ "$TEST_TMP/out"

echo "old log content" >"$TEST_TMP/log"
sh -c 'cat /proc/$$/fd/1 | cat >&2' >>"$TEST_TMP/log" 2>"$TEST_TMP/err2"
verdict "control: a process reads its stdout log through /proc/self/fd/1" \
  grep -q "old log content" "$TEST_TMP/err2"
"$OCIRUN" run busybox:latest sh -c 'timeout 2 cat /proc/$$/fd/1 | cat >&2; : > /proc/$$/fd/1; echo after' \
  >>"$TEST_TMP/log" 2>"$TEST_TMP/err"
verdict "the workload neither reads nor truncates the caller's stdout log" \
  sh -c '! grep -q "old log content" "$1" && [ "$(cat "$2")" = "$(printf "old log content\nafter")" ]' \
  _ "$TEST_TMP/err" "$TEST_TMP/log"

(trap '' PIPE QUIT; grep '^SigIgn' /proc/self/status) >"$TEST_TMP/out"
verdict "control: the caller ignores SIGPIPE and SIGQUIT" \
  test $((0x$(awk '{print $2}' "$TEST_TMP/out") & 0x1004)) -eq $((0x1004))
(trap '' PIPE QUIT; "$OCIRUN" run busybox:latest grep '^SigIgn' /proc/self/status) >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "inside: SigIgn is empty" grep -q '^SigIgn:[[:space:]]*0*$' "$TEST_TMP/out"

unshare --fork --pid --mount-proc sh -c 'readlink /proc/$$/exe; true' >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "control: /proc/self/exe of a fresh process is its host binary" \
  test "$(cat "$TEST_TMP/out")" = "$(readlink -f "$(command -v sh)")"
"$OCIRUN" run busybox:latest /proc/self/exe >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
verdict "image command /proc/self/exe is refused (126; exit $rc)" test "$rc" -eq 126
# A #!/proc/self/exe entrypoint: its interpreter is what ran the command,
# the sealed exec stub (it refuses to be one: 126), never ocirun's binary.
printf '#!/proc/self/exe\necho interpreter-was-the-caller\n' >"$TEST_TMP/selfexe-script"
chmod 755 "$TEST_TMP/selfexe-script"
cp "$(command -v bash)" "$TEST_TMP/victim-sh"
"$TEST_TMP/victim-sh" -c 'exec "$0"' "$TEST_TMP/selfexe-script" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "control: a #!/proc/self/exe script exec'd by a plain binary runs that binary again" \
  grep -q interpreter-was-the-caller "$TEST_TMP/out"
cp "$OCIRUN" "$TEST_TMP/ocirun-copy"
digest=$(sha256sum <"$TEST_TMP/ocirun-copy")
busybox_variant shebang '{"Entrypoint": ["/s"]}' s file '#!/proc/self/exe
' 0755 >/dev/null 2>&1 || echo "not ok - build the image with #!/proc/self/exe"
"$TEST_TMP/ocirun-copy" run busybox:shebang >"$TEST_TMP/out" 2>"$TEST_TMP/err"
rc=$?
verdict "a #!/proc/self/exe entrypoint runs the sealed exec stub, which refuses (126; exit $rc)" \
  sh -c '[ "$1" -eq 126 ] && grep -q "ocirun-exec-stub: not a program" "$2"' _ "$rc" "$TEST_TMP/err"
verdict "ocirun's binary is unchanged" test "$(sha256sum <"$TEST_TMP/ocirun-copy")" = "$digest"
"$OCIRUN" run busybox:latest sleep 3 >/dev/null 2>&1 &
runner=$!
sleep 2
verdict "the runner is ocirun's own file, no sealed copy ($(readlink "/proc/$runner/exe"))" \
  test "$(readlink "/proc/$runner/exe")" = "$(readlink -f "$OCIRUN")"
wait "$runner"
[ -z "$(ls -A "$OCIRUN_ROOT/run" 2>/dev/null)" ] && echo "ok - nothing left of any run" ||
  echo "not ok - nothing left of any run"
exit 0
