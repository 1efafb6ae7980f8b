#!/bin/bash
# `ocirun run`'s resource and process settings on the host (docker's
# --ulimit, --oom-score-adj, --sysctl, --group-add, --label, -t's TERM, and
# the cgroup ones --cpuset-cpus, --cpuset-mems, --cpu-shares,
# --memory-reservation as far as --dry-run shows them: the host is hybrid
# cgroup v1; tests/guest/limits.sh reads their cgroup files back): each
# refusal names what was wrong and leaves nothing; each option is in the
# configuration only when it is given; each one the host can show is seen
# from inside the run.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "run-resources"

run() { "$OCIRUN" run --unsafe-no-cgroup "$@"; }
dry() { "$OCIRUN" run --dry-run "$@" busybox:latest true; }
# refused WHAT TEXT OPTION...: exit 125, stderr names TEXT, nothing left.
refused() {
  local what=$1 text=$2
  shift 2
  expect_exit 125 "$what: refused" "$OCIRUN" run "$@" busybox:latest true
  check "$what: the refusal names '$text'" err_has_literal "$text"
  check "$what: nothing left" nothing_left
}
# config_has PYTHON: the dry run's configuration (c) makes PYTHON true.
config_has() {
  sed -n '/^configuration/,/^plan of/p' "$TEST_TMP/out" | sed '1d;$d' |
    python3 -c 'import json, sys
c = json.load(sys.stdin)
sys.exit(0 if ('"$1"') else 1)'
}

# --- refusals ---
refused "--ulimit with an unknown name" "unknown limit 'files'" --ulimit files=10
refused "--ulimit 'as' (not one of docker's)" "unknown limit 'as'" --ulimit as=100
refused "--ulimit without a value" "NAME=SOFT[:HARD]" --ulimit nofile
refused "--ulimit soft above hard" "soft limit is above the hard limit" --ulimit nofile=20:10
refused "--ulimit not a number" "SOFT and HARD are numbers" --ulimit nofile=ten
refused "--cpuset-cpus not a list" "--cpuset-cpus '0-'" --cpuset-cpus 0-
refused "--cpuset-cpus a descending range" "--cpuset-cpus '3-1'" --cpuset-cpus 3-1
refused "--cpuset-mems not a list" "--cpuset-mems 'a'" --cpuset-mems a
refused "--cpu-shares 1" "from 2 to 262144" --cpu-shares 1
refused "--cpu-shares past v1's range" "from 2 to 262144" --cpu-shares 262145
refused "--memory-reservation below 6m" "minimum memory reservation allowed is 6m" --memory-reservation 1m
refused "--memory-reservation above --memory" "--memory-reservation must be at most --memory" \
  --memory 64m --memory-reservation 128m
refused "--oom-score-adj out of range" "from -1000 to 1000" --oom-score-adj 1001
refused "--sysctl without a value" "--sysctl 'net.ipv4.ip_forward': KEY=VALUE" --sysctl net.ipv4.ip_forward
refused "--sysctl of the host (not namespaced)" "kernel.panic" --sysctl kernel.panic=1
refused "--group-add of a group the image lacks" "--group-add 'wheel': no such group" --group-add wheel
refused "--cpu-shares with --unsafe-no-cgroup" "--unsafe-no-cgroup cannot apply" --unsafe-no-cgroup --cpu-shares 512

# --- none of them present when not asked for ---
expect_exit 0 "a dry run without them" dry
check "no rlimits, oomScoreAdj, sysctl, annotations, TERM or cgroup settings" config_has \
  '"rlimits" not in c["process"] and "oomScoreAdj" not in c["process"] and "sysctl" not in c["linux"]
and "annotations" not in c and not any(e.startswith("TERM=") for e in c["process"]["env"])
and "cpu" not in c["linux"]["resources"] and "memory" not in c["linux"]["resources"]
and "additionalGids" not in c["process"]["user"]'
check "the plan: rlimits inherited" out_has_line "rlimits: (inherited)"

# --- each shown by --dry-run ---
expect_exit 0 "a dry run with all of them" dry --ulimit nofile=100:200 --ulimit core=0 \
  --ulimit nofile=150:200 --ulimit stack=unlimited --cpuset-cpus 0 --cpuset-mems 0 \
  --cpu-shares 512 --memory-reservation 64m --oom-score-adj 500 --sysctl net.ipv4.ip_forward=1 \
  --group-add 10 --group-add tester -l team=ci --label flag
check "rlimits: a later --ulimit NAME replaces, HARD defaults to SOFT, unlimited" config_has \
  'c["process"]["rlimits"] == [{"type": "RLIMIT_NOFILE", "soft": 150, "hard": 200},
 {"type": "RLIMIT_CORE", "soft": 0, "hard": 0},
 {"type": "RLIMIT_STACK", "soft": 2**64, "hard": 2**64}]'
check "oomScoreAdj 500" config_has 'c["process"]["oomScoreAdj"] == 500'
check "cpu: shares, cpus, mems" config_has \
  'c["linux"]["resources"]["cpu"] == {"shares": 512, "cpus": "0", "mems": "0"}'
check "memory: the reservation alone" config_has 'c["linux"]["resources"]["memory"] == {"reservation": 64 << 20}'
check "sysctl" config_has 'c["linux"]["sysctl"] == {"net.ipv4.ip_forward": "1"}'
check "--group-add: a gid and a name of the image's /etc/group" config_has \
  'c["process"]["user"]["additionalGids"] == [10, 1000]'
check "labels are the annotations (KEY alone: an empty value)" config_has \
  'c["annotations"] == {"team": "ci", "flag": ""}'
check "the plan: cpu.weight 59 for 512 shares (crun's mapping)" out_has_line "  cpu.weight: 59"
check "the plan: memory.low, cpuset.cpus, cpuset.mems" \
  eval 'out_has_line "  memory.low: 67108864" && out_has_line "  cpuset.cpus: 0" && out_has_line "  cpuset.mems: 0"'
check "the plan: the groups" out_has_line "user: uid 0 gid 0 groups 10 1000"
check "the plan: the sysctl" out_has_line "sysctl: net.ipv4.ip_forward=1"
expect_exit 0 "a dry run with --memory and --memory-reservation" dry --memory 128m --memory-reservation 64m
check "memory: limit, swap and reservation together" config_has \
  'c["linux"]["resources"]["memory"] == {"limit": 128 << 20, "swap": 256 << 20, "reservation": 64 << 20}'
check "nothing left after the dry runs" nothing_left

# --- seen from inside ---
# Lower than the caller's hard limits: root here lacks CAP_SYS_RESOURCE.
expect_exit 0 "--ulimit nofile=100:200 nproc=50" run --ulimit nofile=100:200 --ulimit nproc=50 \
  busybox:latest sh -c 'ulimit -Sn; ulimit -Hn; grep "Max processes" /proc/self/limits'
check "nofile soft 100, hard 200" test "$(head -2 "$TEST_TMP/out" | tr '\n' ' ')" = "100 200 "
check "nproc 50 soft and hard" out_matches "^Max processes +50 +50 "
expect_exit 0 "without --ulimit" run busybox:latest sh -c 'ulimit -Sn'
check "without --ulimit the caller's nofile is inherited" test "$(cat "$TEST_TMP/out")" = "$(ulimit -Sn)"

expect_exit 0 "--oom-score-adj 500" run --oom-score-adj 500 busybox:latest cat /proc/self/oom_score_adj
check "oom_score_adj is 500 inside" test "$(cat "$TEST_TMP/out")" = 500
expect_exit 0 "without --oom-score-adj" run busybox:latest cat /proc/self/oom_score_adj
check "without it, the score is not 500" test "$(cat "$TEST_TMP/out")" != 500

host_forward=$(cat /proc/sys/net/ipv4/ip_forward)
want=$((1 - host_forward))
expect_exit 0 "--sysctl net.ipv4.ip_forward=$want" run --sysctl "net.ipv4.ip_forward=$want" \
  busybox:latest cat /proc/sys/net/ipv4/ip_forward
check "the run's own network namespace has ip_forward $want" test "$(cat "$TEST_TMP/out")" = "$want"
check "the host's ip_forward is unchanged" test "$(cat /proc/sys/net/ipv4/ip_forward)" = "$host_forward"
expect_exit 0 "--sysctl kernel.shmmax (ipc namespace)" run --sysctl kernel.shmmax=1048576 \
  busybox:latest cat /proc/sys/kernel/shmmax
check "the run's shmmax is 1048576" test "$(cat "$TEST_TMP/out")" = 1048576

expect_exit 0 "--group-add 10 --group-add tester, as --user 1000" run --user 1000:1000 \
  --group-add 10 --group-add tester busybox:latest sh -c 'grep ^Groups: /proc/self/status; touch /tmp/x; ls -n /tmp/x'
check "the process has groups 10 and 1000" out_matches "^Groups:[[:space:]]+10 1000[[:space:]]*$"
expect_exit 0 "without --group-add, as --user 1000:1000" run --user 1000:1000 busybox:latest grep ^Groups: /proc/self/status
check "without it, no supplementary group" out_matches "^Groups:[[:space:]]*$"
check "nothing left after the runs" nothing_left

# --- -t sets TERM (through script(1): -t needs a terminal) ---
tty_env() {
  script -qec "$OCIRUN run --unsafe-no-cgroup $* busybox:latest env" /dev/null </dev/null 2>&1 |
    tr -d '\r' >"$TEST_TMP/out"
}
tty_env -t
check "-t: TERM=xterm" out_has_line TERM=xterm
tty_env -t -e TERM=vt100
check "-t -e TERM=vt100: the user's TERM, once" \
  eval '[ "$(grep -c "^TERM=" "$TEST_TMP/out")" = 1 ] && out_has_line TERM=vt100'
expect_exit 0 "without -t" env TERM=screen "$OCIRUN" run --unsafe-no-cgroup busybox:latest env
check "without -t: no TERM (the caller's is not taken)" eval '! out_matches "^TERM="'
check "nothing left after the terminals" nothing_left

# --- --shm-size: the run's own /dev/shm, of that size, nosuid,nodev,noexec ---
refused "--shm-size not a size" "--shm-size 'big': invalid size" --shm-size big
shm_probe='df -k /dev/shm | awk "NR == 2 { print \$2 }"; grep " /dev/shm " /proc/self/mounts'
expect_exit 0 "--shm-size 1g" run --shm-size 1g busybox:latest sh -c "$shm_probe"
check "/dev/shm is 1 GiB (1048576 KiB)" test "$(head -1 "$TEST_TMP/out")" = 1048576
check "/dev/shm is a tmpfs, nosuid,nodev,noexec" \
  eval 'out_matches "^shm /dev/shm tmpfs .*nosuid" && out_matches "^shm /dev/shm tmpfs .*nodev" && out_matches "^shm /dev/shm tmpfs .*noexec"'
expect_exit 0 "without --shm-size" run busybox:latest sh -c "$shm_probe"
check "without it, /dev/shm is docker's 64 MiB" test "$(head -1 "$TEST_TMP/out")" = 65536
expect_exit 0 "a run's /dev/shm is its own" run --shm-size 8m busybox:latest sh -c 'echo x >/dev/shm/ocirun-shm-probe.'$$
check "nothing the run wrote in its /dev/shm is in the host's" test ! -e "/dev/shm/ocirun-shm-probe.$$"

# --- --device: the node asked for, its one rule, and nothing else ---
mkfifo "$TEST_TMP/fifo"
: >"$TEST_TMP/file"
ln -s /dev/zero "$TEST_TMP/zero-link"
ln -s "$TEST_TMP/file" "$TEST_TMP/file-link"
refused "--device of a regular file" "is not a character or block device" --device /etc/passwd
refused "--device of a directory" "/dev is not a character or block device" --device /dev:/dev/x
refused "--device of a FIFO" "is not a character or block device" --device "$TEST_TMP/fifo:/dev/f"
refused "--device through a symlink to a file" "is not a character or block device" --device "$TEST_TMP/file-link:/dev/f"
refused "--device of a missing path" "open /dev/ocirun-no-such-device" --device /dev/ocirun-no-such-device
refused "--device relative" "must be absolute" --device dev/zero
refused "--device relative in the container" "must be absolute" --device /dev/zero:dev/z
refused "--device with '..' in the container" "without '..'" --device /dev/zero:/dev/../etc/z
refused "--device onto the root" "not the root" --device /dev/zero:/
refused "--device with bad permissions" "PERMS is a combination of r, w and m" --device /dev/zero:/dev/z:rwx
refused "--device with a restriction and no device program" "no device program" --unsafe-no-cgroup \
  --device /dev/zero:/dev/z:r
refused "--device-cgroup-rule of an unknown type" "--device-cgroup-rule 'x 1:3 rwm'" --device-cgroup-rule 'x 1:3 rwm'
refused "--device-cgroup-rule without a minor" "'TYPE MAJOR:MINOR PERMS'" --device-cgroup-rule 'c 1 rwm'
refused "--device-cgroup-rule without permissions" "'TYPE MAJOR:MINOR PERMS'" --device-cgroup-rule 'c 1:3'
refused "--device-cgroup-rule with bad permissions" "'TYPE MAJOR:MINOR PERMS'" --device-cgroup-rule 'c 1:3 rwq'
refused "--device-cgroup-rule without a device program" "no device program" --unsafe-no-cgroup \
  --device-cgroup-rule 'c 1:3 rwm'

# Symlinks are followed once, when the option is read; what the plan makes
# is a node of that number (never the path again).
expect_exit 0 "a dry run of --device through a symlink, --device-cgroup-rule" dry \
  --device "$TEST_TMP/zero-link:/dev/given:r" --device-cgroup-rule 'c 10:237 rw' --device-cgroup-rule 'b *:* m'
check "the node is the link's target, 1:5, with its mode and owner" config_has \
  'c["linux"]["devices"] == [{"path": "/dev/given", "type": "c", "major": 1, "minor": 5,
 "fileMode": 0o'"$(stat -c %a /dev/zero)"', "uid": 0, "gid": 0}]'
check "the allow rules are the device's (r) and the two rules, after docker's list" config_has \
  'c["linux"]["resources"]["devices"][-3:] == [
 {"allow": True, "type": "c", "major": 1, "minor": 5, "access": "r"},
 {"allow": True, "type": "c", "major": 10, "minor": 237, "access": "rw"},
 {"allow": True, "type": "b", "access": "m"}]'
check "the plan makes /dev/given as c 1:5 (a node, not a bind of the path)" \
  out_matches "make-device +/dev/given .* c 1:5 "
check "the plan's device program allows c 10:237 rw" out_matches "^  allow c 10:237 +rw "
expect_exit 0 "a dry run without --device" dry
check "without them: no linux.devices, docker's rules only" config_has \
  '"devices" not in c["linux"] and len(c["linux"]["resources"]["devices"]) == 13'
check "without them: the plan makes no device" eval '! out_matches "make-device"'

# dev_mounts: the mounts of the run that are not nodev (where a node can be
# opened at all), one mount point a line.
dev_mounts='awk "\$6 !~ /(^|,)nodev(,|$)/ { print \$5 }" /proc/self/mountinfo | sort'
expect_exit 0 "the mounts that allow devices, without --device" run busybox:latest sh -c "$dev_mounts"
cp "$TEST_TMP/out" "$TEST_TMP/dev-mounts-default"
check "control: the default devices are such mounts (/dev/null among them)" out_has_line /dev/null
expect_exit 0 "--device $TEST_TMP/zero-link:/dev/given" run --device "$TEST_TMP/zero-link:/dev/given" \
  busybox:latest sh -c "$dev_mounts; echo; head -c 4 /dev/given | od -An -tx1; ls -l /dev/given"
check "--device adds exactly one mount that allows devices: /dev/given" \
  test "$(sed '/^$/,$d' "$TEST_TMP/out" | diff "$TEST_TMP/dev-mounts-default" - | grep '^[<>]')" = "> /dev/given"
check "the node reads as /dev/zero" out_matches "^ 00 00 00 00$"
check "the node is a character device 1, 5" out_matches "^crw.* 1, +5 .*/dev/given$"
check "nothing left after the devices" nothing_left

# --- --stop-signal, --stop-timeout: at the deadline the signal first, then
# SIGKILL after the grace period (docker's order) ---
refused "--stop-signal CHLD (the init reaps on it)" "SIGCHLD cannot stop the workload" --stop-signal CHLD
refused "--stop-signal unknown" "--stop-signal 'NOPE': a signal name" --stop-signal NOPE
refused "--stop-timeout -1 (docker's no limit)" "would let the workload outlive the deadline" --stop-timeout -1
refused "--stop-timeout not whole seconds" "--stop-timeout '1.5': whole seconds" --stop-timeout 1.5
expect_exit 0 "a dry run with --stop-signal SIGUSR1" dry --stop-signal SIGUSR1
check "the plan says: the signal, then SIGKILL after docker's 10 s" \
  out_has_line "at the deadline: signal 10 (USR1), then SIGKILL after 10 s"
expect_exit 0 "a dry run with --stop-timeout 3 (as JSON)" "$OCIRUN" --log-format json run --dry-run \
  --stop-timeout 3 busybox:latest true
check "the JSON plan: SIGTERM (docker's default), SIGKILL after 3 s" python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["plan"]
sys.exit(0 if p["at_deadline"] == {"stop_signal": 15, "kill_after_seconds": 3} else 1)' "$TEST_TMP/out"
expect_exit 0 "a dry run without them (as JSON)" "$OCIRUN" --log-format json run --dry-run busybox:latest true
check "without them: no at_deadline" python3 -c 'import json, sys
sys.exit(0 if "at_deadline" not in json.load(open(sys.argv[1]))["plan"] else 1)' "$TEST_TMP/out"

# A workload that traps the signal, and one that ignores it. Its children
# are in its process group: the init passes the signal to the whole group.
trapper='trap "echo got-\$0; exit 7" TERM USR1; echo ready; sleep 1000 & wait'
timed() { local start=$(date +%s%N); "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"; status=$?; took_ms=$((($(date +%s%N) - start) / 1000000)); }
timed run --timeout 2 busybox:latest sh -c "$trapper" TERM
check "control: without a stop signal the deadline kills at once (124, no trap ran, ${took_ms} ms)" \
  eval '[ $status -eq 124 ] && ! out_has_literal got- && [ $took_ms -lt 6000 ]'
timed run --timeout 2 --stop-timeout 5 busybox:latest sh -c "$trapper" TERM
check "--stop-timeout 5: SIGTERM first, the trap runs, the run ends then (124, ${took_ms} ms)" \
  eval '[ $status -eq 124 ] && out_has_line got-TERM && [ $took_ms -lt 6500 ]'
check "and ocirun says the deadline passed" err_has_literal "timed out"
timed run --timeout 2 --stop-signal USR1 --stop-timeout 5 busybox:latest sh -c "$trapper" USR1
check "--stop-signal USR1: the workload gets USR1 (${took_ms} ms)" \
  eval '[ $status -eq 124 ] && out_has_line got-USR1 && [ $took_ms -lt 6500 ]'
timed run --timeout 2 --stop-signal TERM --stop-timeout 3 busybox:latest sh -c 'trap "" TERM; echo ready; sleep 1000'
check "a workload that ignores the signal is killed after the grace period (124, ${took_ms} ms: 5 s at least)" \
  eval '[ $status -eq 124 ] && [ $took_ms -ge 5000 ] && [ $took_ms -lt 12000 ]'
check "nothing left after the stops" nothing_left

tap_done
