#!/bin/bash
# The OCI runtime command line on the host: global options (--version,
# --log/--log-format, --debug, --systemd-cgroup), `spec`, errors on missing
# and invalid ids, usage errors (exit 2) against failures (exit 1), and
# start/state/kill/delete with their hooks on a stand-in container (a
# record in ocirun's format for a process this script starts, which waits
# on the exec FIFO the way create's process does), and create: its
# refusals, and the lifecycle without a cgroup (the host is hybrid cgroup
# v1; with one, and pause, resume, ps and update, it is
# tests/guest/oci-lifecycle.sh and tests/guest/oci-verbs.sh).
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT

# --- global options ---
expect_exit 0 "--version exits 0" "$OCIRUN" --version
check "--version: 'ocirun version X' then 'spec: 1.2.0', as runc prints" \
  grep -qx "ocirun version [0-9.]*" "$TEST_TMP/out"
check "--version: the runtime-spec version" grep -qx "spec: 1.2.0" "$TEST_TMP/out"
expect_exit 0 "-v is --version" "$OCIRUN" -v
check "-v prints the same" grep -qx "spec: 1.2.0" "$TEST_TMP/out"
expect_exit 2 "--systemd-cgroup is refused (usage, exit 2)" "$OCIRUN" --systemd-cgroup state x
check "--systemd-cgroup: the message says why and what to do" \
  grep -q "cgroupfs paths only.*cgroup-manager=cgroupfs" "$TEST_TMP/err"
expect_exit 2 "--log-format xml is refused" "$OCIRUN" --log-format xml state x
expect_exit 2 "--log without a path is a usage error" "$OCIRUN" --log

# --- spec ---
mkdir -p "$TEST_TMP/bundle"
expect_exit 0 "spec --bundle writes config.json" oci spec --bundle "$TEST_TMP/bundle"
check "spec: config.json is JSON with ociVersion 1.2.0, sh, terminal false, root rootfs" \
  python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
assert c["ociVersion"] == "1.2.0"
assert c["process"]["args"] == ["sh"] and c["process"]["terminal"] is False
assert c["root"] == {"path": "rootfs", "readonly": True}
ns = [n["type"] for n in c["linux"]["namespaces"]]
assert "network" in ns and "user" not in ns
' "$TEST_TMP/bundle/config.json"
cp "$TEST_TMP/bundle/config.json" "$TEST_TMP/config.before"
expect_exit 1 "spec: an existing config.json is an error" oci spec --bundle "$TEST_TMP/bundle"
check "spec: ... which names it" grep -q "config.json' exists" "$TEST_TMP/err"
check "spec: ... and leaves it as it was" cmp -s "$TEST_TMP/config.before" "$TEST_TMP/bundle/config.json"
mkdir -p "$TEST_TMP/rootless"
expect_exit 0 "spec --rootless" oci spec --rootless -b "$TEST_TMP/rootless"
check "spec --rootless: a user namespace, the caller's ids mapped to 0, no network namespace" \
  python3 -c '
import json, os, sys
c = json.load(open(sys.argv[1]))
ns = [n["type"] for n in c["linux"]["namespaces"]]
assert "user" in ns and "network" not in ns
assert c["linux"]["uidMappings"] == [{"containerID": 0, "hostID": os.geteuid(), "size": 1}]
' "$TEST_TMP/rootless/config.json"
expect_exit 2 "spec: an operand is a usage error" oci spec extra
expect_exit 1 "spec: a missing bundle directory is an error" oci spec -b "$TEST_TMP/nowhere"

# --- features ---
expect_exit 0 "features" oci features
check "features: the spec's document (versions, hooks, mount options, linux: namespaces, capabilities, cgroup v2 only, seccomp, apparmor/selinux off)" \
  python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
assert f["ociVersionMin"] == "1.0.0" and f["ociVersionMax"] == "1.2.0"
# every kind of the spec: the runtime runs each (tests/oci-hooks.sh)
assert f["hooks"] == ["prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"]
assert {"ro", "rw", "nosuid", "rbind", "rprivate", "nosymfollow"} <= set(f["mountOptions"])
assert {"idmap", "ridmap", "tmpcopyup"} <= set(f["mountOptions"])
l = f["linux"]
assert set(l["namespaces"]) == {"pid", "network", "mount", "ipc", "uts", "user", "cgroup", "time"}
assert "CAP_SYS_ADMIN" in l["capabilities"] and all(c.startswith("CAP_") for c in l["capabilities"])
assert l["cgroup"] == {"v1": False, "v2": True, "systemd": False, "systemdUser": False, "rdma": False}
s = l["seccomp"]
assert s["enabled"] is True and "SCMP_ACT_ERRNO" in s["actions"] and "SCMP_ACT_NOTIFY" in s["actions"]
assert "SCMP_CMP_MASKED_EQ" in s["operators"] and "SCMP_ARCH_X86_64" in s["archs"]
assert l["apparmor"] == {"enabled": False} and l["selinux"] == {"enabled": False}
for key, value in f.items():
    assert key in ("ociVersionMin", "ociVersionMax", "hooks", "mountOptions", "linux", "annotations"), key
' "$TEST_TMP/out"
expect_exit 2 "features: an operand is a usage error" oci features extra

# --- missing ids, invalid ids, usage ---
for verb in state start delete ps pause resume update; do
  expect_exit 1 "$verb of a missing id exits 1" oci "$verb" nope
  check "$verb of a missing id: 'does not exist'" grep -q "container 'nope' does not exist" "$TEST_TMP/err"
  expect_exit 2 "$verb without an id is a usage error" oci "$verb"
  expect_exit 2 "$verb with an unknown option is a usage error" oci "$verb" --frobnicate x
  expect_exit 0 "$verb --help" oci "$verb" --help
  check "$verb --help prints its usage" grep -q "^Usage: ocirun $verb" "$TEST_TMP/out"
done
expect_exit 1 "kill of a missing id exits 1" oci kill nope
expect_exit 0 "delete --force of a missing id succeeds (runc's: containerd's shim deletes twice)" oci delete --force nope
expect_exit 1 "delete --force of an invalid id is still an error" oci delete --force ../x
expect_exit 2 "kill with an unknown signal is a usage error" oci kill nope SIGNOPE
expect_exit 2 "kill with signal 0 is a usage error" oci kill nope 0
expect_exit 2 "kill with two signals is a usage error" oci kill nope TERM KILL
expect_exit 1 "update with a bad --memory is an error naming it" oci update --memory 12q nope
check "... --memory" grep -q -- "--memory: '12q' is not a number" "$TEST_TMP/err"
expect_exit 1 "update reads sizes as run does (one parser): 64mb and 1.5g pass, then no container" \
  oci update --memory 64mb --memory-swap 1.5g nope
check "... refused only for the missing container" grep -q "container 'nope' does not exist" "$TEST_TMP/err"
check "... no size refused" sh -c '! grep -q "is not a number" "$1"' sh "$TEST_TMP/err"
expect_exit 1 "update --resources with a value the parser refuses names the field" \
  oci update --resources - nope <<<'{"memory": {"limit": "x"}}'
check "... linux.resources.memory.limit" grep -q "linux.resources.memory.limit" "$TEST_TMP/err"
expect_exit 1 "update --blkio-weight outside 10..1000 is refused naming blockIO.weight" \
  oci update --blkio-weight 5 nope
check "... linux.resources.blockIO.weight" grep -q "linux.resources.blockIO.weight: 5 is outside 10..1000" "$TEST_TMP/err"
expect_exit 1 "update --blkio-weight 500 is taken, then no container" oci update --blkio-weight 500 nope
check "... refused only for the missing container" grep -q "container 'nope' does not exist" "$TEST_TMP/err"
expect_exit 1 "update takes dockerd's blockIO (weight 0 for every container), then no container" \
  oci update -r - nope <<<'{"blockIO": {"weight": 0}, "cpu": {"idle": 0}}'
check "... refused only for the missing container" grep -q "container 'nope' does not exist" "$TEST_TMP/err"
expect_exit 1 "update: device rules cannot be updated" \
  oci update --resources - nope <<<'{"devices": [{"allow": false, "access": "rwm"}]}'
check "... says so" grep -q "device rules are fixed at create" "$TEST_TMP/err"
for id in .. . "a/b" "a b" "x:y" "$(printf 'a%.0s' $(seq 201))"; do
  expect_exit 1 "invalid id '${id:0:20}' refused" oci state "$id"
  check "invalid id '${id:0:20}': the message says so" grep -q "invalid container id" "$TEST_TMP/err"
done
check "no path was made from an invalid id" test ! -e "$TEST_TMP/a"

# --- the log a shim reads ---
LOG=$TEST_TMP/log.json
expect_exit 1 "--log --log-format json: a failing verb" oci --log "$LOG" --log-format json state nope
check "json log: one object per line, level error, the message, an RFC 3339 time" \
  python3 -c '
import json, sys, datetime
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
entry = json.loads(lines[0])
assert entry["level"] == "error" and "does not exist" in entry["msg"], entry
datetime.datetime.strptime(entry["time"][:19], "%Y-%m-%dT%H:%M:%S")
assert entry["time"].endswith("Z")
' "$LOG"
check "json log: stderr still gets the plain message" grep -qx "ocirun: container 'nope' does not exist" "$TEST_TMP/err"
expect_exit 2 "a usage error reaches the json log too" oci --log "$LOG" --log-format json kill
check "json log: the usage error is an error line" \
  python3 -c 'import json,sys; e=json.loads(open(sys.argv[1]).read().splitlines()[-1]); assert e["level"]=="error" and "id is missing" in e["msg"]' "$LOG"
TEXT_LOG=$TEST_TMP/log.txt
oci --log "$TEXT_LOG" state 'bad"id' 2>/dev/null
check "text log: logrus' shape with the quote escaped" \
  grep -q '^time="[0-9T:.-]*Z" level=error msg="invalid container id .bad\\"id' "$TEXT_LOG"
expect_exit 2 "--log-format json without --log: stderr gets JSON" oci --log-format json start
check "... one JSON error line on stderr" \
  python3 -c 'import json,sys; e=json.loads(open(sys.argv[1]).read()); assert e["level"]=="error"' "$TEST_TMP/err"

# --- a stand-in container: ocirun's record for a process of ours ---
umask 077
# record ID PID HOOKS_JSON [START_TIME]
record() {
  mkdir -p "$ROOT/containers/$1"
  cat >"$ROOT/containers/$1/state.json" <<EOF
{"ociVersion":"1.2.0","id":"$1","bundle":"$TEST_TMP/bundle","pid":$2,"pidStartTime":${4:-$(start_time "$2")},
 "created":"2026-01-01T00:00:00Z","owner":0,"annotations":{"org.example":"yes"},"hooks":$3}
EOF
}
# A process that waits on the exec FIFO as create's does: it blocks
# opening it for writing, writes one byte once start opens it, then execs.
waiting_process() {
  mkfifo -m 600 "$ROOT/containers/$1/exec.fifo"
  sh -c 'printf 0 >"$1"; exec sleep 1000' sh "$ROOT/containers/$1/exec.fifo" &
  waiter=$!
}

HOOKS='{"poststart":[{"path":"/bin/sh","args":["sh","-c","cat >'$TEST_TMP'/poststart.json; echo hello from the hook"]}],
        "poststop":[{"path":"/bin/sh","args":["sh","-c","exit 7"]},
                    {"path":"/bin/sh","args":["sh","-c","cat >'$TEST_TMP'/poststop.json"]}]}'
mkdir -p "$ROOT/containers/c1"
waiting_process c1
record c1 "$waiter" "$HOOKS"
expect_exit 0 "state of a created container" oci state c1
check "state: the spec's document (created, pid, bundle, annotations)" \
  python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s == {"ociVersion": "1.2.0", "id": "c1", "status": "created", "pid": int(sys.argv[2]),
             "bundle": sys.argv[3], "annotations": {"org.example": "yes"}}, s
' "$TEST_TMP/out" "$waiter" "$TEST_TMP/bundle"
check "created: the user program has not run" \
  sh -c "! tr '\0' ' ' </proc/$waiter/cmdline | grep -q '^sleep 1000'"
expect_exit 1 "pause of a running container without a cgroup is an error" oci pause c1
expect_exit 0 "start" oci --log "$TEST_TMP/start.log" --log-format json start c1
check "start: the process went on to exec the user program" \
  sh -c "for i in \$(seq 50); do tr '\0' ' ' </proc/$waiter/cmdline | grep -q '^sleep 1000' && exit 0; sleep 0.1; done; exit 1"
check "start: the state is now running" test "$(status_of c1)" = running
check "start: the exec FIFO is gone" test ! -e "$ROOT/containers/c1/exec.fifo"
check "poststart hook: ran with the state (running) on stdin" \
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["status"]=="running" and s["id"]=="c1"' "$TEST_TMP/poststart.json"
check "poststart hook: its output is an info line of the log" \
  grep -q '"level":"info","msg":"hook poststart\[0\]: hello from the hook"' "$TEST_TMP/start.log"
expect_exit 1 "a second start is an error" oci start c1
check "... which says the container is running" grep -q "is running, not created" "$TEST_TMP/err"
expect_exit 1 "delete of a running container without --force is refused" oci delete c1
check "... and the process lives on" kill -0 "$waiter"
check "... and so does its state" test -e "$ROOT/containers/c1/state.json"
expect_exit 0 "kill (SIGTERM by default)" oci --debug --log "$TEST_TMP/kill.log" kill c1
wait "$waiter"
check "kill: the process died of SIGTERM" test $? -eq 143
check "--debug: the kill is a debug line of the log" grep -q 'level=debug msg="kill: signal 15' "$TEST_TMP/kill.log"
check "the state is now stopped" test "$(status_of c1)" = stopped
expect_exit 1 "kill of a stopped container is an error" oci kill c1 KILL
expect_exit 0 "delete of a stopped container" oci --log "$TEST_TMP/delete.log" delete c1
check "delete: the container's directory is gone" test ! -e "$ROOT/containers/c1"
check "poststop: the hook after a failing one still ran, with the state (stopped)" \
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["status"]=="stopped" and "pid" not in s' "$TEST_TMP/poststop.json"
check "poststop: the failing hook is a warning in the log" \
  grep -q 'level=warning msg="hook poststop\[0\] (/bin/sh) exited with status 7' "$TEST_TMP/delete.log"
expect_exit 1 "delete again: the id no longer exists" oci delete c1

# A reused pid: a live process whose start time is not the recorded one.
sleep 1000 &
other=$!
record c2 "$other" '{}' "$(($(start_time "$other") + 1))"
check "a reused pid: stopped" test "$(status_of c2)" = stopped
expect_exit 1 "a reused pid: kill refuses (the container is stopped)" oci kill c2 KILL
check "a reused pid: the other process was not signalled" kill -0 "$other"
expect_exit 0 "a reused pid: delete removes the record without touching the process" oci delete c2
check "... the other process still lives" kill -0 "$other"

# --force, --all, signal names, a created container.
record c3 "$other" '{}'
expect_exit 0 "kill --all without a cgroup signals the process (CONT: a name without SIG)" oci kill --all c3 CONT
check "... which lives on" kill -0 "$other"
expect_exit 0 "delete --force of a running container" oci delete --force c3
wait "$other"
check "delete --force: the process was SIGKILLed" test $? -eq 137
check "delete --force: the directory is gone" test ! -e "$ROOT/containers/c3"
mkdir -p "$ROOT/containers/c4"
waiting_process c4
record c4 "$waiter" '{}'
expect_exit 1 "delete of a created container is an error (the spec; runc deletes it)" oci delete c4
check "... which has no effect: the process waits on" kill -0 "$waiter"
check "... and the state is still created" test "$(status_of c4)" = created
expect_exit 0 "delete --force of a created container" oci delete --force c4
wait "$waiter"
check "... its process was killed" test $? -eq 137
check "... its directory is gone" test ! -e "$ROOT/containers/c4"

# A create that died before its record: the directory alone.
mkdir -p "$ROOT/containers/c5"
expect_exit 1 "state of a container without a record is an error" oci state c5
check "... which points at delete" grep -q "ocirun delete c5" "$TEST_TMP/err"
expect_exit 0 "delete removes what is left" oci delete c5
check "... the directory is gone" test ! -e "$ROOT/containers/c5"

# --- create ---
# The bundles: busybox's layers as DIR/rootfs (oci_bundle DIR busybox PYTHON).
"$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >/dev/null 2>&1
CB=$TEST_TMP/create-bundle
check "a busybox bundle" oci_bundle "$CB" busybox 'c["process"]["args"] = ["sleep", "1000"]; del c["linux"]["resources"]'
expect_exit 2 "create without an id is a usage error" oci create --bundle "$CB"
expect_exit 2 "create --no-pivot is refused by name" oci create --no-pivot --bundle "$CB" x
check "... saying why" grep -q "no-pivot is not supported" "$TEST_TMP/err"
expect_exit 2 "create --no-new-keyring is refused by name" oci create --no-new-keyring --bundle "$CB" x
expect_exit 2 "create --preserve-fds 3 is refused" oci create --preserve-fds 3 --bundle "$CB" x
expect_exit 0 "create --preserve-fds 0 is accepted" oci create --preserve-fds 0 --help
expect_exit 2 "create with an invalid id" oci create --bundle "$CB" ../x
mkdir -p "$TEST_TMP/empty-bundle"
expect_exit 1 "create: a bundle without config.json" oci create --bundle "$TEST_TMP/empty-bundle" e1
check "... names config.json" grep -q "config.json" "$TEST_TMP/err"
check "... and leaves no container" test ! -e "$ROOT/containers/e1"
BAD=$TEST_TMP/bad-bundle
check "a bundle with ociVersion 2.0.0" oci_bundle "$BAD" busybox 'c["ociVersion"] = "2.0.0"'
expect_exit 1 "create: a configuration the parser refuses" oci create --bundle "$BAD" e2
check "... names the property" grep -q "ociVersion" "$TEST_TMP/err"
check "... and leaves no container" test ! -e "$ROOT/containers/e2"
RES=$TEST_TMP/resources-bundle
check "a bundle with linux.resources" oci_bundle "$RES" busybox 'c["linux"]["resources"] = {"pids": {"limit": 10}}'
expect_exit 1 "create --unsafe-no-cgroup refuses a configuration with limits" \
  oci create --unsafe-no-cgroup --bundle "$RES" e4
check "... and leaves no container" test ! -e "$ROOT/containers/e4"

# The host is cgroup v1 hybrid: the lifecycle without a cgroup (the guest
# runs it with one, tests/guest/oci-lifecycle.sh).
# A command that is not in the root fails create (as runc's create does),
# with the lookup's message, and leaves no container.
MB=$TEST_TMP/missing-bundle
check "a bundle whose command is missing" oci_bundle "$MB" busybox 'c["process"]["args"] = ["no-such-command"]; del c["linux"]["resources"]'
expect_exit 1 "create: a missing command fails create" oci create --unsafe-no-cgroup --bundle "$MB" m1 </dev/null
check "... naming it" grep -q "exec 'no-such-command': executable file not found" "$TEST_TMP/err"
check "... and no container m1 is left" test ! -e "$ROOT/containers/m1"

# A relative --pid-file is the caller's directory's (create itself works
# from the bundle's, as runc does).
expect_exit 0 "create --unsafe-no-cgroup, a relative --pid-file" \
  eval "(cd '$TEST_TMP' && oci create --unsafe-no-cgroup --bundle '$CB' --pid-file c.pid h1 </dev/null)"
check "create: the relative pid file is in the caller's directory, not the bundle" \
  test -s "$TEST_TMP/c.pid" -a ! -e "$CB/c.pid"
pid=$(cat "$TEST_TMP/c.pid" 2>/dev/null)
check "create: the pid file names a live process" test -n "$pid" -a -d "/proc/${pid:-none}"
check "create: state created, with the pid file's pid" \
  sh -c "[ \"\$('$OCIRUN' --root '$ROOT' state h1 | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s[\"status\"], s[\"pid\"])')\" = 'created $pid' ]"
check "create: a new pid namespace" sh -c "ns=\$(readlink /proc/${pid:-none}/ns/pid) && [ \"\$ns\" != \"\$(readlink /proc/self/ns/pid)\" ]"
expect_exit 1 "create of an existing id fails" oci create --unsafe-no-cgroup --bundle "$CB" h1 </dev/null
check "... saying it exists" grep -q "already exists" "$TEST_TMP/err"
expect_exit 0 "start" oci start h1
check "start: the user program runs" \
  sh -c "for i in \$(seq 50); do tr '\0' ' ' </proc/${pid:-none}/cmdline | grep -q '^sleep 1000' && exit 0; sleep 0.1; done; exit 1"
check "state: running" test "$(status_of h1)" = running

# exec: a second process joins the container (its namespaces through the
# pidfd), with the process's user, capabilities and no-new-privileges.
expect_exit 0 "exec a command" oci exec h1 sh -c 'echo pid1:$(cat /proc/1/cmdline | tr "\0" " ")'
check "exec: it sees the container's pid 1 (its pid namespace)" grep -q "^pid1:sleep 1000" "$TEST_TMP/out"
check "exec: the same mount namespace as the container" \
  sh -c "'$OCIRUN' --root '$ROOT' exec h1 readlink /proc/self/ns/mnt >'$TEST_TMP/ns' && [ \"\$(cat '$TEST_TMP/ns')\" = \"\$(readlink /proc/${pid:-none}/ns/mnt)\" ]"
check "exec: control: the host's mount namespace is another" \
  sh -c "[ \"\$(readlink /proc/self/ns/mnt)\" != \"\$(readlink /proc/${pid:-none}/ns/mnt)\" ]"
expect_exit 3 "exec: the exit status is the process's" oci exec h1 sh -c 'exit 3'
expect_exit 127 "exec: a missing command is 127" oci exec h1 no-such-command
expect_exit 0 "exec --user 65534 --no-new-privs" oci exec -u 65534 --no-new-privs h1 sh -c 'id -u; grep -E "^(NoNewPrivs|CapEff)" /proc/self/status'
check "exec: as uid 65534, no capabilities, no-new-privileges" \
  sh -c "grep -qx 65534 '$TEST_TMP/out' && grep -q 'NoNewPrivs:.*1' '$TEST_TMP/out' && grep -q 'CapEff:.*0000000000000000' '$TEST_TMP/out'"
printf '{"args":["sh","-c","echo from-process-file; sleep 1000"],"cwd":"/tmp","user":{"uid":0,"gid":0},"env":["PATH=/bin"]}' >"$TEST_TMP/process.json"
expect_exit 0 "exec --process FILE --detach --pid-file" \
  oci exec --process "$TEST_TMP/process.json" --detach --pid-file "$TEST_TMP/exec.pid" h1
xpid=$(cat "$TEST_TMP/exec.pid" 2>/dev/null)
check "exec --detach: the pid file names the live process" \
  sh -c "for i in \$(seq 50); do tr '\0' ' ' </proc/${xpid:-none}/cmdline 2>/dev/null | grep -q 'sleep 1000' && exit 0; sleep 0.1; done; exit 1"
check "exec --detach: it is in the container's pid namespace" \
  sh -c "[ \"\$(readlink /proc/${xpid:-none}/ns/pid)\" = \"\$(readlink /proc/${pid:-none}/ns/pid)\" ]"
check "exec --detach: its working directory is the process file's" \
  sh -c "[ \"\$(readlink /proc/${xpid:-none}/cwd)\" = /tmp ]"
printf '{"args":["true"],"cwd":"relative","user":{"uid":0,"gid":0}}' >"$TEST_TMP/bad-process.json"
expect_exit 1 "exec --process: a process the parser refuses" oci exec --process "$TEST_TMP/bad-process.json" h1
check "... named by its property" grep -q "cwd" "$TEST_TMP/err"
expect_exit 1 "exec: --tty --detach without a console socket is refused (tests/terminal.sh has the terminal)" oci exec --tty --detach h1 true
expect_exit 1 "exec into a missing container" oci exec nosuch true
expect_exit 1 "ps without a cgroup is an error" oci ps h1
expect_exit 0 "kill KILL" oci kill h1 KILL
check "kill: stopped" sh -c "for i in \$(seq 50); do [ \"\$('$OCIRUN' --root '$ROOT' state h1 | grep -c stopped)\" = 1 ] && exit 0; sleep 0.1; done; exit 1"
expect_exit 0 "delete" oci delete h1
check "delete: nothing left" test ! -e "$ROOT/containers/h1"

# process.terminal: the pty's master goes to the caller's console socket
# (tests/helpers/console-socket.py plays conmon's part); the slave is the
# process's stdio and controlling terminal, at consoleSize.
TB=$TEST_TMP/terminal-bundle
check "a bundle whose process wants a terminal" oci_bundle "$TB" busybox \
  'c["process"]["terminal"] = True; c["process"]["args"] = ["sh"]; c["process"]["consoleSize"] = {"height": 30, "width": 100}; del c["linux"]["resources"]'
expect_exit 0 "create --console-socket, start, type into the terminal" \
  python3 "$top_srcdir/tests/helpers/console-socket.py" "$TEST_TMP/console.sock" "$OCIRUN" "$ROOT" t1 \
  'echo "[$((6*7))] [$(tty)] [$(stty size)]"; exit 5' --unsafe-no-cgroup --bundle "$TB"
check "the caller received a terminal" grep -q "received a terminal: True" "$TEST_TMP/out"
check "the shell reads the keys and runs on the container's /dev/pts/0 at 30x100" \
  grep -q "\[42\] \[/dev/pts/0\] \[30 100\]" "$TEST_TMP/out"
check "the container stops when its shell exits" \
  sh -c "for i in \$(seq 50); do '$OCIRUN' --root '$ROOT' state t1 | grep -q stopped && exit 0; sleep 0.1; done; exit 1"
expect_exit 0 "delete the terminal's container" oci delete t1
expect_exit 1 "process.terminal without --console-socket is refused" \
  oci create --unsafe-no-cgroup --bundle "$TB" t2 </dev/null
check "... naming --console-socket" grep -q "console-socket is required" "$TEST_TMP/err"
check "... and leaves no container" test ! -e "$ROOT/containers/t2"
expect_exit 1 "--console-socket without process.terminal is refused" \
  oci create --unsafe-no-cgroup --bundle "$CB" --console-socket "$TEST_TMP/none.sock" t3 </dev/null
check "... and leaves no container" test ! -e "$ROOT/containers/t3"

# --- a live `ocirun run --name` is no OCI container: every verb refuses it ---
# Before, state/kill/... said "does not exist" while exec joined the run,
# and `delete --force web` exited 0 doing nothing while the run went on.
m_web=3${$}1
"$OCIRUN" --root "$ROOT" image import "oci:$TEST_IMAGES/busybox:busybox:latest" >/dev/null 2>&1 ||
  not_ok "import busybox for the live run"
"$OCIRUN" --root "$ROOT" run --unsafe-no-cgroup --timeout 600 --name web busybox:latest sleep "$m_web" \
  >"$TEST_TMP/run.out" 2>"$TEST_TMP/run.err" &
runner=$!
for _ in $(seq 600); do
  python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["container_pid"] > 0' \
    "$ROOT/run/web.json" 2>/dev/null && break
  sleep 0.1
done
run_alive() { pgrep -x -f "sleep $m_web" >/dev/null && kill -0 $runner 2>/dev/null; }
check "the live run 'web' started" run_alive
expect_exit 0 "exec web works (the control: the name is a live run)" oci exec web true
for verb in state start kill delete "delete --force" pause resume ps "update --memory 64m"; do
  # shellcheck disable=SC2086 # the verb's own words
  expect_exit 1 "$verb web: refused (exit 1)" oci $verb web
  grep -qF "'web' is not an OCI container but a live run ('ocirun run --name web', runner pid $runner)" "$TEST_TMP/err" &&
    grep -qF "kill -TERM $runner" "$TEST_TMP/err" && grep -qF "ocirun exec web CMD" "$TEST_TMP/err" &&
    ok "$verb web: the run is named, with its runner to signal and exec" ||
    { not_ok "$verb web: the run is named, with its runner to signal and exec"; show; }
  check "$verb web: the run goes on" run_alive
done
check "no OCI container was made of it" test ! -e "$ROOT/containers/web"
kill -TERM $runner
wait $runner
check "the run ends when its runner is signalled, as the message says (exit 143)" test $? -eq 143
expect_exit 0 "once the run is gone, delete --force web is runc's 'make sure it is gone'" oci delete --force web
expect_exit 1 "... and state web says it does not exist" oci state web
check "... naming it" grep -q "container 'web' does not exist" "$TEST_TMP/err"

tap_done
