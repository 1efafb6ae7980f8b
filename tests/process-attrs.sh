#!/bin/bash
# A bundle's process attributes, each read back from inside the container
# by its own workload (busybox): a configuration without a /proc mount
# (create's own machinery never uses the container's /proc),
# process.scheduler, process.ioPriority, linux.personality and
# linux.memoryPolicy, process.execCPUAffinity (exec's process only),
# linux.timeOffsets (the clocks of a new time namespace), and
# their refusals by name. On the host, without a
# cgroup (--unsafe-no-cgroup: the host is cgroup v1).
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT
needs_root "create and start need root"
"$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >/dev/null 2>&1
B=$TEST_TMP/bundle

# bundle PYTHON: $B a busybox bundle (root writable, no limits, no
# terminal) whose process writes what it reads back to /out, then PYTHON.
bundle() {
  oci_bundle "$B" busybox 'c["linux"].pop("resources", None)
c["root"]["readonly"] = False
c["process"]["terminal"] = False
'"$1"
}
create_and_start() { oci create --unsafe-no-cgroup --bundle "$B" "$1" </dev/null && oci start "$1"; }
# create_and_start ID: create then start $B as ID. create_start ID: create then start $B as ID, wait until it stopped,
# delete it; its /out is $B/rootfs/out.
create_start() {
  local id=$1 i
  rm -f "$B/rootfs/out"
  oci create --unsafe-no-cgroup --bundle "$B" "$id" </dev/null || return 1
  oci start "$id" || { oci delete --force "$id"; return 1; }
  for i in $(seq 100); do
    [ "$(status_of "$id")" = stopped ] && break
    sleep 0.1
  done
  oci delete --force "$id"
}
# reads_back ID WANT WHAT READ PYTHON: a bundle made with PYTHON (WHAT)
# created and started as ID, and its /out is WANT (READ).
reads_back() {
  check "$3" bundle "$5"
  expect_exit 0 "create and start it" create_start "$1"
  check "$4" out_is "$2"
}
# refuses ID WHAT PYTHON MESSAGE: a bundle made with PYTHON (WHAT): create
# as ID fails, its error has MESSAGE, and no container ID is left.
refuses() {
  check "a bundle with $2" bundle "$3"
  expect_exit 1 "create refuses it" create_start "$1"
  check "... by name, saying why" err_has_literal "$4"
  check "... and leaves no container" test ! -e "$ROOT/containers/$1"
}
# out_is TEXT: the workload's /out says exactly TEXT (else it is shown).
out_is() {
  [ "$(cat "$B/rootfs/out" 2>/dev/null)" = "$1" ] && return 0
  sed 's/^/# the workload wrote: /' "$B/rootfs/out" 2>/dev/null | head -5
  return 1
}

# --- no /proc mount ---
check "a bundle with /proc mounted (the control)" \
  bundle 'c["process"]["args"] = ["sh", "-c", "echo ran >/out"]'
expect_exit 0 "create and start with /proc" create_start p1
check "... its process ran" out_is ran
check "a bundle without a /proc mount" \
  bundle 'c["process"]["args"] = ["sh", "-c", "test -e /proc/self || echo ran >/out"]
c["mounts"] = [m for m in c["mounts"] if m["destination"] != "/proc"]'
expect_exit 0 "create and start without /proc" create_start p2
check "... its process ran, and saw no /proc" out_is ran
check "a sleeper without a /proc mount" \
  bundle 'c["process"]["args"] = ["sleep", "1000"]
c["mounts"] = [m for m in c["mounts"] if m["destination"] != "/proc"]'
rm -f "$B/rootfs/out"
expect_exit 0 "create and start it" create_and_start p3
expect_exit 0 "exec into it" oci exec p3 sh -c 'echo joined >/out'
check "... the exec'd process ran" out_is joined
oci delete --force p3 >/dev/null 2>&1

# --- process.scheduler: policy and nice from /proc/self/stat (fields 41
# and 19) of a process the workload starts ---
STAT='set -- $(cat /proc/self/stat); echo policy=${41} nice=${19} >/out'
reads_back s0 "policy=0 nice=0" "a bundle with no scheduler (the control)" "... SCHED_OTHER (0), nice 0" \
  "c['process']['args'] = ['sh', '-c', '$STAT']"
reads_back s1 "policy=3 nice=7" "a bundle with scheduler SCHED_BATCH, nice 7" "... its process is SCHED_BATCH (3) at nice 7" \
  "c['process']['args'] = ['sh', '-c', '$STAT']
c['process']['scheduler'] = {'policy': 'SCHED_BATCH', 'nice': 7}"
reads_back s2 "policy=5 nice=0" "a bundle with scheduler SCHED_IDLE" "... its process is SCHED_IDLE (5)" \
  "c['process']['args'] = ['sh', '-c', '$STAT']
c['process']['scheduler'] = {'policy': 'SCHED_IDLE'}"
reads_back s4 "policy=0 nice=3" "a bundle with SCHED_FLAG_KEEP_POLICY, nice 3" "... its process keeps the runtime's policy, at nice 3" \
  "c['process']['args'] = ['sh', '-c', '$STAT']
c['process']['scheduler'] = {'policy': 'SCHED_BATCH', 'nice': 3, 'flags': ['SCHED_FLAG_KEEP_POLICY']}"
reads_back s3 "policy=0 nice=-5" "a bundle with scheduler SCHED_OTHER, nice -5 (root may raise its priority)" "... its process is SCHED_OTHER at nice -5" \
  "c['process']['args'] = ['sh', '-c', '$STAT']
c['process']['scheduler'] = {'policy': 'SCHED_OTHER', 'nice': -5}"
for policy in SCHED_FIFO SCHED_RR SCHED_DEADLINE; do
  refuses r-$policy "scheduler $policy" "c['process']['scheduler'] = {'policy': '$policy', 'priority': 10}" \
    "process.scheduler.policy: $policy is not supported by ocirun (cpu.max does not throttle realtime tasks)"
done

# --- process.ioPriority, from busybox's ionice ---
IONICE='ionice -p $$ >/out'
reads_back i0 "none: prio 0" "a bundle with no ioPriority (the control)" "... none set: the best-effort default" \
  "c['process']['args'] = ['sh', '-c', '$IONICE']"
reads_back i1 "best-effort: prio 6" "a bundle with ioPriority IOPRIO_CLASS_BE 6" "... its process is best-effort, priority 6" \
  "c['process']['args'] = ['sh', '-c', '$IONICE']
c['process']['ioPriority'] = {'class': 'IOPRIO_CLASS_BE', 'priority': 6}"
reads_back i2 "idle" "a bundle with ioPriority IOPRIO_CLASS_IDLE" "... its process is in the idle class" \
  "c['process']['args'] = ['sh', '-c', '$IONICE']
c['process']['ioPriority'] = {'class': 'IOPRIO_CLASS_IDLE', 'priority': 0}"
refuses i3 "ioPriority IOPRIO_CLASS_RT" "c['process']['ioPriority'] = {'class': 'IOPRIO_CLASS_RT', 'priority': 0}" \
  "process.ioPriority.class: IOPRIO_CLASS_RT is not supported by ocirun (the realtime I/O class: cpu.max does not throttle realtime tasks)"

# --- linux.personality, from uname -m ---
reads_back n0 "$(uname -m)" "a bundle with no personality (the control)" "... the machine's own: $(uname -m)" \
  "c['process']['args'] = ['sh', '-c', 'uname -m >/out']"
check "a bundle with personality LINUX32" \
  bundle "c['process']['args'] = ['sh', '-c', 'uname -m >/out']
c['linux']['personality'] = {'domain': 'LINUX32'}"
expect_exit 0 "create and start it" create_start n1
if [ "$(uname -m)" = x86_64 ]; then
  check "... uname -m says i686" out_is i686
else
  check "... uname -m says something other than $(uname -m)" sh -c "! grep -qx '$(uname -m)' '$B/rootfs/out'"
fi
refuses n2 "personality LINUX and a flag" "c['linux']['personality'] = {'domain': 'LINUX', 'flags': ['ADDR_NO_RANDOMIZE']}" \
  "linux.personality.flags is not supported by ocirun (the spec defines no personality flag)"

# --- linux.memoryPolicy, from the policy /proc/self/numa_maps shows ---
MEMS="cat /proc/self/numa_maps >/maps; sed -n '1{s/^[0-9a-f]* //;s/ [a-z_]*=.*//;p}' /maps >/out"
for case in "MPOL_DEFAULT||default" "MPOL_BIND|0|bind:0" "MPOL_INTERLEAVE|0|interleave:0" \
  "MPOL_PREFERRED|0|prefer:0" "MPOL_LOCAL||local" "MPOL_PREFERRED_MANY|0|prefer (many):0" \
  "MPOL_WEIGHTED_INTERLEAVE|0|weighted interleave:0" "MPOL_BIND|0|bind=static:0|MPOL_F_STATIC_NODES"; do
  IFS='|' read -r mode nodes want flag <<<"$case"
  check "a bundle with memoryPolicy $mode '$nodes' $flag" \
    bundle "c['process']['args'] = ['sh', '-c', \"\"\"$MEMS\"\"\"]
c['linux']['memoryPolicy'] = {'mode': '$mode'}
if '$nodes': c['linux']['memoryPolicy']['nodes'] = '$nodes'
if '$flag': c['linux']['memoryPolicy']['flags'] = ['$flag']"
  expect_exit 0 "create and start it" create_start m-$mode
  check "... numa_maps shows '$want'" out_is "$want"
done
if [ -e /sys/devices/system/node/node63 ]; then skip "this machine has a node 63"; else
  refuses m-absent "memoryPolicy MPOL_BIND on node 63, which this machine lacks" \
    "c['linux']['memoryPolicy'] = {'mode': 'MPOL_BIND', 'nodes': '0,63'}" \
    "linux.memoryPolicy.nodes: node 63 does not exist on this machine or is not allowed to this process (its nodes: 0"
fi

# --- exec: the exec'd process's own scheduler and ioPriority, the
# container's personality and memory policy ---
check "a sleeper with personality LINUX32 and memoryPolicy MPOL_INTERLEAVE 0" \
  bundle "c['process']['args'] = ['sleep', '1000']
c['linux']['personality'] = {'domain': 'LINUX32'}
c['linux']['memoryPolicy'] = {'mode': 'MPOL_INTERLEAVE', 'nodes': '0'}"
expect_exit 0 "create and start it" create_and_start e1
cat >"$TEST_TMP/process.json" <<'JSON'
{"args": ["sh", "-c", "set -- $(cat /proc/self/stat); echo policy=${41} nice=${19}; ionice -p $$; uname -m; sed -n '1{s/^[0-9a-f]* //;s/ [a-z_]*=.*//;p}' /proc/self/numa_maps"],
 "cwd": "/", "user": {"uid": 0, "gid": 0}, "env": ["PATH=/bin"],
 "scheduler": {"policy": "SCHED_BATCH", "nice": 4},
 "ioPriority": {"class": "IOPRIO_CLASS_BE", "priority": 5}}
JSON
expect_exit 0 "exec --process with a scheduler and an ioPriority" oci exec --process "$TEST_TMP/process.json" e1
check "... the exec'd process is SCHED_BATCH at nice 4" out_has_line "policy=3 nice=4"
check "... best-effort, priority 5" out_has_line "best-effort: prio 5"
check "... with the container's personality" out_has_line "i686"
check "... and its memory policy" out_has_line "interleave:0"
oci delete --force e1 >/dev/null 2>&1

# --- process.execCPUAffinity: the exec'd process's CPUs (the spec gives
# pid 1 neither list), from config.json's process and from --process ---
host_cpus=$(sed -n 's/^Cpus_allowed_list:[^0-9]*//p' /proc/self/status)
# affinity_process FILE INITIAL FINAL: a process.json reading its own CPUs to /out
affinity_process() {
  cat >"$1" <<JSON
{"args": ["sh", "-c", "sed -n 's/^Cpus_allowed_list:[^0-9]*//p' /proc/self/status >/out"],
 "cwd": "/", "user": {"uid": 0, "gid": 0}, "env": ["PATH=/bin"],
 "execCPUAffinity": {"initial": "$2", "final": "$3"}}
JSON
}
if [ "$host_cpus" != 0-1 ]; then
  skip "execCPUAffinity: the test wants CPUs 0-1 allowed to it (it has $host_cpus)"
else
  check "a sleeper whose config.json has execCPUAffinity final 1" \
    bundle "c['process']['args'] = ['sleep', '1000']
c['process']['execCPUAffinity'] = {'final': '1'}"
  expect_exit 0 "create and start it (refused by name before)" create_and_start a1
  expect_exit 0 "exec reading pid 1's CPUs (the control: the spec gives pid 1 no list)" \
    oci exec a1 sh -c "sed -n 's/^Cpus_allowed_list:[^0-9]*//p' /proc/1/status >/out"
  check "... pid 1 runs on the host's CPUs, 0-1" out_is 0-1
  expect_exit 0 "exec without --process (config.json's process)" \
    oci exec a1 sh -c "sed -n 's/^Cpus_allowed_list:[^0-9]*//p' /proc/self/status >/out"
  check "... the exec'd process runs on CPU 1 (final)" out_is 1
  affinity_process "$TEST_TMP/affinity.json" 1 0
  expect_exit 0 "exec --process with initial 1, final 0" oci exec --process "$TEST_TMP/affinity.json" a1
  check "... the exec'd process runs on CPU 0 (final)" out_is 0
  affinity_process "$TEST_TMP/affinity.json" 1 ""
  expect_exit 0 "exec --process with initial 1 and no final" oci exec --process "$TEST_TMP/affinity.json" a1
  check "... the joiner's initial CPU is kept (no cpuset on the host changes it)" out_is 1
  affinity_process "$TEST_TMP/affinity.json" "" ""
  expect_exit 0 "exec --process with empty lists (the control)" oci exec --process "$TEST_TMP/affinity.json" a1
  check "... the exec'd process runs on the host's CPUs" out_is 0-1
  affinity_process "$TEST_TMP/affinity.json" "" 0,5
  rm -f "$B/rootfs/out"
  expect_exit 1 "exec --process with final 0,5 (this machine has no CPU 5) fails" \
    oci exec --process "$TEST_TMP/affinity.json" a1
  check "... naming the CPU" err_has_literal "process.execCPUAffinity.final: CPU 5 does not exist on this machine"
  check "... and nothing ran" test ! -e "$B/rootfs/out"
  oci delete --force a1 >/dev/null 2>&1
fi

# --- linux.timeOffsets: the clocks of a new time namespace ---
# uptime_ok MIN MAX: the workload's /proc/uptime (CLOCK_BOOTTIME) is between
# MIN and MAX seconds (else it is shown)
uptime_ok() {
  local up
  up=$(sed -n '1s/[. ].*//p' "$B/rootfs/out")
  [ -n "$up" ] && [ "$up" -ge "$1" ] && [ "$up" -le "$2" ] && return 0
  sed 's/^/# the workload wrote: /' "$B/rootfs/out"
  return 1
}
TIME_ARGS="c['process']['args'] = ['sh', '-c', 'cat /proc/uptime /proc/self/timens_offsets >/out']
c['linux']['namespaces'].append({'type': 'time'})"
check "a bundle with a new time namespace and no offsets (the control)" bundle "$TIME_ARGS"
host_up=$(sed 's/[. ].*//' /proc/uptime)
expect_exit 0 "create and start it" create_start t0
check "... its uptime is the host's ($host_up s)" uptime_ok $((host_up - 5)) $((host_up + 60))
check "a bundle with timeOffsets boottime +86400 s, monotonic -5 s 7 ns" bundle "$TIME_ARGS
c['linux']['timeOffsets'] = {'boottime': {'secs': 86400}, 'monotonic': {'secs': -5, 'nanosecs': 7}}"
host_up=$(sed 's/[. ].*//' /proc/uptime)
expect_exit 0 "create and start it (refused by name before)" create_start t1
check "... its uptime is the host's plus a day" uptime_ok $((host_up + 86400 - 5)) $((host_up + 86400 + 60))
check "... the kernel's offsets read back: monotonic -5 7" sh -c "grep -qE '^monotonic +-5 +7\$' '$B/rootfs/out'"
check "... and boottime 86400 0" sh -c "grep -qE '^boottime +86400 +0\$' '$B/rootfs/out'"
check "a sleeper with the same offsets" bundle "c['process']['args'] = ['sleep', '1000']
c['linux']['namespaces'].append({'type': 'time'})
c['linux']['timeOffsets'] = {'boottime': {'secs': 86400}}"
expect_exit 0 "create and start it" create_and_start t2
expect_exit 0 "exec into it" oci exec t2 sh -c 'cat /proc/uptime >/out'
check "... the exec'd process has the container's clocks" uptime_ok $((host_up + 86400 - 5)) $((host_up + 86400 + 60))
oci delete --force t2 >/dev/null 2>&1
refuses t3 "timeOffsets without a time namespace" \
  "c['linux']['timeOffsets'] = {'boottime': {'secs': 1}}" \
  "linux.timeOffsets: needs a time namespace in linux.namespaces"

# --- LINUX32 and the seccomp filter: the filter goes by each call's own
# ABI (int 0x80 is i386's), so the 32-bit entry stays filtered as before ---
SYSPROBE="$top_builddir/tests/helpers/sysprobe"
PROBE="/sysprobe int80-getpid int80-socket=40 socket=40 >/out"
FILTER="{'defaultAction': 'SCMP_ACT_ALLOW',
 'architectures': ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32'],
 'syscalls': [{'names': ['socket'], 'action': 'SCMP_ACT_ERRNO',
               'args': [{'index': 0, 'value': 40, 'op': 'SCMP_CMP_EQ'}]}]}"
int80_probes "$SYSPROBE"
if [ "$HOST_INT80" = yes ]; then
  # has LINE: the probe's /out has exactly LINE (else it is shown)
  has() { grep -qxF "$1" "$B/rootfs/out" || { sed 's/^/# probe: /' "$B/rootfs/out"; return 1; }; }
  check "a LINUX32 bundle without a filter, running the probe (the control)" \
    bundle "c['process']['args'] = ['sh', '-c', '$PROBE']
c['linux']['personality'] = {'domain': 'LINUX32'}"
  cp "$SYSPROBE" "$B/rootfs/sysprobe"
  expect_exit 0 "create and start it" create_start c0
  check "... the 32-bit entry works" has "int80-getpid errno=0"
  check "... its AF_VSOCK socket reaches the kernel" sh -c "grep -qxE 'int80-socket=40 errno=(0|EAFNOSUPPORT)' '$B/rootfs/out'"
  check "... and so does its 64-bit one" sh -c "grep -qxE 'socket=40 errno=(0|EAFNOSUPPORT)' '$B/rootfs/out'"
  check "the same with a filter denying AF_VSOCK sockets" \
    bundle "c['process']['args'] = ['sh', '-c', '$PROBE']
c['linux']['personality'] = {'domain': 'LINUX32'}
c['linux']['seccomp'] = $FILTER"
  cp "$SYSPROBE" "$B/rootfs/sysprobe"
  expect_exit 0 "create and start it" create_start c1
  check "... LINUX32: the filter denies the 32-bit socket()" has "int80-socket=40 errno=EPERM"
  check "... and the 64-bit socket()" has "socket=40 errno=EPERM"
  check "... while the 32-bit entry still works" has "int80-getpid errno=0"
fi

tap_done
