#!/usr/bin/env python3
"""dns-answer.py ADDRESS PORT ANSWER: a resolver for tests, on ADDRESS:PORT
(UDP): every A query is answered with ANSWER, anything else with NXDOMAIN;
it prints "ready" once bound and serves until killed."""
import socket
import struct
import sys


def answer(query, address):
    ident, _flags, qdcount = struct.unpack("!HHH", query[:6])
    end = 12
    while query[end] != 0:
        end += query[end] + 1
    question = query[12:end + 5]
    qtype = struct.unpack("!H", query[end + 1:end + 3])[0]
    if qdcount != 1 or qtype != 1:
        return struct.pack("!HHHHHH", ident, 0x8183, 1, 0, 0, 0) + question
    record = struct.pack("!HHHLH", 0xC00C, 1, 1, 60, 4) + socket.inet_aton(address)
    return struct.pack("!HHHHHH", ident, 0x8180, 1, 1, 0, 0) + question + record


def main(host, port, address):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((host, int(port)))
    print("ready", flush=True)
    while True:
        query, peer = sock.recvfrom(512)
        try:
            sock.sendto(answer(query, address), peer)
        except (IndexError, struct.error):
            pass


if __name__ == "__main__":
    main(*sys.argv[1:4])
