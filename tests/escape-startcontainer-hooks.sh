#!/bin/bash
# The startContainer hooks, run by the container's process (whose program
# the image can replace) while it holds start's exec FIFO and still runs
# ocirun's binary: a hook must not forge start's answer, outlive a failed
# start through a daemon, or reach ocirun's binary (CVE-2019-5736). Each
# attack first shows its probe can see the hole (a positive control), then
# that ocirun refuses it. Host only, --unsafe-no-cgroup.
. "$top_srcdir/tests/lib.sh"

needs_root "escape-startcontainer-hooks needs root"

ROOT=$OCIRUN_ROOT

# --- each case's bundle: sleeper_bundle DIR PYTHON (tests/lib.sh) ---
sleeper_bundle "$TEST_TMP/base" || { not_ok "a busybox bundle"; tap_done; exit 1; }

# ==== 1. start's exec FIFO, forged by a startContainer hook ====
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

# ==== 2. a startContainer hook that times out, leaving a daemon ====
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

# ==== 3. CVE-2019-5736 through a startContainer hook ====
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
