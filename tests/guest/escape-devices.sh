#!/bin/bash
# In the guest (cgroup v2): issue 8 finding 2, a workload that makes device
# nodes (CAP_MKNOD, as in Docker) and opens them. The slice's device program
# (Docker's default allowlist) refuses every device outside the list with
# EPERM, also on a mount the workload made itself without nodev (which needs
# --cap-add SYS_ADMIN: the default mounts are all nodev, the host side of this
# is tests/escape-devices.sh). Positive controls: the node opens on the guest
# itself, and in the same run with --unsafe-no-cgroup (no device program).
# docker's --device and --device-cgroup-rule open exactly what they name.
. "$top_srcdir/tests/lib.sh"

run() { "$OCIRUN" run "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"; }

"$OCIRUN" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >"$TEST_TMP/out" 2>"$TEST_TMP/err" ||
  { not_ok "import the busybox image"; show; exit 0; }

# The attack: a dev-enabled tmpfs of its own, kmsg (1:11, opened for
# writing, as the review did), a block device (loop0, 7:0) and kvm (10:232),
# then the allowed ones. "open NAME STATUS ERROR" per device.
attack='mkdir -p /m && mount -t tmpfs -o dev t /m || exit 9
  mk() { mknod "/m/$1" "$2" "$3" "$4" && ls -l "/m/$1" | sed "s/^/made /"; }
  try() { (: >"/m/$1") 2>/tmp/e; echo "open $1 $? $(cat /tmp/e)"; }
  mk kmsg c 1 11; mk loop0 b 7 0; mk kvm c 10 232; mk null c 1 3; mk zero c 1 5
  mk urandom c 1 9; mk pts0 c 136 0
  for d in kmsg loop0 kvm null zero urandom pts0; do try $d; done
  exec 3<>/dev/ptmx && echo "ptmx ok"'

# --- positive control on the guest itself ---
node=/dev/ocirun-escape-kmsg.$$
if mknod "$node" c 1 11 && ls -l "$node" | grep -q '^c.* 1, *11 ' && (: >"$node"); then
  ok "control: a kmsg node made on the guest opens for writing"
else
  not_ok "control: a kmsg node made on the guest opens for writing"
fi
rm -f "$node"

# --- positive control: the same attack without the device program ---
run --unsafe-no-cgroup --cap-add SYS_ADMIN busybox:latest sh -c "$attack"
if out_matches "^made .* 1, *11 " && out_matches "^open kmsg 0 "; then
  ok "control: without a device program (--unsafe-no-cgroup), the workload's kmsg node opens"
else
  not_ok "control: without a device program (--unsafe-no-cgroup), the workload's kmsg node opens"
  show
fi

# --- the attack against a normal run ---
run --cap-add SYS_ADMIN busybox:latest sh -c "$attack"
for d in kmsg loop0 kvm; do
  if out_matches "^made .*/m/$d$" && out_matches "^open $d [1-9][0-9]* .*Operation not permitted"; then
    ok "the workload makes a $d node (mknod is allowed, as Docker) and opening it fails with EPERM"
  else
    not_ok "the workload makes a $d node and opening it fails with EPERM"
    show
  fi
done
if out_matches "^open null 0 " && out_matches "^open zero 0 " && out_matches "^open urandom 0 " && out_matches "ptmx ok" &&
  ! out_matches "^open pts0 .*Operation not permitted"; then
  ok "allowed devices still open: null, zero, urandom, ptmx, and pts (136:*) passes the program"
else
  not_ok "allowed devices still open: null, zero, urandom, ptmx, pts"
  show
fi

# --- --device: the node asked for opens as asked; no other device does ---
# loop-control (10:237, not in docker's list) opened for reading and for
# writing; root passes its mode either way, so a refusal is the program's.
if [ -c /dev/loop-control ]; then
  lc='(exec 3</dev/lc) 2>/tmp/e; echo "read $? $(cat /tmp/e)"; (exec 3>/dev/lc) 2>/tmp/e; echo "write $? $(cat /tmp/e)"'
  run --device /dev/loop-control:/dev/lc busybox:latest sh -c "$lc"
  if out_matches "^read 0 " && out_matches "^write 0 "; then
    ok "control: --device /dev/loop-control:/dev/lc opens for reading and writing (rwm)"
  else
    not_ok "control: --device /dev/loop-control:/dev/lc opens for reading and writing"
    show
  fi
  run --device /dev/loop-control:/dev/lc:r busybox:latest sh -c "$lc"
  if out_matches "^read 0 " && out_matches "^write [1-9][0-9]* .*Operation not permitted"; then
    ok "--device ...:r: the node opens for reading, writing it fails with EPERM (the program)"
  else
    not_ok "--device ...:r: the node opens for reading, writing it fails with EPERM"
    show
  fi
  run busybox:latest sh -c "mknod /dev/lc c 10 237 2>&1; $lc"
  if out_matches "^read [1-9]" && out_matches "^write [1-9]"; then
    ok "control: without --device, a loop-control node does not open"
  else
    not_ok "control: without --device, a loop-control node does not open"
    show
  fi
else
  skip "the guest has no /dev/loop-control"
fi
# The attack beside a --device: every node but the one given still fails.
run --cap-add SYS_ADMIN --device /dev/zero:/dev/given busybox:latest sh -c "$attack"
for d in kmsg loop0 kvm; do
  if out_matches "^made .*/m/$d$" && out_matches "^open $d [1-9][0-9]* .*Operation not permitted"; then
    ok "with --device /dev/zero:/dev/given, a $d node made by the workload still fails with EPERM"
  else
    not_ok "with --device /dev/zero:/dev/given, a $d node made by the workload still fails with EPERM"
    show
  fi
done
# --device-cgroup-rule opens exactly its numbers: kmsg (1:11) for writing,
# loop0 and kvm still not.
run --cap-add SYS_ADMIN --device-cgroup-rule 'c 1:11 w' busybox:latest sh -c "$attack"
if out_matches "^open kmsg 0 " && out_matches "^open loop0 [1-9][0-9]* .*Operation not permitted" &&
  out_matches "^open kvm [1-9][0-9]* .*Operation not permitted"; then
  ok "--device-cgroup-rule 'c 1:11 w': the workload's kmsg node opens, loop0 and kvm do not"
else
  not_ok "--device-cgroup-rule 'c 1:11 w': the workload's kmsg node opens, loop0 and kvm do not"
  show
fi

# --- a default run: the host's device nodes work, nothing else opens ---
run busybox:latest sh -c 'head -c 4 /dev/zero | wc -c; head -c 4 /dev/urandom | wc -c
  echo x >/dev/null && echo null-ok; mknod /kmsg c 1 11 && (: >/kmsg) 2>&1; echo "open $?"'
if [ "$(head -n 3 "$TEST_TMP/out" | tr '\n' ' ')" = "4 4 null-ok " ] && out_matches "^open [1-9]"; then
  ok "default run: /dev/zero, urandom, null work; a kmsg node made on the root does not open"
else
  not_ok "default run: host devices work, a kmsg node does not open"
  show
fi

# --- --dry-run shows the rules ---
"$OCIRUN" run --dry-run busybox:latest true >"$TEST_TMP/out" 2>&1
if out_matches "allow c 136:\*" && out_matches "allow c \*:\* .*m " && out_matches "deny  everything else"; then
  ok "--dry-run prints the device rules"
else
  not_ok "--dry-run prints the device rules"
  show
fi
# --- fail closed: a parent that takes no program below it ---
# A program attached to the cgroup parent without override makes the
# kernel refuse the slice's (EPERM): the run must not start without it.
mkdir -p /sys/fs/cgroup/ocirun
python3 - "$OCIRUN" >"$TEST_TMP/out" 2>&1 <<'PY'
import ctypes, os, struct, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr, 128)
    ret = libc.syscall(321, cmd, buf, 128)  # SYS_bpf on x86_64
    if ret < 0:
        sys.exit("bpf %d: %s" % (cmd, os.strerror(ctypes.get_errno())))
    return ret
insns = struct.pack("<BBhi", 0xb7, 0, 0, 1) + struct.pack("<BBhi", 0x95, 0, 0, 0)  # r0 = 1; exit
insns_buf, license = ctypes.create_string_buffer(insns), ctypes.create_string_buffer(b"MIT")
prog = bpf(5, struct.pack("<IIQQ", 15, 2, ctypes.addressof(insns_buf), ctypes.addressof(license)))
parent = os.open("/sys/fs/cgroup/ocirun", os.O_RDONLY | os.O_DIRECTORY)
bpf(8, struct.pack("<IIII", parent, prog, 6, 0))  # attach, BPF_CGROUP_DEVICE, no flags
print("attached to the parent")
run = subprocess.run([sys.argv[1], "run", "busybox:latest", "echo", "ran"], capture_output=True, text=True)
print("exit %d" % run.returncode)
print(run.stdout + run.stderr)
bpf(9, struct.pack("<IIII", parent, prog, 6, 0))  # detach
print("detached")
PY
if grep -q "attached to the parent" "$TEST_TMP/out" && grep -q "^exit 125" "$TEST_TMP/out" &&
  grep -q "BPF_PROG_ATTACH" "$TEST_TMP/out" && ! grep -q "^ran" "$TEST_TMP/out" &&
  grep -q detached "$TEST_TMP/out"; then
  ok "a device program that cannot be attached fails the run (125, names BPF_PROG_ATTACH)"
else
  not_ok "a device program that cannot be attached fails the run"
  sed 's/^/# /' "$TEST_TMP/out"
fi
[ -z "$(ls -A "$OCIRUN_ROOT/run" 2>/dev/null)" ] && ok "the refused run left no record" ||
  not_ok "the refused run left a record: $(ls -A "$OCIRUN_ROOT/run")"
nothing=$(find /sys/fs/cgroup/ocirun -mindepth 1 -type d 2>/dev/null)
[ -z "$nothing" ] && ok "no slice left (the program went with it)" || not_ok "slices left: $nothing"
exit 0
