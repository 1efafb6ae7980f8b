#!/bin/bash
# The mount plan built from a bundle's config.json and applied as the OCI
# commands will (the bundle's root.path bound as the root), through
# tests/helpers/mount-plan-apply, on the host: bind/rbind with options and
# propagation, the default devices, linux.devices, masks, root.readonly,
# rootfsPropagation; and a hostile rootfs whose symlinks lead a destination
# into procfs, sysfs or /dev (CVE-2019-16884, CVE-2019-19921 class), out of
# the root (CVE-2024-45310), or whose /proc is a symlink. Each refusal after
# its control.
. "$top_srcdir/tests/lib.sh"

root_with_busybox "mount-spec"
APPLY="$top_builddir/tests/helpers/mount-plan-apply"
ROOTFS=$("$OCIRUN" image unpack busybox:latest 2>/dev/null | tail -n 1)
[ -d "$ROOTFS/bin" ] || { not_ok "unpack busybox"; tap_done; exit 1; }

B=$TEST_TMP/bundle
HOST=$TEST_TMP/host
mkdir -p "$HOST/dir/sub" "$HOST/empty"
echo host-file >"$HOST/file"
echo in-dir >"$HOST/dir/f"
echo in-sub >"$HOST/dir/sub/f"

# fresh_bundle: $B/rootfs a writable copy of busybox.
fresh_bundle() { rm -rf "$B" && mkdir -p "$B" && cp -a "$ROOTFS" "$B/rootfs"; }
# config MOUNTS [LINUX_EXTRA] [ROOT_EXTRA]: writes $B/config.json with the
# default mounts of `ocirun spec`, then MOUNTS (a JSON list's items, leading
# comma included).
config() {
  cat >"$B/config.json" <<JSON
{"ociVersion": "1.2.0",
 "root": {"path": "rootfs"${3-}},
 "mounts": [
  {"destination": "/proc", "type": "proc", "source": "proc"},
  {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
   "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
  {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
   "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
  {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
   "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
  {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
   "options": ["nosuid", "noexec", "nodev"]},
  {"destination": "/sys", "type": "sysfs", "source": "sysfs",
   "options": ["nosuid", "noexec", "nodev", "ro"]},
  {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
   "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]}
  ${1-}
 ],
 "linux": {"maskedPaths": ["/proc/kcore", "/proc/timer_list", "/sys/firmware"],
           "readonlyPaths": ["/proc/sys", "/proc/sysrq-trigger"]${2-}}
}
JSON
}
run() { "$APPLY" "$B" "$@"; }
mountinfo_of() { awk -v d="$1" '$5 == d' "$TEST_TMP/out"; }

fresh_bundle
config ''
expect_exit 0 "the default mounts apply" run cat /proc/self/mountinfo
for d in /proc /dev /dev/pts /dev/shm /dev/mqueue /sys /sys/fs/cgroup; do
  [ -n "$(mountinfo_of "$d")" ] && ok "$d is mounted" || not_ok "$d is mounted"
done
mountinfo_of /sys/fs/cgroup | grep -q " - cgroup2 " && ok "type cgroup is cgroup2" ||
  not_ok "type cgroup is cgroup2"
mountinfo_of / | grep -q " rw,nodev" && ok "the bound root is nodev" || not_ok "the bound root is nodev"
mountinfo_of /dev | grep -q "nosuid,nodev" && ok "/dev: nodev added to the config's nosuid" ||
  not_ok "/dev: nodev added to the config's nosuid"
mountinfo_of /dev/pts | grep -qv "nodev" && ok "devpts: no nodev added" || not_ok "devpts: no nodev added"
grep -q " $B/rootfs " /proc/self/mountinfo && not_ok "nothing of the plan is left on the host" ||
  ok "nothing of the plan is left on the host"

expect_exit 0 "default devices and links" run sh -c 'ls -ln /dev; for l in /dev/ptmx /dev/fd /dev/stdin /dev/stdout /dev/stderr; do readlink $l; done; echo x > /dev/null && head -c 4 /dev/zero | wc -c'
for dev in "1,   3.*null" "1,   5.*zero" "1,   7.*full" "1,   8.*random" "1,   9.*urandom" "5,   0.*tty"; do
  grep -q "^c.* $dev\$" "$TEST_TMP/out" && ok "default device: $dev" || not_ok "default device: $dev"
done
for l in pts/ptmx /proc/self/fd /proc/self/fd/0 /proc/self/fd/1 /proc/self/fd/2; do
  grep -qx "$l" "$TEST_TMP/out" && ok "link to $l" || not_ok "link to $l"
done
grep -qx 4 "$TEST_TMP/out" && ok "/dev/null and /dev/zero work" || not_ok "/dev/null and /dev/zero work"

expect_exit 0 "masked and read-only paths" run sh -c 'cat /proc/timer_list | wc -c; ls /sys/firmware | wc -l; echo 1 > /proc/sysrq-trigger || echo ro-ok; grep " /proc/sys " /proc/self/mountinfo'
[ "$(head -1 "$TEST_TMP/out")" = 0 ] && ok "/proc/timer_list is masked (empty)" || not_ok "/proc/timer_list is masked"
sed -n 2p "$TEST_TMP/out" | grep -qx 0 && ok "/sys/firmware is masked (empty dir)" || not_ok "/sys/firmware is masked"
out_has_literal ro-ok && ok "/proc/sysrq-trigger is read-only" || not_ok "/proc/sysrq-trigger is read-only"
grep -q " /proc/sys ro," "$TEST_TMP/out" && ok "/proc/sys is read-only" || not_ok "/proc/sys is read-only"
# A masked file reads empty, as runc's, crun's and Docker's do (programs read
# /proc/kcore, /proc/keys, /proc/timer_list and expect that), rather than
# failing with EACCES; its mount is the one null device, read-only.
[ "$(head -c 100 /proc/timer_list | wc -c)" -gt 0 ] && ok "control: /proc/timer_list has content on the host" ||
  not_ok "control: /proc/timer_list has content on the host"
expect_exit 0 "a masked file is read" run sh -c 'cat /proc/timer_list >/tmp/read && echo "read rc=0 bytes=$(wc -c </tmp/read)"; grep " /proc/timer_list " /proc/self/mountinfo'
out_has_literal "read rc=0 bytes=0" && ok "a masked file reads empty (not EACCES)" ||
  { not_ok "a masked file reads empty (not EACCES)"; show; }
grep " /proc/timer_list " "$TEST_TMP/out" | grep -q " ro,nosuid,noexec.* - devtmpfs " &&
  ok "... its mount is the host's devtmpfs node, ro, nosuid, noexec" ||
  { not_ok "... its mount is the host's devtmpfs node, ro, nosuid, noexec"; show; }

# binds: a host directory read-only and recursive, a file, a relative source
mount --bind "$HOST/empty" "$HOST/dir/sub" # a submount on the host: only rbind shows it
config ",
  {\"destination\": \"/rbind\", \"source\": \"$HOST/dir\", \"options\": [\"rbind\", \"ro\", \"rprivate\"]},
  {\"destination\": \"/bind\", \"source\": \"$HOST/dir\", \"options\": [\"bind\", \"nosuid\"]},
  {\"destination\": \"/etc/host-file\", \"type\": \"bind\", \"source\": \"$HOST/file\", \"options\": [\"bind\"]},
  {\"destination\": \"/rel\", \"source\": \"relsrc\", \"options\": [\"bind\", \"shared\"]},
  {\"destination\": \"/scratch\", \"type\": \"tmpfs\", \"options\": [\"noexec\", \"size=1m\"]}"
mkdir -p "$B/relsrc" && echo rel >"$B/relsrc/r"
expect_exit 0 "binds apply" run sh -c 'cat /rbind/f /etc/host-file /rel/r; ls /rbind/sub | wc -l; cat /bind/sub/f; touch /rbind/new || echo rbind-ro; touch /bind/new && echo bind-rw; cat /proc/self/mountinfo'
umount "$HOST/dir/sub"
out_has_literal in-dir && out_has_literal host-file && out_has_literal rel && ok "a dir, a file and a bundle-relative source are bound" ||
  not_ok "a dir, a file and a bundle-relative source are bound"
out_has_literal in-sub && ok "bind (not rbind) shows the host's directory under a submount" ||
  not_ok "bind (not rbind) shows the host's directory under a submount"
[ -n "$(mountinfo_of /rbind/sub)" ] && ok "rbind takes the submount along" || not_ok "rbind takes the submount along"
[ -z "$(mountinfo_of /bind/sub)" ] && ok "bind does not" || not_ok "bind does not"
out_has_literal rbind-ro && mountinfo_of /rbind/sub | grep -q " ro," && ok "rbind,ro: read-only, submount too" ||
  not_ok "rbind,ro: read-only, submount too"
out_has_literal bind-rw && [ -f "$HOST/dir/new" ] && ok "bind without ro writes the host dir" || not_ok "bind without ro writes the host dir"
rm -f "$HOST/dir/new"
mountinfo_of /bind | grep -q "nosuid" && ok "bind,nosuid" || not_ok "bind,nosuid"
mountinfo_of /rel | grep -q "shared:" && ok "shared propagation on /rel" || not_ok "shared propagation on /rel"
mountinfo_of /rbind | grep -q "shared:" && not_ok "rprivate: /rbind is private" || ok "rprivate: /rbind is private"
mountinfo_of /scratch | grep -q "nodev,noexec" && ok "a tmpfs without 'dev' is nodev" ||
  not_ok "a tmpfs without 'dev' is nodev"

# The r- attribute forms act on a tree's mounts; they never make a bind take
# the tree ("bind" + "rro" used to clone the host's submounts along), and a
# plain "rw" on an rbind does not loosen a read-only host submount.
mount --bind "$HOST/empty" "$HOST/dir/sub" && mount -o remount,bind,ro "$HOST/dir/sub"
config ",
  {\"destination\": \"/rro\", \"source\": \"$HOST/dir\", \"options\": [\"bind\", \"rro\"]},
  {\"destination\": \"/rbrw\", \"source\": \"$HOST/dir\", \"options\": [\"rbind\", \"rw\"]},
  {\"destination\": \"/rbns\", \"source\": \"$HOST/dir\", \"options\": [\"rbind\", \"rnosuid\"]}"
expect_exit 0 "r- attribute forms apply" run cat /proc/self/mountinfo
umount "$HOST/dir/sub"
[ -n "$(mountinfo_of /rbrw/sub)" ] && ok "control: rbind takes the submount along" ||
  not_ok "control: rbind takes the submount along"
[ -z "$(mountinfo_of /rro/sub)" ] && ok "bind + rro: the submount is not taken along" ||
  not_ok "bind + rro: the submount is not taken along"
mountinfo_of /rro | grep -q " ro," && ok "bind + rro: read-only" || not_ok "bind + rro: read-only"
mountinfo_of /rbrw | grep -q " rw," && mountinfo_of /rbrw/sub | grep -q " ro," &&
  ok "rbind + rw: the top is rw, the host's read-only submount stays read-only" ||
  not_ok "rbind + rw: the top is rw, the host's read-only submount stays read-only"
mountinfo_of /rbns/sub | grep -q "nosuid" && ok "rbind + rnosuid: the submount is nosuid" ||
  not_ok "rbind + rnosuid: the submount is nosuid"

# linux.devices: made with mode and owner, bound onto itself with dev
config '' ',
  "devices": [{"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229,
               "fileMode": 432, "uid": 5, "gid": 6},
              {"path": "/dev/myfifo", "type": "p"}]'
expect_exit 0 "linux.devices apply" run sh -c 'ls -ln /dev/fuse /dev/myfifo; grep -E " /dev(/fuse)? " /proc/self/mountinfo; mknod /dev/kmsg-copy c 1 11 && { head -c1 /dev/kmsg-copy >/dev/null 2>&1 && echo opened || echo denied; }; exec 3<>/dev/fuse && echo fuse-opens'
grep -q "^crw-rw---- .* 5 *6 *10, *229 .*/dev/fuse" "$TEST_TMP/out" && ok "/dev/fuse: c 10:229, 0660, 5:6" ||
  not_ok "/dev/fuse: c 10:229, 0660, 5:6"
grep -q "^p.*/dev/myfifo" "$TEST_TMP/out" && ok "the fifo is made" || not_ok "the fifo is made"
out_has_literal fuse-opens && ok "the made device opens" || not_ok "the made device opens"
out_has_literal denied && ok "a node made in /dev by the workload cannot be opened (/dev stays nodev)" ||
  not_ok "a node made in /dev by the workload cannot be opened (/dev stays nodev)"

# in a user namespace mknod is the kernel's no: the host's node is bound,
# and only if it is the very device the config names
config '' ',
  "devices": [{"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229},
              {"path": "/dev/myfifo", "type": "p"}]'
sed -i 's/, "gid=5"//' "$B/config.json" # only root is mapped
expect_exit 0 "userns: linux.devices apply" run --userns sh -c 'cat /proc/self/uid_map; ls -ln /dev/fuse /dev/myfifo; grep " /dev/fuse " /proc/self/mountinfo'
grep -q "^crw.* 10, *229 .*/dev/fuse" "$TEST_TMP/out" && grep -q " /dev/fuse .* - devtmpfs " "$TEST_TMP/out" &&
  ok "userns: /dev/fuse is the host's node, bound" || not_ok "userns: /dev/fuse is the host's node, bound"
grep -q "^p.*/dev/myfifo" "$TEST_TMP/out" && ok "userns: the fifo is made" || not_ok "userns: the fifo is made"
expect_exit 0 "userns: a masked file is read" run --userns sh -c 'cat /proc/timer_list >/tmp/read && echo "read rc=0 bytes=$(wc -c </tmp/read)"'
out_has_literal "read rc=0 bytes=0" && ok "userns: a masked file reads empty (not EACCES)" ||
  { not_ok "userns: a masked file reads empty (not EACCES)"; show; }
if [ -e /dev/char/1:5 ]; then
  skip "userns: a device whose host node is another device (this host has /dev/char)"
else
  config '' ', "devices": [{"path": "/dev/null", "type": "c", "major": 1, "minor": 5}]'
  sed -i 's/, "gid=5"//' "$B/config.json"
  expect_exit 125 "userns: /dev/null as 1:5, whose host node is 1:3, is refused" run --userns true
fi

# root.readonly and rootfsPropagation
config '' ', "rootfsPropagation": "rshared"' ', "readonly": true'
expect_exit 0 "readonly root and rshared apply" run sh -c 'touch /x || echo root-ro; touch /dev/shm/x && echo shm-rw; cat /proc/self/mountinfo'
out_has_literal root-ro && out_has_literal shm-rw && ok "root.readonly: the root only" || not_ok "root.readonly: the root only"
mountinfo_of / | grep -q " ro,.*shared:" && ok "rootfsPropagation rshared: the root is shared" ||
  not_ok "rootfsPropagation rshared: the root is shared"

# rslave: the host's mounts reach the container, its own never the host
mkdir -p "$HOST/prop" && mount -t tmpfs prop "$HOST/prop" && mount --make-shared "$HOST/prop"
config ",
  {\"destination\": \"/prop\", \"source\": \"$HOST/prop\", \"options\": [\"rbind\", \"rslave\"]},
  {\"destination\": \"/prop2\", \"source\": \"$HOST/prop\", \"options\": [\"rbind\"]}" ', "rootfsPropagation": "rslave"'
expect_exit 0 "rootfsPropagation rslave applies" run sh -c 'grep -E " /prop2? " /proc/self/mountinfo; mkdir /prop/inner && mount -t tmpfs inner /prop/inner && echo mounted-inside'
mountinfo_of /prop | grep -q "master:" && ok "rslave: /prop is a slave of the host's shared mount" ||
  not_ok "rslave: /prop is a slave of the host's shared mount"
mountinfo_of /prop2 | grep -q "master:" && ok "rslave tree: a plain rbind is a slave too" ||
  not_ok "rslave tree: a plain rbind is a slave too"
out_has_literal mounted-inside && ! grep -q " $HOST/prop/inner " /proc/self/mountinfo &&
  ok "a mount made inside does not reach the host" || not_ok "a mount made inside does not reach the host"
config ",
  {\"destination\": \"/prop\", \"source\": \"$HOST/prop\", \"options\": [\"rbind\", \"rslave\"]}"
expect_exit 0 "control: without rootfsPropagation the tree is private" run grep " /prop " /proc/self/mountinfo
mountinfo_of /prop | grep -q "master:" && not_ok "... so even an rslave bind has no master" ||
  ok "... so even an rslave bind has no master"
umount -l "$HOST/prop"

# ---- a hostile rootfs ----
# /var/tmp -> /proc: a tmpfs at /var/tmp/sys would cover /proc/sys.
fresh_bundle
rm -rf "$B/rootfs/var/tmp" && ln -s /proc "$B/rootfs/var/tmp" && ln -s /dev "$B/rootfs/devlink" &&
  ln -s /sys "$B/rootfs/syslink"
config ''
expect_exit 0 "control: /var/tmp/sys in the rootfs is procfs's /proc/sys" run cat /var/tmp/sys/kernel/ostype
for case in "/var/tmp/sys:tmpfs:procfs" "/var/tmp/newdir:tmpfs:procfs" "/syslink/kernel:tmpfs:sysfs" \
  "/syslink/fs/cgroup:tmpfs:cgroup2|sysfs" "/devlink/pts:tmpfs:devpts" "/devlink/new:tmpfs:/dev tmpfs" \
  "/proc:tmpfs:procfs" "/sys/kernel:tmpfs:sysfs" "/dev/pts:tmpfs:devpts"; do
  dest=${case%%:*} rest=${case#*:} type=${rest%%:*} want=${rest#*:}
  config ", {\"destination\": \"$dest\", \"type\": \"$type\"}"
  expect_exit 125 "a $type at $dest is refused" run true
  err_matches "mounts\[7\] $dest: .*($want)" && ok "... naming mounts[7] and $want" ||
    { not_ok "... naming mounts[7] and $want"; sed 's/^/# /' "$TEST_TMP/err"; }
done
for dest in /proc/sysrq-trigger /proc/sys/kernel/core_pattern /var/tmp/sysrq-trigger /sys/kernel/uevent_helper; do
  config ", {\"destination\": \"$dest\", \"source\": \"$HOST/file\", \"options\": [\"bind\"]}"
  expect_exit 125 "a bind over $dest is refused" run true
done
config ", {\"destination\": \"/proc/uptime\", \"source\": \"$HOST/file\", \"options\": [\"bind\"]}"
expect_exit 0 "control: a bind over /proc/uptime (lxcfs's) applies" run cat /proc/uptime
out_has_literal host-file && ok "... and shows the bound file" || not_ok "... and shows the bound file"
config ", {\"destination\": \"/var/tmp/uptime\", \"source\": \"$HOST/file\", \"options\": [\"bind\"]}"
expect_exit 125 "but not through /var/tmp -> /proc" run true
config ", {\"destination\": \"/sys/fs/cgroup\", \"type\": \"tmpfs\"}"
expect_exit 0 "control: a second mount at /sys/fs/cgroup (its place) applies" run true

# the rootfs's /proc a symlink (CVE-2019-16884)
fresh_bundle
mkdir "$B/rootfs/proc-fake" && rm -rf "$B/rootfs/proc" && ln -s /proc-fake "$B/rootfs/proc"
config ''
expect_exit 125 "a rootfs whose /proc is a symlink is refused" run true
err_matches "mounts\[0\] /proc: the destination is a symlink" && ok "... naming mounts[0] and the symlink" ||
  not_ok "... naming mounts[0] and the symlink"
[ -z "$(ls -A "$B/rootfs/proc-fake")" ] && ok "... nothing was mounted or made where it points" ||
  not_ok "... nothing was mounted or made where it points"

# a link climbing out of the root (CVE-2024-45310): created inside the root
fresh_bundle
OUTSIDE=$TEST_TMP/outside
mkdir -p "$OUTSIDE" "$B/rootfs$OUTSIDE"
ln -s "../../../../../../../..$OUTSIDE" "$B/rootfs/a"
mkdir -p "$TEST_TMP/ctl" && ln -s "../../../../../../../..$OUTSIDE" "$TEST_TMP/ctl/a"
mkdir -p "$TEST_TMP/ctl/a/b" && [ -d "$OUTSIDE/b" ] &&
  ok "control: mkdir -p through the link on the host creates the host's directory" ||
  not_ok "control: mkdir -p through the link on the host creates the host's directory"
rmdir "$OUTSIDE/b"
config ', {"destination": "/a/b", "type": "tmpfs"}'
expect_exit 0 "a destination under a link climbing out of the root applies" run sh -c "grep ' $OUTSIDE/b tmpfs ' /proc/mounts"
[ -z "$(ls -A "$OUTSIDE")" ] && ok "... nothing was created on the host" || not_ok "... nothing was created on the host"
[ -d "$B/rootfs$OUTSIDE/b" ] && ok "... it was created inside the root" || not_ok "... it was created inside the root"
rm -rf "$B/rootfs$OUTSIDE"
expect_exit 125 "the same link dangling inside the root: refused" run true
[ -z "$(ls -A "$OUTSIDE")" ] && ok "... nothing was created on the host" || not_ok "... nothing was created on the host"

# tmpcopyup (runc's extension, podman asks for it): the tmpfs starts with
# what the directory under it held; the image's symlinks are copied as
# links, never followed.
fresh_bundle
mkdir -p "$B/rootfs/cu/sub" && echo image-file >"$B/rootfs/cu/f" && echo deep >"$B/rootfs/cu/sub/g"
chmod 0751 "$B/rootfs/cu" && ln -s /etc/host-secret "$B/rootfs/cu/link"
mkdir -p "$B/rootfs/nocu" && echo hidden >"$B/rootfs/nocu/f"
config ', {"destination": "/cu", "type": "tmpfs", "options": ["tmpcopyup", "size=1m"]},
  {"destination": "/nocu", "type": "tmpfs", "options": ["size=1m"]}'
expect_exit 0 "a tmpfs with tmpcopyup applies" run sh -c 'cat /cu/f /cu/sub/g; readlink /cu/link; stat -c %a /cu; ls /nocu | wc -l; grep " /cu " /proc/self/mountinfo; echo new > /cu/new'
out_has_literal image-file && out_has_literal deep && ok "tmpcopyup: the files and subdirectories are copied" ||
  not_ok "tmpcopyup: the files and subdirectories are copied"
out_has_literal /etc/host-secret && ok "tmpcopyup: a link is copied as a link" || not_ok "tmpcopyup: a link is copied as a link"
grep -qx 751 "$TEST_TMP/out" && ok "tmpcopyup: the tmpfs root takes the directory's mode" ||
  not_ok "tmpcopyup: the tmpfs root takes the directory's mode"
grep -qx 0 "$TEST_TMP/out" && ok "control: without tmpcopyup the tmpfs starts empty" ||
  not_ok "control: without tmpcopyup the tmpfs starts empty"
grep -q " /cu .* - tmpfs " "$TEST_TMP/out" && ok "tmpcopyup: /cu is a tmpfs" || not_ok "tmpcopyup: /cu is a tmpfs"
[ ! -e "$B/rootfs/cu/new" ] && ok "tmpcopyup: writes go to the tmpfs, not the image" ||
  not_ok "tmpcopyup: writes go to the tmpfs, not the image"
config ", {\"destination\": \"/cu\", \"source\": \"$HOST/dir\", \"options\": [\"bind\", \"tmpcopyup\"]}"
expect_exit 125 "tmpcopyup on a bind mount is refused" run true
err_matches "tmpcopyup' is for a tmpfs" && ok "... naming the option" || not_ok "... naming the option"

# refusals before anything is applied
fresh_bundle
config ', {"destination": "/mnt", "type": "ext4", "source": "/dev/sda1"}'
expect_exit 125 "type ext4 is refused" run true
err_matches "mounts\[7\].type: 'ext4' is not supported" && ok "... naming mounts[7].type" || not_ok "... naming mounts[7].type"
config ', {"destination": "/mnt", "options": ["bind"]}'
expect_exit 125 "a bind without source is refused" run true
tap_done
