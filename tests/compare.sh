#!/bin/bash
# ocirun compare: side-by-side output, difference marks, exit codes and --json;
# and the artifact schema: the fixtures that should validate do, the broken don't.
. "$top_srcdir/tests/lib.sh"

fixtures="$top_srcdir/tests/fixtures"
schema="$top_srcdir/docs/artifact.schema.json"
validate="$top_srcdir/scripts/validate-artifact"
recipe="$fixtures/recipe-artifact.json"
direct="$fixtures/direct-artifact.json"
docker_differs="$fixtures/docker-artifact-differs.json"

# variant SOURCE NAME PYTHON-STATEMENT: a copy of SOURCE edited through `a`.
variant() {
  python3 - "$1" "$TEST_TMP/$2" "$3" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(a, open(sys.argv[2], "w"), indent=2)
PY
  echo "$TEST_TMP/$2"
}
# json_true EXPR DESCRIPTION: a Python expression over `j`, the last stdout parsed as JSON.
json_true() {
  if python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
    "$TEST_TMP/out" "$1"; then ok "$2"; else not_ok "$2"; sed 's/^/# /' "$TEST_TMP/out" | head -40; fi
}

# --- equal observations, both teardowns verified: exit 0 ---
expect_exit 0 "recipe vs recipe: match" "$OCIRUN" compare "$recipe" "$recipe"
verdict "recipe vs recipe says match" out_matches '^result: match$'
verdict "an equal observation is shown on both sides, unmarked" out_matches '^  observed\.uid +65534 +65534$'
expect_exit 0 "recipe vs direct-shaped artifact with equal observations: match" \
  "$OCIRUN" compare "$recipe" "$direct"
verdict "a key only ocirun writes is shown absent on the recipe's side and marked" \
  out_matches '^\* backend +\(absent\) +direct$'
verdict "docker_server: engine version vs null, marked" out_matches '^\* docker_server +28\.0\.4 +null$'
verdict "the engine's kernel is shown" out_matches '^\* engine\.kernel +\(absent\) +6\.1\.0-28-amd64$'
verdict "flags token by token: the differing container name is marked" \
  out_matches '^\* flags\[1\] +isolation-probe-3f9c2a71d0be +ocirun-probe-8d41c07a2e55$'
verdict "flags token by token: equal tokens unmarked" \
  out_matches '^  flags\[20\] +/tmp:rw,noexec,nosuid,size=1048576 +/tmp:rw,noexec,nosuid,size=1048576$'
verdict "cgroup_v2 is compared per file" \
  out_matches '^  observed\.cgroup_v2\.memory\.max +134217728 +134217728$'
verdict "observed_extra keys are shown when present" \
  out_matches '^\* observed_extra\.masked_paths\./proc/kcore +\(absent\) +masked$'
verdict "checks are shown by name" out_matches '^\* checks\.pids\.max\.passed +\(absent\) +true$'
verdict "the host's observations are shown, marked, against a recipe artifact without them" \
  out_matches '^\* host_observed\.uid +\(absent\) +65534$'
# The host's view is shown, never decides: only "observed" does.
host_differs=$(variant "$direct" host-differs.json "a['host_observed']['uid'] = 0")
expect_exit 0 "a differing host observation alone does not decide the comparison" \
  "$OCIRUN" compare "$direct" "$host_differs"
verdict "the differing host observation is marked '*'" out_matches '^\* host_observed\.uid +65534 +0$'
expect_exit 0 "direct-shaped vs recipe (other order): match" "$OCIRUN" compare "$direct" "$recipe"
expect_exit 0 "--json recipe vs direct: exit 0" "$OCIRUN" compare --json "$recipe" "$direct"
json_true 'j["equal"] is True and j["match"] is True and j["teardown_verified"] == {"a": True, "b": True}' \
  "--json: equal, match, both teardowns"
json_true '{"path": "backend", "observation": False, "b": "direct"} in j["differences"]' \
  "--json: a field absent on one side has no member for that side"
json_true 'not any(d["observation"] for d in j["differences"])' "--json: no observation differs"

# --- a differing observation: exit 1, marked in text and in --json ---
expect_exit 1 "direct vs docker with pids.max differing: no match" "$OCIRUN" compare "$direct" "$docker_differs"
verdict "the differing observation is marked '!'" out_matches '^! observed\.cgroup_v2\.pids\.max +32 +max$'
verdict "the summary counts one differing observation" out_matches '^observations: DIFFERENT \(1 differ\)$'
verdict "the summary says no match" out_matches '^result: NO MATCH$'
expect_exit 1 "--json direct vs docker: exit 1" "$OCIRUN" compare --json "$direct" "$docker_differs"
json_true 'j["equal"] is False and j["match"] is False' "--json: not equal"
json_true '[d for d in j["differences"] if d["observation"]] == [{"path": "observed.cgroup_v2.pids.max", "observation": True, "a": "32", "b": "max"}]' \
  "--json: exactly the one observation difference, with both values"
uid_root=$(variant "$recipe" uid-root.json 'a["observed"]["uid"] = 0')
expect_exit 1 "recipe vs recipe with uid 0: no match" "$OCIRUN" compare "$recipe" "$uid_root"
verdict "uid difference marked" out_matches '^! observed\.uid +65534 +0$'
ifaces=$(variant "$direct" eth0.json 'a["observed"]["network_interfaces"] = a["host_observed"]["network_interfaces"] = ["eth0", "lo"]')
expect_exit 1 "an extra network interface: no match" "$OCIRUN" compare --json "$ifaces" "$recipe"
json_true '{"path": "observed.network_interfaces", "observation": True, "a": ["eth0", "lo"], "b": ["lo"]} in j["differences"]' \
  "--json: the interface lists are both given"

# --- teardown not verified: exit 1 even with equal observations ---
no_teardown=$(variant "$direct" no-teardown.json '
a["teardown_verified"] = a["passed"] = False
a["failed_checks"] = ["teardown"]
[c for c in a["checks"] if c["name"] == "teardown"][0].update(passed=False, seen=False)')
expect_exit 1 "teardown false on one side: no match" "$OCIRUN" compare "$recipe" "$no_teardown"
verdict "the summary names the unverified side" out_matches '^teardown verified: A yes, B NO$'
verdict "teardown_verified is shown and marked" out_matches '^\* teardown_verified +true +false$'
verdict "the failed teardown check is shown" out_matches '^\* checks\.teardown\.passed +\(absent\) +false$'
expect_exit 1 "--json teardown false: exit 1" "$OCIRUN" compare --json "$no_teardown" "$no_teardown"
json_true 'j["equal"] is True and j["match"] is False and j["teardown_verified"] == {"a": False, "b": False}' \
  "--json: observations equal, teardowns false, no match"

# --- a different flag list alone does not fail the comparison, but is shown ---
short_flags=$(variant "$direct" short-flags.json 'a["flags"].remove("--read-only")')
expect_exit 0 "a missing flag token with equal observations: still a match" \
  "$OCIRUN" compare "$direct" "$short_flags"
verdict "flags aligned: the missing token is shown absent" \
  out_matches '^\* flags\[4\|-\] +--read-only +\(absent\)$'
verdict "flags aligned: later tokens stay side by side, unmarked" \
  out_matches '^  flags\[5\|4\] +--memory +--memory$'
verdict "flags aligned to the end" \
  out_matches '^  flags\[20\|19\] +/tmp:rw,noexec,nosuid,size=1048576 +/tmp:rw,noexec,nosuid,size=1048576$'
expect_exit 0 "--json with a missing flag token" "$OCIRUN" compare --json "$direct" "$short_flags"
json_true '[d for d in j["differences"] if d["path"].startswith("flags")] == [{"path": "flags[4|-]", "observation": False, "a": "--read-only"}]' \
  "--json: the one flag difference, absent on B"
more_flags=$(variant "$recipe" more-flags.json 'a["flags"] += ["--env", "A=1"]')
expect_exit 0 "extra flag tokens on B with equal observations: match" "$OCIRUN" compare "$recipe" "$more_flags"
verdict "flags aligned: a token only B has" out_matches '^\* flags\[-\|22\] +\(absent\) +A=1$'

# --- values are printed so that they cannot redraw the terminal ---
control=$(variant "$direct" control.json '
a["observed_extra"]["hostname"] = "x\r  observed.uid  65534  65534\x1b[2K\u009b"
a["observed_extra"]["ev\x1bil"] = 1')
expect_exit 0 "control characters in values: compared" "$OCIRUN" compare "$direct" "$control"
if grep -q $'[\r\x1b]' "$TEST_TMP/out"; then not_ok "no raw CR or ESC reaches the output"; else
  ok "no raw CR or ESC reaches the output"; fi
verdict "control characters are shown as \\xNN escapes" \
  out_matches '^\* observed_extra\.hostname .* x\\x0d  observed\.uid  65534  65534\\x1b\[2K\\xc2\\x9b$'
verdict "control characters in keys too" out_matches '^\* observed_extra\.ev\\x1bil '
nul=$(variant "$recipe" nul.json 'a["observed"]["cgroup_v2"]["pids.max"] = "32\u0000 or not"')
expect_exit 2 "a string with \\u0000 (cJSON would cut it): exit 2" "$OCIRUN" compare "$recipe" "$nul"
verdict "the NUL is named: the file and the offset" err_has_literal "nul.json: not valid JSON at byte "
verdict "the NUL is named" err_has_literal "a \\u0000 escape (a NUL character"
backslash=$(variant "$recipe" backslash.json 'a["provenance"]["command"].append("\\u0000")')
expect_exit 0 "an escaped backslash before u0000 is no NUL" "$OCIRUN" compare "$recipe" "$backslash"

# --- read as strictly as the probe's output: what cJSON would read one way
# and Python another is refused, naming the file ---
# raw_variant SOURCE NAME OLD NEW: a copy of SOURCE's bytes with the first
# OLD replaced by NEW (both with \xNN and \\ escapes for bytes).
raw_variant() {
  python3 - "$1" "$TEST_TMP/$2" "$3" "$4" <<'PY'
import codecs, sys
old, new = (codecs.escape_decode(arg.encode())[0] for arg in sys.argv[3:5])
t = open(sys.argv[1], "rb").read()
assert old in t, old
open(sys.argv[2], "wb").write(t.replace(old, new, 1))
PY
  echo "$TEST_TMP/$2"
}
# refused_input FILE MESSAGE WHAT: compare of FILE with itself exits 2 naming it.
refused_input() {
  expect_exit 2 "$3: refused (exit 2)" "$OCIRUN" compare "$1" "$1"
  verdict "$3: the file and the reason are named" err_has_literal "$(basename "$1"): $2"
}
twice=$(raw_variant "$recipe" twice.json '"uid": 65534,' '"uid": 0, "uid": 65534,')
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["observed"]["uid"] != 65534)' "$twice" &&
  ok "positive control: Python reads the last uid of twice.json, 65534" ||
  not_ok "positive control: Python reads the last uid of twice.json, 65534"
refused_input "$twice" "observed: the key 'uid' is given twice" "a key given twice (cJSON reads the first)"
deep_twice=$(raw_variant "$direct" deep-twice.json '"/proc/kcore": "masked"' \
  '"/proc/kcore": "masked", "/proc/kcore": "readable"')
refused_input "$deep_twice" "observed_extra.masked_paths: the key '/proc/kcore' is given twice" \
  "a key given twice deeper down"
# refused_edit NAME OLD NEW MESSAGE WHAT: the recipe's artifact edited, refused.
refused_edit() { refused_input "$(raw_variant "$recipe" "$1" "$2" "$3")" "$4" "$5"; }
refused_edit bad-utf8.json '"lo"' '"lo\xff"' "not valid JSON at byte 245: invalid UTF-8" \
  "invalid UTF-8 in a string"
refused_edit overlong.json '"uid"' '"u\xc1\xa9d"' "not valid JSON at byte 24: invalid UTF-8" \
  "an overlong UTF-8 form in a key"
refused_edit surrogate.json '"lo"' '"lo\\ud800"' "not valid JSON at byte 251: a lone UTF-16 surrogate" \
  "a lone surrogate escape"
refused_edit raw-tab.json '"lo"' '"l\to"' \
  "not valid JSON at byte 244: a control character inside a string" "a raw control character in a string"
refused_edit plus.json '"uid": 65534' '"uid": +65534' "not valid JSON at byte 29: expected a value" \
  "a number with a plus sign"
refused_edit huge-number.json '"uid": 65534' '"uid": 1e400' \
  "not valid JSON at byte 34: a number out of a double's range" "a number beyond a double (infinity to cJSON)"
refused_edit trailing.json '{' '{} {' "not valid JSON at byte 3: more text after the value" \
  "text after the document"
refused_edit bom.json '{' '\xef\xbb\xbf{' "not valid JSON: it starts with a byte-order mark" \
  "a byte-order mark"
# Python's json refuses each of these too (twice.json it reads another way: above).
for f in bad-utf8 overlong raw-tab plus trailing bom; do
  f=$TEST_TMP/$f.json
  if python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$f" 2>/dev/null; then
    not_ok "control: Python's json refuses $(basename "$f") too"
  else
    ok "control: Python's json refuses $(basename "$f") too"
  fi
done

# --- unreadable or invalid input: exit 2 naming the file (and the key) ---
expect_exit 2 "missing file: exit 2" "$OCIRUN" compare "$recipe" "$TEST_TMP/nonexistent.json"
verdict "missing file: the message names the file" err_has_literal "$TEST_TMP/nonexistent.json"
expect_exit 2 "not JSON: exit 2" "$OCIRUN" compare "$fixtures/broken-not-json.json" "$recipe"
verdict "not JSON: the message names the file" err_has_literal "broken-not-json.json: not valid JSON"
expect_exit 2 "missing observed: exit 2" "$OCIRUN" compare "$recipe" "$fixtures/broken-missing-observed.json"
verdict "missing observed: file and key named" \
  err_has_literal 'broken-missing-observed.json: missing required key "observed"'
expect_exit 2 "missing observed.capabilities: exit 2" \
  "$OCIRUN" compare "$fixtures/broken-missing-capabilities.json" "$recipe"
verdict "missing observation: file and key named" \
  err_has_literal 'broken-missing-capabilities.json: missing required key "observed.capabilities"'
no_cgroup_file=$(variant "$recipe" no-cpu-max.json 'del a["observed"]["cgroup_v2"]["cpu.max"]')
expect_exit 2 "missing cgroup_v2 file: exit 2" "$OCIRUN" compare "$recipe" "$no_cgroup_file"
verdict "missing cgroup file: key named" \
  err_has_literal 'no-cpu-max.json: missing required key "observed.cgroup_v2.cpu.max"'
expect_exit 2 "teardown_verified not a boolean: exit 2" "$OCIRUN" compare "$fixtures/broken-types.json" "$recipe"
verdict "wrong type: file and key named" \
  err_has_literal 'broken-types.json: key "teardown_verified" must be a boolean'
echo '[1, 2]' >"$TEST_TMP/array.json"
expect_exit 2 "a JSON array: exit 2" "$OCIRUN" compare "$recipe" "$TEST_TMP/array.json"
verdict "a JSON array: named" err_has_literal "array.json: not a JSON object"
expect_exit 2 "a directory: exit 2" "$OCIRUN" compare "$recipe" "$TEST_TMP"
expect_exit 2 "one argument: usage error" "$OCIRUN" compare "$recipe"
expect_exit 2 "unknown option: usage error" "$OCIRUN" compare --bogus "$recipe" "$recipe"
expect_exit 0 "--help exits 0" "$OCIRUN" compare --help
verdict "--help prints usage" out_matches '^Usage: ocirun compare'

# --- the schema: good fixtures validate, broken ones fail naming file and path ---
for f in recipe-artifact.json direct-artifact.json docker-artifact-differs.json; do
  expect_exit 0 "schema: $f validates" "$validate" "$schema" "$fixtures/$f"
done
for f in "$fixtures"/broken-*.json; do
  expect_exit 1 "schema: $(basename "$f") does not validate" "$validate" "$schema" "$f"
  verdict "schema: the failure names $(basename "$f")" out_matches "^$f: "
done
expect_exit 1 "schema: names the failing path" "$validate" "$schema" "$fixtures/broken-missing-capabilities.json"
verdict "schema: /observed and the missing key are named" \
  out_matches "broken-missing-capabilities.json: /observed: 'capabilities' is a required property"
expect_exit 1 "schema: bad taxonomy tag rejected" "$validate" "$schema" "$fixtures/broken-extra-keys.json"
verdict "schema: the bad tag's path is named" out_matches "/taxonomy_tags/uid/1: 'score:9'"
for v in "$uid_root" "$ifaces" "$no_teardown" "$short_flags"; do
  expect_exit 0 "schema: variant $(basename "$v") validates" "$validate" "$schema" "$v"
done
extra_observed=$(variant "$recipe" extra-observed.json 'a["observed"]["seccomp_mode"] = 2')
expect_exit 1 "schema: an eighth key in observed is rejected" "$validate" "$schema" "$extra_observed"
docker_null=$(variant "$docker_differs" docker-null.json 'a["docker_server"] = None')
expect_exit 1 "schema: docker backend with a null docker_server is rejected" "$validate" "$schema" "$docker_null"
false_pass=$(variant "$docker_differs" false-pass.json 'a["passed"] = True')
expect_exit 1 "schema: passed true with a failed check is rejected" "$validate" "$schema" "$false_pass"
no_host=$(variant "$direct" no-host.json "del a['host_observed']")
expect_exit 1 "schema: passed true without host_observed is rejected" "$validate" "$schema" "$no_host"
host_missing=$(variant "$direct" host-missing.json "a['host_observed']['missing'] = 'pid 9 exited'")
expect_exit 1 "schema: passed true with a missing host observation is rejected" "$validate" "$schema" "$host_missing"
host_edited=$(variant "$direct" host-edited.json "a['host_observed']['uid'] = 0")
expect_exit 1 "validate-artifact: a passing artifact whose host saw another uid is rejected" \
  "$validate" "$schema" "$host_edited"
grep -Fq "host-edited.json: /host_observed/uid: 0 differs from /observed/uid 65534 in a passing artifact" "$TEST_TMP/out" &&
  ok "validate-artifact names the disagreeing key" || { not_ok "validate-artifact names the disagreeing key"; sed 's/^/# /' "$TEST_TMP/out"; }
host_typed=$(variant "$direct" host-typed.json "a['passed'] = False; a['host_observed']['uid'] = '0'")
expect_exit 1 "schema: a host observation with the wrong type is rejected" "$validate" "$schema" "$host_typed"
python_null=$(variant "$recipe" python-null.json 'a["provenance"]["python"] = None')
expect_exit 0 "schema: provenance.python may be null" "$validate" "$schema" "$python_null"
never_ran=$(variant "$direct" never-ran.json '
for k in a["observed"]:
    a["observed"][k] = None
a["observed"]["cgroup_v2"] = {"memory.max": None, "pids.max": None, "cpu.max": None}
a["observed_extra"] = {}
a["passed"], a["probe_exit_code"], a["error"] = False, None, "engine failed"
for c in a["checks"]:
    c.update(passed=c["name"] == "teardown", seen=None if c["name"] != "teardown" else True)
a["failed_checks"] = [c["name"] for c in a["checks"] if not c["passed"]]')
expect_exit 0 "schema: an artifact whose probe never ran (null observations) validates" \
  "$validate" "$schema" "$never_ran"
expect_exit 1 "compare: null observations vs the recipe's: no match" "$OCIRUN" compare "$recipe" "$never_ran"
verdict "compare: a null observation is shown as null and marked" out_matches '^! observed\.uid +65534 +null$'
four=$(variant "$recipe" three-exclusions.json 'a["provenance"]["exclusions"].remove("production credentials")')
expect_exit 1 "schema: the recipe's four exclusions are required" "$validate" "$schema" "$four"
tap_done
