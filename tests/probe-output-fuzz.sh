#!/bin/bash
# Fuzzes how the probe's output is read (src/probe/probe_checks.c and the strict
# JSON reader, src/runtime/json_strict.c) with libFuzzer under address and
# undefined-behaviour sanitizers for FUZZ_SECONDS (default 20), seeded with the
# real probe's output and the hostile outputs of scripts/images/make-liar.py.
# The target aborts when what ocirun keeps of an output does not read back as
# strict JSON equal to itself, or when a refused output leaves anything kept.
. "$top_srcdir/tests/lib.sh"

fuzz_target probe_output libcjson "-I$top_srcdir/src" \
  "$top_srcdir/tests/helpers/probe_output_fuzzer.c" "$top_srcdir/src/probe/probe_checks.c" \
  "$top_srcdir/src/probe/probe_recipe.c" "$top_srcdir/src/runtime/json_strict.c" \
  "$top_srcdir/oci/error.c"

corpus="$TEST_TMP/corpus"
mkdir -p "$corpus"
python3 - <"$top_srcdir/src/probe/probe.py" >"$corpus/host-probe" 2>/dev/null
python3 -B - "$top_srcdir/scripts/images" "$corpus" <<'PY'
import importlib.util, os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
spec = importlib.util.spec_from_file_location("liar", os.path.join(sys.argv[1], "make-liar.py"))
liar = importlib.util.module_from_spec(spec)
spec.loader.exec_module(liar)
for case, output in liar.OUTPUTS.items():
    if case != "huge":
        open(os.path.join(sys.argv[2], case), "wb").write(output)
PY
[ -s "$corpus/host-probe" ] && [ -s "$corpus/clean" ] && ok "seed corpus: the probe's output and the hostile ones" ||
  not_ok "seed corpus: the probe's output and the hostile ones"

fuzz_run probe_output "$FUZZER" "$corpus" -max_len=8192
tap_done
