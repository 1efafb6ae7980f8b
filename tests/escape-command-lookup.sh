#!/bin/bash
# The command lookup, which runs with the runtime's credentials after
# pivot_root (open_command, child_find_command) and execs by fd: a
# directory the user may not search, and a path relative to the working
# directory, must keep the command out of reach as the kernel would. Each
# attack first shows its probe can see the hole (a positive control), then
# that ocirun refuses it. Host only, --unsafe-no-cgroup.
. "$top_srcdir/tests/lib.sh"

needs_root "escape-command-lookup needs root"

ROOT=$OCIRUN_ROOT

# --- each case's bundle: sleeper_bundle DIR PYTHON (tests/lib.sh) ---
sleeper_bundle "$TEST_TMP/base" || { not_ok "a busybox bundle"; tap_done; exit 1; }
# run_to_end DIR ID: create and start, wait (10 s at most) for the program to
# end, print what it wrote (create's and start's errors too), remove it.
run_to_end() {
  local i
  {
    oci create --unsafe-no-cgroup --bundle "$1" "$2" </dev/null >"$1/out" 2>&1 &&
      oci start "$2" >>"$1/out" 2>&1 &&
      for i in $(seq 50); do
        [ "$(status_of "$2")" = stopped ] && break
        sleep 0.2
      done
  } 2>/dev/null
  oci delete --force "$2" >/dev/null 2>&1
  cat "$1/out"
}

# ==== 1. the command lookup runs as root, the exec is by fd ====
# child_find_command opens the command O_PATH with the runtime's
# credentials (root, every capability), and exec_stub_exec execs that fd:
# execveat(fd, "", AT_EMPTY_PATH) checks only the file's own execute bit,
# never search permission on the directories that led to it. A workload
# of uid 1000 whose image keeps a program in a root-only directory (0700)
# must not be able to run it; the kernel refuses that to the same uid by
# path.
SB=$TEST_TMP/secret
check "a bundle whose /secret is 0700 root, holding an executable shell (0755)" \
  sleeper_bundle "$SB" 'c["process"]["user"] = {"uid": 1000, "gid": 1000}'
mkdir -p "$SB/rootfs/secret" && cp "$SB/rootfs/bin/busybox" "$SB/rootfs/secret/sh" &&
  chmod 0755 "$SB/rootfs/secret/sh" && chown 0:0 "$SB/rootfs/secret" && chmod 0700 "$SB/rootfs/secret"
cfg() { python3 - "$SB/config.json" "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(c, open(sys.argv[1], "w"))
PY
}
cfg 'c["process"]["args"] = ["/bin/sh", "-c", "/secret/sh -c \"echo RAN-AS-\\$(id -u)\"; echo status=$?"]'
out=$(run_to_end "$SB" s0)
check "control: uid 1000 cannot run /secret/sh by path inside the container (the kernel's rule)" \
  sh -c 'echo "$1" | grep -q "status=126" && ! echo "$1" | grep -q RAN-AS' _ "$out"
[ "$out" = "${out#*status=126}" ] && echo "$out" | sed 's/^/# /'
cfg 'c["process"]["user"] = {"uid": 0, "gid": 0}; c["process"]["args"] = ["/secret/sh", "-c", "echo RAN-AS-$(id -u)"]'
out=$(run_to_end "$SB" s1)
check "control: root runs /secret/sh as the process" sh -c 'echo "$1" | grep -qx RAN-AS-0' _ "$out"
cfg 'c["process"]["user"] = {"uid": 1000, "gid": 1000}'
out=$(run_to_end "$SB" s2)
echo "$out" | sed 's/^/# /'
check "uid 1000 cannot have /secret/sh (0700 root directory) as its process.args[0]" \
  sh -c '! echo "$1" | grep -q RAN-AS' _ "$out"
cfg 'c["process"]["args"] = ["sh", "-c", "echo RAN-AS-$(id -u)"]; c["process"]["env"] = ["PATH=/secret"]'
out=$(run_to_end "$SB" s3)
echo "$out" | sed 's/^/# /'
check "nor through a PATH entry /secret" sh -c '! echo "$1" | grep -q RAN-AS' _ "$out"
# Supplementary groups: the runtime's own (root's) groups must not count
# either: /secret 0750 root:0, the user uid 1000 gid 1000 with no groups.
chmod 0750 "$SB/rootfs/secret"
cfg 'c["process"]["args"] = ["/secret/sh", "-c", "echo RAN-AS-$(id -u)"]; c["process"]["env"] = ["PATH=/bin"]'
out=$(run_to_end "$SB" s4)
check "nor with /secret 0750 root:0 (root's group 0 is not the user's)" \
  sh -c '! echo "$1" | grep -q RAN-AS' _ "$out"
cfg 'c["process"]["user"] = {"uid": 1000, "gid": 1000, "additionalGids": [0]}'
out=$(run_to_end "$SB" s5)
check "control: uid 1000 with additionalGids [0] runs it (group search permission)" \
  sh -c 'echo "$1" | grep -qx RAN-AS-1000' _ "$out"
# The capabilities count as the user's too: root without CAP_DAC_OVERRIDE
# and CAP_DAC_READ_SEARCH may not search a 0700 directory of uid 1000.
chown 1000:1000 "$SB/rootfs/secret" && chmod 0700 "$SB/rootfs/secret"
cfg 'c["process"]["user"] = {"uid": 0, "gid": 0}
for k in ("bounding", "effective", "permitted"):
    c["process"]["capabilities"][k] = [x for x in c["process"]["capabilities"][k] if x not in ("CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH")]
c["process"]["args"] = ["/bin/sh", "-c", "/secret/sh -c \"echo RAN-AS-\\$(id -u)\"; echo status=$?"]'
out=$(run_to_end "$SB" s6)
check "control: root without CAP_DAC_* cannot run /secret/sh (0700 uid 1000) by path" \
  sh -c 'echo "$1" | grep -q "status=126" && ! echo "$1" | grep -q RAN-AS' _ "$out"
[ "$out" = "${out#*status=126}" ] && echo "$out" | sed 's/^/# /'
cfg 'c["process"]["args"] = ["/secret/sh", "-c", "echo RAN-AS-$(id -u)"]'
out=$(run_to_end "$SB" s7)
check "nor as its process.args[0] (the lookup holds the user's effective set)" \
  sh -c '! echo "$1" | grep -q RAN-AS' _ "$out"
cfg 'c["process"]["capabilities"]["effective"].append("CAP_DAC_READ_SEARCH")
c["process"]["capabilities"]["permitted"].append("CAP_DAC_READ_SEARCH")
c["process"]["capabilities"]["bounding"].append("CAP_DAC_READ_SEARCH")'
out=$(run_to_end "$SB" s8)
check "control: with CAP_DAC_READ_SEARCH it does" sh -c 'echo "$1" | grep -qx RAN-AS-0' _ "$out"
# `ocirun exec -u 1000` into a running container goes through the same
# lookup (exec_join): same rule.
chown 0:0 "$SB/rootfs/secret" && chmod 0700 "$SB/rootfs/secret"
# (exec starts from the container's capabilities: without CAP_DAC_*, which
# would let uid 1000 search /secret before its exec, by path too)
cfg 'for k in ("bounding", "effective", "permitted"):
    c["process"]["capabilities"][k] = [x for x in c["process"]["capabilities"][k] if x not in ("CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH")]
c["process"]["args"] = ["sleep", "1000"]'
if oci create --unsafe-no-cgroup --bundle "$SB" s9 </dev/null >"$SB/out" 2>&1 && oci start s9; then
  out=$(oci exec s9 /secret/sh -c 'echo RAN-AS-$(id -u)' 2>&1)
  check "control: exec of /secret/sh as root runs" sh -c 'echo "$1" | grep -qx RAN-AS-0' _ "$out"
  out=$(oci exec -u 1000:1000 s9 /bin/sh -c '/secret/sh -c "echo RAN-AS-\$(id -u)"; echo status=$?' 2>&1)
  check "control: exec -u 1000 of /bin/sh cannot run /secret/sh by path" \
    sh -c 'echo "$1" | grep -q "status=126" && ! echo "$1" | grep -q RAN-AS' _ "$out"
  out=$(oci exec -u 1000:1000 s9 /secret/sh -c 'echo RAN-AS-$(id -u)' 2>&1)
  echo "$out" | sed 's/^/# /'
  check "exec -u 1000 /secret/sh is refused (exit 126, not run)" sh -c '! echo "$1" | grep -q RAN-AS' _ "$out"
else
  not_ok "create and start a container to exec into"
  sed 's/^/# /' "$SB/out"
fi
oci delete --force s9 >/dev/null 2>&1

# ==== 2. a command path relative to the working directory ====
# open_command resolves a path without '/' at its start from the working
# directory, without RESOLVE_IN_ROOT: after pivot_root the process's root
# is the container's, so '..' stops there. A program next to the rootfs on
# the host (bundle/evil) must stay out of reach of "../evil" and of a PATH
# entry "..".
RB=$TEST_TMP/relative
check "a bundle with a host program next to its rootfs" sleeper_bundle "$RB" 'c["process"]["cwd"] = "/"'
printf '#!/bin/sh\necho HOST-PROGRAM-RAN\n' >"$RB/evil" && chmod 0755 "$RB/evil"
check "control: ../evil from the rootfs runs it on the host" \
  sh -c "cd '$RB/rootfs' && ../evil | grep -qx HOST-PROGRAM-RAN"
python3 - "$RB/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["args"] = ["../evil"]
json.dump(c, open(sys.argv[1], "w"))
PY
out=$(run_to_end "$RB" r1)
check "process.args[0] '../evil' (cwd /) is not the host's program" \
  sh -c '! echo "$1" | grep -q HOST-PROGRAM-RAN' _ "$out"
python3 - "$RB/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["process"]["args"] = ["evil"]
c["process"]["env"] = ["PATH=..:../..:."]
json.dump(c, open(sys.argv[1], "w"))
PY
out=$(run_to_end "$RB" r2)
check "nor 'evil' through PATH=..:../..:." sh -c '! echo "$1" | grep -q HOST-PROGRAM-RAN' _ "$out"

tap_done
