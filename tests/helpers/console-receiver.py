#!/usr/bin/env python3
"""A console socket's receiving side, as conmon and containerd's shim hold
it, for any command: listens on SOCKET, runs COMMAND (which names SOCKET
itself, e.g. `ocirun exec --tty --console-socket SOCKET ...`), receives the
pty's master (SCM_RIGHTS), types INPUT into it and prints what the terminal
shows until it closes (or 20 s pass), then `exit-status: N` (COMMAND's).
Usage: console-receiver.py SOCKET INPUT COMMAND [ARG...]"""
import array
import os
import select
import socket
import subprocess
import sys
import time

sock_path, text = sys.argv[1:3]
command = sys.argv[3:]
try:
    os.unlink(sock_path)
except FileNotFoundError:
    pass
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sock_path)
server.listen(1)
server.settimeout(30)
proc = subprocess.Popen(command, stdin=subprocess.DEVNULL)
try:
    conn, _ = server.accept()
except socket.timeout:
    print("no connection on the console socket", file=sys.stderr)
    sys.exit(proc.wait() or 1)
fds = array.array("i")
_, ancillary, _, _ = conn.recvmsg(1, socket.CMSG_LEN(fds.itemsize))
for level, kind, data in ancillary:
    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
        fds.frombytes(data[: fds.itemsize])
if not fds:
    print("no file descriptor came through the console socket", file=sys.stderr)
    sys.exit(proc.wait() or 1)
master = fds[0]
print("received a terminal: %s" % os.isatty(master))
sys.stdout.flush()
os.write(master, text.encode() + b"\n")
shown = b""
deadline = time.time() + 20
while time.time() < deadline:
    ready, _, _ = select.select([master], [], [], 0.5)
    if ready:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    elif proc.poll() is not None and text:
        break
sys.stdout.write(shown.decode(errors="replace"))
print("\nexit-status: %d" % proc.wait())
