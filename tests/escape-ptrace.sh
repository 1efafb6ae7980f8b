#!/bin/bash
# CAP_SYS_PTRACE of the host's user namespace against ocirun's own
# processes in a container. ocirun keeps a container away from the
# processes it runs there before they become the workload (an exec'd
# process until its exec, running ocirun's binary with the runtime's
# capabilities; `ocirun run`'s init, which holds the parent-death signal
# and the status pipe) by making them non-dumpable. Non-dumpable does not
# stop a tracer holding CAP_SYS_PTRACE over the process's memory's user
# namespace, and a container without a user namespace of its own that is
# given CAP_SYS_PTRACE (`--cap-add SYS_PTRACE`, a config's capability list)
# holds it over the host's; the init, exec'd inside a rootless run's user
# namespace, is that namespace's, whose CAP_SYS_PTRACE is enough. So exec
# spawns its process from the sealed stub, confined, outside the container
# until then (runtime.c exec_join), and run refuses CAP_SYS_PTRACE. Each
# attack first without the capability (it is held), then with it. Host
# only, without a cgroup.
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT/oci
root_with_busybox "escape-ptrace"
SYSPROBE=$top_builddir/tests/helpers/sysprobe

# ---- the technique: a held /proc/PID/exe, reopened for writing once its process is gone ----
cp /bin/sleep "$TEST_TMP/sleep-copy"
"$TEST_TMP/sleep-copy" 1 &
victim=$!
sleep 0.2
python3 - "$victim" <<'PY'
import os, sys, time
held = os.open("/proc/%s/exe" % sys.argv[1], os.O_RDONLY)
for _ in range(100):
    try:
        fd = os.open("/proc/self/fd/%d" % held, os.O_WRONLY | os.O_APPEND)
    except OSError:
        time.sleep(0.05)
        continue
    os.write(fd, b"OVERWRITTEN")
    break
PY
wait "$victim"
check "control: a held /proc/PID/exe, reopened for writing once its process has ended, writes the binary it ran" \
  sh -c "tail -c 11 '$TEST_TMP/sleep-copy' | grep -qx OVERWRITTEN"

# ---- exec: the process before its exec runs ocirun's host binary ----
# The container's pid 1 watches for a process whose executable is no file
# of its tree, holds it, and appends a marker once nothing runs it (sysprobe
# foreign-exe). The execs run a copy of ocirun, the one the hole can reach.
COPY=$TEST_TMP/ocirun-copy
# exec_race ID: 30 execs of `true` into ID by the copy (its stdio pipes,
# handed over), ended early once the copy changed or the watcher seized a
# process; prints whether the copy changed
exec_race() {
  local sum
  cp "$OCIRUN" "$COPY"
  sum=$(sha256sum <"$COPY")
  for _ in $(seq 30); do
    "$COPY" --root "$ROOT" exec "$1" true </dev/null 2>&1 | cat >/dev/null
    [ "$(sha256sum <"$COPY")" = "$sum" ] || break
    grep -q '^seized' "$TEST_TMP/$1.out" && break
  done
  [ "$(sha256sum <"$COPY")" = "$sum" ] && echo unchanged || echo changed
}
# watcher ID CAPS ACTION: a container (root, Docker's capabilities and CAPS)
# whose pid 1 is sysprobe ACTION, its output in $TEST_TMP/ID.out
watcher() {
  sleeper_bundle "$TEST_TMP/$1" 'c["process"]["args"] = ["/sysprobe", args[1]]
c["process"]["capabilities"] = {k: DOCKER_CAPS + args[0].split() for k in ("bounding", "effective", "permitted")}' \
    "$2" "$3" && cp "$SYSPROBE" "$TEST_TMP/$1/rootfs/sysprobe"
  oci create --unsafe-no-cgroup --bundle "$TEST_TMP/$1" "$1" >"$TEST_TMP/$1.out" 2>&1 &&
    oci start "$1" || not_ok "start the watching container $1"
}
watcher p "" foreign-exe=120
watcher p-ptrace CAP_SYS_PTRACE foreign-exe=120
watcher s-ptrace CAP_SYS_PTRACE seize-foreign=120
got=$(exec_race p)
check "without CAP_SYS_PTRACE: 30 execs leave ocirun's host binary unchanged ($got)" test "$got" = unchanged
check "... the container's watcher never held it (non-dumpable until exec)" \
  sh -c "! grep -q 'foreign-exe held' '$TEST_TMP/p.out'"
got=$(exec_race p-ptrace)
sed 's/^/# watcher: /' "$TEST_TMP/p-ptrace.out"
check "with CAP_SYS_PTRACE and no user namespace: execs leave ocirun's host binary unchanged ($got)" \
  test "$got" = unchanged
# The same window, seen by a tracer: the exec'd process, in the container's
# pid namespace, before it has dropped anything (CapEff all ones: with
# PTRACE_POKEUSER its tracer runs any system call with them: a module
# loaded, a host disk mounted).
exec_race s-ptrace >/dev/null
sed 's/^/# watcher: /' "$TEST_TMP/s-ptrace.out"
# (It may catch the spawned process between the stub's clone and its exec:
# that is the workload's own credentials in the sealed stub, its to trace.)
check "with CAP_SYS_PTRACE and no user namespace: no process of the container attaches to one holding the runtime's capabilities" \
  sh -c "! grep -q '^seized.*CapEff:.000001ff' '$TEST_TMP/s-ptrace.out'"

# ---- run: the init's status pipe ----
# The workload writes a report of its own making (exited, status 0) into
# the init's status pipe through /proc/1/fd, then exits 7.
forge='fd=$(tr "\0" " " </proc/1/cmdline | cut -d" " -f3)
printf "\001\000\000\000\000\000\000\000\000\000\000\000" >/proc/1/fd/$fd && echo forged
exit 7'
"$OCIRUN" run --unsafe-no-cgroup busybox:latest sh -c "$forge" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
got=$?
check "without CAP_SYS_PTRACE: the workload cannot write the init's status pipe; its exit 7 is reported ($got)" \
  sh -c "[ $got -eq 7 ] && ! grep -q forged '$TEST_TMP/out'"
# With CAP_SYS_PTRACE over the init nothing keeps the workload from it
# (the control: a non-dumpable process's fd links, read through /proc by
# a root holding CAP_SYS_PTRACE, and not without it), so run refuses the
# capability.
python3 -c 'import ctypes, time; ctypes.CDLL(None).prctl(4, 0); time.sleep(5)' &
nondumpable=$!
sleep 0.5
check "control: root with CAP_SYS_PTRACE reads a non-dumpable process's fd links" \
  readlink "/proc/$nondumpable/fd/0"
check "control: ... root without it cannot" \
  sh -c "! setpriv --bounding-set=-sys_ptrace readlink /proc/$nondumpable/fd/0 >/dev/null 2>&1"
kill "$nondumpable"
expect_exit 125 "run --cap-add SYS_PTRACE is refused (the workload could trace ocirun's init)" \
  "$OCIRUN" run --unsafe-no-cgroup --cap-add SYS_PTRACE busybox:latest sh -c "$forge"
check "... naming the capability and why, and nothing ran" \
  sh -c "grep -q 'CAP_SYS_PTRACE: the workload could trace ocirun.s init' '$TEST_TMP/err' && ! grep -q forged '$TEST_TMP/out'"
expect_exit 125 "run --cap-add ALL is refused the same way" \
  "$OCIRUN" run --unsafe-no-cgroup --cap-add ALL busybox:latest true
# docker's rule: ALL with --cap-drop is every capability but those dropped.
"$OCIRUN" run --unsafe-no-cgroup --cap-add ALL --cap-drop SYS_PTRACE busybox:latest \
  grep CapBnd /proc/self/status >"$TEST_TMP/out" 2>"$TEST_TMP/err"
bnd=$(awk '{print $2}' "$TEST_TMP/out")
check "run --cap-add ALL --cap-drop SYS_PTRACE runs with every capability but CAP_SYS_PTRACE (bounding $bnd)" \
  sh -c "[ -n '$bnd' ] && [ \$(( 0x$bnd & (1 << 19) )) -eq 0 ] && [ \$(( 0x$bnd & (1 << 21) )) -ne 0 ]"
# A rootless run's init is exec'd inside the run's user namespace, so the
# namespace of its memory is the container's own: CAP_SYS_PTRACE there is
# enough (an exec'd process, forked on the host, is out of its reach).
chmod 0755 "$TEST_TMP" && mkdir -m 0700 "$TEST_TMP/user-store" "$TEST_TMP/user-home" &&
  chown 4252:4252 "$TEST_TMP/user-store" "$TEST_TMP/user-home" &&
  cp -r "$TEST_IMAGES/busybox" "$TEST_TMP/user-layout" && chmod -R a+rX "$TEST_TMP/user-layout"
as_user() { setpriv --reuid=4252 --regid=4252 --clear-groups env -i PATH="$PATH" \
  HOME="$TEST_TMP/user-home" OCIRUN_ROOT="$TEST_TMP/user-store" "$@"; }
as_user "$OCIRUN" image import "oci:$TEST_TMP/user-layout:busybox:latest" >/dev/null 2>&1
as_user "$OCIRUN" run --unsafe-no-cgroup busybox:latest sh -c "$forge" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
got=$?
check "rootless, without CAP_SYS_PTRACE: its exit 7 is reported ($got)" \
  sh -c "[ $got -eq 7 ] && ! grep -q forged '$TEST_TMP/out'"
as_user "$OCIRUN" run --unsafe-no-cgroup --cap-add SYS_PTRACE busybox:latest sh -c "$forge" \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
got=$?
check "rootless, --cap-add SYS_PTRACE (of its own user namespace, where the init is exec'd) is refused too ($got)" \
  sh -c "[ $got -eq 125 ] && ! grep -q forged '$TEST_TMP/out'"

for id in p p-ptrace s-ptrace; do oci delete --force "$id" >/dev/null 2>&1; done
pipes_drained
tap_done
