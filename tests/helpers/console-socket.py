#!/usr/bin/env python3
"""The caller's side of --console-socket, as conmon and containerd's shim
are: listens on SOCKET, runs `ocirun --root ROOT create --console-socket
SOCKET ARGS... ID`, receives the pty's master (SCM_RIGHTS), runs `ocirun
start ID`, types INPUT into the terminal and prints what the terminal shows
until it closes (or 20 s pass). Exit status: create's, else 0."""
import array
import os
import select
import socket
import subprocess
import sys
import time

sock_path, ocirun, root, cid, text = sys.argv[1:6]
create_args = sys.argv[6:]
try:
    os.unlink(sock_path)
except FileNotFoundError:
    pass
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(sock_path)
server.listen(1)
server.settimeout(30)
create = subprocess.Popen(
    [ocirun, "--root", root, "create", "--console-socket", sock_path] + create_args + [cid],
    stdin=subprocess.DEVNULL)
try:
    conn, _ = server.accept()
except socket.timeout:
    create.wait()
    print("no connection on the console socket", file=sys.stderr)
    sys.exit(create.returncode or 1)
fds = array.array("i")
_, ancillary, _, _ = conn.recvmsg(1, socket.CMSG_LEN(fds.itemsize))
for level, kind, data in ancillary:
    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
        fds.frombytes(data[: fds.itemsize])
if create.wait() != 0:
    sys.exit(create.returncode)
if not fds:
    print("no file descriptor came through the console socket", file=sys.stderr)
    sys.exit(1)
master = fds[0]
print("received a terminal: %s" % os.isatty(master))
subprocess.run([ocirun, "--root", root, "start", cid], check=True)
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
sys.stdout.write(shown.decode(errors="replace"))
