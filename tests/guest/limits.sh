#!/bin/bash
# In the guest: what `ocirun run` enforces through its cgroup v2 slice
# (memory with OOM report, pids, cpu throttling, defaults, docker's cpuset,
# cpu-shares and memory-reservation), the deadline, and
# the rest of the boundary in a cgroup v2 kernel (tmpfs, read-only root,
# caps, no-new-privileges, seccomp, network, hostname). After every case
# nothing may be left: no slice, no process, no run record.
. "$top_srcdir/tests/lib.sh"

parent=/sys/fs/cgroup/ocirun
run() { "$OCIRUN" run "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"; }
# Processes of the guest still in an ocirun slice, or running `sleep 1000`
# (two execs in all: each exec is slow under TCG).
leftover_processes() {
  grep -l "^0::/ocirun/" /proc/[0-9]*/cgroup 2>/dev/null | cut -d/ -f3
  pgrep -x -f "sleep 1000"
}
# guest_left_behind WHAT: no slice under the parent, no run state, no such process.
guest_left_behind() {
  left_behind "$1" "$(find "$parent" -mindepth 1 -type d 2>/dev/null)" "$(run_leftovers)" "$(leftover_processes)"
}

"$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >"$TEST_TMP/out" 2>"$TEST_TMP/err" ||
  { not_ok "import the busybox image"; show; exit 0; }
img=busybox:latest

# --- defaults: no limit options, every limit "max" ---
run "$img" cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory.swap.max /sys/fs/cgroup/pids.max \
  /sys/fs/cgroup/cpu.max
verdict "defaults: runs" [ $? -eq 0 ]
verdict "defaults: memory, swap, pids are max, cpu is max 100000" \
  [ "$(tr '\n' ' ' <"$TEST_TMP/out")" = "max max max max 100000 " ]
guest_left_behind "defaults"

# --- the limit files, as docker's options mean them ---
run --memory 128m --memory-swap 256m --cpus 0.5 --pids-limit 32 "$img" \
  cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory.swap.max /sys/fs/cgroup/pids.max \
  /sys/fs/cgroup/cpu.max
verdict "limits: memory 128m, swap total 256m, pids 32, cpus 0.5" \
  [ "$(tr '\n' ' ' <"$TEST_TMP/out")" = "134217728 134217728 32 50000 100000 " ]
run --memory 64m "$img" cat /sys/fs/cgroup/memory.swap.max
verdict "limits: --memory alone allows as much swap again (docker)" [ "$(cat "$TEST_TMP/out")" = 67108864 ]
run --memory 64m --memory-swap -1 "$img" cat /sys/fs/cgroup/memory.swap.max
verdict "limits: --memory-swap -1 is unlimited swap" [ "$(cat "$TEST_TMP/out")" = max ]
guest_left_behind "limits"

# --- docker's cgroup settings, read back from inside (the run's cgroup
# namespace shows its own slice); without them the kernel's defaults ---
cg_files="cpuset.cpus cpuset.mems cpu.weight memory.low"
run "$img" sh -c "cd /sys/fs/cgroup && for f in $cg_files; do echo \"\$f=\$(cat \$f)\"; done"
verdict "resources: without options cpuset.cpus and .mems empty, cpu.weight 100, memory.low 0" \
  [ "$(tr '\n' ' ' <"$TEST_TMP/out")" = "cpuset.cpus= cpuset.mems= cpu.weight=100 memory.low=0 " ]
run --cpuset-cpus 0 --cpuset-mems 0 --cpu-shares 512 --memory-reservation 64m "$img" \
  sh -c "cd /sys/fs/cgroup && for f in $cg_files; do echo \"\$f=\$(cat \$f)\"; done"
verdict "resources: --cpuset-cpus 0 --cpuset-mems 0 --cpu-shares 512 (weight 59, crun's) --memory-reservation 64m" \
  [ "$(tr '\n' ' ' <"$TEST_TMP/out")" = "cpuset.cpus=0 cpuset.mems=0 cpu.weight=59 memory.low=67108864 " ]
sed 's/^/# /' "$TEST_TMP/out" "$TEST_TMP/err"
run --cpu-shares 1024 "$img" cat /sys/fs/cgroup/cpu.weight
verdict "resources: --cpu-shares 1024, docker's default, is cpu.weight 100, the kernel's" [ "$(cat "$TEST_TMP/out")" = 100 ]
guest_left_behind "resources"

# --- memory: 200 MiB under 128m without swap is OOM-killed and said so ---
run --memory 128m --memory-swap 128m "$img" dd if=/dev/zero of=/dev/null bs=200M count=1
status=$?
verdict "memory: allocating 200 MiB under 128m exits 137 (got $status)" [ $status -eq 137 ]
verdict "memory: ocirun reports the OOM kill" err_has_literal "out of memory"
run --memory 128m --memory-swap 128m "$img" dd if=/dev/zero of=/dev/null bs=64M count=1
verdict "memory: 64 MiB under 128m is fine" [ $? -eq 0 ]
guest_left_behind "memory"

# --- pids: forking past 32 fails with EAGAIN ---
run --pids-limit 32 "$img" sh -c 'i=0; while [ $i -lt 40 ]; do sleep 1000 & i=$((i + 1)); done; echo forked all'
status=$?
verdict "pids: forking past 32 fails" [ $status -ne 0 ]
verdict "pids: with EAGAIN (can't fork / Resource temporarily unavailable)" \
  grep -qE "can't fork|Resource temporarily unavailable" "$TEST_TMP/err" "$TEST_TMP/out"
verdict "pids: the 40th fork never happened" eval '! out_has_literal "forked all"'
guest_left_behind "pids"

# --- cpu: a 2 s busy loop under --cpus 0.5 is throttled to about half ---
run --cpus 0.5 "$img" sh -c '
  read up _ </proc/uptime
  sh -c "while :; do :; done" & busy=$!
  sleep 2
  kill $busy
  read up2 _ </proc/uptime
  echo "wall_ms $(( (${up2%.*}${up2#*.}0 - ${up%.*}${up#*.}0) ))"
  cat /sys/fs/cgroup/cpu.stat'
verdict "cpu: runs" [ $? -eq 0 ]
wall_ms=$(awk '$1 == "wall_ms" { print $2 }' "$TEST_TMP/out")
usage_us=$(awk '$1 == "usage_usec" { print $2 }' "$TEST_TMP/out")
throttled=$(awk '$1 == "nr_throttled" { print $2 }' "$TEST_TMP/out")
echo "# cpu: wall ${wall_ms:-?} ms, usage ${usage_us:-?} us, nr_throttled ${throttled:-?}"
verdict "cpu: nr_throttled > 0" [ "${throttled:-0}" -gt 0 ]
# usage / wall, in percent: 50 expected; TCG is slow and noisy, so 20..75.
pct=$(( ${usage_us:-0} / 10 / ${wall_ms:-1} ))
verdict "cpu: usage is about half the wall time ($pct%)" eval '[ "$pct" -ge 20 ] && [ "$pct" -le 75 ]'
guest_left_behind "cpu"

# --- tmpfs: size and noexec ---
run --tmpfs /tmp:size=1048576 "$img" dd if=/dev/zero of=/tmp/fill bs=1024 count=2048
verdict "tmpfs: writing 2 MiB into a 1 MiB tmpfs fails" [ $? -ne 0 ]
verdict "tmpfs: with ENOSPC" err_has_literal "No space left on device"
run --tmpfs /scratch:noexec "$img" sh -c 'cp /bin/busybox /scratch/bb && /scratch/bb true'
status=$?
verdict "tmpfs: noexec refuses exec (exit $status)" eval '[ $status -ne 0 ] && err_has_literal "Permission denied"'
guest_left_behind "tmpfs"

# --- read-only root ---
run --read-only "$img" touch /newfile
verdict "read-only: writing the root fails with EROFS" err_has_literal "Read-only file system"
guest_left_behind "read-only"

# --- capabilities, no-new-privileges ---
run --cap-drop ALL --security-opt no-new-privileges "$img" grep -E '^(CapEff|NoNewPrivs):' /proc/self/status
verdict "caps: CapEff is 0 with --cap-drop ALL" out_matches "^CapEff:[[:space:]]*0000000000000000$"
verdict "no-new-privileges: NoNewPrivs is 1" out_matches "^NoNewPrivs:[[:space:]]*1$"
guest_left_behind "caps"

# --- seccomp (the static sysprobe in its own image) ---
if [ -n "${OCIRUN_GUEST_IMAGES:-}" ] && [ -d "$OCIRUN_GUEST_IMAGES/sysprobe" ] &&
  "$OCIRUN" image import "oci:$OCIRUN_GUEST_IMAGES/sysprobe:sysprobe:latest" >/dev/null 2>&1; then
  # Docker's default capabilities and filter: these are the filter's refusals.
  run sysprobe:latest /sysprobe keyctl unshare mount ptrace-parent
  for line in "keyctl errno=EPERM" "unshare errno=EPERM" "mount errno=EPERM"; do
    verdict "seccomp: $line" grep -qxF "$line" "$TEST_TMP/out"
  done
  verdict "seccomp: ptrace of pid 1's parent fails" grep -qxE "ptrace-parent errno=(EPERM|ESRCH)" "$TEST_TMP/out"
  # Docker keeps NET_RAW by default (its filter allows raw sockets); without it they fail.
  run --cap-drop NET_RAW sysprobe:latest /sysprobe raw-socket
  verdict "raw sockets are refused without NET_RAW" grep -qxF "raw-socket errno=EPERM" "$TEST_TMP/out"
else
  run "$img" sh -c 'unshare -m true; mount -t tmpfs none /mnt'
  verdict "seccomp: unshare and mount are refused (busybox)" \
    eval '[ "$(grep -ciE "operation not permitted|permission denied" "$TEST_TMP/err")" -ge 2 ]'
fi
guest_left_behind "seccomp"

# --- network and hostname ---
run --network none --hostname boxy "$img" sh -c 'hostname; sed 1,2d /proc/net/dev | cut -d: -f1 | tr -d " "'
verdict "hostname: the container's" [ "$(sed -n 1p "$TEST_TMP/out")" = boxy ]
verdict "network: only lo exists" [ "$(sed 1d "$TEST_TMP/out" | tr '\n' ' ')" = "lo " ]
guest_left_behind "network"

# --- deadline: --timeout kills sleep 1000 and every child it forked ---
start=$(date +%s)
run --timeout 5 "$img" sh -c 'sleep 1000 & sleep 1000 & sleep 1000'
status=$?
took=$(($(date +%s) - start))
verdict "timeout: exits 124 (got $status)" [ $status -eq 124 ]
verdict "timeout: says it timed out" err_has_literal "timed out"
verdict "timeout: within the deadline plus teardown (${took}s)" [ "$took" -lt 30 ]
guest_left_behind "timeout"

tap_done >/dev/null
exit 0
