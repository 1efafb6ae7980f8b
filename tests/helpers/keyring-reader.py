"""keyring-reader.py NAME [--own-session] [--link-user]: looks for the user
key NAME in this process's session keyring and prints "payload TEXT", or
"no key: errno N" (1: keyctl denied by seccomp; 126: no such key).
--own-session first joins a new anonymous session keyring (as ocirun's run
does), --link-user then links the uid's user keyring into it (which makes
its keys this process's). Only ctypes: it runs in the python test image,
fed on stdin ("python3 - NAME ...")."""
import ctypes
import sys

KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_LINK, KEYCTL_SEARCH, KEYCTL_READ = 1, 8, 10, 11
USER_KEYRING, SESSION_KEYRING = -4, -3
libc = ctypes.CDLL(None, use_errno=True)
keyctl = 250  # x86_64


def call(*args):
    return libc.syscall(keyctl, *args)


if "--own-session" in sys.argv:
    call(KEYCTL_JOIN_SESSION_KEYRING, None)
if "--link-user" in sys.argv and call(KEYCTL_LINK, USER_KEYRING, SESSION_KEYRING) < 0:
    print("link errno", ctypes.get_errno())
key = call(KEYCTL_SEARCH, SESSION_KEYRING, b"user", sys.argv[1].encode(), 0)
if key < 0:
    print("no key: errno", ctypes.get_errno())
else:
    buf = ctypes.create_string_buffer(64)
    n = call(KEYCTL_READ, key, buf, 64)
    print("payload", buf.raw[:max(n, 0)].decode())
