#!/usr/bin/env python3
"""A console socket's receiving side, as conmon and containerd's shim hold
it, for any command: listens on SOCKET, runs COMMAND (which names SOCKET
itself, e.g. `ocirun exec --tty --console-socket SOCKET ...`), receives the
pty's master (SCM_RIGHTS), types INPUT into it and prints what the terminal
shows until it closes (or 20 s pass), then `exit-status: N` (COMMAND's).
Usage: console-receiver.py SOCKET INPUT COMMAND [ARG...]"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True
from console_master import listen, receive_master, type_and_read  # noqa: E402

sock_path, text = sys.argv[1:3]
command = sys.argv[3:]
server = listen(sock_path)
proc = subprocess.Popen(command, stdin=subprocess.DEVNULL)
master, why = receive_master(server)
if master is None:
    print(why, file=sys.stderr)
    sys.exit(proc.wait() or 1)
print("received a terminal: %s" % os.isatty(master))
sys.stdout.flush()
sys.stdout.write(type_and_read(master, text, lambda: proc.poll() is not None and text))
print("\nexit-status: %d" % proc.wait())
