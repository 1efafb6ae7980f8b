#!/bin/bash
# Fuzzes the seccomp profile parser (src/runtime/seccomp/profile.c) with libFuzzer
# under address and undefined-behaviour sanitizers for FUZZ_SECONDS (default
# 20), seeded with the printed default profile and small hand-written ones.
. "$top_srcdir/tests/lib.sh"

libs="libseccomp libcap libcjson libcrypto"
fuzz_target seccomp_profile "$libs" "-I$top_srcdir/src" \
  "$top_srcdir/tests/helpers/seccomp_profile_fuzzer.c" "$top_srcdir/src/runtime/seccomp/profile.c" \
  "$top_srcdir/src/runtime/seccomp/names.c" "$top_srcdir/src/runtime/capabilities.c" "$top_srcdir/oci/error.c" \
  "$top_srcdir/oci/file_read.c" "$top_srcdir/oci/in_root.c"

corpus="$TEST_TMP/corpus"
mkdir -p "$corpus"
"$OCIRUN" seccomp-profile >"$corpus/default.json"
"$OCIRUN" seccomp-profile --cap-drop ALL >"$corpus/resolved.json"
printf '%s' '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getcwd"],"action":"SCMP_ACT_ERRNO","errnoRet":38,"args":[{"index":0,"value":1,"valueTwo":2,"op":"SCMP_CMP_MASKED_EQ"}],"includes":{"caps":["CAP_SYS_ADMIN"],"arches":["amd64"],"minKernel":"4.8"},"excludes":{"arches":["x32"]}}]}' >"$corpus/small.json"
printf '%s' '{"defaultAction":"SCMP_ACT_ERRNO","archMap":[{"architecture":"SCMP_ARCH_X86_64","subArchitectures":["SCMP_ARCH_X86"]}],"architectures":["SCMP_ARCH_X32"],"syscalls":[{"name":"read","action":"SCMP_ACT_LOG"}]}' >"$corpus/arches.json"
[ -s "$corpus/default.json" ] && ok "seed corpus written" || not_ok "seed corpus written"

fuzz_run seccomp_profile "$FUZZER" "$corpus" -max_len=65536
tap_done
