#!/usr/bin/env python3
"""The caller's side of --console-socket, as conmon and containerd's shim
are: listens on SOCKET, runs `ocirun --root ROOT create --console-socket
SOCKET ARGS... ID`, receives the pty's master (SCM_RIGHTS), runs `ocirun
start ID`, types INPUT into the terminal and prints what the terminal shows
until it closes (or 20 s pass). Exit status: create's, else 0."""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
from console_master import listen, receive_master, type_and_read  # noqa: E402

sock_path, ocirun, root, cid, text = sys.argv[1:6]
create_args = sys.argv[6:]
server = listen(sock_path)
create = subprocess.Popen(
    [ocirun, "--root", root, "create", "--console-socket", sock_path] + create_args + [cid],
    stdin=subprocess.DEVNULL)
master, why = receive_master(server)
if create.wait() != 0 or master is None:
    if why:
        print(why, file=sys.stderr)
    sys.exit(create.returncode or 1)
print("received a terminal: %s" % os.isatty(master))
subprocess.run([ocirun, "--root", root, "start", cid], check=True)
sys.stdout.write(type_and_read(master, text))
