#!/usr/bin/python3
# A seccomp notify agent for tests/seccomp-listener.sh: listens on SOCKET,
# takes one connection, receives the container process state and one fd
# (SCM_RIGHTS), writes OUT/state.json, OUT/fd-link (the fd's readlink) and
# OUT/fdinfo, then MODE: "hold" keeps the fd 2 s and closes it (notified
# calls then fail with ENOSYS); "answer" answers the first notification
# with EXDEV through the fd's ioctls, then closes it.
import array, errno, fcntl, os, socket, struct, sys, time

path, out, mode = sys.argv[1:4]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(1)
open(os.path.join(out, "listening"), "w").close()
conn, _ = server.accept()
fds = array.array("i")
data = b""
while True:
    msg, ancdata, _, _ = conn.recvmsg(65536, socket.CMSG_LEN(4 * fds.itemsize))
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
    if not msg:
        break
    data += msg
open(os.path.join(out, "state.json"), "wb").write(data)
open(os.path.join(out, "fd-count"), "w").write("%d\n" % len(fds))
if len(fds) != 1:
    sys.exit(1)
fd = fds[0]
open(os.path.join(out, "fd-link"), "w").write(os.readlink("/proc/self/fd/%d" % fd) + "\n")
open(os.path.join(out, "fdinfo"), "w").write(open("/proc/self/fdinfo/%d" % fd).read())
if mode == "hold":
    time.sleep(2)
    os.close(fd)
    sys.exit(0)
# struct seccomp_notif (80 bytes) and seccomp_notif_resp (24 bytes): linux/seccomp.h
RECV = (3 << 30) | (80 << 16) | (ord("!") << 8) | 0
SEND = (3 << 30) | (24 << 16) | (ord("!") << 8) | 1
notif = bytearray(80)
fcntl.ioctl(fd, RECV, notif)
ident, pid, _, nr = struct.unpack_from("=QIIi", notif)
open(os.path.join(out, "notified"), "w").write("%d %d\n" % (pid, nr))
fcntl.ioctl(fd, SEND, bytearray(struct.pack("=QqiI", ident, 0, -errno.EXDEV, 0)))
os.close(fd)
