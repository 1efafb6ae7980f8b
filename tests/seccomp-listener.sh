#!/bin/bash
# linux.seccomp.listenerPath and listenerMetadata: a profile with an
# SCMP_ACT_NOTIFY rule is loaded with a notify listener, which the
# container's process sends (SCM_RIGHTS) with the container process state
# to the agent's socket before it execs, and never holds past it; a
# notified call waits for the agent, and fails with ENOSYS once the agent
# closes the listener. Without listenerPath, SCMP_ACT_NOTIFY is refused by
# name. Host only, --unsafe-no-cgroup.
. "$top_srcdir/tests/lib.sh"

needs_root "seccomp-listener needs root"

ROOT=$OCIRUN_ROOT
AGENT=$top_srcdir/tests/helpers/seccomp_agent.py

# notify_bundle DIR SOCKET NNP COMMAND: busybox running COMMAND (sh -c),
# mkdir and mkdirat notified, the agent at SOCKET (none when empty),
# metadata "agent-meta;1" with it, noNewPrivileges NNP (True or False).
notify_bundle() {
  sleeper_bundle "$1" 'c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW",
  "architectures": ["SCMP_ARCH_X86_64"],
  "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_NOTIFY"}]}
if sys.argv[4]:
    c["linux"]["seccomp"]["listenerPath"] = sys.argv[4]
    c["linux"]["seccomp"]["listenerMetadata"] = "agent-meta;1"
c["process"]["noNewPrivileges"] = sys.argv[5] == "True"
c["process"]["args"] = ["sh", "-c", sys.argv[6]]' "$2" "$3" "$4"
}
# agent_start DIR MODE: the agent on DIR/agent.sock, its files in DIR/agent.
agent_start() {
  mkdir -p "$1/agent" && rm -f "$1/agent.sock" "$1/agent/listening"
  timeout 30 python3 "$AGENT" "$1/agent.sock" "$1/agent" "$2" &
  AGENT_PID=$!
  for _ in $(seq 50); do [ -e "$1/agent/listening" ] && return 0; sleep 0.1; done
  return 1
}
# run_to_end DIR ID: create and start DIR as ID, wait for its end (20 s),
# its output in DIR/out.
run_to_end() {
  local pid
  oci create --unsafe-no-cgroup --bundle "$1" "$2" </dev/null >"$1/out" 2>&1 && oci start "$2" || return 1
  for _ in $(seq 200); do [ "$(status_of "$2")" = stopped ] && return 0; sleep 0.1; done
  return 1
}
state_field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1/agent/state.json" "$2"; }

WORKLOAD='date +%s; ls -l /proc/self/fd; mkdir /tmp/notified; echo "rc=$?"; date +%s'

# --- the control: without listenerPath, SCMP_ACT_NOTIFY is refused by name
NB=$TEST_TMP/no-listener
check "a bundle notifying mkdir without listenerPath" notify_bundle "$NB" "" True "$WORKLOAD"
expect_exit 1 "create refuses it" oci create --unsafe-no-cgroup --bundle "$NB" no-listener
check "... naming SCMP_ACT_NOTIFY and listenerPath" err_has_literal "SCMP_ACT_NOTIFY is not supported by ocirun (without linux.seccomp.listenerPath"
check "... and leaves no container" container_gone no-listener
MB=$TEST_TMP/metadata-only
check "a bundle with listenerMetadata and no listenerPath" \
  sleeper_bundle "$MB" 'c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW", "listenerMetadata": "x"}'
expect_exit 1 "create refuses it" oci create --unsafe-no-cgroup --bundle "$MB" metadata-only
check "... naming listenerMetadata" err_has_literal "linux.seccomp.listenerMetadata: set without linux.seccomp.listenerPath"
SB=$TEST_TMP/sendmsg
check "a bundle notifying sendmsg, with an agent" sleeper_bundle "$SB" 'c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW",
  "listenerPath": "/nonexistent.sock", "syscalls": [{"names": ["sendmsg"], "action": "SCMP_ACT_NOTIFY"}]}'
expect_exit 1 "create refuses it (the listener goes out by sendmsg under the filter)" \
  oci create --unsafe-no-cgroup --bundle "$SB" sendmsg
check "... saying why" err_has_literal "SCMP_ACT_NOTIFY on sendmsg is refused"
RB=$TEST_TMP/relative
check "a bundle whose listenerPath is relative" sleeper_bundle "$RB" 'c["linux"]["seccomp"] = {"defaultAction": "SCMP_ACT_ALLOW",
  "listenerPath": "agent.sock", "syscalls": [{"names": ["mkdir"], "action": "SCMP_ACT_NOTIFY"}]}'
expect_exit 1 "create refuses it" oci create --unsafe-no-cgroup --bundle "$RB" relative
check "... naming the path" err_has_literal "linux.seccomp.listenerPath: 'agent.sock' is not an absolute path"
XB=$TEST_TMP/no-agent
check "a bundle whose agent is not listening" notify_bundle "$XB" "$XB/agent.sock" True "$WORKLOAD"
expect_exit 1 "create fails (the spec: an error when sending fails)" \
  oci create --unsafe-no-cgroup --bundle "$XB" no-agent
check "... naming listenerPath and connect" err_has_literal "linux.seccomp.listenerPath '$XB/agent.sock': connect"
check "... and leaves no container" container_gone no-agent

# --- the agent holds the listener 2 s, then closes it
HB=$TEST_TMP/hold
check "a bundle notifying mkdir, the agent at listenerPath" notify_bundle "$HB" "$HB/agent.sock" True "$WORKLOAD"
check "the agent listens" agent_start "$HB" hold
check "create, start, and the container ends" run_to_end "$HB" hold
wait "$AGENT_PID"
check "the agent got one fd" test "$(cat "$HB/agent/fd-count" 2>/dev/null)" = 1
check "... a seccomp notify listener (readlink: anon_inode:seccomp notify)" \
  test "$(cat "$HB/agent/fd-link" 2>/dev/null)" = "anon_inode:seccomp notify"
check "the state: metadata is listenerMetadata, fds names seccompFd" \
  test "$(state_field "$HB" 'd["metadata"], d["fds"]')" = "('agent-meta;1', ['seccompFd'])"
check "... ociVersion, and the container's id, bundle and status creating" \
  test "$(state_field "$HB" 'bool(d["ociVersion"]), d["state"]["id"], d["state"]["bundle"], d["state"]["status"]')" = "(True, 'hold', '$HB', 'creating')"
check "... pid is the container's process as the host sees it (> 1, the state's own)" \
  test "$(state_field "$HB" 'd["pid"] > 1 and d["pid"] == d["state"]["pid"]')" = True
check "the notified mkdir failed with ENOSYS once the agent closed the listener" \
  sh -c "grep -q 'Function not implemented' '$HB/out' && grep -qx 'rc=1' '$HB/out' && ! test -d '$HB/rootfs/tmp/notified'"
check "... and waited for it (2 s or more)" \
  sh -c "test \$((\$(grep -E '^[0-9]+\$' '$HB/out' | tail -1) - \$(grep -E '^[0-9]+\$' '$HB/out' | head -1))) -ge 2"
check "the workload holds neither the listener nor the agent's socket" \
  sh -c "grep -q -- '-> /dev/null' '$HB/out' && ! grep -qE 'seccomp|socket:' '$HB/out'"
oci delete hold >/dev/null 2>&1

# --- the agent answers the call (EXDEV) through the listener's ioctls;
# without no-new-privileges (the filter goes in before the user switch)
AB=$TEST_TMP/answer
check "a bundle notifying mkdir, without no-new-privileges" notify_bundle "$AB" "$AB/agent.sock" False "$WORKLOAD"
check "the agent listens" agent_start "$AB" answer
check "create, start, and the container ends" run_to_end "$AB" answer
wait "$AGENT_PID"
check "the agent received the notification of mkdir (nr 83)" \
  test "$(cut -d' ' -f2 "$AB/agent/notified" 2>/dev/null)" = 83
check "the workload's mkdir got the agent's answer (EXDEV)" \
  sh -c "grep -q 'Invalid cross-device link' '$AB/out' && grep -qx 'rc=1' '$AB/out'"
oci delete answer >/dev/null 2>&1

tap_done
