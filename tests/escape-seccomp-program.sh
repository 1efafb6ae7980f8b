#!/bin/bash
# A seccomp profile loaded weaker than it says, each class refused by the
# program check (seccomp/build.c program_check) before anything runs.
#
# Rule precedence: in libseccomp a rule without arguments on a call
# overrides a rule with them on the same call, whatever their order and
# actions ("allow getcwd" beside "getcwd ENOSYS if arg1 >= 0" allowed every
# getcwd); rule_check refuses a rule with arguments that gives way to a
# looser one. The control: the rule alone denies.
#
# Wide values: on a 32-bit ABI libseccomp compares an argument's low 32
# bits only, so a rule on a value above 32 bits matched calls it does not
# name; rule_check refuses it there. The control: the default profile
# denies i386's personality(READ_IMPLIES_EXEC) and allows PER_LINUX32.
#
# i386's multiplexers, which a 64-bit process reaches with int 0x80:
# socketcall(call, args) takes a socket call's arguments from memory, so
# libseccomp compiles a rule with arguments on socket() into
# socketcall(SYS_SOCKET) without them (a family allow-list allows every
# family there); ipc(call, ...) runs call & 0xffff while libseccomp
# compares all of call, so a rule on msgget misses ipc(2 << 16 | MSGGET).
# multiplexer_check refuses such a profile unless it decides the
# multiplexer with a rule of its own. Each control runs a profile that
# allows the multiplexer outright, where the same call gets through.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "escape-seccomp-program"
sysprobe_image multiplexers || { not_ok "an image with sysprobe"; tap_done; exit 1; }

run() { "$OCIRUN" run --unsafe-no-cgroup "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"; }
# profile FILE PYTHON: ocirun's default profile, edited by PYTHON (p: it).
profile() {
  "$OCIRUN" seccomp-profile | python3 -c "import json, sys
p = json.load(sys.stdin)
$2
json.dump(p, sys.stdout)" >"$TEST_TMP/$1"
}
refused() { # WHAT PROFILE TEXT PROBES...
  local what=$1 file=$2 text=$3
  shift 3
  run --security-opt "seccomp=$TEST_TMP/$file" busybox:multiplexers /sysprobe "$@"
  verdict "$what: refused (exit 125)" [ $? -eq 125 ]
  verdict "$what: the error names the rule" err_has_literal "$text"
  verdict "$what: nothing ran" [ ! -s "$TEST_TMP/out" ]
}
lines() { # WHAT PROFILE PROBES... -- LINES...
  local what=$1 file=$2 probes=() line
  shift 2
  while [ "$1" != "--" ]; do probes+=("$1"); shift; done
  shift
  run --security-opt "seccomp=$TEST_TMP/$file" busybox:multiplexers /sysprobe "${probes[@]}"
  for line in "$@"; do verdict "$what: $line" out_has_line "$line"; done
}

profile default.json ''

# Precedence: the default profile plus getcwd denied for every size.
profile getcwd-alone.json 'for r in p["syscalls"]:
    r["names"] = [n for n in r["names"] if n != "getcwd"]
p["syscalls"].append({"names": ["getcwd"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38,
                      "args": [{"index": 1, "value": 0, "op": "SCMP_CMP_GE"}]})'
profile getcwd.json 'p["syscalls"].append({"names": ["getcwd"], "action": "SCMP_ACT_ERRNO",
    "errnoRet": 38, "args": [{"index": 1, "value": 0, "op": "SCMP_CMP_GE"}]})'
lines "control: the getcwd rule with arguments alone" getcwd-alone.json getcwd -- \
  "getcwd errno=ENOSYS"
refused "a getcwd rule with arguments beside getcwd allowed without" getcwd.json \
  "(getcwd, SCMP_ACT_ERRNO(38)) does not hold on SCMP_ARCH_X86_64" getcwd

# The rest needs i386's entry (int 0x80).
int80_probes "$top_builddir/tests/helpers/sysprobe"
[ "$HOST_INT80" = yes ] || { tap_done; exit 0; }

# Wide values: "allow personality if arg0 == 0x100400000" (no i386 call can
# pass it) compiled for i386 as "== 0x400000", READ_IMPLIES_EXEC.
profile wide.json 'p["syscalls"].append({"names": ["personality"], "action": "SCMP_ACT_ALLOW",
    "args": [{"index": 0, "value": 0x100400000, "op": "SCMP_CMP_EQ"}]})'
profile wide-masked.json 'p["syscalls"].append({"names": ["personality"], "action": "SCMP_ACT_ALLOW",
    "args": [{"index": 0, "value": 0x1ffffffff, "valueTwo": 0x400000, "op": "SCMP_CMP_MASKED_EQ"}]})'
lines "control: the default profile" default.json int80-personality=0x400000 int80-personality=8 -- \
  "int80-personality=0x400000 errno=EPERM" "int80-personality=8 errno=0"
refused "a rule on a value above 32 bits, i386 in the filter" wide.json \
  "(personality) compares argument 0 with 0x100400000, above 32 bits: on SCMP_ARCH_X86" \
  int80-personality=0x400000
lines "a mask above 32 bits (what no 32-bit call sets)" wide-masked.json \
  int80-personality=0x400000 personality=0x400000 -- \
  "int80-personality=0x400000 errno=0" "personality=0x400000 errno=0"

# Sockets: the default's family allow-list without its socketcall rule.
profile families.json 'p["syscalls"] = [r for r in p["syscalls"] if r["names"] != ["socketcall"]]'
profile families-socketcall.json 'p["syscalls"] = [r for r in p["syscalls"] if r["names"] != ["socketcall"]]
p["syscalls"].append({"names": ["socketcall"], "action": "SCMP_ACT_ALLOW"})'
lines "control: socketcall allowed by a rule" families-socketcall.json \
  socket=40 int80-socket=40 int80-socketcall=40 -- \
  "socket=40 errno=EPERM" "int80-socket=40 errno=EPERM" "int80-socketcall=40 errno=0"
refused "a family allow-list that socketcall carries past" families.json \
  "syscalls[1] (socket, SCMP_ACT_ALLOW) does not hold on SCMP_ARCH_X86 through socketcall(0x1)" \
  int80-socketcall=40
lines "the default profile" default.json int80-socketcall=40 int80-socket=40 socket=2 -- \
  "int80-socketcall=40 errno=ENOSYS" "int80-socket=40 errno=EPERM" "socket=2 errno=0"

# SysV IPC: msgget denied, the ipc multiplexer not named.
ipc_profile() { # FILE [IPC-RULE]
  printf '{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
  "syscalls": [{"names": ["msgget"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}%s]}\n' "${2:-}" \
    >"$TEST_TMP/$1"
}
ipc_profile msgget.json
ipc_profile msgget-ipc-allowed.json ', {"names": ["ipc"], "action": "SCMP_ACT_ALLOW"}'
ipc_profile msgget-ipc-denied.json ', {"names": ["ipc"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}'
lines "control: ipc allowed by a rule" msgget-ipc-allowed.json \
  int80-msgget int80-ipc-msgget=0 int80-ipc-msgget=2 -- \
  "int80-msgget errno=EPERM" "int80-ipc-msgget=0 errno=EPERM" "int80-ipc-msgget=2 errno=0"
refused "msgget denied, ipc's version bits past it" msgget.json \
  "syscalls[0] (msgget, SCMP_ACT_ERRNO(1)) does not hold on SCMP_ARCH_X86 through ipc(0x2000d)" \
  int80-ipc-msgget=2
lines "msgget and ipc denied" msgget-ipc-denied.json int80-msgget int80-ipc-msgget=2 -- \
  "int80-msgget errno=EPERM" "int80-ipc-msgget=2 errno=EPERM"

tap_done
