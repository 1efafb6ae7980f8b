#!/bin/bash
# An outside reviewer's attacks on session 5's changes: the command lookup
# that now runs with the runtime's credentials after pivot_root (open_command,
# child_find_command) and execs by fd, the startContainer hooks run by the
# container's process while it holds start's exec FIFO, and relative command
# paths resolved after pivot_root. Each attack first shows its probe can see
# the hole (a positive control), then that ocirun refuses it; a hole still
# open is a TAP `# TODO`. Host only, --unsafe-no-cgroup.
. "$top_srcdir/tests/lib.sh"

needs_root "escape-command-lookup needs root"

ROOT=$OCIRUN_ROOT

# --- each case's bundle: sleeper_bundle DIR PYTHON (tests/lib.sh) ---
sleeper_bundle "$TEST_TMP/base" || { not_ok "a busybox bundle"; tap_done; exit 1; }
# run_to_end DIR ID: create and start, wait (10 s at most) for the program to
# end, print what it wrote (create's and start's errors too), remove it.
run_to_end() {
  local i
  {
    oci create --unsafe-no-cgroup --bundle "$1" "$2" </dev/null >"$1/out" 2>&1 &&
      oci start "$2" >>"$1/out" 2>&1 &&
      for i in $(seq 50); do
        [ "$(status_of "$2")" = stopped ] && break
        sleep 0.2
      done
  } 2>/dev/null
  oci delete --force "$2" >/dev/null 2>&1
  cat "$1/out"
}

# ==== 1. the command lookup runs as root, the exec is by fd ====
# child_find_command opens the command O_PATH with the runtime's
# credentials (root, every capability), and exec_stub_exec execs that fd:
# execveat(fd, "", AT_EMPTY_PATH) checks only the file's own execute bit,
# never search permission on the directories that led to it. A workload
# of uid 1000 whose image keeps a program in a root-only directory (0700)
# must not be able to run it; the kernel refuses that to the same uid by
# path.
SB=$TEST_TMP/secret
check "a bundle whose /secret is 0700 root, holding an executable shell (0755)" \
  sleeper_bundle "$SB" 'c["process"]["user"] = {"uid": 1000, "gid": 1000}'
mkdir -p "$SB/rootfs/secret" && cp "$SB/rootfs/bin/busybox" "$SB/rootfs/secret/sh" &&
  chmod 0755 "$SB/rootfs/secret/sh" && chown 0:0 "$SB/rootfs/secret" && chmod 0700 "$SB/rootfs/secret"
cfg() { python3 - "$SB/config.json" "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(c, open(sys.argv[1], "w"))
PY
}
cfg 'c["process"]["args"] = ["/bin/sh", "-c", "/secret/sh -c \"echo RAN-AS-\\$(id -u)\"; echo status=$?"]'
out=$(run_to_end "$SB" s0)
check "control: uid 1000 cannot run /secret/sh by path inside the container (the kernel's rule)" \
  sh -c 'echo "$1" | grep -q "status=126" && ! echo "$1" | grep -q RAN-AS' _ "$out"
[ "$out" = "${out#*status=126}" ] && echo "$out" | sed 's/^/# /'
cfg 'c["process"]["user"] = {"uid": 0, "gid": 0}; c["process"]["args"] = ["/secret/sh", "-c", "echo RAN-AS-$(id -u)"]'
out=$(run_to_end "$SB" s1)
check "control: root runs /secret/sh as the process" sh -c 'echo "$1" | grep -qx RAN-AS-0' _ "$out"
cfg 'c["process"]["user"] = {"uid": 1000, "gid": 1000}'
out=$(run_to_end "$SB" s2)
echo "$out" | sed 's/^/# /'
check "uid 1000 cannot have /secret/sh (0700 root directory) as its process.args[0]" \
  sh -c '! echo "$1" | grep -q RAN-AS' _ "$out"
cfg 'c["process"]["args"] = ["sh", "-c", "echo RAN-AS-$(id -u)"]; c["process"]["env"] = ["PATH=/secret"]'
out=$(run_to_end "$SB" s3)
echo "$out" | sed 's/^/# /'
check "nor through a PATH entry /secret" sh -c '! echo "$1" | grep -q RAN-AS' _ "$out"
# Supplementary groups: the runtime's own (root's) groups must not count
# either: /secret 0750 root:0, the user uid 1000 gid 1000 with no groups.
chmod 0750 "$SB/rootfs/secret"
cfg 'c["process"]["args"] = ["/secret/sh", "-c", "echo RAN-AS-$(id -u)"]; c["process"]["env"] = ["PATH=/bin"]'
out=$(run_to_end "$SB" s4)
check "nor with /secret 0750 root:0 (root's group 0 is not the user's)" \
  sh -c '! echo "$1" | grep -q RAN-AS' _ "$out"
cfg 'c["process"]["user"] = {"uid": 1000, "gid": 1000, "additionalGids": [0]}'
out=$(run_to_end "$SB" s5)
check "control: uid 1000 with additionalGids [0] runs it (group search permission)" \
  sh -c 'echo "$1" | grep -qx RAN-AS-1000' _ "$out"
# The capabilities count as the user's too: root without CAP_DAC_OVERRIDE
# and CAP_DAC_READ_SEARCH may not search a 0700 directory of uid 1000.
chown 1000:1000 "$SB/rootfs/secret" && chmod 0700 "$SB/rootfs/secret"
cfg 'c["process"]["user"] = {"uid": 0, "gid": 0}
for k in ("bounding", "effective", "permitted"):
    c["process"]["capabilities"][k] = [x for x in c["process"]["capabilities"][k] if x not in ("CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH")]
c["process"]["args"] = ["/bin/sh", "-c", "/secret/sh -c \"echo RAN-AS-\\$(id -u)\"; echo status=$?"]'
out=$(run_to_end "$SB" s6)
check "control: root without CAP_DAC_* cannot run /secret/sh (0700 uid 1000) by path" \
  sh -c 'echo "$1" | grep -q "status=126" && ! echo "$1" | grep -q RAN-AS' _ "$out"
[ "$out" = "${out#*status=126}" ] && echo "$out" | sed 's/^/# /'
cfg 'c["process"]["args"] = ["/secret/sh", "-c", "echo RAN-AS-$(id -u)"]'
out=$(run_to_end "$SB" s7)
check "nor as its process.args[0] (the lookup holds the user's effective set)" \
  sh -c '! echo "$1" | grep -q RAN-AS' _ "$out"
cfg 'c["process"]["capabilities"]["effective"].append("CAP_DAC_READ_SEARCH")
c["process"]["capabilities"]["permitted"].append("CAP_DAC_READ_SEARCH")
c["process"]["capabilities"]["bounding"].append("CAP_DAC_READ_SEARCH")'
out=$(run_to_end "$SB" s8)
check "control: with CAP_DAC_READ_SEARCH it does" sh -c 'echo "$1" | grep -qx RAN-AS-0' _ "$out"
# `ocirun exec -u 1000` into a running container goes through the same
# lookup (exec_join): same rule.
chown 0:0 "$SB/rootfs/secret" && chmod 0700 "$SB/rootfs/secret"
# (exec starts from the container's capabilities: without CAP_DAC_*, which
# would let uid 1000 search /secret before its exec, by path too)
cfg 'for k in ("bounding", "effective", "permitted"):
    c["process"]["capabilities"][k] = [x for x in c["process"]["capabilities"][k] if x not in ("CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH")]
c["process"]["args"] = ["sleep", "1000"]'
if oci create --unsafe-no-cgroup --bundle "$SB" s9 </dev/null >"$SB/out" 2>&1 && oci start s9; then
  out=$(oci exec s9 /secret/sh -c 'echo RAN-AS-$(id -u)' 2>&1)
  check "control: exec of /secret/sh as root runs" sh -c 'echo "$1" | grep -qx RAN-AS-0' _ "$out"
  out=$(oci exec -u 1000:1000 s9 /bin/sh -c '/secret/sh -c "echo RAN-AS-\$(id -u)"; echo status=$?' 2>&1)
  check "control: exec -u 1000 of /bin/sh cannot run /secret/sh by path" \
    sh -c 'echo "$1" | grep -q "status=126" && ! echo "$1" | grep -q RAN-AS' _ "$out"
  out=$(oci exec -u 1000:1000 s9 /secret/sh -c 'echo RAN-AS-$(id -u)' 2>&1)
  echo "$out" | sed 's/^/# /'
  check "exec -u 1000 /secret/sh is refused (exit 126, not run)" sh -c '! echo "$1" | grep -q RAN-AS' _ "$out"
else
  not_ok "create and start a container to exec into"
  sed 's/^/# /' "$SB/out"
fi
oci delete --force s9 >/dev/null 2>&1

# ==== 2. a command path relative to the working directory ====
# open_command resolves a path without '/' at its start from the working
# directory, without RESOLVE_IN_ROOT: after pivot_root the process's root
# is the container's, so '..' stops there. A program next to the rootfs on
# the host (bundle/evil) must stay out of reach of "../evil" and of a PATH
# entry "..".
RB=$TEST_TMP/relative
check "a bundle with a host program next to its rootfs" sleeper_bundle "$RB" 'c["process"]["cwd"] = "/"'
printf '#!/bin/sh\necho HOST-PROGRAM-RAN\n' >"$RB/evil" && chmod 0755 "$RB/evil"
check "control: ../evil from the rootfs runs it on the host" \
  sh -c "cd '$RB/rootfs' && ../evil | grep -qx HOST-PROGRAM-RAN"
python3 - "$RB/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["args"] = ["../evil"]
json.dump(c, open(sys.argv[1], "w"))
PY
out=$(run_to_end "$RB" r1)
check "process.args[0] '../evil' (cwd /) is not the host's program" \
  sh -c '! echo "$1" | grep -q HOST-PROGRAM-RAN' _ "$out"
python3 - "$RB/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["args"] = ["evil"]
c["process"]["env"] = ["PATH=..:../..:."]
json.dump(c, open(sys.argv[1], "w"))
PY
out=$(run_to_end "$RB" r2)
check "nor 'evil' through PATH=..:../..:." sh -c '! echo "$1" | grep -q HOST-PROGRAM-RAN' _ "$out"

# ==== 3. start's exec FIFO, forged by a startContainer hook ====
# The container's process holds the write end of start's exec FIFO while
# it runs the startContainer hooks, whose program the image can replace
# (its path is resolved in the container's root). A hook that writes
# 'E' + escape sequences there would make `ocirun start` print them to the
# caller's terminal (and fail a healthy container). pid 1 is non-dumpable
# (exec_stub_prepare), so /proc/1/fd is closed to the hook.
FB=$TEST_TMP/fifo
check "a bundle whose startContainer hook (in the image) writes to every fd of pid 1" \
  sleeper_bundle "$FB" 'c["hooks"] = {"startContainer": [{"path": "/hook.sh"}]}; c["process"]["args"] = ["true"]'
cat >"$FB/rootfs/hook.sh" <<'EOF'
#!/bin/sh
ls /proc/1/ >/dev/null 2>&1 && echo "hook: sees /proc/1" >&2
for f in /proc/1/fd/*; do
  printf 'E\033]0;owned\007\033[2JFORGED-BY-HOOK' >"$f" 2>/dev/null && echo "hook: wrote $f" >&2
done
# CVE-2019-5736's class: pid 1 still runs ocirun's binary here
head -c 4 /proc/1/exe >/dev/null 2>&1 && echo "hook: read /proc/1/exe" >&2
exit 0
EOF
chmod 0755 "$FB/rootfs/hook.sh"
oci create --unsafe-no-cgroup --bundle "$FB" f1 </dev/null >"$FB/out" 2>&1
oci start f1 >"$TEST_TMP/start.out" 2>&1
rc=$?
check "control: the hook ran and saw the container's pid 1" grep -q "hook: sees /proc/1" "$FB/out"
check "start is not failed by the hook's forged word (exit $rc)" test "$rc" -eq 0
check "no escape byte reaches start's output" sh -c "! grep -q \$(printf '\\033') '$TEST_TMP/start.out'"
check "the hook wrote to none of pid 1's descriptors" sh -c "! grep -q 'hook: wrote' '$FB/out'"
check "the hook could not read pid 1's exe (ocirun's binary, non-dumpable)" sh -c "! grep -q 'hook: read /proc/1/exe' '$FB/out'"
oci delete --force f1 >/dev/null 2>&1

# ==== 4. a startContainer hook that times out, leaving a daemon ====
# The timeout kills the hook's process group; a daemon that left it
# (setsid) is still in the container, which start then destroys: nothing
# may outlive it (the host has no cgroup here: the pid namespace holds all).
TB=$TEST_TMP/timeout
check "a bundle whose startContainer hook starts a setsid daemon, then outlasts its timeout" \
  sleeper_bundle "$TB" 'c["hooks"] = {"startContainer": [{"path": "/hook.sh", "timeout": 2}]}'
printf '#!/bin/sh\nsetsid sleep 4243 </dev/null >/dev/null 2>&1 &\necho $! >/tmp/daemon\nsleep 60\n' >"$TB/rootfs/hook.sh"
chmod 0755 "$TB/rootfs/hook.sh"
oci create --unsafe-no-cgroup --bundle "$TB" t1 </dev/null >"$TB/out" 2>&1
expect_exit 1 "start fails: the hook timed out" oci start t1
check "... saying so" grep -q "timeout" "$TEST_TMP/err"
check "control: the hook started its daemon" test -s "$TB/rootfs/tmp/daemon"
sleep 1
left=$(pgrep -x -f "sleep 4243")
check "no daemon of the hook outlives the failed start" test -z "$left"
oci delete --force t1 >/dev/null 2>&1
[ -n "$left" ] && kill $left

# ==== 5. CVE-2019-5736 through a startContainer hook ====
# The hook's path is resolved in the container's root, which the image
# controls, and it is run by the container's process while that process
# still runs ocirun's binary. A hook that is a symlink to /proc/self/exe
# must be refused; a "#!/proc/self/exe" hook must get the sealed exec stub
# as its interpreter, never ocirun's binary.
sum_before=$(sha256sum <"$OCIRUN")
XB=$TEST_TMP/selfexe
check "a bundle whose startContainer hook is a symlink to /proc/self/exe" \
  sleeper_bundle "$XB" 'c["hooks"] = {"startContainer": [{"path": "/hook", "args": ["hook", "--version"]}]}'
ln -s /proc/self/exe "$XB/rootfs/hook"
oci create --unsafe-no-cgroup --bundle "$XB" x1 </dev/null >"$XB/out" 2>&1
expect_exit 1 "start refuses the hook (a /proc magic link)" oci start x1
check "... saying why" grep -q "magic link" "$TEST_TMP/err"
oci delete --force x1 >/dev/null 2>&1
rm "$XB/rootfs/hook" && printf '#!/proc/self/exe\n' >"$XB/rootfs/hook" && chmod 0755 "$XB/rootfs/hook"
oci create --unsafe-no-cgroup --bundle "$XB" x2 </dev/null >"$XB/out" 2>&1
expect_exit 1 "start fails with a #!/proc/self/exe hook" oci start x2
check "its interpreter was the sealed exec stub, which refused" grep -q "ocirun-exec-stub: not a program" "$XB/out"
sed 's/^/# /' "$XB/out" | head -5
oci delete --force x2 >/dev/null 2>&1
check "ocirun's binary is unchanged" test "$(sha256sum <"$OCIRUN")" = "$sum_before"

tap_done
