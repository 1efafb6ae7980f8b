#!/bin/bash
# What docker's --init asks of an init, proven of ocirun's own (every run's
# pid 1, src/runtime/exec_stub/init.c; `run --init` is its explicit
# spelling): orphaned children are reaped, a SIGTERM to pid 1 reaches a
# shell workload that ignores nothing, and the workload's exit status is
# the run's. On the host, without a cgroup (the host is hybrid cgroup v1).
. "$top_srcdir/tests/lib.sh"

root_with_busybox "run-init"

run() { "$OCIRUN" run --unsafe-no-cgroup "$@"; }
# zombies: the run's processes in state Z, as "PID COMMAND" lines.
zombies='for f in /proc/[0-9]*/stat; do read -r pid comm state rest <"$f" 2>/dev/null && [ "$state" = Z ] && echo "$pid $comm"; done; true'

# --- --init is accepted and changes nothing ---
plan() { "$OCIRUN" run --dry-run --name init-plan "$@" busybox:latest true; }
expect_exit 0 "--init is accepted" plan --init
cp "$TEST_TMP/out" "$TEST_TMP/plan-init"
expect_exit 0 "the same dry run without --init" plan
check "--init changes nothing of the configuration or the plan" cmp -s "$TEST_TMP/out" "$TEST_TMP/plan-init"
check "--help says what --init is" eval '"$OCIRUN" run --help | grep -q -- "--init  .*accepted: every run.s pid 1"'

# --- zombies are reaped ---
# Control: a parent that never waits (sh exec'd into sleep) keeps its
# exited child a zombie, and the probe sees it.
expect_exit 0 "control: a child of a process that never waits" run --init busybox:latest \
  sh -c "(sleep 0.1 & exec sleep 3) & sleep 1.5; $zombies"
check "control: that child is a zombie, and the probe sees it" out_matches "^[0-9]+ \(sleep\)$"
# Five orphans (their parent exits at once): pid 1 is their parent then.
expect_exit 0 "a workload that orphans five children" run --init busybox:latest \
  sh -c "for i in 1 2 3 4 5; do (sleep 0.2 &); done; sleep 1.5; $zombies; echo checked"
check "no zombie is left: the init reaped the orphans" eval 'out_has_line checked && ! out_matches "\(sleep\)"'
expect_exit 0 "orphans whose parent is gone, read from outside the shell" run --init busybox:latest \
  sh -c "(sleep 0.3 & echo \$! >/tmp/orphan); sleep 1.5; p=\$(cat /tmp/orphan); [ -e /proc/\$p ] && echo still-there || echo reaped"
check "the orphan's pid is gone: reaped, not a zombie" out_has_line reaped

# --- signals reach the workload: a shell that ignores nothing ---
# signal_pid1 SIGNAL COMMAND: runs COMMAND, sends SIGNAL from the host to
# the run's pid 1 (ocirun's init, the runner's child) once it printed
# "ready"; status and output as expect_exit leaves them.
signal_pid1() {
  local sig=$1 runner init i
  shift
  "$OCIRUN" run --unsafe-no-cgroup --init busybox:latest sh -c "$*" >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
  runner=$!
  for i in $(seq 100); do grep -q ready "$TEST_TMP/out" && break; sleep 0.1; done
  init=$(tr -d " " </proc/$runner/task/$runner/children 2>/dev/null)
  [ -n "$init" ] && grep -q "ocirun-init" /proc/$init/cmdline 2>/dev/null && kill -"$sig" "$init"
  wait $runner
  status=$?
}
signal_pid1 TERM 'echo ready; sleep 1000'
check "SIGTERM to pid 1 ends a shell that ignores nothing: 128+15 (got $status)" test "$status" -eq 143
signal_pid1 TERM 'trap "echo got-TERM; exit 5" TERM; echo ready; sleep 1000 & wait'
check "the shell's own trap gets the forwarded SIGTERM and its status is the run's (5, got $status)" \
  eval '[ $status -eq 5 ] && out_has_line got-TERM'
signal_pid1 USR1 'trap "echo got-USR1; exit 6" USR1; echo ready; sleep 1000 & wait'
check "any other signal too: USR1 (6, got $status)" eval '[ $status -eq 6 ] && out_has_line got-USR1'

# --- the workload's exit status is returned ---
expect_exit 42 "--init: exit 42 is the run's status" run --init busybox:latest sh -c 'exit 42'
expect_exit 137 "--init: killed by SIGKILL is 128+9" run --init busybox:latest sh -c 'kill -KILL $$'
check "nothing left" nothing_left

tap_done
