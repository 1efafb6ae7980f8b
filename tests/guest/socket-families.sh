#!/bin/bash
# In the guest (its kernel has IA32 emulation and cgroup v2): inside an
# `ocirun run` with the default filter, i386's socketcall(SYS_SOCKET) gets
# ENOSYS whatever the family (AF_VSOCK, AF_ALG), and the direct socket()
# calls of x86_64 and i386 get EPERM for those families; `ocirun exec NAME`
# into the run gets the same. Run with seccomp=unconfined, the same calls
# reach the kernel, whose answer is a socket or its own EAFNOSUPPORT (no
# vsock transport or crypto module in this guest), never the filter's.
. "$top_srcdir/tests/lib.sh"

"$OCIRUN" image import "oci:$OCIRUN_GUEST_IMAGES/sysprobe:sysprobe:latest" >/dev/null 2>&1 ||
  { echo "not ok - import the sysprobe image"; exit 0; }
DENIED="int80-socketcall=40 int80-socketcall=38 int80-socket=40 int80-socket=38 socket=40 socket=38
  socket=0x100000028 socket=0x100000026"
ALLOWED="int80-getpid int80-socket=2 socket=2"

# expect WHAT LINE...: the probe's output has each line.
expect() {
  local what=$1 line
  shift
  for line in "$@"; do
    if grep -qxF "$line" "$TEST_TMP/probe"; then ok "$what: $line"; else
      not_ok "$what: $line"
      sed 's/^/# /' "$TEST_TMP/probe" "$TEST_TMP/err" | head -30
    fi
  done
}

"$OCIRUN" run --cap-drop ALL --security-opt no-new-privileges sysprobe:latest /sysprobe \
  $DENIED $ALLOWED >"$TEST_TMP/probe" 2>"$TEST_TMP/err"
expect "run, default filter" "int80-getpid errno=0" "int80-socket=2 errno=0" "socket=2 errno=0" \
  "int80-socketcall=40 errno=ENOSYS" "int80-socketcall=38 errno=ENOSYS" \
  "int80-socket=40 errno=EPERM" "int80-socket=38 errno=EPERM" "socket=40 errno=EPERM" \
  "socket=38 errno=EPERM" "socket=0x100000028 errno=EPERM" "socket=0x100000026 errno=EPERM"

# The positive control: without the filter every one of those calls is
# answered by the kernel (AF_INET through socketcall makes a socket).
"$OCIRUN" run --cap-drop ALL --security-opt no-new-privileges --security-opt seccomp=unconfined \
  sysprobe:latest /sysprobe $DENIED int80-socketcall=2 >"$TEST_TMP/probe" 2>"$TEST_TMP/err"
expect "run, seccomp=unconfined" "int80-socketcall=2 errno=0"
for probe in $DENIED; do
  if grep -qxE "$probe errno=(0|EAFNOSUPPORT)" "$TEST_TMP/probe"; then
    ok "run, seccomp=unconfined: $probe reaches the kernel ($(grep "^$probe " "$TEST_TMP/probe"))"
  else
    not_ok "run, seccomp=unconfined: $probe reaches the kernel"
    sed 's/^/# /' "$TEST_TMP/probe" "$TEST_TMP/err" | head -30
  fi
done

# exec NAME: the run's own filter, from the config.json the run kept.
marker=4${$}1
if ! start_named_run socks "$marker" sysprobe:latest sleep "$marker"; then
  not_ok "the run for exec started"
  sed 's/^/# /' "$TEST_TMP/run.err"
  exit 0
fi
"$OCIRUN" exec socks /sysprobe int80-socketcall=40 int80-socketcall=38 socket=38 \
  >"$TEST_TMP/probe" 2>"$TEST_TMP/err"
expect "exec NAME" "int80-socketcall=40 errno=ENOSYS" "int80-socketcall=38 errno=ENOSYS" \
  "socket=38 errno=EPERM"
# pid 1 of its namespace ignores a plain SIGTERM from outside.
kill -9 "$pid1"
wait "$runner"
exit 0
