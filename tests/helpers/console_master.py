"""The receiving side of a console socket, shared by console-receiver.py and
console-socket.py: listen on a socket path, take the pty master a runtime
sends on it (SCM_RIGHTS), type a line into it and read what the terminal
shows."""
import array
import os
import select
import socket
import time

# The accepted connections stay open for the script's life, as a caller's do.
_connections = []


def listen(path):
    """A listening unix socket at PATH (replacing what is there), 30 s to connect."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)
    server.settimeout(30)
    return server


def receive_master(server):
    """(the master's fd, None), or (None, why there is none)."""
    try:
        conn, _ = server.accept()
    except socket.timeout:
        return None, "no connection on the console socket"
    _connections.append(conn)
    fds = array.array("i")
    _, ancillary, _, _ = conn.recvmsg(1, socket.CMSG_LEN(fds.itemsize))
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(data[: fds.itemsize])
    if not fds:
        return None, "no file descriptor came through the console socket"
    return fds[0], None


def type_and_read(master, text, done=lambda: False):
    """Types TEXT and a newline into MASTER; what the terminal shows until it
    closes, 20 s pass, or it is quiet for half a second once done()."""
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
        elif done():
            break
    return shown.decode(errors="replace")
