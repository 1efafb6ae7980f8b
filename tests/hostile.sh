#!/bin/bash
# Hostile and broken images (scripts/images/make-hostile.py): each one is
# refused with one clear message or contained in its rootfs, by both the
# import path and the external-layout unpack path, and leaves no trace: no
# file outside the rootfs, nothing in the store's tmp, no cache entry without
# its completion marker, an unchanged index, and host files untouched.
. "$top_srcdir/tests/lib.sh"

# The cases aim at fixed host paths (guards and canaries in /tmp): one run at
# a time on this machine, or two runs would see each other's files.
exec 9>/tmp/ocirun-hostile-test.lock
flock 9

if ! "$top_srcdir/scripts/make-test-images" busybox hostile "$TEST_IMAGES" >"$TEST_TMP/images.log" 2>&1; then
  sed 's/^/# /' "$TEST_TMP/images.log"
  not_ok "test images built"
  tap_done
  exit 1
fi

# ocirun with a time limit: a symlink loop, or a FIFO where a layout file
# should be, must not hang it (timeout's 124 fails check_refusal).
run() {
  timeout 60 "$OCIRUN" --quiet "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  rc=$?
}
show_err() { cat -v "$TEST_TMP/err" | sed 's/^/#   /' | head -10; }
sha_of() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }
index_sha() { sha_of "$OCIRUN_ROOT/store/index.json"; }
# The unpacker's layout (oci/cache.h): entries are cache/<chain>/ with a
# marker file, lock files sit beside them and in tmp.
CACHE_MARKER=complete
# Cache entries without their completion marker: partial trees.
cache_partial() {
  local d
  for d in "$OCIRUN_ROOT"/cache/*/; do
    [ -d "$d" ] && [ ! -e "$d$CACHE_MARKER" ] && echo "${d%/}"
  done
}
tmp_list() { ls -A "$OCIRUN_ROOT/tmp" 2>/dev/null | grep -v '\.lock$'; }

# A good image first: without a working store every refusal below would be
# meaningless, so the cases are only run when this works.
run image import "oci:$TEST_IMAGES/busybox:busybox:latest"
if [ "$rc" -ne 0 ]; then
  not_ok "a good image imports (exit $rc); hostile cases not run"
  show_err
  tap_done
  exit 1
fi
ok "a good image imports"
# Its cached rootfs sits beside the hostile ones and must survive them.
run image unpack busybox:latest
good_rootfs=$(tail -n 1 "$TEST_TMP/out")
[ "$rc" -eq 0 ] && [ -x "$good_rootfs/bin/busybox" ] && ok "a good image unpacks" ||
  not_ok "a good image unpacks (exit $rc)"

# --- reading a case's expect file ---
load_expect() {
  outcome= refuse_at=any no_devices=no source_kind= no_controls=no
  matches=() canaries=() guards=() present=()
  local key value
  while read -r key value; do
    case $key in
    '#'* | '') ;;
    outcome) outcome=$value ;;
    refuse_at) refuse_at=$value ;;
    match) matches+=("$value") ;;
    canary) canaries+=("$value") ;;
    guard) guards+=("${value/#@root\//$OCIRUN_ROOT/}") ;;
    no_devices) no_devices=yes ;;
    no_control_characters) no_controls=yes ;;
    present_in_rootfs) present+=("$value") ;;
    source) source_kind=$value ;;
    *) echo "# unknown expect key '$key' in $1" ;;
    esac
  done <"$1"
}

# Guards are host files a hostile layer aims at: made here when missing,
# compared (content, link count, and the listing of a directory made for
# them) after every command.
guards_made=()
allowed_roots=(-path /nonexistent)
guard_now() {
  local g=$1 parent
  parent=$(dirname "$g")
  echo "$(sha_of "$g") $(stat -c %h "$g" 2>/dev/null)"
  case " ${guards_made[*]} " in *" $parent "*) ls -A "$parent" | tr '\n' ' ' ;; esac
}
prepare_guards() {
  local g parent
  guard_state=()
  for g in "${guards[@]}"; do
    parent=$(dirname "$g")
    if [ ! -d "$parent" ]; then
      mkdir -p "$parent"
      guards_made+=("$parent")
    fi
    if [ ! -e "$g" ]; then
      echo "guard $case_name" >"$g"
      guards_made+=("$g")
    fi
    guard_state+=("$(guard_now "$g")")
  done
}
cleanup_guards() {
  [ ${#guards_made[@]} -eq 0 ] || rm -rf "${guards_made[@]}"
  guards_made=()
}
trap 'cleanup_guards; rm -rf "$TEST_TMP"' EXIT

# Everything that must hold after any command on a case. rootfs is the
# unpacked tree when the command succeeded (excluded from the canary search).
check_no_trace() {
  local what=$1 rootfs=$2 index_before=$3 failed=$4
  local problems=() i g found c
  [ -x "$good_rootfs/bin/busybox" ] || problems+=("the good image's cached rootfs was damaged")
  for i in "${!guards[@]}"; do
    g=${guards[$i]}
    if [ "$(guard_now "$g")" != "${guard_state[$i]}" ]; then
      problems+=("host file $g changed, removed or hardlinked")
    fi
  done
  [ -n "$rootfs" ] && allowed_roots+=(-o -path "$rootfs")
  for c in "${canaries[@]}"; do
    # Other tests' private roots are theirs; ours is searched whole but for
    # the rootfs trees successful unpacks were allowed to fill.
    found=$(find /tmp "${TMPDIR:-/tmp}" "$TEST_TMP" -xdev \
      \( -path "/tmp/ocirun-test.*" -a ! -path "$TEST_TMP" -a ! -path "$TEST_TMP/*" -prune \) -o \
      \( \( "${allowed_roots[@]}" \) -prune \) -o \
      -name "$c*" -print 2>/dev/null | sort -u | head -5)
    if [ -n "$found" ]; then
      problems+=("escaped: $(echo $found)")
      # Reported once: removed so the next case and the next run start clean.
      echo "$found" | while read -r f; do rm -rf "$f"; done
    fi
  done
  [ -z "$(tmp_list)" ] || problems+=("store tmp not empty: $(tmp_list | head -3 | tr '\n' ' ')")
  [ -z "$(cache_partial)" ] || problems+=("cache entries without marker: $(cache_partial | tr '\n' ' ')")
  if [ "$failed" = yes ]; then
    [ "$(index_sha)" = "$index_before" ] || problems+=("index.json changed")
  fi
  if [ ${#problems[@]} -eq 0 ]; then ok "$what: no trace left"; else
    not_ok "$what: no trace left"
    printf '#   %s\n' "${problems[@]}"
  fi
}

# A refusal: a clean non-zero exit (no crash, no hang) and one line on
# stderr that matches every expected pattern.
check_refusal() {
  local what=$1 re lines missing=()
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ]; then
    not_ok "$what: refused cleanly (exit $rc)"
    show_err
    return
  fi
  ok "$what: refused cleanly (exit $rc)"
  lines=$(grep -c . "$TEST_TMP/err")
  for re in "${matches[@]}"; do grep -Eqi -- "$re" "$TEST_TMP/err" || missing+=("$re"); done
  # A name from the image printed raw could forge lines or drive the terminal.
  if [ "$no_controls" = yes ] && LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$TEST_TMP/err"; then
    missing+=("(raw control characters)")
  fi
  if [ "$lines" -eq 1 ] && [ ${#missing[@]} -eq 0 ]; then ok "$what: one clear message"; else
    not_ok "$what: one clear message ($lines lines; unmatched: ${missing[*]:-none})"
    show_err
  fi
}

# After a successful unpack of a contained or succeed case.
check_rootfs() {
  local what=$1 rootfs=$2 p devices
  if [ ! -d "$rootfs" ]; then
    not_ok "$what: unpack printed a rootfs directory ('$rootfs')"
    return
  fi
  if [ "$no_devices" = yes ]; then
    devices=$(find "$rootfs" -xdev \( -type b -o -type c \) -print | head -3)
    [ -z "$devices" ] && ok "$what: no device nodes created" ||
      not_ok "$what: no device nodes created ($devices)"
  fi
  for p in "${present[@]}"; do
    [ -e "$rootfs/$p" ] && ok "$what: $p unpacked" || not_ok "$what: $p unpacked"
  done
}

# The outcome of one unpack (or import) command against the expectation.
judge() {
  local what=$1 verb=$2 index_before=$3 rootfs=
  case $outcome in
  refuse)
    if [ "$verb" = import ] && [ "$refuse_at" = any ] && [ "$rc" -eq 0 ]; then
      check_no_trace "$what" "" "$index_before" no
      return 0
    fi
    check_refusal "$what"
    ;;
  contain | succeed)
    if [ "$rc" -eq 0 ]; then
      [ "$verb" = unpack ] && rootfs=$(tail -n 1 "$TEST_TMP/out")
      ok "$what: exit 0"
      [ -n "$rootfs" ] && check_rootfs "$what" "$rootfs"
    elif [ "$outcome" = succeed ]; then
      not_ok "$what: exit 0 (got $rc)"
      show_err
    else
      check_refusal "$what"
    fi
    ;;
  *) not_ok "$what: expect file has an outcome ('$outcome')" ;;
  esac
  check_no_trace "$what" "$rootfs" "$index_before" "$([ "$rc" -eq 0 ] && echo no || echo yes)"
}

for dir in "$TEST_IMAGES"/hostile/*/; do
  dir=${dir%/}
  case_name=${dir##*/}
  load_expect "$dir/expect"
  prepare_guards

  # 1. Straight from the external layout (tarballs can only be imported).
  source="oci:$dir:hostile:latest"
  [ -z "$source_kind" ] || source="$source_kind:$dir/archive.tar:hostile:latest"
  if [ -z "$source_kind" ]; then
    index_before=$(index_sha)
    run image unpack "$source"
    judge "$case_name: unpack oci:" unpack "$index_before"
    # A failed unpack leaves nothing a later run would take for a result.
    if [ "$rc" -ne 0 ]; then
      run image unpack "$source"
      [ "$rc" -ne 0 ] && ok "$case_name: unpack oci: fails again" ||
        not_ok "$case_name: unpack oci: fails again (a failed unpack was cached)"
    fi
  fi

  # 2. Through the store: import, then unpack what was imported.
  index_before=$(index_sha)
  run image import "$source"
  import_rc=$rc
  if [ "$import_rc" -ne 0 ] || { [ "$outcome" = refuse ] && [ "$refuse_at" = import ]; }; then
    judge "$case_name: import" import "$index_before"
  elif [ "$import_rc" -eq 0 ]; then
    index_before=$(index_sha)
    run image unpack hostile:latest
    judge "$case_name: unpack imported" unpack "$index_before"
  fi
  if [ "$import_rc" -eq 0 ]; then
    run image rm hostile:latest
    [ "$rc" -eq 0 ] && ok "$case_name: imported image removed" ||
      { not_ok "$case_name: imported image removed (exit $rc)"; show_err; }
  fi
  cleanup_guards
done

# The store still works after all that.
run image unpack busybox:latest
rootfs=$(tail -n 1 "$TEST_TMP/out")
if [ "$rc" -eq 0 ] && [ -x "$rootfs/bin/busybox" ]; then ok "the good image still unpacks"; else
  not_ok "the good image still unpacks (exit $rc)"
  show_err
fi
run image ls
grep -q 'busybox:latest' "$TEST_TMP/out" && ! grep -q 'hostile' "$TEST_TMP/out" &&
  ok "image ls shows the good image and no hostile one" ||
  not_ok "image ls shows the good image and no hostile one"
tap_done
