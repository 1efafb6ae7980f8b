#!/bin/bash
# In the guest (cgroup v2): the linux.resources properties that become
# cgroup v2 files beside memory, cpu and pids: blockIO (io.weight,
# io.bfq.weight, io.max on a block device of the guest), cpu.idle and
# hugepageLimits (hugetlb.<size>.max), each read back from the created
# container's slice; `update --blkio-weight` and `update --resources` on
# them, on a slice made without the io controller (dockerd's blockIO
# object); and what the kernel lacks (BFQ, huge pages) refused, naming the
# file, leaving nothing behind.
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT
PARENT=/sys/fs/cgroup/ocirun
# bundle DIR PYTHON: busybox's `sleep 1000` with PYTHON run on config.json
# (r is linux.resources).
bundle() {
  oci_bundle "$1" busybox 'c["process"]["args"] = ["sleep", "1000"]
c["process"]["terminal"] = False
r = c["linux"].setdefault("resources", {})
'"$2"
}
slice_has() { grep -qxF -- "$2" "$PARENT/$1/$3"; }
show_file() { sed "s|^|# $1/$2: |" "$PARENT/$1/$2" 2>/dev/null; }
gone() { container_gone "$1" && [ ! -d "$PARENT/$1" ]; }

# A block device to throttle: the guest's root is a 9p share, so a loop
# device on a file of the guest's /tmp unless the guest has a disk.
dev=""
for d in /sys/block/*; do
  case ${d##*/} in loop* | ram* | zram*) continue ;; esac
  [ -r "$d/dev" ] && dev=$(cat "$d/dev") && break
done
loop=""
if [ -z "$dev" ] && truncate -s 16M "$TEST_TMP/disk.img" &&
  loop=$(losetup --find --show "$TEST_TMP/disk.img" 2>"$TEST_TMP/err"); then
  dev=$(cat "/sys/block/${loop#/dev/}/dev")
fi
echo "# block device to throttle: ${dev:-none} ${loop:+($loop)}"
echo "# cgroup.controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
major=${dev%%:*} minor=${dev##*:}

# The positive control for update: the parent must not give its children
# the io controller yet (an earlier case may have; taking it back is allowed
# while no child enables it further).
[ -d "$PARENT" ] && echo -io >"$PARENT/cgroup.subtree_control" 2>/dev/null
io_before=no
grep -qw io "$PARENT/cgroup.subtree_control" 2>/dev/null && io_before=yes

# --- dockerd's blockIO object ({"weight": 0} for every container) ---
check "a bundle with dockerd's blockIO {weight: 0}" bundle "$TEST_TMP/d" 'r["blockIO"] = {"weight": 0}'
expect_exit 0 "create d1 with blockIO {weight: 0} (refused by name before)" \
  oci create --bundle "$TEST_TMP/d" d1 </dev/null
if [ $io_before = no ]; then
  check "d1: weight 0 sets nothing: the slice has no io controller yet" test ! -e "$PARENT/d1/io.weight"
else
  skip "the parent gives its children io already (an earlier case): no control for update"
fi
expect_exit 0 "update --blkio-weight 300 d1" oci update --blkio-weight 300 d1
# 1 + (300 - 10) * 9999 / 990
check "update: io.weight is default 2930 (the linear v1 -> v2 mapping)" slice_has d1 "default 2930" io.weight
show_file d1 io.weight
if [ -e "$PARENT/d1/io.bfq.weight" ]; then
  check "update: io.bfq.weight is default 300 (BFQ's range is v1's)" slice_has d1 "default 300" io.bfq.weight
else
  skip "io.bfq.weight: this kernel has no BFQ (the file is absent)"
fi
expect_exit 1 "update --blkio-weight 5 is refused, naming the field" oci update --blkio-weight 5 d1
check "... blockIO.weight: 5 is outside 10..1000" err_has_literal "blockIO.weight: 5 is outside 10..1000"
check "... and io.weight is unchanged" slice_has d1 "default 2930" io.weight
expect_exit 0 "delete --force d1" oci delete --force d1
check "d1 gone" gone d1

# --- weight, throttles and cpu.idle at create, then updated ---
if [ -n "$dev" ]; then
  check "a bundle with blockIO weight 500, throttles on $dev, cpu.idle 1" bundle "$TEST_TMP/b" '
r["blockIO"] = {"weight": 500, "leafWeight": 0,
    "throttleReadBpsDevice": [{"major": '"$major"', "minor": '"$minor"', "rate": 1048576}],
    "throttleWriteIOPSDevice": [{"major": '"$major"', "minor": '"$minor"', "rate": 100}]}
r["cpu"] = {"idle": 1}'
  expect_exit 0 "create c1" oci create --bundle "$TEST_TMP/b" c1 </dev/null
  show_file c1 io.max
  check "c1: io.weight is default 4950 (500 mapped onto 1..10000)" slice_has c1 "default 4950" io.weight
  check "c1: io.max is one line for $dev with rbps and wiops" \
    slice_has c1 "$dev rbps=1048576 wbps=max riops=max wiops=100" io.max
  check "c1: cpu.idle is 1" slice_has c1 1 cpu.idle
  expect_exit 0 "update --resources: the read rate 0 (no limit), a write rate, cpu.idle 0" \
    oci update -r - c1 <<<'{"blockIO": {"throttleReadBpsDevice": [{"major": '"$major"', "minor": '"$minor"', "rate": 0}],
      "throttleWriteBpsDevice": [{"major": '"$major"', "minor": '"$minor"', "rate": 2097152}]}, "cpu": {"idle": 0}}'
  show_file c1 io.max
  check "update: io.max has rbps back at max and wbps 2097152" \
    slice_has c1 "$dev rbps=max wbps=2097152 riops=max wiops=100" io.max
  check "update: cpu.idle is 0" slice_has c1 0 cpu.idle
  expect_exit 0 "delete --force c1" oci delete --force c1
  check "c1 gone" gone c1
else
  skip "no block device in the guest (no disk, no loop device): io.max not tested"
fi

# --- weightDevice: BFQ's per-device weight ---
if [ -n "$dev" ]; then
  check "a bundle with weightDevice $dev 444" bundle "$TEST_TMP/w" \
    'r["blockIO"] = {"weightDevice": [{"major": '"$major"', "minor": '"$minor"', "weight": 444}]}'
  sched=$(cat "/sys/dev/block/$dev/queue/scheduler" 2>/dev/null)
  echo "# scheduler of $dev: $sched"
  if [[ $sched == *bfq* ]] && echo bfq >"/sys/dev/block/$dev/queue/scheduler"; then
    expect_exit 0 "create w1 (BFQ on $dev)" oci create --bundle "$TEST_TMP/w" w1 </dev/null
    check "w1: io.bfq.weight has '$dev 444'" grep -qxF "$dev 444" "$PARENT/w1/io.bfq.weight"
    oci delete --force w1 >/dev/null 2>&1
  else
    expect_exit 1 "create w1 without BFQ on $dev fails" oci create --bundle "$TEST_TMP/w" w1 </dev/null
    check "... naming io.bfq.weight and the device's line" err_has_literal "io.bfq.weight to '$dev 444'"
  fi
  check "w1 gone" gone w1
fi
check "a bundle with blockIO.leafWeight 10" bundle "$TEST_TMP/l" 'r["blockIO"] = {"leafWeight": 10}'
expect_exit 1 "create with blockIO.leafWeight 10 is refused" oci create --bundle "$TEST_TMP/l" l1 </dev/null
check "... naming it and why (cgroup v2 has no leaf weight)" \
  err_has_literal "blockIO.leafWeight is not supported by ocirun (cgroup v2 has no leaf weight"
check "l1 gone" gone l1

# --- hugepageLimits ---
check "a bundle with hugepageLimits 2MB: 4194304" bundle "$TEST_TMP/h" \
  'r["hugepageLimits"] = [{"pageSize": "2MB", "limit": 4194304}]'
if grep -qw hugetlb /sys/fs/cgroup/cgroup.controllers && [ -d /sys/kernel/mm/hugepages/hugepages-2048kB ]; then
  expect_exit 0 "create h1" oci create --bundle "$TEST_TMP/h" h1 </dev/null
  check "h1: hugetlb.2MB.max is 4194304" slice_has h1 4194304 hugetlb.2MB.max
  if [ -e "$PARENT/h1/hugetlb.2MB.rsvd.max" ]; then
    check "h1: hugetlb.2MB.rsvd.max is 4194304" slice_has h1 4194304 hugetlb.2MB.rsvd.max
  else
    skip "hugetlb.2MB.rsvd.max: this kernel has none (the file is absent)"
  fi
  expect_exit 0 "update --resources: hugepageLimits 2MB: 2097152" \
    oci update -r - h1 <<<'{"hugepageLimits": [{"pageSize": "2MB", "limit": 2097152}]}'
  check "update: hugetlb.2MB.max is 2097152" slice_has h1 2097152 hugetlb.2MB.max
  oci delete --force h1 >/dev/null 2>&1
else
  expect_exit 1 "create h1 without the hugetlb controller or 2MB pages fails" \
    oci create --bundle "$TEST_TMP/h" h1 </dev/null
  check "... naming hugetlb" err_has_literal "hugetlb"
fi
check "h1 gone" gone h1

# --- cpu.burst (cpu.max.burst, Linux 5.14) at create, then updated ---
check "a bundle with cpu quota 50000, burst 20000" bundle "$TEST_TMP/u" \
  'r["cpu"] = {"quota": 50000, "period": 100000, "burst": 20000}'
if [ -e /sys/fs/cgroup/cpu.max.burst ] || grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
  expect_exit 0 "create u1 with cpu.burst 20000 (refused by name before)" \
    oci create --bundle "$TEST_TMP/u" u1 </dev/null
  show_file u1 cpu.max.burst
  check "u1: cpu.max is 50000 100000" slice_has u1 "50000 100000" cpu.max
  check "u1: cpu.max.burst is 20000" slice_has u1 20000 cpu.max.burst
  expect_exit 0 "update --cpu-quota 10000 --cpu-burst 5000 (the quota under the old burst)" \
    oci update --cpu-quota 10000 --cpu-burst 5000 u1
  check "update: cpu.max is 10000 100000" slice_has u1 "10000 100000" cpu.max
  check "update: cpu.max.burst is 5000" slice_has u1 5000 cpu.max.burst
  expect_exit 1 "update --cpu-burst 20000 above the quota 10000 is refused" \
    oci update --cpu-quota 10000 --cpu-burst 20000 u1
  check "... naming cpu.burst and the quota" err_has_literal "cpu.burst: 20000 microseconds is more than cpu.quota, 10000"
  check "... and cpu.max.burst is unchanged" slice_has u1 5000 cpu.max.burst
  oci delete --force u1 >/dev/null 2>&1
  check "u1 gone" gone u1
else
  skip "no cpu controller: cpu.burst not tested"
fi

[ -n "$loop" ] && losetup -d "$loop"
tap_done >/dev/null
