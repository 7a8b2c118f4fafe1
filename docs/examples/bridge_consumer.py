#!/usr/bin/env python3
"""Prints the events svc publishes on one address, read from `svc web --bridge-port`.

Standard library only. Each event body is printed as one JSON line on stdout; notices go to
stderr. Exits 0 after --count events, 1 when the server answers with an error (a wrong token,
an address that is not allowed) or closes the connection.

  SVC_AUTH_TOKEN=<token> python3 docs/examples/bridge_consumer.py --host localhost --port 7001 \\
      --ca ~/.svc/certs/ca.pem --address svc.events

See docs/events.md, "From other languages: the TCP bridge".
"""
import argparse
import json
import os
import socket
import ssl
import struct
import sys


def send_frames(sock, *frames):
    # a frame: 4-byte big-endian length, then UTF-8 JSON; several go in one write
    out = b""
    for frame in frames:
        data = json.dumps(frame).encode("utf-8")
        out += struct.pack(">I", len(data)) + data
    sock.sendall(out)


class FrameReader:
    """Splits the byte stream into frames; keeps a partial frame across read timeouts."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""

    def next(self):
        """The next frame, or None at the end of the stream; raises socket.timeout when idle."""
        while True:
            if len(self.buffer) >= 4:
                (length,) = struct.unpack(">I", self.buffer[:4])
                if len(self.buffer) >= 4 + length:
                    data, self.buffer = self.buffer[4:4 + length], self.buffer[4 + length:]
                    return json.loads(data.decode("utf-8"))
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk


def connect(args):
    sock = socket.create_connection((args.host, args.port), timeout=10)
    if args.plain:
        return sock
    # the server's certificate is the one of its HTTPS API: trust its CA file, else the system's CAs
    context = ssl.create_default_context(cafile=os.path.expanduser(args.ca) if args.ca else None)
    return context.wrap_socket(sock, server_hostname=args.host)


def main():
    parser = argparse.ArgumentParser(description="Print svc events from the TCP event-bus bridge, one JSON line each.")
    parser.add_argument("--host", default="localhost", help="server name or address (default: localhost)")
    parser.add_argument("--port", type=int, required=True, help="the server's --bridge-port")
    parser.add_argument("--address", default="svc.events",
                        help="svc.events (every event) or svc.events.<source_id> (default: svc.events)")
    parser.add_argument("--token", help="the server's token (default: $SVC_AUTH_TOKEN, which ps does not show)")
    parser.add_argument("--ca", help="CA file the server's certificate chains to, e.g. ~/.svc/certs/ca.pem")
    parser.add_argument("--plain", action="store_true", help="no TLS, for a server started with --insecure")
    parser.add_argument("--count", type=int, help="exit after this many events")
    parser.add_argument("--ping-interval", type=float, default=30.0,
                        help="seconds of silence before a ping keeps the connection alive (default: 30)")
    args = parser.parse_args()
    token = args.token or os.environ.get("SVC_AUTH_TOKEN")
    # every frame carries the token; a server without one ignores it
    headers = {"token": token} if token else {}

    try:
        sock = connect(args)
    except (OSError, ssl.SSLError) as e:
        print(f"cannot connect to {args.host}:{args.port}: {e}", file=sys.stderr)
        return 1
    with sock:
        sock.settimeout(args.ping_interval)
        # the bridge handles frames in order: the first pong means the register went through. One
        # write: a bridge that refuses the token closes the connection after its error, and a second
        # write could fail before that error was read
        send_frames(sock, {"type": "register", "address": args.address, "headers": headers},
                    {"type": "ping", "headers": headers})
        reader = FrameReader(sock)
        registered = False
        received = 0
        while args.count is None or received < args.count:
            try:
                frame = reader.next()
            except socket.timeout:
                send_frames(sock, {"type": "ping", "headers": headers})
                continue
            if frame is None:
                print("the server closed the connection", file=sys.stderr)
                return 1
            kind = frame.get("type")
            if kind == "err":
                print(f"error from the server: {frame.get('message')}", file=sys.stderr)
                return 1
            if kind == "pong" and not registered:
                registered = True
                print(f"registered on {args.address}", file=sys.stderr, flush=True)
            elif kind == "message":
                print(json.dumps(frame.get("body")), flush=True)
                received += 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
