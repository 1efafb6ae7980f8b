#!/bin/bash
# Rootless unpack: `ocirun image unpack` run by an unprivileged uid (setpriv
# from root) builds the same tree as root does except for the owners (all
# the caller's), keeps u+rwx on directories until the last layer, skips what
# needs privilege, caches its trees apart from root's in the same store, and
# can remove everything it made (0555 and 0000 directories included).
. "$top_srcdir/tests/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
  skip "needs root and setpriv to run ocirun as another uid"
  tap_done
  exit 0
fi
"$top_srcdir/scripts/make-test-images" busybox python multilayer "$TEST_IMAGES" >&2 ||
  { not_ok "make-test-images"; tap_done; exit 1; }

# An uid nobody uses here: no account, no process, so whatever it owns in
# the end is what ocirun made for it.
user=4242
if getent passwd "$user" >/dev/null || pgrep -u "$user" >/dev/null; then
  not_ok "uid $user is unused on this machine"
  tap_done
  exit 1
fi
# The uid crosses $TEST_TMP (0700 from mktemp) to its own directory, and
# runs a copy of ocirun and of the images (umoci writes them 0600), since
# the build tree may not be readable by others.
chmod 0711 "$TEST_TMP"
mkdir -p "$TEST_TMP/user" "$TEST_TMP/shared/images"
chown "$user:$user" "$TEST_TMP/user"
chmod 0700 "$TEST_TMP/user"
install -m 0755 "$OCIRUN" "$TEST_TMP/shared/ocirun"
cp -r "$TEST_IMAGES/busybox" "$TEST_IMAGES/python" "$TEST_IMAGES/multilayer" "$TEST_TMP/shared/images/"
chmod -R a+rX "$TEST_TMP/shared"
images=$TEST_TMP/shared/images
user_root=$TEST_TMP/user/root

# user_ocirun [--root DIR] ARGS...: ocirun as the uid (its store by default),
# stdout and stderr in last_out/last_err; the exit code is returned.
user_ocirun() {
  local root=$user_root
  if [ "$1" = --root ]; then root=$2 && shift 2; fi
  setpriv --reuid="$user" --regid="$user" --clear-groups \
    env -i PATH=/usr/bin:/bin OCIRUN_ROOT="$root" \
    "$TEST_TMP/shared/ocirun" --root "$root" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
}
# expect_user_exit CODE DESCRIPTION ARGS...
expect_user_exit() {
  local want=$1 what=$2 got
  shift 2
  user_ocirun "$@"
  got=$?
  if [ "$got" -eq "$want" ]; then ok "$what"; else
    not_ok "$what (exit $got, wanted $want)"
    sed 's/^/# /' "$TEST_TMP/err" | head -20
  fi
}
# Files under DIR not owned by the uid (none expected).
foreign_owned() { find "$1" \( ! -uid "$user" -o ! -gid "$user" \) -print | head -5; }
all_owned_by_user() {
  local foreign
  foreign=$(foreign_owned "$1")
  [ -z "$foreign" ] || { echo "# not the uid's: $foreign"; return 1; }
}

# same_tree A B: names, types, modes (set-id bits included), symlink
# targets, contents, sizes, link counts, user.* xattrs and mtimes agree;
# owners are not compared. A directory created or changed by a layer that
# does not list it has the time of its unpack in both trees: such mtimes
# (after the test began) only have to be recent in both.
test_began=$(date +%s)
same_tree() {
  [ -d "$1" ] && [ -d "$2" ] || return 1
  python3 - "$test_began" "$@" <<'PY'
import hashlib, os, stat, sys
def listing(root, began):
    rows, stack = {}, [""]
    while stack:
        rel = stack.pop()
        full = os.path.join(root, rel) if rel else root
        st = os.lstat(full)
        kind = "d" if stat.S_ISDIR(st.st_mode) else "l" if stat.S_ISLNK(st.st_mode) else \
            "f" if stat.S_ISREG(st.st_mode) else "other"
        detail = ""
        if kind == "f":
            with open(full, "rb") as f:
                detail = hashlib.sha256(f.read()).hexdigest()
        elif kind == "l":
            detail = os.readlink(full)
        xattrs = sorted((n, os.getxattr(full, n, follow_symlinks=False))
                        for n in os.listxattr(full, follow_symlinks=False) if n.startswith("user."))
        mtime = "recent" if st.st_mtime >= began else st.st_mtime_ns
        rows[rel or "."] = (kind, f"{stat.S_IMODE(st.st_mode):04o}", detail, st.st_size if kind == "f" else 0,
                            st.st_nlink if kind == "f" else 0, xattrs, mtime)
        if kind == "d":
            stack.extend(os.path.join(rel, name) for name in os.listdir(full))
    return rows
began = int(sys.argv[1])
a, b = listing(sys.argv[2], began), listing(sys.argv[3], began)
problems = [f"{p}: {a.get(p)} vs {b.get(p)}" for p in sorted(set(a) | set(b)) if a.get(p) != b.get(p)]
for line in problems[:20]:
    print("# " + line)
sys.exit(1 if problems else 0)
PY
}

# --- busybox, python and multilayer as the uid ---
declare -A rootless_tree
for image in busybox:busybox:latest python:python:3.13-slim multilayer:multilayer:latest; do
  dir=${image%%:*} ref=${image#*:}
  expect_user_exit 0 "$dir: import as uid $user" image import "oci:$images/$image"
  expect_user_exit 0 "$dir: unpack as uid $user" image unpack "$ref"
  rootfs=$(last_out)
  case $rootfs in
  "$user_root"/cache/*-rootless/rootfs) ok "$dir: the tree is a rootless cache entry" ;;
  *) not_ok "$dir: the tree is a rootless cache entry ($rootfs)" ;;
  esac
  check "$dir: every file belongs to uid $user" all_owned_by_user "$rootfs"
  # The same image unpacked by root, in root's own store.
  "$OCIRUN" --quiet image import "oci:$TEST_IMAGES/$image" >/dev/null 2>&1
  expect_exit 0 "$dir: unpack as root" "$OCIRUN" --quiet image unpack "$ref"
  root_rootfs=$(last_out)
  check "$dir: the same tree as root's except owners (modes, links, contents, xattrs, mtimes)" \
    same_tree "$root_rootfs" "$rootfs"
  rootless_tree[$dir]=$rootfs
done
# The image's owners are what root keeps and the uid does not.
check "root's multilayer keeps the image's owners" \
  test "$(stat -c %u:%g "$OCIRUN_ROOT"/cache/*/rootfs/owned | sort -u)" = 1234:5678
# multilayer.expect without its owners holds for the rootless tree.
grep -v '^#' "$TEST_IMAGES/multilayer.expect" | sed -E 's/ (uid|gid)=[0-9]+//g' >"$TEST_TMP/ml-no-owners.expect"
check "multilayer matches its expectation but for owners (whiteouts, opaque, hardlinks, set-id bits)" \
  "$top_srcdir/scripts/images/check-tree" "$TEST_TMP/ml-no-owners.expect" "${rootless_tree[multilayer]}"
check "busybox /tmp is 1777 and /root 0700" \
  test "$(stat -c %a "${rootless_tree[busybox]}/tmp") $(stat -c %a "${rootless_tree[busybox]}/root")" = "1777 700"
check "busybox as uid: sh runs in the tree" \
  test "$(setpriv --reuid="$user" --regid="$user" --clear-groups "${rootless_tree[busybox]}/bin/busybox" echo hi)" = hi

# --- restricted directories across layers, devices, capabilities ---
# Layer 1 makes 0555, 0500 and 0000 directories with contents; layer 2
# writes inside them without listing them, whiteouts into them, replaces one
# by a file, removes another and overwrites a 0000 file; layer 3 changes one
# directory's mode and re-creates the removed one implicitly (no entry).
PYTHONPATH="$top_srcdir/scripts/images" python3 -B - "$images/restricted" <<'PY'
import sys
from oci_layout import tar_bytes, tar_entry, write_gzip_image
# VFS_CAP_REVISION_2, permitted = CAP_NET_RAW, effective.
cap = bytes([1, 0, 0, 2, 0, 0x20, 0, 0]) + bytes(12)
def member(name, kind, mode, extra):
    owned = dict(mode=mode, mtime=1000000000, uid=1000, gid=1000)
    if kind == "file":
        return tar_entry(name, data=(name + "\n").encode(), xattrs=extra, **owned)
    if kind == "link":
        return tar_entry(name, "hardlink", target=extra, **owned)
    if kind == "char":
        return tar_entry(name, "char", devmajor=1, devminor=3, **owned)
    return tar_entry(name, kind, **owned)
def layer(entries):
    return tar_bytes([member(*e) for e in entries])
write_gzip_image(sys.argv[1], [
    layer([("ro/", "dir", 0o555, None), ("ro/a", "file", 0o644, {}), ("ro/gone", "file", 0o644, {}),
           ("zero/", "dir", 0o000, None), ("zero/inner", "file", 0o600, {}),
           ("zero/sub/", "dir", 0o555, None), ("zero/sub/f", "file", 0o444, {"user.note": b"kept"}),
           ("sealed/", "dir", 0o500, None), ("changed/", "dir", 0o555, None),
           ("removed/", "dir", 0o555, None), ("removed/old", "file", 0o644, {}),
           ("replaced/", "dir", 0o555, None), ("zero-file", "file", 0o000, {}),
           ("ping", "file", 0o755, {"security.capability": cap, "user.keep": b"yes"}),
           ("overlaid", "file", 0o644, {"user.overlay.redirect": b"/etc", "user.keep": b"yes",
                                        "trusted.overlay.opaque": b"y"}),
           ("dev/", "dir", 0o755, None), ("dev/null-copy", "char", 0o666, None),
           ("fifo", "fifo", 0o644, None), ("after", "file", 0o644, {})]),
    layer([("ro/b", "file", 0o644, {}), ("ro/.wh.gone", "file", 0o644, {}),
           ("sealed/sub/", "dir", 0o755, None), ("sealed/sub/deep", "file", 0o644, {}),
           ("zero/inner2", "file", 0o644, {}), ("zero/sub/g", "file", 0o644, {}),
           (".wh.removed", "file", 0o644, {}), ("replaced", "file", 0o644, {}),
           ("zero-file", "file", 0o000, {}), ("zero-link", "link", 0o000, "zero-file")]),
    layer([("changed/", "dir", 0o755, None), ("removed/x", "file", 0o644, {}),
           ("ro/", "dir", 0o555, None), ("ro/c", "file", 0o644, {})]),
])
PY
chmod -R a+rX "$TEST_TMP/shared"
expect_user_exit 0 "restricted: import as uid" image import "oci:$images/restricted:latest" --name restricted:latest
expect_user_exit 0 "restricted: unpack as uid (later layers write into 0555, 0500 and 0000 directories)" \
  image unpack restricted:latest
restricted=$(last_out)
modes() { for p in "$@"; do printf '%s=%s ' "$p" "$(stat -c %a "$restricted/$p")"; done; }
check "the image's directory modes are restored after the last layer" \
  test "$(modes ro zero zero/sub sealed sealed/sub)" = "ro=555 zero=0 zero/sub=555 sealed=500 sealed/sub=755 "
check "later layers wrote inside them" \
  test -f "$restricted/ro/b" -a -f "$restricted/zero/inner2" -a -f "$restricted/zero/sub/g" -a -f "$restricted/sealed/sub/deep"
check "a whiteout inside a 0555 directory removed the lower file" test ! -e "$restricted/ro/gone" -a -f "$restricted/ro/a"
check "a 0555 directory listed by the last layer keeps that layer's mtime" \
  test "$(stat -c %Y "$restricted/ro")" = 1000000000
check "a later layer's mode for a directory wins (0555 then 0755)" test "$(stat -c %a "$restricted/changed")" = 755
check "a removed 0555 directory re-created implicitly is 0755" \
  test "$(stat -c %a "$restricted/removed")" = 755 -a -f "$restricted/removed/x" -a ! -e "$restricted/removed/old"
check "a 0555 directory replaced by a file is that file" test -f "$restricted/replaced"
check "a 0000 file was replaced and hardlinked" \
  test "$(stat -c '%a %h' "$restricted/zero-file")" = "0 2" -a "$(cat "$restricted/zero-file")" = zero-file
check "a user.* xattr on a 0444 file is kept" python3 -c '
import os, sys
sys.exit(os.getxattr(sys.argv[1], "user.note") != b"kept")' "$restricted/zero/sub/f"
check "security.capability is dropped, the file and its user.* xattr are there" \
  python3 -c 'import os, sys; p = sys.argv[1]; names = os.listxattr(p)
sys.exit("security.capability" in names or os.getxattr(p, "user.keep") != b"yes")' "$restricted/ping"
no_overlay_xattrs='import os, sys; p = sys.argv[1]; names = os.listxattr(p)
sys.exit(any(".overlay." in n for n in names) or os.getxattr(p, "user.keep") != b"yes")'
check "overlayfs xattrs from the image are never applied (user.* beside them is)" \
  python3 -c "$no_overlay_xattrs" "$restricted/overlaid"
check "the char device entry is skipped (as root skips it) and the layer goes on" \
  test ! -e "$restricted/dev/null-copy" -a -f "$restricted/after"
check "every file belongs to uid $user" all_owned_by_user "$restricted"
"$OCIRUN" --quiet image import "oci:$images/restricted:latest" --name restricted:latest >/dev/null 2>&1
expect_exit 0 "restricted: unpack as root" "$OCIRUN" --quiet image unpack restricted:latest
root_restricted=$(last_out)
check "root keeps the file capability (the image does carry one)" \
  python3 -c 'import os, sys; sys.exit("security.capability" not in os.listxattr(sys.argv[1]))' "$root_restricted/ping"
check "root does not apply overlayfs xattrs from the image either" \
  python3 -c "$no_overlay_xattrs" "$root_restricted/overlaid"
check "restricted: the same tree as root's except owners" same_tree "$root_restricted" "$restricted"

# --- removal of trees with 0555 and 0000 directories ---
# A dead unpack's build directory holding restricted directories, and an
# incomplete entry (marker gone): the next build sweeps the first and
# replaces the second.
stale=$user_root/tmp/unpack-stale
setpriv --reuid="$user" --regid="$user" --clear-groups sh -c \
  "mkdir -p '$stale/rootfs/a/b' '$stale/rootfs/c' && chmod 0 '$stale/rootfs/a/b' && chmod 0500 '$stale/rootfs/a' && chmod 0555 '$stale/rootfs/c' '$stale/rootfs'"
entry=$(dirname "$restricted")
rm "$entry/complete"
expect_user_exit 0 "unpack over an incomplete rootless entry" image unpack restricted:latest
check "the incomplete entry was rebuilt" test -e "$entry/complete" -a "$(stat -c %a "$restricted/zero")" = 0
check "the stale build directory with 0000 and 0500 directories was swept" test ! -e "$stale"
# `image rm` removes every entry it made; lock files are not leftovers.
for ref in busybox:latest python:3.13-slim multilayer:latest restricted:latest; do
  expect_user_exit 0 "rm $ref as uid" image rm "$ref"
done
leftovers() { find "$user_root/cache" "$user_root/tmp" "$user_root/store/blobs" -mindepth 1 ! -name '*.lock' ! -name sha256 -print | head -5; }
check "nothing is left in cache/, tmp/ or the blobs" test -z "$(leftovers)"

# --- one store, root and the uid: root refuses the uid's store ---
# Root working in a store an ordinary user owns would follow that user's
# symlinks and run what the user put there (issue 8, finding 4); the store
# is the caller's or nothing (tests/escape-store.sh has the whole rule).
shared_root=$TEST_TMP/user/both
expect_user_exit 0 "import busybox into the uid's second store" --root "$shared_root" image import "oci:$images/busybox:busybox:latest"
expect_user_exit 0 "the uid unpacks busybox" --root "$shared_root" image unpack busybox:latest
user_busybox=$(last_out)
expect_exit 1 "root refuses to unpack in the uid's store" "$OCIRUN" --quiet --root "$shared_root" image unpack busybox:latest
check "the refusal names the owner and the fix" grep -q "is owned by uid $user, not by you (uid 0).*Fix: chown 0 '$shared_root'" "$TEST_TMP/err"
check "root left nothing in the uid's store" test -z "$(find "$shared_root" ! -uid "$user" -print | head -1)"
expect_user_exit 0 "the uid's store still works for the uid" --root "$shared_root" image unpack busybox:latest
check "same tree, still the uid's" test "$(last_out)" = "$user_busybox" -a "$(stat -c %u "$user_busybox/bin/busybox")" = "$user"
expect_user_exit 0 "the uid removes busybox" --root "$shared_root" image rm busybox:latest

tap_done
