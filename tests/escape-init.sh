#!/bin/bash
# `ocirun run`'s init attacked by its own workload (root, Docker's
# capabilities): the init holds the run's parent-death signal and reports
# the workload's status, so a workload that could stop it, kill it from
# inside, trace it or reach its descriptors could outlive its runner or
# have another status reported. Each attack is made on the workload's own
# child too (a process of the same uid, dumpable: the technique works),
# then on pid 1; and a flood of signals meant to keep it from reaping the
# workload. CAP_SYS_PTRACE, which does reach the init, is
# tests/escape-ptrace.sh's. Host only, without a cgroup.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "escape-init"
# busybox with sysprobe, as busybox:init-attack
sysprobe_image init-attack ||
  { not_ok "an image with sysprobe"; tap_done; exit 1; }

# Every attack on pid 1 and on the workload's own child C, one line each.
attack='sleep 30 & c=$!
for p in $c 1; do
  who=$([ $p = 1 ] && echo init || echo child)
  /sysprobe ptrace-parent=$p | sed "s/^/$who /"
  readlink /proc/$p/exe >/dev/null 2>&1 && echo "$who exe readable"
  readlink /proc/$p/cwd >/dev/null 2>&1 && echo "$who cwd readable"
  cat /proc/$p/environ >/dev/null 2>&1 && echo "$who environ readable"
  for f in /proc/$p/fd/*; do readlink $f >/dev/null 2>&1 && echo "$who fd readable" && break; done
done
kill -KILL 1; kill -STOP 1; sleep 0.3
echo "init state $(sed -n "s/^State:[[:space:]]*//p" /proc/1/status | cut -c1)"
kill $c
exit 5'
"$OCIRUN" run --unsafe-no-cgroup busybox:init-attack sh -c "$attack" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
got=$?
sed 's/^/# workload: /' "$TEST_TMP/out"
check "control: the workload traces its own child (same uid, dumpable)" \
  grep -qx "child ptrace-parent=[0-9]* errno=0" "$TEST_TMP/out"
check "control: ... and reads its exe, cwd, environ and fd links" \
  sh -c "grep -qx 'child exe readable' '$TEST_TMP/out' && grep -qx 'child cwd readable' '$TEST_TMP/out' && grep -qx 'child environ readable' '$TEST_TMP/out' && grep -qx 'child fd readable' '$TEST_TMP/out'"
check "the workload cannot trace pid 1, ocirun's init (EPERM: non-dumpable)" out_has_line "init ptrace-parent=1 errno=EPERM"
check "... nor read its exe, cwd, environ or fd links" sh -c "! grep -q '^init .* readable' '$TEST_TMP/out'"
check "its SIGKILL and SIGSTOP to pid 1 are dropped: the init sleeps on" out_has_line "init state S"
check "and the workload's own status is reported (exit $got)" test "$got" -eq 5

# Starving the init: processes in sessions of their own send pid 1 a lower
# signal than SIGCHLD as fast as they can (a waiting init takes the lowest
# pending signal first), so that it never reaps the workload, which has
# exited; they ignore the signal the init forwards to the workload's group.
"$OCIRUN" run --unsafe-no-cgroup --timeout 30 busybox:init-attack sh -c \
  '/sysprobe flood=1 & sleep 2; exit 3' >"$TEST_TMP/out" 2>"$TEST_TMP/err"
got=$?
check "control: the flood reaches the init, which forwards it to the workload's group (exit $got: SIGHUP)" \
  test "$got" -eq 129
start=$(date +%s)
"$OCIRUN" run --unsafe-no-cgroup --timeout 30 busybox:init-attack sh -c \
  'trap "" HUP; /sysprobe flood=1 & /sysprobe flood=1 & /sysprobe flood=1 & sleep 1; exit 3' \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err"
got=$?
took=$(($(date +%s) - start))
check "three floods do not keep the run past its workload's exit: exit $got after ${took} s (30 s is the deadline)" \
  sh -c "[ $got -eq 3 ] && [ $took -lt 15 ]"
tap_done
