#!/bin/bash
# In the guest (cgroup v2): the OCI lifecycle on a busybox bundle, each
# verb checked by looking at /proc and the cgroup files, not at ocirun's
# own answers: create (the process waits, in its slice, before the user
# program), start, state, ps, pause/resume (cgroup.freeze), update (the
# limit files), kill, delete (slice and state gone), delete --force, kill
# --all, the hooks with the state on stdin, and a create that fails
# leaving nothing behind.
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT
PARENT=/sys/fs/cgroup/ocirun
# bundle DIR ARGS_JSON [EXTRA_PYTHON]: busybox's layers as DIR/rootfs, and
# `ocirun spec`'s config.json with process.args replaced.
bundle() {
  oci_bundle "$1" busybox 'c["process"]["args"] = json.loads(args[0])
'"${3:-}" "$2"
}

B=$TEST_TMP/bundle
check "a busybox bundle from ocirun spec" bundle "$B" '["sleep", "1000"]' \
  'c["hooks"] = {h: [{"path": "/bin/sh", "args": ["sh", "-c", "cat >" + sys.argv[1] + "." + h]}] for h in ("prestart", "createRuntime", "poststart", "poststop")}'

# create
expect_exit 0 "create" oci create --bundle "$B" --pid-file "$TEST_TMP/pid" c1 </dev/null
pid=$(cat "$TEST_TMP/pid" 2>/dev/null)
check "create: the pid file names a live process" test -n "$pid" -a -d "/proc/${pid:-none}"
check "create: it is in the container's slice" grep -qx "$pid" "$PARENT/c1/cgroup.procs"
check "create: it has not run the user program" sh -c "[ -r /proc/${pid:-none}/cmdline ] && ! tr '\\0' ' ' </proc/$pid/cmdline | grep -q '^sleep 1000'"
check "create: its pid namespace is not ours" sh -c "ns=\$(readlink /proc/${pid:-none}/ns/pid) && [ \"\$ns\" != \"\$(readlink /proc/self/ns/pid)\" ]"
check "state: created, with the pid" test "$(status_of c1)" = created
oci state c1 >"$TEST_TMP/state.json" 2>/dev/null
check "state: the pid is the pid file's" python3 -c '
import json, sys; assert json.load(open(sys.argv[1]))["pid"] == int(sys.argv[2])' "$TEST_TMP/state.json" "$pid"
check "createRuntime hook ran with the state (id, pid) on stdin" python3 -c '
import json, sys; s = json.load(open(sys.argv[1])); assert s["id"] == "c1" and s["pid"] == int(sys.argv[2])' \
  "$B/config.json.createRuntime" "$pid"
check "prestart hook ran" test -s "$B/config.json.prestart"

# start
expect_exit 0 "start" oci start c1
sleep 0.5
check "start: the process now runs the user program" sh -c "tr '\\0' ' ' </proc/${pid:-none}/cmdline | grep -q '^sleep 1000'"
check "state: running" test "$(status_of c1)" = running
check "poststart hook ran with status running" python3 -c '
import json, sys; assert json.load(open(sys.argv[1]))["status"] == "running"' "$B/config.json.poststart"
expect_exit 1 "a second start fails" oci start c1

# ps
expect_exit 0 "ps --format json" oci ps --format json c1
check "ps: the pids of the slice" python3 -c '
import json, sys
pids = json.load(open(sys.argv[1]))
procs = [int(p) for p in open(sys.argv[2]).read().split()]
assert sorted(pids) == sorted(procs) and int(sys.argv[3]) in pids, (pids, procs)' \
  "$TEST_TMP/out" "$PARENT/c1/cgroup.procs" "$pid"

# pause, resume
expect_exit 0 "pause" oci pause c1
check "pause: cgroup.freeze is 1 and cgroup.events says frozen" \
  sh -c "grep -qx 1 $PARENT/c1/cgroup.freeze && grep -qx 'frozen 1' $PARENT/c1/cgroup.events"
check "state: paused" test "$(status_of c1)" = paused
expect_exit 1 "pause twice fails" oci pause c1
expect_exit 0 "resume" oci resume c1
check "resume: thawed" sh -c "grep -qx 0 $PARENT/c1/cgroup.freeze && grep -qx 'frozen 0' $PARENT/c1/cgroup.events"
check "state: running again" test "$(status_of c1)" = running
expect_exit 1 "resume of a running container fails" oci resume c1

# update
expect_exit 0 "update --memory 64m --pids-limit 20" oci update --memory 64m --pids-limit 20 c1
check "update: memory.max" grep -qx 67108864 "$PARENT/c1/memory.max"
check "update: pids.max" grep -qx 20 "$PARENT/c1/pids.max"
echo '{"cpu": {"quota": 50000, "period": 100000}}' >"$TEST_TMP/resources.json"
expect_exit 0 "update --resources FILE" oci update --resources "$TEST_TMP/resources.json" c1
check "update: cpu.max" grep -qx "50000 100000" "$PARENT/c1/cpu.max"
expect_exit 0 "update --resources - (stdin, as containerd's shim)" \
  sh -c "echo '{\"memory\": {\"limit\": 33554432}}' | '$OCIRUN' --root '$ROOT' update -r - c1"
check "update: memory.max from stdin" grep -qx 33554432 "$PARENT/c1/memory.max"
expect_exit 1 "update: a bad value is refused, naming the field" oci update --resources - c1 <<<'{"memory": {"limit": "lots"}}'
check "... linux.resources.memory.limit" grep -q "linux.resources.memory.limit" "$TEST_TMP/err"
check "... and memory.max is unchanged" grep -qx 33554432 "$PARENT/c1/memory.max"

# kill, delete
expect_exit 1 "delete of a running container without --force fails" oci delete c1
check "... the process lives on" test -d "/proc/${pid:-none}"
expect_exit 0 "kill KILL" oci kill c1 KILL
check "kill: the process is gone" process_gone "$pid"
check "state: stopped" test "$(status_of c1)" = stopped
expect_exit 0 "delete" oci delete c1
check "delete: the slice is gone" test ! -e "$PARENT/c1"
check "delete: the state is gone" test ! -e "$ROOT/containers/c1"
check "poststop hook ran with status stopped" python3 -c '
import json, sys; assert json.load(open(sys.argv[1]))["status"] == "stopped"' "$B/config.json.poststop"
expect_exit 1 "state after delete: does not exist" oci state c1

# kill --all and delete --force on a container with children
B2=$TEST_TMP/bundle2
check "a second bundle: sh with two sleeps" bundle "$B2" '["sh", "-c", "sleep 1001 & sleep 1002 & wait"]'
expect_exit 0 "create c2" oci create --bundle "$B2" --pid-file "$TEST_TMP/pid2" c2 </dev/null
expect_exit 0 "start c2" oci start c2
for _ in $(seq 50); do [ "$(wc -l <"$PARENT/c2/cgroup.procs")" -ge 3 ] && break; sleep 0.1; done
check "c2: three processes in its slice" test "$(wc -l <"$PARENT/c2/cgroup.procs")" -ge 3
expect_exit 0 "kill --all c2 STOP" oci kill --all c2 STOP
check "kill --all: every process of the slice is stopped" sh -c "
  for p in \$(cat $PARENT/c2/cgroup.procs); do grep -q '^State:.*T' /proc/\$p/status || exit 1; done"
expect_exit 0 "delete --force c2" oci delete --force c2
check "delete --force: the slice is gone" test ! -e "$PARENT/c2"
check "delete --force: no sleep of it is left" sh -c "! pgrep -f 'sleep 100[12]'"

# a create that fails leaves nothing
B3=$TEST_TMP/bundle3
check "a bundle whose createRuntime hook fails" bundle "$B3" '["true"]' \
  'c["hooks"] = {"createRuntime": [{"path": "/bin/sh", "args": ["sh", "-c", "exit 3"]}]}'
expect_exit 1 "create with a failing createRuntime hook fails" oci create --bundle "$B3" c3 </dev/null
check "... naming the hook" grep -q "createRuntime\[0\]" "$TEST_TMP/err"
check "... and leaves no slice" test ! -e "$PARENT/c3"
check "... and no state" test ! -e "$ROOT/containers/c3"
expect_exit 1 "create of an existing id fails" eval "oci create --bundle '$B2' c4 </dev/null && oci create --bundle '$B2' c4 </dev/null"
oci delete --force c4 >/dev/null 2>&1
check "and that left nothing either" test ! -e "$PARENT/c4"

# Found by runtime-tools' validation suite (docs/conformance.md).
# The command is looked up before the seccomp filter: a profile that denies
# openat2 (runtime-tools' default does not list it) must not stop the exec.
B5=$TEST_TMP/bundle5
check "a bundle whose seccomp profile denies openat2" bundle "$B5" '["sh", "-c", "echo seccomp-ok"]' \
  'c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["openat2"], "action": "SCMP_ACT_ERRNO"}]}'
expect_exit 0 "create c5 (openat2 denied to the workload)" eval "oci create --bundle '$B5' c5 </dev/null >'$TEST_TMP/c5.out' 2>&1"
expect_exit 0 "start c5" oci start c5
for _ in $(seq 50); do [ "$(status_of c5)" = stopped ] && break; sleep 0.1; done
check "... the command ran (its output on create's stdout)" grep -qx seccomp-ok "$TEST_TMP/c5.out"
oci delete --force c5 >/dev/null 2>&1

# A caller's umask never narrows the cgroup directories ocirun makes: a
# parent made 0700 by a caller at umask 077 kept every later container in a
# user namespace from mounting its own cgroup2 (EACCES: the kernel walks to
# the namespace's root as the container's root, c6 below).
(umask 077 && mkdir /sys/fs/cgroup/ocirun-umask-control) &&
  check "control: at umask 077 a directory made in the cgroup tree is 0700" \
    test "$(stat -c %a /sys/fs/cgroup/ocirun-umask-control)" = 700
rmdir /sys/fs/cgroup/ocirun-umask-control 2>/dev/null
parent_remade=false
rmdir "$PARENT" 2>/dev/null && parent_remade=true
(umask 077 && oci create --bundle "$B5" cu </dev/null >/dev/null 2>&1)
if $parent_remade; then
  check "the parent ocirun made for a caller at umask 077 is 0755" test "$(stat -c %a "$PARENT")" = 755
else
  echo "# the parent was in use: its mode is not this caller's to show"
fi
check "... and the slice it made is 0755" test "$(stat -c %a "$PARENT/cu")" = 755
oci delete --force cu >/dev/null 2>&1

# A user namespace whose map leaves host root out: the child takes the
# namespace's root before the mount plan (else mkdir in the new /dev tmpfs
# fails with EOVERFLOW), and the exec fifo is that root's to open. The
# namespace's root must reach root.path, as with runc: a 0755 directory.
U=$(mktemp -d /tmp/ocirun-userns.XXXXXX) && chmod 0755 "$U"
check "a bundle with a user namespace mapping 0 to host 100000" bundle "$U/b" '["sh", "-c", "id -u; cat /proc/self/uid_map"]' \
  'c["linux"]["namespaces"].append({"type": "user"}); c["linux"]["uidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]; c["linux"]["gidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
expect_exit 0 "create c6 (host root unmapped; /dev tmpfs, devpts gid=5)" eval "oci create --bundle '$U/b' c6 </dev/null >'$TEST_TMP/c6.out' 2>&1"
sed 's/^/# c6: /' "$TEST_TMP/c6.out"
expect_exit 0 "start c6" oci start c6
for _ in $(seq 50); do [ "$(status_of c6)" = stopped ] && break; sleep 0.1; done
check "... the command ran as the namespace's root" sh -c "head -1 '$TEST_TMP/c6.out' | grep -qx 0"
check "... with the configured map" sh -c "sed -n 2p '$TEST_TMP/c6.out' | grep -Eq '^ *0 +100000 +65536\$'"
oci delete --force c6 >/dev/null 2>&1

# The same user namespace without a cgroup namespace: the kernel refuses a
# cgroup2 mount there (EPERM, the create failed); the container's own
# slice is bound instead (never the host's tree), read-only unless the
# mount says rw.
cgroup_view='["sh", "-c", "stat -c inode=%i /sys/fs/cgroup; grep \" /sys/fs/cgroup \" /proc/self/mountinfo; echo procs=$(cat /sys/fs/cgroup/cgroup.procs); ls /sys/fs/cgroup | grep -qx ocirun && echo host-tree; mkdir /sys/fs/cgroup/sub 2>&1"]'
for mode in ro rw; do
  id=c8$mode
  check "a bundle with a user namespace and no cgroup namespace, cgroup mount $mode" bundle "$U/b$mode" "$cgroup_view" \
    'c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "cgroup"] + [{"type": "user"}]; c["linux"]["uidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]; c["linux"]["gidMappings"] = [{"containerID": 0, "hostID": 100000, "size": 65536}]
for m in c["mounts"]:
    if m["type"] == "cgroup": m["options"] = [o for o in m["options"] if o not in ("ro", "rw")] + ["'$mode'"]'
  expect_exit 0 "create $id (cgroup mount in a user namespace without a cgroup namespace)" \
    eval "oci create --bundle '$U/b$mode' $id </dev/null >'$TEST_TMP/$id.out' 2>&1"
  slice_inode=$(stat -c %i "$PARENT/$id" 2>/dev/null)
  expect_exit 0 "start $id" oci start $id
  for _ in $(seq 50); do [ "$(status_of $id)" = stopped ] && break; sleep 0.1; done
  sed 's/^/# '$id': /' "$TEST_TMP/$id.out"
  check "... /sys/fs/cgroup is the container's own slice (inode $slice_inode)" \
    grep -qx "inode=$slice_inode" "$TEST_TMP/$id.out"
  check "... holding its own process, and nothing of the host's tree" \
    sh -c "grep -Eq '^procs=(.* )?1( |\$)' '$TEST_TMP/$id.out' && ! grep -qx host-tree '$TEST_TMP/$id.out'"
  if [ $mode = ro ]; then
    check "... read-only (mountinfo ro, mkdir: read-only file system)" \
      sh -c "grep -q ' /sys/fs/cgroup ro,' '$TEST_TMP/$id.out' && grep -q 'Read-only file system' '$TEST_TMP/$id.out'"
  else
    check "... read-write, as the mount says (mountinfo rw)" grep -q ' /sys/fs/cgroup rw,' "$TEST_TMP/$id.out"
  fi
  oci delete --force $id >/dev/null 2>&1
done
rm -rf "$U"

# linux.devices under a deny-all linux.resources.devices: the node is made
# (mknod is allowed for exactly that device), opening it stays denied.
B7=$TEST_TMP/bundle7
check "a bundle with linux.devices 10:666 and deny-all device rules" bundle "$B7" '["sh", "-c", "ls -ln /dev/test1; cat /dev/test1 2>&1 | grep -q \"not permitted\" && echo open-denied"]' \
  'c["linux"]["devices"] = [{"path": "/dev/test1", "type": "c", "major": 10, "minor": 666, "fileMode": 432, "uid": 0, "gid": 0}]; c["linux"].setdefault("resources", {})["devices"] = [{"allow": False, "access": "rwm"}]'
expect_exit 0 "create c7 (a device node under deny-all rules)" eval "oci create --bundle '$B7' c7 </dev/null >'$TEST_TMP/c7.out' 2>&1"
expect_exit 0 "start c7" oci start c7
for _ in $(seq 50); do [ "$(status_of c7)" = stopped ] && break; sleep 0.1; done
check "... /dev/test1 is c 10, 666 with mode 0660" grep -Eq '^crw-rw---- .* 10, +666 .*/dev/test1' "$TEST_TMP/c7.out"
check "... and opening it is still denied (EPERM, the program)" grep -qx open-denied "$TEST_TMP/c7.out"
oci delete --force c7 >/dev/null 2>&1

tap_done >/dev/null
