#!/bin/bash
# In the guest (cgroup v2): a container's cgroup mount in a user namespace
# without a cgroup namespace of its own is a bind of the container's slice
# (mount/plan.c cgroup_needs_bind), read-only unless the mount says rw. Can
# the workload loosen its own limits through it, reach the host's tree or
# its parent slice, or take a realtime policy that cpu.max does not
# throttle? Each attack shows first that its observable is real (the slice's
# limit is what the container reads; the guest's root can write it).
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT
PARENT=/sys/fs/cgroup/ocirun
SYSPROBE=$top_builddir/tests/helpers/sysprobe
LIMIT=33554432
# bundle DIR HOSTID MODE SCRIPT [PYTHON]: busybox with sysprobe, a user
# namespace mapping 0 to HOSTID, no cgroup namespace, the cgroup mount MODE
# (ro or rw), a 32 MiB memory limit, the process `sh -c SCRIPT`.
bundle() {
  oci_bundle "$1" busybox 'c["linux"]["namespaces"] = [n for n in c["linux"]["namespaces"] if n["type"] != "cgroup"] + [{"type": "user"}]
c["linux"]["uidMappings"] = [{"containerID": 0, "hostID": int(args[0]), "size": 65536}]
c["linux"]["gidMappings"] = [{"containerID": 0, "hostID": int(args[0]), "size": 65536}]
c["linux"]["resources"] = {"memory": {"limit": '$LIMIT'}}
c["process"]["terminal"] = False
c["process"]["args"] = ["sh", "-c", args[2]]
for m in c["mounts"]:
    if m["type"] == "cgroup": m["options"] = [o for o in m["options"] if o not in ("ro", "rw")] + [args[1]]
'"${5:-}" "$2" "$3" "$4" && cp "$SYSPROBE" "$1/rootfs/sysprobe"
}
# attack ID: creates and starts bundle $TEST_TMP/ID, waits for it to stop;
# its output in $TEST_TMP/ID.out (as comments too), whose last line is the
# slice's memory.max as the container reads it after its attempts.
attack() {
  local id=$1
  oci create --bundle "$TEST_TMP/$id" "$id" </dev/null >"$TEST_TMP/$id.out" 2>&1
  verdict "$id: created" [ -d "$PARENT/$id" ]
  oci start "$id" >/dev/null 2>&1
  for _ in $(seq 100); do [ "$(status_of "$id")" = stopped ] && break; sleep 0.1; done
  sed 's/^/# '"$id"': /' "$TEST_TMP/$id.out"
  oci delete --force "$id" >/dev/null 2>&1
}
# What each workload tries, one line each: its view of the limit, a write
# of each kind a delegated cgroup takes, and the parent through "..".
# absent ERE FILE: no line of FILE matches ERE.
absent() { ! grep -Eq -- "$1" "$2"; }
writes='cat /sys/fs/cgroup/memory.max
echo max >/sys/fs/cgroup/memory.max 2>/dev/null && echo memory.max-written
echo max >/sys/fs/cgroup/pids.max 2>/dev/null && echo pids.max-written
mkdir /sys/fs/cgroup/sub 2>/dev/null && echo mkdir-done
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null && echo subtree-written
ls /sys/fs/cgroup/.. | tr "\n" " "; echo
grep -q "^0::/ocirun/" /proc/self/cgroup && echo own-path
cat /sys/fs/cgroup/memory.max'

# Control: the guest's root writes a slice's memory.max, and reads it back.
check "control: a bundle (map 0 to 0, rw)" bundle "$TEST_TMP/ctl" 0 rw 'sleep 3'
oci create --bundle "$TEST_TMP/ctl" ctl </dev/null >/dev/null 2>&1
echo 67108864 >"$PARENT/ctl/memory.max" 2>/dev/null
verdict "control: the guest's root writes a slice's memory.max" [ "$(cat "$PARENT/ctl/memory.max" 2>/dev/null)" = 67108864 ]
oci delete --force ctl >/dev/null 2>&1

# 1. The namespace's root is an unmapped host uid: the slice's files are
# root's, so the rw bind takes no write (EACCES), and ".." is the
# container's /sys/fs, not the host's tree.
check "a bundle (map 0 to 100000, rw)" bundle "$TEST_TMP/b100k" 100000 rw "$writes"
attack b100k
verdict "map 0 to 100000, rw: the container reads its slice's limit" \
  [ "$(head -1 "$TEST_TMP/b100k.out")" = "$LIMIT" ]
verdict "map 0 to 100000, rw: no write to memory.max, pids.max, subtree_control, no mkdir" \
  absent '-written|mkdir-done' "$TEST_TMP/b100k.out"
verdict "map 0 to 100000, rw: the limit held" [ "$(tail -1 "$TEST_TMP/b100k.out")" = "$LIMIT" ]
verdict "map 0 to 100000: '..' is no cgroup tree" absent 'ocirun|cgroup.procs' "$TEST_TMP/b100k.out"

# 2. Read-only, the container holding CAP_SYS_ADMIN of its namespace:
# the ro of the bind is its own mount's flag, not a locked one.
check "a bundle (map 0 to 100000, ro, CAP_SYS_ADMIN)" bundle "$TEST_TMP/bsys" 100000 ro \
  'mount -o remount,bind,rw /sys/fs/cgroup 2>&1 && echo remounted-rw; '"$writes" \
  'for k in ("bounding", "effective", "permitted"): c["process"]["capabilities"][k].append("CAP_SYS_ADMIN")'
attack bsys
verdict "ro, CAP_SYS_ADMIN: the limit held" [ "$(tail -1 "$TEST_TMP/bsys.out")" = "$LIMIT" ]
verdict "ro, CAP_SYS_ADMIN: no write to memory.max" absent memory.max-written "$TEST_TMP/bsys.out"

# 3. The namespace's root owns the slice's files (the host's uid 0 mapped,
# as a rootless run maps its caller, who owns the delegated slice): the rw
# bind hands the container its own limits.
check "a bundle (map 0 to 0, rw)" bundle "$TEST_TMP/b0" 0 rw "$writes"
attack b0
verdict "map 0 to 0, rw: the container reads its slice's limit" [ "$(head -1 "$TEST_TMP/b0.out")" = "$LIMIT" ]
todo "map 0 to 0, rw: the container cannot raise its own memory.max" \
  [ "$(tail -1 "$TEST_TMP/b0.out")" = "$LIMIT" ]
check "a bundle (map 0 to 0, ro)" bundle "$TEST_TMP/b0ro" 0 ro "$writes"
attack b0ro
verdict "map 0 to 0, ro: the limit held" [ "$(tail -1 "$TEST_TMP/b0ro.out")" = "$LIMIT" ]

# 4. Realtime scheduling: process.scheduler's SCHED_FIFO is refused because
# cpu.max does not throttle realtime tasks; RLIMIT_RTPRIO lets the
# workload, without CAP_SYS_NICE, take it itself.
rt_bundle() { # DIR RLIMITS_PYTHON
  oci_bundle "$1" busybox 'c["linux"]["resources"] = {"cpu": {"quota": 10000, "period": 100000}}
c["process"]["terminal"] = False
c["process"]["args"] = ["/sysprobe", "sched-fifo"]
'"$2" && cp "$SYSPROBE" "$1/rootfs/sysprobe"
}
rt_run() { # ID
  oci create --bundle "$TEST_TMP/$1" "$1" </dev/null >"$TEST_TMP/$1.out" 2>&1 && oci start "$1" >/dev/null 2>&1
  for _ in $(seq 100); do [ "$(status_of "$1")" = stopped ] && break; sleep 0.1; done
  sed 's/^/# '"$1"': /' "$TEST_TMP/$1.out"
  oci delete --force "$1" >/dev/null 2>&1
}
check "a bundle asking SCHED_FIFO of the workload itself" rt_bundle "$TEST_TMP/rt0" ''
rt_run rt0
verdict "without RLIMIT_RTPRIO: sched_setscheduler(SCHED_FIFO) is EPERM" grep -qx "sched-fifo errno=EPERM" "$TEST_TMP/rt0.out"
check "the same with process.rlimits RLIMIT_RTPRIO 1" rt_bundle "$TEST_TMP/rt1" \
  'c["process"]["rlimits"] = c["process"].get("rlimits", []) + [{"type": "RLIMIT_RTPRIO", "hard": 1, "soft": 1}]'
rt_run rt1
todo "with RLIMIT_RTPRIO 1 under cpu.max: the workload takes no realtime policy" \
  grep -qx "sched-fifo errno=EPERM" "$TEST_TMP/rt1.out"

tap_done >/dev/null
