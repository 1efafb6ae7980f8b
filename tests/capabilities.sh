#!/bin/bash
# Capabilities: the sets a process ends up with after ocirun's user switch
# (tests/helpers/confine-exec applies it as the runtime does), read back from
# /proc/self/status by the static probe, and what the kernel then refuses.
. "$top_srcdir/tests/lib.sh"

SYSPROBE="$top_builddir/tests/helpers/sysprobe"
CONFINE="$top_builddir/tests/helpers/confine-exec"
DOCKER_DEFAULT=00000000a80425fb # CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID SETPCAP
# NET_BIND_SERVICE NET_RAW SYS_CHROOT MKNOD AUDIT_WRITE SETFCAP
ZERO=0000000000000000

# caps_are WHAT INH PRM EFF BND AMB -- CONFINE-ARGS...
caps_are() {
  local what=$1 want="caps CapInh=$2 CapPrm=$3 CapEff=$4 CapBnd=$5 CapAmb=$6" got
  shift 7
  got=$("$CONFINE" "$@" -- "$SYSPROBE" caps 2>"$TEST_TMP/err")
  if [ "$got" = "$want" ]; then ok "$what"; else
    not_ok "$what"
    echo "# want: $want"
    echo "# got:  $got"
    sed 's/^/# /' "$TEST_TMP/err"
  fi
}
# probe_says WHAT LINE -- CONFINE-ARGS... -- PROBES...
probe_says() {
  local what=$1 line=$2
  shift 3
  if "$CONFINE" "$@" 2>"$TEST_TMP/err" | grep -qxF "$line"; then ok "$what"; else
    not_ok "$what"
    sed 's/^/# /' "$TEST_TMP/err"
  fi
}

caps_are "root keeps exactly Docker's default set, nothing inheritable or ambient" \
  $ZERO $DOCKER_DEFAULT $DOCKER_DEFAULT $DOCKER_DEFAULT $ZERO --
caps_are "--cap-drop NET_RAW removes it from every set" \
  $ZERO 00000000a80405fb 00000000a80405fb 00000000a80405fb $ZERO -- --cap-drop NET_RAW
caps_are "--cap-drop ALL leaves root with nothing, bounding set included" \
  $ZERO $ZERO $ZERO $ZERO $ZERO -- --cap-drop ALL
caps_are "--cap-drop ALL --cap-add CHOWN keeps only CHOWN" \
  $ZERO 0000000000000001 0000000000000001 0000000000000001 $ZERO -- --cap-drop ALL --cap-add chown
caps_are "--cap-add CAP_SYS_ADMIN adds bit 21" \
  $ZERO 00000000a82425fb 00000000a82425fb 00000000a82425fb $ZERO -- --cap-add CAP_SYS_ADMIN
caps_are "a non-root user holds none, bounding set still Docker's" \
  $ZERO $ZERO $ZERO $DOCKER_DEFAULT $ZERO -- --user 1000:1000

probe_says "uid and gid switched, no supplementary groups" "ids Uid=1000	1000	1000	1000 Gid=1000	1000	1000	1000 Groups=" \
  -- --user 1000:1000 -- "$SYSPROBE" ids
probe_says "a non-root user cannot setuid back to root" "setuid0 errno=EPERM" \
  -- --user 1000:1000 -- "$SYSPROBE" setuid0
probe_says "raw socket allowed to root with NET_RAW" "raw-socket errno=0" \
  -- -- "$SYSPROBE" raw-socket
probe_says "raw socket refused with --cap-drop NET_RAW" "raw-socket errno=EPERM" \
  -- --cap-drop NET_RAW -- "$SYSPROBE" raw-socket
probe_says "raw socket refused to a non-root user" "raw-socket errno=EPERM" \
  -- --user 1000:1000 -- "$SYSPROBE" raw-socket
# ptrace is allowed by the filter (kernel >= 4.8, as in Docker); the parent is
# root with other credentials, so without CAP_SYS_PTRACE the kernel refuses.
probe_says "ptrace of the parent refused without CAP_SYS_PTRACE" "ptrace-parent errno=EPERM" \
  -- --cap-drop ALL --user 65534:65534 -- "$SYSPROBE" ptrace-parent
probe_says "mount refused without CAP_SYS_ADMIN even unconfined" "mount errno=EPERM" \
  -- --unconfined --cap-drop ALL -- "$SYSPROBE" mount
probe_says "no-new-privileges set" "nnp NoNewPrivs=1" -- --cap-drop ALL -- "$SYSPROBE" nnp

expect_exit 2 "an unknown capability is refused" "$CONFINE" --cap-drop CAP_BOGUS -- /bin/true
grep -q "CAP_BOGUS" "$TEST_TMP/err" && ok "the unknown capability is named" || not_ok "the unknown capability is named"

tap_done
