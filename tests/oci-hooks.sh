#!/bin/bash
# The OCI hooks at their places (runtime.md "Lifecycle", config.md
# "POSIX-platform Hooks"), as the hooks themselves see it: each appends to
# a sequence file its name, its mount namespace, whether the host's tree and
# the container's root are visible, whether the container's process has
# pivoted yet, and its capabilities, and keeps its stdin; the user program
# appends its own line. Then failures (create and start fail naming the
# hook, nothing is left, poststop runs), a timeout (the hook's process group
# is killed), and the descriptors a hook gets. On the host without a cgroup
# (--unsafe-no-cgroup); tests/guest/oci-hooks.sh runs it with one
# (OCI_HOOKS_CGROUP=1) and checks the slices are gone too.
. "$top_srcdir/tests/lib.sh"

ROOT=$OCIRUN_ROOT
PARENT=/sys/fs/cgroup/ocirun
if [ "${OCI_HOOKS_CGROUP:-0}" = 1 ]; then NO_CGROUP=(); else NO_CGROUP=(--unsafe-no-cgroup); fi
create() { oci create "${NO_CGROUP[@]}" "$@" </dev/null; }
needs_root "the OCI hooks need root"
"$top_srcdir/scripts/make-test-images" busybox "$TEST_IMAGES" >/dev/null 2>&1

SHARED=$TEST_TMP/shared
HOSTMARK=$TEST_TMP/host-only-marker
mkdir -p "$SHARED" && touch "$HOSTMARK"
ROOTFS=$TEST_TMP/rootfs
# The hook: NAME SEQ OUT HOSTMARK. It is a file of the host (for every kind
# but startContainer) and of the rootfs at another path (startContainer),
# so which tree a path resolved in shows.
HOOK=$TEST_TMP/host-hook.sh
cat >"$HOOK" <<'SH'
#!/bin/sh
name=$1 seq=$2 out=$3 hostmark=$4
cat >"$out"
host=n; [ -e "$hostmark" ] && host=y
root=n; [ -e /rootfs-marker ] && root=y
pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$out")
pivoted=-; [ "$pid" != 1 ] && [ -n "$pid" ] && { pivoted=y; [ -e "/proc/$pid/root$hostmark" ] && pivoted=n; }
# every descriptor above 2 but the shell's own (its script, a listing)
fds=$(for f in /proc/self/fd/*; do
  n=${f##*/}
  [ "$n" -gt 2 ] && t=$(readlink "/proc/self/fd/$n") || continue
  case $t in */fd | *hook.sh) continue ;; esac
  printf '%s=%s,' "$n" "$t"
done)
echo "$name mnt=$(readlink /proc/self/ns/mnt) host=$host root=$root pivoted=$pivoted caps=$(sed -n 's/^CapEff:\t//p' /proc/self/status) fds=$fds" >>"$seq"
SH
chmod 755 "$HOOK"
mkdir -p "$ROOTFS" && busybox_rootfs "$ROOTFS"
touch "$ROOTFS/rootfs-marker"
cp "$HOOK" "$ROOTFS/start-hook.sh"

# bundle DIR PYTHON: `ocirun spec`'s config.json on the shared rootfs
# (writable), $SHARED bound at /shared, PYTHON applied (c is the document,
# hook(name, path) one hook entry).
bundle() {
  oci_bundle "$1" "$ROOTFS" 'shared, hostmark, hook_path = args
c["root"]["readonly"] = False
c["linux"].pop("resources", None)
c["mounts"].append({"destination": "/shared", "type": "bind", "source": shared, "options": ["rbind", "rw"]})
c["annotations"] = {"org.example.hooks": "yes"}
def hook(name, path=hook_path, seq=shared + "/seq", out=shared):
    return {"path": path, "args": ["hook", name, seq, out + "/" + name + ".json", hostmark]}
'"$2" "$SHARED" "$HOSTMARK" "$HOOK"
}
line_of() { grep "^$1 " "$SHARED/seq"; }
field() { line_of "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
state_is() {
  python3 - "$SHARED/$1.json" "$2" "$3" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
want = {"id": "h1", "status": sys.argv[2], "bundle": sys.argv[3].split("|")[1],
        "annotations": {"org.example.hooks": "yes"}}
pid = sys.argv[3].split("|")[0]
for k, v in want.items():
    assert s.get(k) == v, (k, s.get(k), v)
assert (s.get("pid") == int(pid)) if pid != "-" else ("pid" not in s or s["pid"] == 0), (s.get("pid"), pid)
PY
}
# nothing_left_of ID PROGRAM_MARKER: no state of container ID, no process
# `sleep PROGRAM_MARKER` and (with a cgroup) no slice.
nothing_left_of() {
  [ ! -e "$ROOT/containers/$1" ] && ! pgrep -f "sleep $2" >/dev/null &&
    { [ "${OCI_HOOKS_CGROUP:-0}" != 1 ] || [ ! -e "$PARENT/$1" ]; }
}

# --- the six, in order ---
B=$TEST_TMP/bundle
check "a bundle with every kind of hook (startContainer's path only in the rootfs)" bundle "$B" '
c["process"]["args"] = ["sh", "-c", "echo \"program caps=$(sed -n \"s/^CapEff:\t//p\" /proc/self/status)\" >>/shared/seq; exec sleep 4101"]
c["hooks"] = {k: [hook(k)] for k in ("prestart", "createRuntime", "createContainer", "poststart", "poststop")}
c["hooks"]["startContainer"] = [hook("startContainer", "/start-hook.sh", "/shared/seq", "/shared")]'
expect_exit 0 "create" create --bundle "$B" --pid-file "$TEST_TMP/pid" h1 7>"$TEST_TMP/fd7"
pid=$(cat "$TEST_TMP/pid" 2>/dev/null)
host_mnt=$(readlink /proc/self/ns/mnt)
ctr_mnt=$(readlink "/proc/${pid:-none}/ns/mnt")
check "create ran prestart, createRuntime, createContainer in that order, and nothing else" \
  test "$(cut -d' ' -f1 "$SHARED/seq" 2>/dev/null | tr '\n' ' ')" = "prestart createRuntime createContainer "
for k in prestart createRuntime; do
  check "$k: in the host's mount namespace" test "$(field $k mnt)" = "$host_mnt"
  check "$k: the container's process had not pivoted yet (its root was still the host's)" \
    test "$(field $k pivoted)" = n
  check "$k: the state on stdin (created, the pid in the host's namespace, id, bundle, annotations)" \
    state_is $k created "$pid|$B"
done
check "createContainer: in the container's mount namespace" test "$(field createContainer mnt)" = "$ctr_mnt" -a "$ctr_mnt" != "$host_mnt"
check "createContainer: the host's tree still visible (before pivot_root), its path the host's" \
  test "$(field createContainer host)" = y -a "$(field createContainer root)" = n
check "createContainer: the state on stdin (created, the pid as the container sees it: 1)" \
  state_is createContainer created "1|$B"
check "the user program has not run" sh -c "! grep -q '^program' '$SHARED/seq'"

expect_exit 0 "start" oci start h1 7>"$TEST_TMP/fd7"
for _ in $(seq 50); do grep -q '^program' "$SHARED/seq" && break; sleep 0.1; done
check "start: startContainer, then the program (poststart after the exec)" \
  sh -c "grep -v '^poststart' '$SHARED/seq' | cut -d' ' -f1 | tr '\n' ' ' | grep -qx 'prestart createRuntime createContainer startContainer program '"
check "startContainer: in the container's mount namespace" test "$(field startContainer mnt)" = "$ctr_mnt"
check "startContainer: inside the container's root (its path only there; the host's tree not visible)" \
  test "$(field startContainer root)" = y -a "$(field startContainer host)" = n
check "startContainer: the workload's capabilities, not the runtime's" \
  test -n "$(field startContainer caps)" -a "$(field startContainer caps)" = "$(field program caps)"
check "... while createContainer had the full set (control: they differ)" \
  test "$(field createContainer caps)" != "$(field program caps)"
check "startContainer: the state on stdin (created, pid 1)" state_is startContainer created "1|$B"
check "poststart: ran, with the state running" state_is poststart running "$pid|$B"
check "poststart: in the host's mount namespace" test "$(field poststart mnt)" = "$host_mnt"
for k in prestart createRuntime createContainer startContainer poststart; do
  check "$k: no descriptor but 0, 1 and 2 (create and start were given a 7th)" \
    test -n "$(line_of $k)" -a -z "$(field $k fds)"
done
check "control: the hook does list a descriptor it inherits" sh -c \
  "'$HOOK' control '$TEST_TMP/control-seq' '$TEST_TMP/control.json' none </dev/null 7>'$TEST_TMP/fd7' && grep -q '[=,]7=$TEST_TMP/fd7,' '$TEST_TMP/control-seq'"
expect_exit 0 "delete --force" oci delete --force h1
check "poststop: ran after the container was gone, with the state stopped" state_is poststop stopped "-|$B"
check "nothing is left" nothing_left_of h1 4101

# --- failures ---
# fail KIND: a bundle whose KIND hook (the second of its kind) exits 3,
# with a poststop hook, whose program would leave a marker.
fail_bundle() {
  bundle "$1" '
c["process"]["args"] = ["sh", "-c", "touch /shared/program-ran; exec sleep 4102"]
bad = {"path": "/bin/sh", "args": ["sh", "-c", "echo the hook says no >&2; exit 3"]}
c["hooks"] = {"'"$2"'": [hook("'"$2"'", *(("/start-hook.sh", "/shared/seq", "/shared") if "'"$2"'" == "startContainer" else ())), bad],
              "poststop": [hook("poststop")]}'
}
for kind in prestart createRuntime createContainer; do
  rm -f "$SHARED"/*
  check "a bundle whose second $kind hook fails" fail_bundle "$TEST_TMP/fail-$kind" $kind
  expect_exit 1 "create fails" create --bundle "$TEST_TMP/fail-$kind" h1
  check "... naming the hook and its status" grep -q "$kind\[1\] (/bin/sh) exited with status 3" "$TEST_TMP/err"
  check "... after the first $kind hook ran" test -s "$SHARED/$kind.json"
  check "... leaving nothing (no state, no process, no slice)" nothing_left_of h1 4102
  check "... and the poststop hook ran (the spec's steps 12 and 13)" state_is poststop stopped "-|$TEST_TMP/fail-$kind"
  check "... the program never ran" test ! -e "$SHARED/program-ran"
done
rm -f "$SHARED"/*
check "a bundle whose second startContainer hook fails" fail_bundle "$TEST_TMP/fail-start" startContainer
expect_exit 0 "create" create --bundle "$TEST_TMP/fail-start" --pid-file "$TEST_TMP/pid" h1
pid=$(cat "$TEST_TMP/pid" 2>/dev/null)
expect_exit 1 "start fails" oci start h1
check "... naming the hook and its status" grep -q "startContainer\[1\] (/bin/sh) exited with status 3" "$TEST_TMP/err"
check "... the program never ran" test ! -e "$SHARED/program-ran"
check "... the container's process is gone" process_gone "${pid:-none}"
check "... leaving nothing (no state, no process, no slice)" nothing_left_of h1 4102
check "... and the poststop hook ran" state_is poststop stopped "-|$TEST_TMP/fail-start"
expect_exit 1 "... state: it does not exist" oci state h1

rm -f "$SHARED"/*
check "a bundle whose startContainer hook is missing from the container's root" bundle "$TEST_TMP/missing" '
c["process"]["args"] = ["sleep", "4103"]
c["hooks"] = {"startContainer": [{"path": "/no/such/hook"}]}'
expect_exit 0 "create" create --bundle "$TEST_TMP/missing" h1
expect_exit 1 "start fails" oci start h1
check "... saying the hook's program is not there" grep -q "startContainer\[0\]: open '/no/such/hook': No such file" "$TEST_TMP/err"
check "... leaving nothing" nothing_left_of h1 4103

# --- timeouts ---
rm -f "$SHARED"/*
# 5 s: time enough for the hook to start its child under the guest's TCG
check "a bundle whose createRuntime hook starts a child and outlives its timeout (5 s)" bundle "$TEST_TMP/slow" '
c["process"]["args"] = ["sleep", "4104"]
c["hooks"] = {"createRuntime": [{"path": "/bin/sh", "timeout": 5, "args": ["sh", "-c", "sleep 4105 & echo $! >" + shared + "/child; exec sleep 4106"]}]}'
start_s=$(date +%s)
expect_exit 1 "create fails" create --bundle "$TEST_TMP/slow" h1
check "... at the timeout, not at the hook's end" test $(($(date +%s) - start_s)) -lt 60
check "... saying so" grep -q "createRuntime\[0\] (/bin/sh) killed after its timeout of 5 s" "$TEST_TMP/err"
check "... the hook had started its child (its pid recorded)" test -s "$SHARED/child"
check "... which was killed with it (its process group)" process_gone "$(cat "$SHARED/child" 2>/dev/null || echo none)"
check "... leaving nothing" nothing_left_of h1 4104
rm -f "$SHARED"/*
check "a bundle whose startContainer hook outlives its timeout" bundle "$TEST_TMP/slow-start" '
c["process"]["args"] = ["sleep", "4107"]
c["hooks"] = {"startContainer": [{"path": "/bin/sh", "timeout": 1, "args": ["sh", "-c", "exec sleep 4108"]}]}'
expect_exit 0 "create" create --bundle "$TEST_TMP/slow-start" h1
expect_exit 1 "start fails" oci start h1
check "... saying so" grep -q "startContainer\[0\] (/bin/sh) killed after its timeout of 1 s" "$TEST_TMP/err"
check "... leaving nothing" nothing_left_of h1 4107

tap_done
