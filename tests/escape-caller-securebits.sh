#!/bin/bash
# The caller's securebits, which survive fork and exec (all but
# SECBIT_KEEP_CAPS): a caller with SECBIT_NO_SETUID_FIXUP (a service's
# SecureBits=no-setuid-fixup, `setpriv --securebits +no_setuid_fixup`)
# handed it to every process of the container, so that a workload that
# drops root for another uid (a daemon's worker) kept every capability it
# had as root. Each door: run, exec NAME, create + start, exec ID. First
# the caller's own child (the bit is inherited, and does that). Host
# only, without a cgroup.
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT/oci
root_with_busybox "escape-caller-securebits"
root_with_python "escape-caller-securebits"
SYSPROBE=$top_builddir/tests/helpers/sysprobe
fixup_off() { setpriv --securebits +no_setuid_fixup "$@"; }

# A root process that becomes uid 65534, as a daemon's worker does: what it
# keeps of its capabilities.
drop='import os
def eff():
    return [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0]
root = eff()
os.setresgid(65534, 65534, 65534)
os.setgroups([])
os.setresuid(65534, 65534, 65534)
print("root", root, "then-65534", eff())'
fixup_off python3 -c "$drop" >"$TEST_TMP/out" 2>&1
verdict "control: the caller's own child keeps its capabilities after setresuid(65534) ($(cat "$TEST_TMP/out"))" \
  sh -c "! grep -q 'then-65534 0000000000000000' '$TEST_TMP/out'"
fixup_off "$SYSPROBE" securebits >"$TEST_TMP/out"
check "control: ... it inherited SECBIT_NO_SETUID_FIXUP ($(cat "$TEST_TMP/out"))" grep -qx "securebits 4" "$TEST_TMP/out"

fixup_off "$OCIRUN" run --unsafe-no-cgroup python:3.13-slim python3 -c "$drop" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "run: a workload that drops root for 65534 keeps no capability ($(cat "$TEST_TMP/out"))" \
  grep -q "then-65534 0000000000000000" "$TEST_TMP/out"

"$OCIRUN" run --unsafe-no-cgroup --name sb --timeout 120 python:3.13-slim sleep 100 >/dev/null 2>&1 &
runner=$!
for _ in $(seq 100); do "$OCIRUN" exec sb true >/dev/null 2>&1 && break; sleep 0.1; done
fixup_off "$OCIRUN" exec sb python3 -c "$drop" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
verdict "exec NAME: the same ($(cat "$TEST_TMP/out"))" grep -q "then-65534 0000000000000000" "$TEST_TMP/out"
kill "$runner" 2>/dev/null
wait "$runner" 2>/dev/null

oci_bundle "$TEST_TMP/b" busybox 'c["process"]["terminal"] = False
c["process"]["args"] = ["sh", "-c", "/sysprobe securebits; exec sleep 100"]
c["linux"].pop("resources", None)' && cp "$SYSPROBE" "$TEST_TMP/b/rootfs/"
fixup_off "$OCIRUN" --root "$ROOT" create --unsafe-no-cgroup --bundle "$TEST_TMP/b" sbc </dev/null 2>&1 |
  cat >"$TEST_TMP/create.out" &
sleep 1
fixup_off "$OCIRUN" --root "$ROOT" start sbc
for _ in $(seq 50); do grep -q securebits "$TEST_TMP/create.out" && break; sleep 0.1; done
check "create + start: pid 1's securebits are 0 ($(cat "$TEST_TMP/create.out"))" grep -qx "securebits 0" "$TEST_TMP/create.out"
fixup_off "$OCIRUN" --root "$ROOT" exec sbc /sysprobe securebits </dev/null 2>&1 | cat >"$TEST_TMP/out"
check "exec ID: the exec'd process's are 0 ($(cat "$TEST_TMP/out"))" grep -qx "securebits 0" "$TEST_TMP/out"
oci delete --force sbc >/dev/null 2>&1
wait
tap_done
