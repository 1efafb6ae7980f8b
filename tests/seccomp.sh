#!/bin/bash
# The seccomp filter: `ocirun seccomp-profile` prints Docker's default profile
# as JSON, profile files are checked, and the compiled filter is enforced in a
# real process (tests/helpers/confine-exec applies it as the runtime does).
. "$top_srcdir/tests/lib.sh"

SYSPROBE="$top_builddir/tests/helpers/sysprobe"
CONFINE="$top_builddir/tests/helpers/confine-exec"

# has_line FILE LINE: the probe printed exactly that line.
has_line() { grep -qxF "$2" "$1"; }
# confined DESCRIPTION EXPECTED-LINE... -- CONFINE-OPTIONS... -- PROBES...
run_probe() {
  "$CONFINE" "$@" >"$TEST_TMP/probe" 2>"$TEST_TMP/probe.err"
}
expect_probe() {
  local line lines
  mapfile -t lines < <(without_int80 "$@")
  for line in "${lines[@]}"; do
    if has_line "$TEST_TMP/probe" "$line"; then ok "$probe_what: $line"; else
      not_ok "$probe_what: $line"
      sed 's/^/# /' "$TEST_TMP/probe" "$TEST_TMP/probe.err" | head -30
    fi
  done
}

# --- the printed default profile ---
expect_exit 0 "seccomp-profile exits 0" "$OCIRUN" seccomp-profile
cp "$TEST_TMP/out" "$TEST_TMP/default.json"
check "seccomp-profile prints valid JSON" python3 -m json.tool "$TEST_TMP/default.json" /dev/null

cat >"$TEST_TMP/check_default.py" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
def fail(msg):
    print(msg); sys.exit(1)
def plain_allow(r):
    return r["action"] == "SCMP_ACT_ALLOW" and not r.get("args") and not r.get("includes") and not r.get("excludes")
what = sys.argv[2]
rules = p["syscalls"]
unconditional = {n for r in rules if plain_allow(r) for n in r["names"]}
def rules_for(name):
    return [r for r in rules if name in r["names"]]
if what == "default-action":
    if p["defaultAction"] != "SCMP_ACT_ERRNO" or p.get("defaultErrnoRet") != 1:
        fail("default %s/%s" % (p["defaultAction"], p.get("defaultErrnoRet")))
elif what == "archmap":
    m = {e["architecture"]: e["subArchitectures"] for e in p["archMap"]}
    if sorted(m.get("SCMP_ARCH_X86_64", [])) != ["SCMP_ARCH_X32", "SCMP_ARCH_X86"]:
        fail("x86_64 archMap: %s" % m.get("SCMP_ARCH_X86_64"))
elif what == "allows":
    missing = [n for n in sys.argv[3:] if n not in unconditional]
    if missing: fail("not allowed: %s" % missing)
elif what == "denies":
    found = [n for n in sys.argv[3:] if n in unconditional]
    if found: fail("allowed unconditionally: %s" % found)
elif what == "absent":
    found = [n for n in sys.argv[3:] if rules_for(n)]
    if found: fail("mentioned: %s" % found)
elif what == "only-with-cap":
    cap = sys.argv[3]
    for n in sys.argv[4:]:
        allow = [r for r in rules_for(n) if r["action"] == "SCMP_ACT_ALLOW" and not r.get("args")]
        if not allow: fail("%s never allowed" % n)
        for r in allow:
            if cap not in r.get("includes", {}).get("caps", []):
                fail("%s allowed without %s: %s" % (n, cap, r))
elif what == "clone-rule":
    ok = [r for r in rules_for("clone") if r.get("args") == [
        {"index": 0, "value": 0x7E020000, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}]
        and "CAP_SYS_ADMIN" in r.get("excludes", {}).get("caps", [])]
    if not ok: fail("no namespace-flag clone rule")
elif what == "personality":
    vals = sorted(r["args"][0]["value"] for r in rules_for("personality"))
    if vals != [0, 8, 0x20000, 0x20008, 0xffffffff]: fail("personality values %s" % vals)
elif what == "resolved-arches":
    if p["architectures"] != ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"]:
        fail("architectures %s" % p["architectures"])
    if any("includes" in r or "excludes" in r for r in rules): fail("unresolved conditions")
elif what == "resolved-allows":
    allowed = {n for r in rules if r["action"] == "SCMP_ACT_ALLOW" for n in r["names"]}
    bad = [n for n in sys.argv[3:] if n not in allowed]
    if bad: fail("not allowed: %s" % bad)
elif what == "resolved-denies":
    allowed = {n for r in rules if r["action"] == "SCMP_ACT_ALLOW" for n in r["names"]}
    bad = [n for n in sys.argv[3:] if n in allowed]
    if bad: fail("allowed: %s" % bad)
elif what == "socketcall-enosys":
    r = rules_for("socketcall")
    if len(r) != 1 or r[0]["action"] != "SCMP_ACT_ERRNO" or r[0].get("errnoRet") != 38 or r[0].get("args"):
        fail("socketcall %s" % r)
elif what == "clone3-enosys":
    r = rules_for("clone3")
    if len(r) != 1 or r[0]["action"] != "SCMP_ACT_ERRNO" or r[0].get("errnoRet") != 38:
        fail("clone3 %s" % r)
else:
    fail("unknown check " + what)
PY
profile_check() { python3 "$TEST_TMP/check_default.py" "$@"; }
check "default action is SCMP_ACT_ERRNO with EPERM" profile_check "$TEST_TMP/default.json" default-action
check "archMap covers x86 and x32 on x86_64" profile_check "$TEST_TMP/default.json" archmap
check "read, write, execve, exit_group, openat, mmap allowed" \
  profile_check "$TEST_TMP/default.json" allows read write execve exit_group openat mmap futex
check "keyctl, add_key, request_key, unshare, mount, bpf, init_module, ptrace not unconditional" \
  profile_check "$TEST_TMP/default.json" denies keyctl add_key request_key unshare mount umount2 \
  bpf init_module finit_module kexec_load reboot setns clone clone3 personality ptrace socket
check "keyctl, add_key, request_key never mentioned" \
  profile_check "$TEST_TMP/default.json" absent keyctl add_key request_key kexec_load
check "mount, unshare, setns, clone only with CAP_SYS_ADMIN" \
  profile_check "$TEST_TMP/default.json" only-with-cap CAP_SYS_ADMIN mount unshare setns umount2
check "init_module only with CAP_SYS_MODULE" \
  profile_check "$TEST_TMP/default.json" only-with-cap CAP_SYS_MODULE init_module delete_module
check "clone without CAP_SYS_ADMIN masks the namespace flags" \
  profile_check "$TEST_TMP/default.json" clone-rule
check "personality allows only Docker's five values" profile_check "$TEST_TMP/default.json" personality
check "socketcall has one rule: ENOSYS, whatever its arguments" \
  profile_check "$TEST_TMP/default.json" socketcall-enosys

expect_exit 0 "seccomp-profile --cap-drop ALL exits 0" "$OCIRUN" seccomp-profile --cap-drop ALL
cp "$TEST_TMP/out" "$TEST_TMP/dropall.json"
check "resolved profile lists x86_64, x86, x32 and no conditions" \
  profile_check "$TEST_TMP/dropall.json" resolved-arches
check "resolved with no caps: mount, unshare, keyctl, setns, chroot not allowed" \
  profile_check "$TEST_TMP/dropall.json" resolved-denies mount unshare keyctl setns chroot bpf
check "resolved with no caps: clone3 fails with ENOSYS" profile_check "$TEST_TMP/dropall.json" clone3-enosys
expect_exit 0 "seccomp-profile --cap-add cap_sys_admin exits 0" "$OCIRUN" seccomp-profile --cap-add cap_sys_admin
cp "$TEST_TMP/out" "$TEST_TMP/sysadmin.json"
check "with CAP_SYS_ADMIN: mount, unshare, clone3 allowed" \
  profile_check "$TEST_TMP/sysadmin.json" resolved-allows mount unshare clone3 setns
expect_exit 2 "seccomp-profile rejects an unknown capability" "$OCIRUN" seccomp-profile --cap-add CAP_BOGUS
grep -q "CAP_BOGUS" "$TEST_TMP/err" && ok "the unknown capability is named" || not_ok "the unknown capability is named"
expect_exit 2 "seccomp-profile rejects extra arguments" "$OCIRUN" seccomp-profile extra

# The printed profile read back as a profile file gives the same filter:
# the parser and the printer agree on every field, conditions included.
for caps in "--cap-drop ALL" "--cap-add CHOWN" "--cap-add SYS_ADMIN --cap-add SYS_PTRACE"; do
  "$OCIRUN" seccomp-profile $caps >"$TEST_TMP/from-table.json" 2>&1
  "$OCIRUN" seccomp-profile $caps --profile "$TEST_TMP/default.json" >"$TEST_TMP/from-file.json" 2>&1
  check "printed default read back resolves the same ($caps)" \
    cmp -s "$TEST_TMP/from-table.json" "$TEST_TMP/from-file.json"
done
printf '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_WHATEVER"}]}\n' \
  >"$TEST_TMP/bad-cli.json"
expect_exit 1 "seccomp-profile --profile refuses a bad profile" "$OCIRUN" seccomp-profile --profile "$TEST_TMP/bad-cli.json"
grep -q "syscalls\[0\] (read): unknown action SCMP_ACT_WHATEVER" "$TEST_TMP/err" &&
  ok "the error names the entry and the action" || not_ok "the error names the entry and the action"

# --- enforcement in a process: default filter, no capabilities, nobody ---
PROBES="keyctl add_key unshare mount ptrace-parent raw-socket vsock inet-socket personality
  personality=0x400000 clone-newuser clone-thread clone3 int80-getpid int80-keyctl getcwd
  socket=0x100000028 socket=38 socket=1 int80-socketcall=40 int80-socketcall=38
  int80-socket=40 int80-socket=2 caps nnp seccomp-mode"
int80_probes "$SYSPROBE"
PROBES=$(without_int80 $PROBES)
probe_what="default filter, --cap-drop ALL, uid 65534"
run_probe --cap-drop ALL --user 65534:65534 -- "$SYSPROBE" $PROBES
expect_probe "keyctl errno=EPERM" "add_key errno=EPERM" "unshare errno=EPERM" "mount errno=EPERM" \
  "ptrace-parent errno=EPERM" "raw-socket errno=EPERM" "vsock errno=EPERM" \
  "clone-newuser errno=EPERM" "personality=0x400000 errno=EPERM" "clone3 errno=ENOSYS" \
  "int80-keyctl errno=EPERM" "personality errno=0" "inet-socket errno=0" "clone-thread errno=0" \
  "int80-getpid errno=0" "getcwd errno=0" "nnp NoNewPrivs=1" "seccomp-mode Seccomp=2" \
  "socket=0x100000028 errno=EPERM" "socket=38 errno=EPERM" "socket=1 errno=0" \
  "int80-socketcall=40 errno=ENOSYS" "int80-socketcall=38 errno=ENOSYS" \
  "int80-socket=40 errno=EPERM" "int80-socket=2 errno=0"

# The same process without the filter: proves seccomp is what denies above.
probe_what="same user and caps, --unconfined"
run_probe --unconfined --cap-drop ALL --user 65534:65534 -- "$SYSPROBE" $PROBES
expect_probe "keyctl errno=0" "unshare errno=0" "clone-newuser errno=0" "int80-keyctl errno=0" \
  "vsock errno=0" "seccomp-mode Seccomp=0" "socket=0x100000028 errno=0"
# The kernel's own answers, where the filter said EPERM or ENOSYS: AF_ALG
# exists (a socket) or is not built (EAFNOSUPPORT), whichever this kernel has.
for probe in socket=38 $(without_int80 int80-socketcall=40 int80-socketcall=38); do
  if grep -qxE "$probe errno=(0|EAFNOSUPPORT)" "$TEST_TMP/probe"; then
    ok "$probe_what: $probe reaches the kernel ($(grep "^$probe " "$TEST_TMP/probe"))"
  else
    not_ok "$probe_what: $probe reaches the kernel"
    sed 's/^/# /' "$TEST_TMP/probe" | head -30
  fi
done

# What denying socketcall costs: a 32-bit x86 program whose C library makes
# sockets only through socketcall gets ENOSYS and no fallback. Debian's i386
# glibc (libc6-i386) is one: built for kernels before 4.3, which had no
# direct socket calls on i386 (docs/confinement.md).
if [ "$HOST_INT80" = yes ] && [ -e /usr/lib32/libc.so.6 ] && [ -e /lib/ld-linux.so.2 ] &&
  gcc -m32 -O1 -fno-pie -no-pie -nostdlib -nostartfiles -fno-stack-protector \
    "$top_srcdir/tests/helpers/glibc32-socket.c" /usr/lib32/libc.so.6 \
    -Wl,-dynamic-linker,/lib/ld-linux.so.2 -o "$TEST_TMP/glibc32-socket" 2>"$TEST_TMP/gcc.err"; then
  probe_what="i386 glibc's socket(), default filter"
  run_probe --cap-drop ALL -- "$TEST_TMP/glibc32-socket"
  expect_probe "glibc32-socket errno=ENOSYS"
  probe_what="i386 glibc's socket(), --unconfined"
  run_probe --unconfined --cap-drop ALL -- "$TEST_TMP/glibc32-socket"
  expect_probe "glibc32-socket errno=0"
else
  skip "i386 glibc's socket() under the filter: needs IA32 emulation, libc6-i386 and gcc -m32"
fi

# Without no-new-privileges the filter is loaded while CAP_SYS_ADMIN is held.
probe_what="default filter, root, default caps, no no-new-privileges"
run_probe --no-nnp -- "$SYSPROBE" keyctl unshare nnp seccomp-mode
expect_probe "keyctl errno=EPERM" "unshare errno=EPERM" "nnp NoNewPrivs=0" "seccomp-mode Seccomp=2"

probe_what="default filter, --cap-add SYS_ADMIN"
run_probe --cap-add SYS_ADMIN -- "$SYSPROBE" unshare clone3 keyctl
expect_probe "unshare errno=0" "keyctl errno=EPERM"

# --- the cache of compiled programs (STATE_ROOT/seccomp-cache) ---
mkdir -p "$TEST_TMP/state"
probe_what="cached program, first run"
run_probe --cache-root "$TEST_TMP/state" --cap-drop ALL -- "$SYSPROBE" keyctl seccomp-mode
expect_probe "keyctl errno=EPERM" "seccomp-mode Seccomp=2"
cached=$(ls "$TEST_TMP/state/seccomp-cache" 2>/dev/null)
[ "$(echo "$cached" | grep -cxE '[0-9a-f]{64}')" -eq 1 ] && ok "one compiled program cached, named by its key" ||
  not_ok "one compiled program cached, named by its key (got: $cached)"
entry="$TEST_TMP/state/seccomp-cache/$cached"
cp "$entry" "$TEST_TMP/entry.orig"
# A flipped byte breaks the entry's digest: it is ignored and rewritten.
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[70] ^= 0xff; open(sys.argv[1], "wb").write(b)' "$entry"
probe_what="cached program, corrupted entry"
run_probe --cache-root "$TEST_TMP/state" --cap-drop ALL -- "$SYSPROBE" keyctl
expect_probe "keyctl errno=EPERM"
check "a corrupted entry is recompiled and replaced" cmp -s "$entry" "$TEST_TMP/entry.orig"
# An entry with a valid digest is what the next run loads: an allow-all
# program put there shows that a hit skips compilation (the cache lives
# under --root and is trusted like the rest of the store).
python3 - "$entry" <<'PY'
import hashlib, struct, sys
prog = struct.pack("<HBBI", 0x06, 0, 0, 0x7FFF0000)  # BPF_RET|BPF_K, SECCOMP_RET_ALLOW
open(sys.argv[1], "wb").write(hashlib.sha256(prog).hexdigest().encode() + b"\n" + prog)
PY
probe_what="cached program, replaced by allow-all"
run_probe --cache-root "$TEST_TMP/state" --cap-drop ALL -- "$SYSPROBE" keyctl seccomp-mode
expect_probe "keyctl errno=0" "seccomp-mode Seccomp=2"

# --- profile files ---
cat >"$TEST_TMP/getcwd.json" <<'J'
{
  "defaultAction": "SCMP_ACT_ALLOW",
  "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
  "syscalls": [
    {"names": ["getcwd"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
    {"names": ["personality"], "action": "SCMP_ACT_ERRNO", "errnoRet": 22,
     "args": [{"index": 0, "value": 4194304, "op": "SCMP_CMP_EQ"}]},
    {"names": ["keyctl"], "action": "SCMP_ACT_ERRNO", "includes": {"caps": ["CAP_SYS_ADMIN"]}},
    {"names": ["not_a_syscall_ocirun"], "action": "SCMP_ACT_ALLOW"}
  ]
}
J
probe_what="profile file: getcwd errnoRet 38, personality arg rule"
run_probe --profile "$TEST_TMP/getcwd.json" --cap-drop ALL --user 65534:65534 -- "$SYSPROBE" \
  getcwd personality=0x400000 personality keyctl seccomp-mode
expect_probe "getcwd errno=ENOSYS" "personality=0x400000 errno=EINVAL" "personality errno=0" \
  "keyctl errno=0" "seccomp-mode Seccomp=2"
printf '%s\n' '{"defaultAction": "SCMP_ACT_ALLOW", "flags": ["SECCOMP_FILTER_FLAG_LOG"],
  "syscalls": [{"names": ["getcwd"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}' >"$TEST_TMP/flags.json"
probe_what="profile file with flags"
run_probe --profile "$TEST_TMP/flags.json" --cap-drop ALL -- "$SYSPROBE" getcwd seccomp-mode
expect_probe "getcwd errno=ENOSYS" "seccomp-mode Seccomp=2"
probe_what="profile file: includes.caps applies with the capability"
run_probe --profile "$TEST_TMP/getcwd.json" --cap-add SYS_ADMIN -- "$SYSPROBE" keyctl
expect_probe "keyctl errno=EPERM"

# bad_profile NAME JSON WORD: rejected (exit 125), the error names WORD.
bad_profile() {
  printf '%s\n' "$2" >"$TEST_TMP/bad.json"
  expect_exit 125 "bad profile ($1) is refused" "$CONFINE" --profile "$TEST_TMP/bad.json" -- /bin/true
  if grep -qF -- "$3" "$TEST_TMP/err"; then ok "bad profile ($1): error names '$3'"; else
    not_ok "bad profile ($1): error names '$3'"
    sed 's/^/# /' "$TEST_TMP/err"
  fi
}
bad_profile "unknown action" '{"defaultAction": "SCMP_ACT_BOGUS"}' SCMP_ACT_BOGUS
bad_profile "unknown op" '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"],
  "action": "SCMP_ACT_ALLOW", "args": [{"index": 0, "value": 1, "op": "SCMP_CMP_ALMOST"}]}]}' SCMP_CMP_ALMOST
bad_profile "unknown name in a deny rule" '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
  {"names": ["kexec_lod"], "action": "SCMP_ACT_ERRNO"}]}' kexec_lod
bad_profile "unknown field" '{"defaultAction": "SCMP_ACT_ERRNO", "listenerPath": "/x"}' listenerPath
bad_profile "unknown architecture" '{"defaultAction": "SCMP_ACT_ERRNO",
  "architectures": ["SCMP_ARCH_Z80"]}' SCMP_ARCH_Z80
bad_profile "unknown capability" '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"],
  "action": "SCMP_ACT_ALLOW", "includes": {"caps": ["CAP_WIZARD"]}}]}' CAP_WIZARD
bad_profile "argument index" '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"],
  "action": "SCMP_ACT_ALLOW", "args": [{"index": 6, "value": 1, "op": "SCMP_CMP_EQ"}]}]}' "index above 5"
bad_profile "unknown flag" '{"defaultAction": "SCMP_ACT_ERRNO",
  "flags": ["SECCOMP_FILTER_FLAG_NEW_LISTENER"]}' SECCOMP_FILTER_FLAG_NEW_LISTENER
bad_profile "not JSON" '{"defaultAction": ' "not a JSON object"
expect_exit 125 "a missing profile file is refused" "$CONFINE" --profile "$TEST_TMP/nope.json" -- /bin/true
grep -q "nope.json" "$TEST_TMP/err" && ok "the missing file is named" || not_ok "the missing file is named"

# An archMap entry whose subArchitectures is null (moby's default writes
# that for riscv64) means none, as Docker reads it; x86_64's entry holds.
printf '{"defaultAction": "SCMP_ACT_ALLOW", "archMap": [
  {"architecture": "SCMP_ARCH_RISCV64", "subArchitectures": null},
  {"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86"]}],
  "syscalls": [{"names": ["keyctl"], "action": "SCMP_ACT_ERRNO"}]}\n' >"$TEST_TMP/null-subarches.json"
probe_what="archMap with subArchitectures null"
run_probe --profile "$TEST_TMP/null-subarches.json" -- "$SYSPROBE" $(without_int80 keyctl int80-keyctl)
expect_probe "keyctl errno=EPERM" "int80-keyctl errno=EPERM"

# A socket rule on AF_VSOCK beside a socketcall rule: libseccomp 2.5.4,
# with x32 and x86_64 in one filter, compiles a program where x86_64's
# rules answer the default. The builder refuses it; without x32 it holds.
vsock_profile() { # FILE ARCHES SECOND-RULE
  printf '{"defaultAction": "SCMP_ACT_ALLOW", "architectures": [%s], "syscalls": [
    {"names": ["socket"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": 40, "op": "SCMP_CMP_EQ"}]}%s]}\n' \
    "$2" "$3" >"$TEST_TMP/$1"
}
ALL_X86='"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"'
SOCKETCALL=', {"names": ["socketcall"], "action": "SCMP_ACT_ERRNO"}'
vsock_profile vsock-alone.json "$ALL_X86" ""
vsock_profile vsock-socketcall.json "$ALL_X86" "$SOCKETCALL"
vsock_profile vsock-socketcall-i386.json '"SCMP_ARCH_X86_64", "SCMP_ARCH_X86"' "$SOCKETCALL"
probe_what="socket(AF_VSOCK) rule alone (control)"
run_probe --profile "$TEST_TMP/vsock-alone.json" -- "$SYSPROBE" $(without_int80 socket=40 int80-socket=40 socket=2)
expect_probe "socket=40 errno=EPERM" "int80-socket=40 errno=EPERM" "socket=2 errno=0"
expect_exit 125 "socket(AF_VSOCK) rule beside a socketcall rule, x86_64+x86+x32: refused, not loaded weaker" \
  "$CONFINE" --profile "$TEST_TMP/vsock-socketcall.json" -- "$SYSPROBE" socket=40
if grep -qF "syscalls[0] (socket, SCMP_ACT_ERRNO(1)) does not hold on SCMP_ARCH_X86_64" "$TEST_TMP/err"; then
  ok "the refusal names the rule and the architecture"
else
  not_ok "the refusal names the rule and the architecture"
  sed 's/^/# /' "$TEST_TMP/out" "$TEST_TMP/err" | head
fi
probe_what="socket(AF_VSOCK) rule beside a socketcall rule, x86_64+x86"
run_probe --profile "$TEST_TMP/vsock-socketcall-i386.json" -- "$SYSPROBE" $(without_int80 socket=40 int80-socket=40)
expect_probe "socket=40 errno=EPERM" "int80-socket=40 errno=EPERM"

tap_done
