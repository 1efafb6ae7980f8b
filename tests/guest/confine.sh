#!/bin/bash
# In the cgroup v2 guest, with a real slice (no --unsafe-no-cgroup): a run
# with --cap-drop ALL and no-new-privileges holds no capabilities, and the
# seccomp filter denies keyctl, unshare, mount and raw sockets; ptrace of
# pid 1's parent fails. sysprobe prints one "NAME errno=..." line per probe.
. "$top_srcdir/tests/lib.sh"

"$OCIRUN" image import "oci:$OCIRUN_GUEST_IMAGES/sysprobe:sysprobe:latest" >/dev/null 2>&1 ||
  { echo "not ok - import the sysprobe image"; exit 0; }
"$OCIRUN" run --cap-drop ALL --security-opt no-new-privileges sysprobe:latest /sysprobe \
  keyctl unshare mount ptrace-parent raw-socket clone-newuser int80-keyctl caps nnp seccomp-mode \
  >"$TEST_TMP/probe" 2>"$TEST_TMP/err"
rc=$?
[ $rc -eq 0 ] && echo "ok - the probe runs confined" || { echo "not ok - the probe runs confined (exit $rc)"; cat "$TEST_TMP/err"; }
Z=0000000000000000
for line in "keyctl errno=EPERM" "unshare errno=EPERM" "mount errno=EPERM" "raw-socket errno=EPERM" \
  "clone-newuser errno=EPERM" "int80-keyctl errno=EPERM" \
  "caps CapInh=$Z CapPrm=$Z CapEff=$Z CapBnd=$Z CapAmb=$Z" "nnp NoNewPrivs=1" "seccomp-mode Seccomp=2"; do
  grep -qxF "$line" "$TEST_TMP/probe" && echo "ok - $line" || echo "not ok - $line"
done
grep -qxE "ptrace-parent errno=(EPERM|ESRCH)" "$TEST_TMP/probe" &&
  echo "ok - ptrace of pid 1's parent fails" || echo "not ok - ptrace of pid 1's parent fails"
grep -v errno= "$TEST_TMP/probe" | sed 's/^/# /'
exit 0
