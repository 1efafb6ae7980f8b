#!/bin/bash
# In the guest: rootless runs with real limits. An ordinary uid gets a cgroup
# subtree delegated the way systemd delegates user@UID.service (the
# directory, its cgroup.procs, cgroup.subtree_control and cgroup.threads
# chowned to the user), and its shell sits in a leaf of it; ocirun must put
# the run's slice beside that leaf, with the limits, and remove it. Without
# a delegation, or with a parent that does not hold the caller, nothing runs.
. "$top_srcdir/tests/lib.sh"

USER_ID=4242
cg=/sys/fs/cgroup/rootless-test
chmod 0755 "$TEST_TMP"
store="$TEST_TMP/store"
mkdir "$store"
chown $USER_ID:$USER_ID "$store"
cp -r "$TEST_IMAGES/busybox" "$TEST_TMP/layout"
chmod -R a+rX "$TEST_TMP/layout"
# in_cgroup DIR COMMAND...: COMMAND as the user, its shell moved into DIR first
# (moving it there is root's part of the delegation).
in_cgroup() {
  local dir=$1
  shift
  sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$dir" \
    setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups env -i PATH="$PATH" \
    OCIRUN_ROOT="$store" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
}
delegate() { # delegate DIR: DIR and its leaf session/, owned by the user
  mkdir -p "$1/session" &&
    chown $USER_ID:$USER_ID "$1" "$1/cgroup.procs" "$1/cgroup.subtree_control" "$1/cgroup.threads"
}
# delegated_left_behind WHAT: no slice in the delegated cgroups, no run state
# of the user's store, no process of the user.
delegated_left_behind() {
  left_behind "$1" "$(find "$cg" "$cg-other" -mindepth 1 -maxdepth 1 -type d ! -name session 2>/dev/null)" \
    "$(run_leftovers "$store" | grep -v '^seccomp')" "$(pgrep -u $USER_ID)"
}
cleanup() {
  for d in "$cg" "$cg-other" "$cg-plain"; do
    [ -d "$d/session" ] && echo $$ >/sys/fs/cgroup/cgroup.procs
    rmdir "$d/session" "$d" 2>/dev/null
  done
  rm -rf "$TEST_TMP"
}
trap cleanup EXIT

grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
  echo "+memory +cpu +pids" >/sys/fs/cgroup/cgroup.subtree_control
delegate "$cg" && ok "delegate $cg to uid $USER_ID" || not_ok "delegate $cg to uid $USER_ID"
in_cgroup "$cg/session" "$OCIRUN" image import "oci:$TEST_TMP/layout:busybox:latest"
verdict "import busybox as the user" [ $? -eq 0 ]
img=busybox:latest

# Debian's kernel can forbid unprivileged user namespaces: then the error
# must say so, and nothing may be left.
knob=/proc/sys/kernel/unprivileged_userns_clone
if [ -w "$knob" ]; then
  echo 0 >"$knob"
  in_cgroup /sys/fs/cgroup "$OCIRUN" run --unsafe-no-cgroup busybox:latest true
  verdict "user namespaces forbidden: refused with 125" [ $? -eq 125 ]
  verdict "user namespaces forbidden: the error names the sysctl" \
    err_matches "unprivileged user namespaces.*kernel.unprivileged_userns_clone"
  echo 1 >"$knob" # the guest is ours: allowed for the rest
fi


# --- the limits, in a slice beside the caller's leaf ---
in_cgroup "$cg/session" "$OCIRUN" run --memory 128m --memory-swap 256m --cpus 0.5 --pids-limit 32 \
  "$img" sh -c 'cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory.swap.max \
    /sys/fs/cgroup/pids.max /sys/fs/cgroup/cpu.max /proc/self/uid_map; id -u'
verdict "rootless limits: memory 128m, swap total 256m, pids 32, cpus 0.5, uid 0 = $USER_ID" \
  [ "$(tr -s ' \n' ' ' <"$TEST_TMP/out")" = "134217728 134217728 32 50000 100000 0 $USER_ID 1 0 " ]
delegated_left_behind "rootless limits"

in_cgroup "$cg/session" "$OCIRUN" run --memory 128m --memory-swap 128m "$img" \
  dd if=/dev/zero of=/dev/null bs=200M count=1
status=$?
verdict "rootless memory: 200 MiB under 128m exits 137 (got $status)" [ $status -eq 137 ]
verdict "rootless memory: the OOM kill is reported" err_has_literal "out of memory"
delegated_left_behind "rootless memory"

in_cgroup "$cg/session" "$OCIRUN" run --pids-limit 32 "$img" \
  sh -c 'i=0; while [ $i -lt 40 ]; do sleep 1000 & i=$((i + 1)); done; echo forked all'
verdict "rootless pids: forking past 32 fails with EAGAIN" \
  grep -qE "can't fork|Resource temporarily unavailable" "$TEST_TMP/err" "$TEST_TMP/out"
delegated_left_behind "rootless pids"

in_cgroup "$cg/session" "$OCIRUN" run --timeout 3 "$img" sh -c 'sleep 1000 & sleep 1000'
status=$?
verdict "rootless deadline: exits 124 (got $status)" [ $status -eq 124 ]
delegated_left_behind "rootless deadline"

# --- fail closed: no delegation, or a parent that does not hold the caller ---
mkdir -p "$cg-plain/session"
in_cgroup "$cg-plain/session" "$OCIRUN" run "$img" true
status=$?
verdict "no delegation: refused with 125 (got $status)" [ $status -eq 125 ]
verdict "no delegation: the error says what is missing and how to get it" \
  err_has_literal "rootless: no delegated cgroup v2 subtree: '$cg-plain' is not writable by uid $USER_ID"
verdict "no delegation: no slice was made" [ -z "$(find "$cg-plain" -mindepth 1 -maxdepth 1 -type d ! -name session)" ]
delegate "$cg-other"
in_cgroup "$cg/session" "$OCIRUN" run --cgroup-parent "$cg-other" "$img" true
status=$?
verdict "a delegated parent that does not hold the caller: refused with 125 (got $status)" [ $status -eq 125 ]
verdict "and the error says why" err_has_literal "is not below the cgroup parent '$cg-other'"
delegated_left_behind "refusals"
in_cgroup "$cg-plain/session" "$OCIRUN" run --unsafe-no-cgroup "$img" true
verdict "no delegation, with the loud opt-out: runs" [ $? -eq 0 ]
delegated_left_behind "opt-out"

# --- the recipe's probe, rootless, with ids from a subordinate range ---
# (--user 65534:65534 needs one). The range is granted in a mount namespace
# of its own, by binding test copies of the account files over the guest's.
if [ ! -d "$TEST_IMAGES/python" ] || [ ! -e /etc/subuid ] || ! command -v newuidmap >/dev/null; then
  skip "rootless probe: needs the python test image, /etc/subuid and newuidmap"
  tap_done
  exit 0
fi
cp /etc/passwd "$TEST_TMP/passwd"
echo "ocirun-rl:x:$USER_ID:$USER_ID::/nonexistent:/bin/sh" >>"$TEST_TMP/passwd"
echo "ocirun-rl:300000:65536" >"$TEST_TMP/subuid"
echo "ocirun-rl:300000:65536" >"$TEST_TMP/subgid"
cat >"$TEST_TMP/as-range-user" <<SCRIPT
#!/bin/sh
# as-range-user CGROUP COMMAND...: in CGROUP, with the range granted, as uid $USER_ID
echo \$\$ >"\$1/cgroup.procs" || exit 125
shift
mount --bind "$TEST_TMP/passwd" /etc/passwd && mount --bind "$TEST_TMP/subuid" /etc/subuid &&
  mount --bind "$TEST_TMP/subgid" /etc/subgid || exit 125
exec setpriv --reuid=$USER_ID --regid=$USER_ID --clear-groups env -i PATH="$PATH" \
  OCIRUN_ROOT="$store" "\$@"
SCRIPT
chmod 0755 "$TEST_TMP/as-range-user"
cp -r "$TEST_IMAGES/python" "$TEST_TMP/python"
chmod -R a+rX "$TEST_TMP/python"
as_range_user() { unshare -m "$TEST_TMP/as-range-user" "$cg/session" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"; }
as_range_user "$OCIRUN" image import "oci:$TEST_TMP/python:python:3.13-slim"
verdict "rootless probe: import the python image as the user" [ $? -eq 0 ]
mkdir "$TEST_TMP/artifacts"
chown $USER_ID "$TEST_TMP/artifacts"
as_range_user "$OCIRUN" probe -q -o "$TEST_TMP/artifacts/rootless.json" --backend direct --timeout 900 \
  python:3.13-slim
status=$?
verdict "rootless probe: ocirun probe --backend direct exits 0 (got $status)" [ $status -eq 0 ]
json_true() { # json_true EXPR DESCRIPTION
  if python3 -c 'import json, sys; a = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
    "$TEST_TMP/artifacts/rootless.json" "$1" 2>"$TEST_TMP/err"; then ok "rootless probe: $2"; else
    not_ok "rootless probe: $2"
    python3 -c 'import json, sys; a = json.load(open(sys.argv[1])); print("# failed:", a.get("failed_checks"))' \
      "$TEST_TMP/artifacts/rootless.json" 2>/dev/null
  fi
}
json_true "a['passed'] is True and a['failed_checks'] == [] and a['teardown_verified'] is True" \
  "every check of the recipe passed and teardown was verified"
json_true "a['engine']['rootless'] is True and a['engine']['cgroup_version'] == 2" \
  "the artifact says rootless, cgroup v2"
if "$top_srcdir/scripts/validate-artifact" "$top_srcdir/docs/artifact.schema.json" \
  "$TEST_TMP/artifacts/rootless.json" >"$TEST_TMP/err" 2>&1; then
  ok "rootless probe: the artifact validates against the schema"
else
  not_ok "rootless probe: the artifact validates against the schema"
  show
fi
delegated_left_behind "rootless probe"
tap_done
