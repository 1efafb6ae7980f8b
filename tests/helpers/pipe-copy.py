#!/usr/bin/env python3
"""Copies stdin to stdout as it comes, until end of file, dropping each
occurrence of MARKER and touching FLAG once it has written everything that
came before the first one: tests/lib.sh's with_pipes learns so that the
output its command wrote before exiting is in place, while whatever holds
the pipe later (a created container) goes on writing through it."""
import fcntl
import os
import stat
import sys

marker = sys.argv[1].encode()
flag = sys.argv[2]
out = sys.stdout.buffer
# A file others append to after the command (`start >>out`) is appended
# to here too, never written over at this copy's own offset.
if stat.S_ISREG(os.fstat(1).st_mode):
    fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_APPEND)
pending = b""
keep = len(marker) - 1
while True:
    data = os.read(0, 65536)
    if not data:
        break
    pending += data
    while True:
        i = pending.find(marker)
        if i < 0:
            break
        out.write(pending[:i])
        out.flush()
        pending = pending[i + len(marker):]
        with open(flag, "w"):
            pass
    # only what could still be the start of a marker waits for more
    held = next((n for n in range(min(keep, len(pending)), 0, -1)
                 if marker.startswith(pending[-n:])), 0)
    if len(pending) > held:
        out.write(pending[: len(pending) - held])
        out.flush()
        pending = pending[len(pending) - held:]
out.write(pending)
out.flush()
