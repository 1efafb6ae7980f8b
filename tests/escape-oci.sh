#!/bin/bash
# An outside reviewer's attacks on the OCI runtime command line (create,
# start, exec, kill, delete, update and the state directory), in the
# classes runc, crun and Docker were broken by: leaked fds and cwd
# (CVE-2024-21626), exec joining with another boundary than the
# container's, symlinks under mounts and masks (CVE-2019-16884,
# CVE-2021-30465, CVE-2025-31133), host-wide sysctls, namespaces joined by
# path, capabilities beyond the bounding set (CVE-2022-27650/29162), a
# state directory another user plants, files written through symlinks.
# Each attack first shows its probe can see the hole (a positive control),
# then that ocirun refuses it. A hole still open is a TAP `# TODO` naming
# it. Host only, --unsafe-no-cgroup; the cgroup cases are
# tests/guest/escape-oci.sh.
. "$top_srcdir/tests/lib.sh"

needs_root "escape-oci needs root"

ROOT=$OCIRUN_ROOT

# --- each case's bundle: sleeper_bundle DIR PYTHON (tests/lib.sh) ---
BASE=$TEST_TMP/base
sleeper_bundle "$BASE" || { not_ok "a busybox bundle"; tap_done; exit 1; }
# create_start DIR ID: create (stdin /dev/null, stdout/err to DIR/out) and start.
create_start() {
  oci create --unsafe-no-cgroup --bundle "$1" "$2" </dev/null >"$1/out" 2>&1 && oci start "$2"
}
# fds_of PID: the descriptor numbers PID holds, one line.
fds_of() { ls "/proc/$1/fd" 2>/dev/null | sort -n | tr '\n' ' '; }

# ==== 1. exec: the joining process gets the container's boundary ====
# A seccomp filter refusing mkdir (EPERM), no-new-privileges and three
# capabilities; the caller leaks fds 7 and 9 (not close-on-exec).
SECCOMP='c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64"],
  "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}'
EB=$TEST_TMP/exec-bundle
check "a bundle with a seccomp filter refusing mkdir" sleeper_bundle "$EB" "$SECCOMP"
touch "$EB/rootfs/container-marker"
ln -s ../../../../../../../.. "$EB/rootfs/up"
create_leaking() {
  oci create --unsafe-no-cgroup --bundle "$EB" e1 </dev/null >"$EB/out" 2>&1 7</etc/hostname 9</etc/passwd &&
    oci start e1
}
expect_exit 0 "create and start it, the caller leaking fds 7 and 9" create_leaking
P1=$(pid_of e1)
check "control: pid 1 has the filter (Seccomp: 2), no-new-privileges and CapEff 20000420" \
  sh -c "grep -q 'Seccomp:.2' /proc/$P1/status && grep -q 'NoNewPrivs:.1' /proc/$P1/status && grep -q 'CapEff:.0000000020000420' /proc/$P1/status"
check "pid 1 holds fds 0-2 only (the caller's 7 and 9 never reach it)" test "$(fds_of "$P1")" = "0 1 2 "
check "control: the caller's fds 7 and 9 reach a plain child (what the probe sees when leaked)" \
  sh -c "ls /proc/self/fd 7</etc/hostname 9</etc/passwd | grep -qx 7 && ls /proc/self/fd 7</etc/hostname 9</etc/passwd | grep -qx 9"
expect_exit 0 "exec ls /proc/self/fd with the caller leaking fds 7 and 9" \
  sh -c "'$OCIRUN' --root '$ROOT' exec e1 ls /proc/self/fd 7</etc/hostname 9</etc/passwd"
check "exec: fds 0-2 only (3 is ls' own directory)" test "$(sort -n "$TEST_TMP/out" | tr '\n' ' ')" = "0 1 2 3 "
expect_exit 0 "exec a probe of its boundary" \
  oci exec e1 sh -c 'grep -E "^(Seccomp|NoNewPrivs|CapEff|CapBnd|CapInh|CapAmb):" /proc/$$/status; mkdir /tmp/x && echo mkdir-ok; true'
check "exec: the container's seccomp filter (mkdir refused)" \
  sh -c "grep -q 'Seccomp:.2' '$TEST_TMP/out' && ! grep -q mkdir-ok '$TEST_TMP/out'"
check "exec: no-new-privileges, the container's capabilities, no inheritable or ambient" \
  sh -c "grep -q 'NoNewPrivs:.1' '$TEST_TMP/out' && grep -q 'CapEff:.0000000020000420' '$TEST_TMP/out' &&
         grep -q 'CapBnd:.0000000020000420' '$TEST_TMP/out' && grep -q 'CapInh:.0000000000000000' '$TEST_TMP/out' &&
         grep -q 'CapAmb:.0000000000000000' '$TEST_TMP/out'"
# CVE-2024-21626's class: a working directory through a leaked fd or a
# /proc magic link, or climbing out of the root.
for cwd in /proc/self/fd/0 /proc/self/fd/3 /proc/self/cwd /proc/1/root /proc/self/root/..; do
  expect_exit 1 "exec --cwd $cwd is refused (a /proc magic link)" oci exec --cwd "$cwd" e1 true
done
for cwd in /../../.. /up /up/up/up; do
  expect_exit 0 "exec --cwd $cwd runs" oci exec --cwd "$cwd" e1 sh -c 'pwd; ls /container-marker'
  check "... in the container's root, not above it" grep -qx /container-marker "$TEST_TMP/out"
done
# A config's (or an image's) command name in an error message must not
# reach the caller's terminal as control bytes (an OSC title, a cursor move).
ESC=$(printf '\033')
expect_exit 127 "exec of a command named with escape sequences fails" \
  oci exec e1 "${ESC}]0;pwned$(printf '\007')${ESC}[2Jnope"
check "control: the message names it" grep -q ']0;pwned' "$TEST_TMP/err"
check "... with its control bytes escaped, not raw" \
  sh -c "! grep -q \"\$(printf '\\033')\" '$TEST_TMP/err' && grep -qF '\\x1b]0;pwned\\x07' '$TEST_TMP/err'"
# CVE-2019-5736's class: the joining process runs ocirun's code until it
# spawns the process; /proc/self/exe must never be what it execs. It looks
# the command up from outside the container's pid namespace, where the
# container's /proc has no "self" for it, and every /proc/PID/exe is a magic
# link the lookup does not follow.
expect_exit 127 "exec /proc/self/exe is refused (it would name ocirun's binary)" \
  oci exec e1 /proc/self/exe --version
check "... saying why" grep -q "'/proc/self/exe': No such file or directory" "$TEST_TMP/err"
expect_exit 126 "exec /proc/1/exe (a magic link) is refused" oci exec e1 /proc/1/exe --version
check "... saying why" grep -q "magic link" "$TEST_TMP/err"
expect_exit 0 "control: the workload's own /proc/self/exe is its program (busybox)" \
  oci exec e1 readlink /proc/self/exe
check "... /bin/busybox" grep -qx /bin/busybox "$TEST_TMP/out"
# --process gets config.json's checks (a relative cwd, an unknown capability).
printf '{"args":["true"],"cwd":"/","user":{"uid":0,"gid":0},"capabilities":{"bounding":["CAP_NOPE"]}}' >"$TEST_TMP/p1.json"
expect_exit 1 "exec --process with an unknown capability is refused" oci exec --process "$TEST_TMP/p1.json" e1
check "... naming it" grep -q "CAP_NOPE" "$TEST_TMP/err"
printf '{"args":["true"],"cwd":"/","user":{"uid":0,"gid":0},"rlimits":[{"type":"RLIMIT_NOFILE","soft":10,"hard":5}]}' >"$TEST_TMP/p2.json"
expect_exit 1 "exec --process with soft above hard rlimit is refused" oci exec --process "$TEST_TMP/p2.json" e1

# The spec (runtime.md, create): "Any changes made to the config.json file
# after this operation will not have an effect on the container." exec
# read the bundle's config.json again, so whoever could write it after
# create (a bundle the container can reach, a caller's later edit) decided
# the seccomp filter, capabilities and no-new-privileges of every later
# exec: here the filter went, CAP_SYS_ADMIN came, no-new-privileges went,
# while pid 1 kept its boundary. Fixed: create keeps the bytes it parsed
# as containers/ID/config.json (0600), and exec reads that copy.
python3 - "$EB/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
del c["linux"]["seccomp"]
for s in ("bounding", "effective", "permitted"):
    c["process"]["capabilities"][s].append("CAP_SYS_ADMIN")
c["process"]["noNewPrivileges"] = False
json.dump(c, open(sys.argv[1], "w"))
PY
oci exec e1 sh -c 'grep -E "^(Seccomp|NoNewPrivs|CapEff):" /proc/$$/status; mkdir /tmp/x && echo mkdir-ok' >"$TEST_TMP/drift" 2>&1
check "exec after config.json changed: still the container's filter (mkdir refused)" \
  sh -c "! grep -q mkdir-ok '$TEST_TMP/drift' && grep -q 'Seccomp:.2' '$TEST_TMP/drift'"
check "exec after config.json changed: still no CAP_SYS_ADMIN, still no-new-privileges" \
  sh -c "grep -q 'CapEff:.0000000020000420' '$TEST_TMP/drift' && grep -q 'NoNewPrivs:.1' '$TEST_TMP/drift'"
check "control: pid 1 kept its boundary all along" \
  sh -c "grep -q 'Seccomp:.2' /proc/$P1/status && grep -q 'CapEff:.0000000020000420' /proc/$P1/status"
expect_exit 0 "delete --force e1" oci delete --force e1
# The same, written by the container itself: a bundle whose directory is
# the root (root.path ".", or a bundle the configuration binds in) lets pid
# 1 rewrite config.json; the next `ocirun exec ID CMD` then runs with the
# capabilities it chose (CAP_SYS_MODULE, in the host's user namespace
# here) and without no-new-privileges or the seccomp filter. Fixed, as above.
SB=$TEST_TMP/self-bundle
cp -a "$BASE/rootfs" "$SB" && python3 - "$BASE/config.json" "$SB/config.json" "$SECCOMP" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["root"] = {"path": ".", "readonly": False}
exec(sys.argv[3])
c["process"]["args"] = ["sh", "-c", "sed -i 's/\"CAP_KILL\"/\"CAP_KILL\",\"CAP_SYS_MODULE\"/g; "
                        "s/\"noNewPrivileges\":true/\"noNewPrivileges\":false/; s/mkdirat/nothing/' /config.json; "
                        "echo rewritten; exec sleep 1000"]
json.dump(c, open(sys.argv[2], "w"), separators=(",", ":"))
PY
expect_exit 0 "a container whose root is its bundle" create_start "$SB" self1
sleep 0.5
check "control: pid 1 rewrote config.json, and has neither CAP_SYS_MODULE nor a way around its filter" \
  sh -c "grep -q rewritten '$SB/out' && grep -q CAP_SYS_MODULE '$SB/config.json' && grep -q 'CapEff:.0000000020000420' /proc/$(pid_of self1)/status"
oci exec self1 sh -c 'grep -E "^(NoNewPrivs|CapEff):" /proc/$$/status' >"$TEST_TMP/self" 2>&1
check "exec in it: not CAP_SYS_MODULE (the container's config.json rewrite is not obeyed)" \
  grep -q 'CapEff:.0000000020000420' "$TEST_TMP/self"
check "exec in it: still no-new-privileges" grep -q 'NoNewPrivs:.1' "$TEST_TMP/self"
oci delete --force self1 >/dev/null 2>&1

# ==== 2. capabilities the process cannot have ====
# CVE-2022-27650/29162's class: inheritable (or ambient) capabilities
# outside the bounding set. The kernel refuses the capset and the process
# never runs the user program; start reports the refusal (the child tells
# it on the exec FIFO) and removes the container.
for set in inheritable ambient; do
  CB=$TEST_TMP/caps-$set
  sleeper_bundle "$CB" "c['process']['capabilities']['$set'] = ['CAP_SYS_ADMIN']; c['process']['args'] = ['sh', '-c', 'echo user-program-ran; sleep 1000']"
  oci create --unsafe-no-cgroup --bundle "$CB" "cap-$set" </dev/null >"$CB/out" 2>&1
  oci start "cap-$set" >"$CB/start" 2>&1
  echo "exit $?" >>"$CB/start"
  sleep 0.5
  check "$set CAP_SYS_ADMIN beyond the bounding set: the user program never runs" \
    sh -c "! grep -q user-program-ran '$CB/out'"
  check "$set beyond the bounding set: start fails, naming the capabilities" \
    sh -c "grep -q 'exit 1' '$CB/start' && grep -qi 'capabilit' '$CB/start'"
  check "... and removes the container" sh -c "! '$OCIRUN' --root '$ROOT' state cap-$set >/dev/null 2>&1"
  oci delete --force "cap-$set" >/dev/null 2>&1
done
CB=$TEST_TMP/caps-ok
sleeper_bundle "$CB" "c['process']['capabilities']['inheritable'] = ['CAP_KILL']; c['process']['args'] = ['sh', '-c', 'grep CapInh /proc/self/status; sleep 1000']"
expect_exit 0 "control: inheritable inside the bounding set is applied" create_start "$CB" cap-ok
sleep 0.5
check "... CapInh is CAP_KILL alone" grep -q "CapInh:.0000000000000020" "$CB/out"
oci delete --force cap-ok >/dev/null 2>&1

# ==== 2b. the user: 4294967295 is (uid_t)-1, "no change" to setresuid ====
# A configuration (or an exec -u, or a process file) asking for uid or gid
# 4294967295 ran the process as root (fixed: spec.c parse_user refuses it
# in config.json and --process; capabilities_switch_user refuses it for
# every front end). A caller resolving an image's /etc/passwd user to that
# number handed the image root.
UB=$TEST_TMP/user-bundle
sleeper_bundle "$UB" "c['process']['user'] = {'uid': 65534, 'gid': 65534}; c['process']['args'] = ['sh', '-c', 'id -u; sleep 1000']"
expect_exit 0 "control: uid 65534 in config.json" create_start "$UB" us-ok
sleep 0.5
check "... runs as 65534 (the probe sees the uid)" grep -qx 65534 "$UB/out"
for ids in "4294967295 65534" "65534 4294967295"; do
  set -- $ids
  sleeper_bundle "$UB.bad" "c['process']['user'] = {'uid': $1, 'gid': $2}; c['process']['args'] = ['sh', '-c', 'id; sleep 1000']"
  expect_exit 1 "config.json process.user $1:$2 is refused" oci create --unsafe-no-cgroup --bundle "$UB.bad" us1
  check "... naming the field" grep -q "process.user.[ug]id: 4294967295 is not" "$TEST_TMP/err"
done
for user in 4294967295 0:4294967295; do
  expect_exit 1 "exec -u $user is refused (it ran as root)" oci exec -u "$user" us-ok id
  check "... by the runtime" grep -q "4294967295 is not an id" "$TEST_TMP/err"
  check "... nothing ran" sh -c "! grep -q uid= '$TEST_TMP/out'"
done
printf '{"args":["id"],"cwd":"/","user":{"uid":4294967295,"gid":4294967295}}' >"$TEST_TMP/p3.json"
expect_exit 1 "exec --process with uid 4294967295 is refused" oci exec --process "$TEST_TMP/p3.json" us-ok
check "... nothing ran" sh -c "! grep -q uid= '$TEST_TMP/out'"
expect_exit 0 "control: exec -u 65534 runs as 65534" oci exec -u 65534 us-ok id -u
check "... 65534" grep -qx 65534 "$TEST_TMP/out"
oci delete --force us-ok >/dev/null 2>&1

# ==== 3. namespaces joined by path ====
unshare -n -i -u sleep 1000 &
NSP=$!
sleep 0.3
ns() { echo "c['linux']['namespaces'] = [n for n in c['linux']['namespaces'] if n['type'] != '$1'] + [{'type': '$1', 'path': '$2'}]"; }
NB=$TEST_TMP/ns-bundle
sleeper_bundle "$NB" "$(ns network /proc/$NSP/ns/net)"
expect_exit 0 "control: a network namespace joined by its nsfs path" oci create --unsafe-no-cgroup --bundle "$NB" ns-ok
check "... is the container's" test "$(readlink /proc/$(pid_of ns-ok)/ns/net)" = "$(readlink /proc/$NSP/ns/net)"
oci delete --force ns-ok >/dev/null 2>&1
sleeper_bundle "$NB" "$(ns network /etc/passwd)"
expect_exit 1 "a namespace path that is a plain file is refused" oci create --unsafe-no-cgroup --bundle "$NB" ns1
check "... saying it is not a namespace file" grep -q "not a namespace file" "$TEST_TMP/err"
sleeper_bundle "$NB" "$(ns network /proc/$NSP/ns/ipc)"
expect_exit 1 "a network entry naming an IPC namespace is refused" oci create --unsafe-no-cgroup --bundle "$NB" ns2
sleeper_bundle "$NB" "$(ns mount /proc/$NSP/ns/mnt)"
expect_exit 1 "a mount namespace joined by path is refused (ocirun's mounts would land there)" \
  oci create --unsafe-no-cgroup --bundle "$NB" ns3
sleeper_bundle "$NB" "$(ns user /proc/self/ns/user)"
expect_exit 1 "the host's own user namespace joined by path is refused" oci create --unsafe-no-cgroup --bundle "$NB" ns4
check "none of them left a container" sh -c "! ls '$ROOT/containers' | grep -q '^ns[0-9]'"

# ==== 4. sysctl: only what the container's own namespaces hold ====
CORE=$(cat /proc/sys/kernel/core_pattern)
FWD=$(cat /proc/sys/net/ipv4/ip_forward)
SB=$TEST_TMP/sysctl-bundle
sleeper_bundle "$SB" "$(ns network /proc/$NSP/ns/net); c['linux']['sysctl'] = {'net.ipv4.ip_forward': '$((1 - FWD))'}"
expect_exit 0 "control: net.ipv4.ip_forward in a joined network namespace" oci create --unsafe-no-cgroup --bundle "$SB" sy-ok
check "... is set there" test "$(nsenter --net=/proc/$NSP/ns/net cat /proc/sys/net/ipv4/ip_forward)" = "$((1 - FWD))"
oci delete --force sy-ok >/dev/null 2>&1
for key in kernel.core_pattern kernel/core_pattern vm.overcommit_memory fs.file-max net/../kernel/core_pattern \
  net.ipv4/../../kernel/core_pattern "kernel.shmmax/../core_pattern"; do
  sleeper_bundle "$SB" "c['linux']['sysctl'] = {'$key': '|/tmp/x'}"
  expect_exit 1 "sysctl '$key' is refused" oci create --unsafe-no-cgroup --bundle "$SB" sy1
done
for path in /proc/self/ns/net /proc/$$/ns/net; do
  sleeper_bundle "$SB" "$(ns network "$path"); c['linux']['sysctl'] = {'net.ipv4.ip_forward': '$((1 - FWD))'}"
  expect_exit 1 "net.* in the host's network namespace joined as $path is refused" \
    oci create --unsafe-no-cgroup --bundle "$SB" sy2
done
sleeper_bundle "$SB" "c['linux']['namespaces'] = [n for n in c['linux']['namespaces'] if n['type'] != 'network']; c['linux']['sysctl'] = {'net.ipv4.ip_forward': '$((1 - FWD))'}"
expect_exit 1 "net.* without a network namespace is refused" oci create --unsafe-no-cgroup --bundle "$SB" sy3
check "the host's core_pattern and ip_forward are unchanged" \
  test "$(cat /proc/sys/kernel/core_pattern)/$(cat /proc/sys/net/ipv4/ip_forward)" = "$CORE/$FWD"
kill "$NSP" 2>/dev/null

# ==== 5. mounts, masks and read-only paths through the root's symlinks ====
MB=$TEST_TMP/mount-bundle
mkdir -p "$TEST_TMP/hostdir"
echo host >"$TEST_TMP/hostdir/f"
sleeper_bundle "$MB" "c['mounts'].append({'destination': '/evil/x', 'type': 'tmpfs', 'source': 'tmpfs'})"
ln -s "$TEST_TMP/hostdir" "$MB/rootfs/evil"
oci create --unsafe-no-cgroup --bundle "$MB" mo1 </dev/null >/dev/null 2>&1
check "a destination through an absolute symlink stays in the root (the host's directory is untouched)" \
  sh -c "[ \"\$(ls '$TEST_TMP/hostdir')\" = f ] && ! grep -q ' $TEST_TMP/hostdir' /proc/self/mountinfo"
oci delete --force mo1 >/dev/null 2>&1
for dest in /proc/sys/kernel/core_pattern /lnk/core_pattern /proc/sysrq-trigger; do
  sleeper_bundle "$MB" "c['mounts'].append({'destination': '$dest', 'type': 'bind', 'source': '$TEST_TMP/hostdir/f', 'options': ['bind']})"
  ln -s /proc/sys/kernel "$MB/rootfs/lnk"
  expect_exit 1 "a bind onto $dest (procfs, through a symlink or not) is refused" \
    oci create --unsafe-no-cgroup --bundle "$MB" mo2
done
# maskedPaths and readonlyPaths whose path in the image is a symlink to a
# procfs file or a magic link: the mask goes on the symlink itself.
sleeper_bundle "$MB" "c['linux']['maskedPaths'] = ['/m']; c['linux']['readonlyPaths'] = ['/r']; c['process']['args'] = ['sh', '-c', 'grep -E \" /(m|r) \" /proc/self/mountinfo; cat /proc/sys/kernel/core_pattern; sleep 1000']"
ln -s /proc/sys/kernel/core_pattern "$MB/rootfs/m"
ln -s /proc/1/root "$MB/rootfs/r"
expect_exit 0 "masked and read-only paths that are symlinks in the image" create_start "$MB" mo3
sleep 0.5
check "... the mask covers /m itself (not the procfs file it names)" \
  sh -c "grep -q ' /m ' '$MB/out' && ! grep -q ' /proc/sys/kernel/core_pattern ' '$MB/out'"
# A bind's mountinfo line names its source by device and by its path in
# that filesystem (field 4): the test tree's own path only when it sits on
# the host's root filesystem, not on a tmpfs /tmp or a bind mount.
# bind_source PATH: "MAJ:MIN ROOT", as a bind of PATH shows in mountinfo.
bind_source() {
  python3 - "$1" <<'PY'
import os, sys
# The directory resolved, not PATH itself: PATH may be a symlink.
path = os.path.join(os.path.realpath(os.path.dirname(sys.argv[1])), os.path.basename(sys.argv[1]))
best = None
for line in open("/proc/self/mountinfo"):
    f = line.split()
    point = f[4].replace("\\040", " ")
    inside = path == point or path.startswith(point.rstrip("/") + "/")
    if inside and (best is None or len(point) >= len(best[2])):
        best = (f[2], f[3].replace("\\040", " "), point)
dev, root, point = best
rel = os.path.relpath(path, point)
print(dev, os.path.normpath(os.path.join(root, rel)) if rel != "." else root)
PY
}
# The line of the bind at /r (its device and root), from the container.
bind_at_r() { awk '$5 == "/r" {print $3, $4}' "$MB/out"; }
check "... the read-only bind is the symlink itself, not /proc/1/root" \
  test "$(bind_at_r)" = "$(bind_source "$MB/rootfs/r")"
check "control: a bind through the link (/proc/1/root, the host's /) would show another line" \
  test -n "$(bind_at_r)" -a "$(bind_source /)" != "$(bind_source "$MB/rootfs/r")"
oci delete --force mo3 >/dev/null 2>&1

# ==== 6. the state directory: planted by another user ====
sleep 1000 &
VICTIM=$!
START=$(awk '{print $22}' "/proc/$VICTIM/stat")
# plant ROOT ID: a record of ID naming the victim process, in a private tree.
plant() {
  mkdir -p "$1/containers/$2" && chmod 700 "$1" "$1/containers" "$1/containers/$2" &&
    printf '{"ociVersion":"1.2.0","id":"%s","bundle":"/","pid":%d,"pidStartTime":%s,"created":"x","owner":0,"annotations":{},"hooks":{}}' \
      "$2" "$VICTIM" "$START" >"$1/containers/$2/state.json"
}
P=$TEST_TMP/planted
plant "$P/own" v
expect_exit 0 "control: a record in a root-owned tree is trusted (kill CONT reaches the process)" \
  "$OCIRUN" --root "$P/own" kill v CONT
plant "$P/foreign" v && chown -R 65534 "$P/foreign"
plant "$P/foreign-dir" v && chown 65534 "$P/foreign-dir/containers/v"
plant "$P/loose" v && chmod 777 "$P/loose/containers"
plant "$P/link" w && ln -s "$P/link/containers/w" "$P/link/containers/v"
plant "$P/statelink" v && mv "$P/statelink/containers/v/state.json" "$P/statelink/s.json" &&
  ln -s "$P/statelink/s.json" "$P/statelink/containers/v/state.json"
for tree in foreign foreign-dir loose link statelink; do
  expect_exit 1 "a record in a planted tree ($tree) is refused by kill" "$OCIRUN" --root "$P/$tree" kill v KILL
  expect_exit 1 "... and by delete --force" "$OCIRUN" --root "$P/$tree" delete --force v
done
check "the victim process lives" kill -0 "$VICTIM"
check "delete removed nothing of the planted trees" \
  test -e "$P/foreign/containers/v/state.json" -a -e "$P/link/containers/w/state.json" -a -e "$P/statelink/s.json"
expect_exit 1 "--root relative is refused" "$OCIRUN" --root relative-root state v
kill "$VICTIM"

# ==== 7. --pid-file and --log through symlinks ====
echo victim >"$TEST_TMP/victim"
EB2=$TEST_TMP/pid-bundle
sleeper_bundle "$EB2" ""
ln -s "$TEST_TMP/victim" "$TEST_TMP/pid.link"
expect_exit 0 "create --pid-file naming a symlink" \
  oci create --unsafe-no-cgroup --bundle "$EB2" --pid-file "$TEST_TMP/pid.link" pf </dev/null
check "... replaces the link, never writes through it" \
  sh -c "[ \"\$(cat '$TEST_TMP/victim')\" = victim ] && [ ! -L '$TEST_TMP/pid.link' ]"
oci start pf
ln -sf "$TEST_TMP/victim" "$TEST_TMP/xpid.link"
expect_exit 0 "exec --pid-file naming a symlink" oci exec --detach --pid-file "$TEST_TMP/xpid.link" pf sleep 1
check "... replaces the link, never writes through it" \
  sh -c "[ \"\$(cat '$TEST_TMP/victim')\" = victim ] && [ ! -L '$TEST_TMP/xpid.link' ]"
oci delete --force pf >/dev/null 2>&1
# --log in a world-writable sticky directory (/tmp's shape), through a
# symlink another user planted there: the kernel's protected_symlinks rule,
# whatever the sysctl says (this host may have it off).
STICKY=$TEST_TMP/sticky
mkdir -p "$STICKY" && chmod 1777 "$STICKY" && chmod 755 "$TEST_TMP"
ln -s "$TEST_TMP/victim" "$STICKY/planted.log" && chown -h 65534 "$STICKY/planted.log"
oci --log "$STICKY/planted.log" state nope >/dev/null 2>&1
check "--log through another user's symlink in a sticky directory does not append to its target" \
  test "$(cat "$TEST_TMP/victim")" = victim
ln -s "$TEST_TMP/own.log" "$STICKY/mine.log"
oci --log "$STICKY/mine.log" state nope >/dev/null 2>&1
check "control: the caller's own symlink there is followed" grep -q "does not exist" "$TEST_TMP/own.log"
oci --log /dev/stderr state nope >/dev/null 2>"$TEST_TMP/err"
check "control: --log /dev/stderr (a symlink) still works" grep -q "level=error" "$TEST_TMP/err"

# ==== 8. update: resources that would reach past the container's limits ====
for key in cgroup.procs cgroup.subtree_control cgroup.kill cgroup.freeze cgroup.type \
  ../memory.max memory.max/../x devices.allow "memory..max" ""; do
  expect_exit 1 "update: unified key '$key' is refused before any container is looked up" \
    oci update --resources - nope <<<"{\"unified\": {\"$key\": \"1\"}}"
  check "... naming linux.resources.unified" grep -q "linux.resources.unified" "$TEST_TMP/err"
done

# ==== 9. the console: the caller's terminal never reaches the container ====
# ocirun itself runs on a host pty (as a shell would leave it); with
# process.terminal the container's shell must hold its own pty only
# (st_dev:major:minor of each of its descriptors, printed from inside).
TB=$TEST_TMP/tty-bundle
sleeper_bundle "$TB" "c['process']['terminal'] = True; c['process']['args'] = ['sh']"
python3 - "$TEST_TMP/tty.out" python3 "$top_srcdir/tests/helpers/console-socket.py" "$TEST_TMP/console.sock" \
  "$OCIRUN" "$ROOT" tty1 'for f in /proc/$$/fd/*; do stat -L -c "fd=%d:%t:%T" $f; done; exit 0' \
  --unsafe-no-cgroup --bundle "$TB" <<'PY'
import os, pty, subprocess, sys
master, slave = pty.openpty()
host = os.stat(os.ttyname(slave))
with open(sys.argv[1], "w") as out:
    out.write("host=%d:%x:%x\n" % (host.st_dev, os.major(host.st_rdev), os.minor(host.st_rdev)))
    r = subprocess.run(sys.argv[2:], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    out.write(r.stdout.decode(errors="replace"))
PY
HOSTTTY=$(sed -n 's/^host=//p' "$TEST_TMP/tty.out")
check "control: the caller's terminal is a pty ($HOSTTTY)" test -n "$HOSTTTY"
check "the container's shell has a pty (major 0x88) on 0, 1 and 2" \
  test "$(grep -c '^fd=[0-9]*:88:' "$TEST_TMP/tty.out")" -ge 3
check "... and no descriptor on the caller's pty" sh -c "! grep -q '^fd=$HOSTTTY' '$TEST_TMP/tty.out'"
oci delete --force tty1 >/dev/null 2>&1

# ==== 10. delete --force leaves nothing running ====
# With a pid namespace, pid 1's death takes every process of it along.
# Without one and without a cgroup (--unsafe-no-cgroup), nothing knows the
# container's other processes: a daemon pid 1 started outlives delete
# --force, still in the container's mount namespace. OPEN: create
# --unsafe-no-cgroup should require a new pid namespace
# (src/container/create.c, beside its linux.resources refusal).
daemon_of() { pgrep -f "^sleep $1\$"; }
DB=$TEST_TMP/daemon-bundle
sleeper_bundle "$DB" "c['process']['args'] = ['sh', '-c', '(setsid sleep 996 &); exec sleep 1000']"
expect_exit 0 "control: a container whose pid 1 starts a daemon (own pid namespace)" create_start "$DB" d1
sleep 0.5
D1=$(daemon_of 996)
check "... the daemon runs" test -n "$D1"
expect_exit 0 "delete --force" oci delete --force d1
sleep 0.5
check "... and the daemon died with pid 1's namespace" sh -c "! kill -0 ${D1:-0} 2>/dev/null"
sleeper_bundle "$DB" "c['linux']['namespaces'] = [n for n in c['linux']['namespaces'] if n['type'] != 'pid']; c['process']['args'] = ['sh', '-c', '(setsid sleep 995 &); exec sleep 1000']"
expect_exit 1 "without a pid namespace or a cgroup, create refuses" oci create --unsafe-no-cgroup --bundle "$DB" d2
check "... saying why" grep -q "needs a new pid namespace" "$TEST_TMP/err"
check "... and leaves no container d2" sh -c "! '$OCIRUN' --root '$ROOT' state d2 >/dev/null 2>&1"

tap_done
