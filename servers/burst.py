"""Fire N concurrent POSTs with ONE idempotency key, released together; summarise.

Usage: python3 burst.py URL --key KEY --body JSON [-n 20] [--timeout 3] [--save FILE]

Standard library only. "Together" matters: 20 loosely started curl processes arrive
over tens of milliseconds and may miss a race or a pool deadlock. Here every request's
connection is opened and its head sent first; then all the bodies go out in one loop,
so the server gets the 20 requests within a millisecond or two.

Prints one line. Exit status: 0 when every request got the same status and the same
body; 3 when some did not answer within the timeout (a hang); 4 when answers differ.
--save FILE writes the common body (exit 0 only), to compare a later replay with it.
"""

import argparse
import json
import socket
import sys
import threading
import time
from collections import Counter
from urllib.parse import urlsplit


def main() -> int:
    args = parse_args()
    url = urlsplit(args.url)
    if url.scheme != "http" or not url.hostname or not url.port:
        print(f"burst.py: expected http://HOST:PORT/PATH, got {args.url!r}", file=sys.stderr)
        return 2
    body = args.body.encode()
    head = (
        f"POST {url.path or '/'} HTTP/1.1\r\nHost: {url.netloc}\r\n"
        f"Content-Type: application/json\r\nIdempotency-Key: {args.key}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    sockets = [socket.create_connection((url.hostname, url.port), timeout=args.timeout) for _ in range(args.n)]
    for sock in sockets:
        sock.sendall(head)
    answers: list[tuple[int, dict, bytes] | None] = [None] * args.n
    started = time.monotonic()
    deadline = started + args.timeout
    for sock in sockets:
        sock.sendall(body)
    readers = [threading.Thread(target=read_into, args=(s, deadline, answers, i)) for i, s in enumerate(sockets)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    elapsed_ms = (time.monotonic() - started) * 1000
    return summarise(args, [a for a in answers if a is not None], elapsed_ms)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--key", required=True)
    parser.add_argument("--body", required=True)
    parser.add_argument("-n", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds, for the whole burst")
    parser.add_argument("--save", help="write the common body here")
    return parser.parse_args()


def read_into(sock: socket.socket, deadline: float, answers: list, index: int) -> None:
    """Read one HTTP/1.1 answer (the server closes: we sent Connection: close), or
    leave None at `index` when the deadline passes first."""
    data = b""
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            sock.settimeout(remaining)
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except (TimeoutError, ConnectionError):
        pass
    finally:
        sock.close()
    head, sep, payload = data.partition(b"\r\n\r\n")
    if not sep:
        return
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(":", 1) for line in lines[1:] if ":" in line)
    headers = {name.strip().lower(): value.strip() for name, value in headers.items()}
    length = int(headers.get("content-length", len(payload)))
    if len(payload) < length:
        return  # cut short by the deadline: not an answer
    answers[index] = (int(lines[0].split()[1]), headers, payload[:length])


def summarise(args: argparse.Namespace, answers: list, elapsed_ms: float) -> int:
    statuses = Counter(status for status, _, _ in answers)
    replayed = sum(1 for _, headers, _ in answers if headers.get("idempotent-replayed") == "true")
    bodies = Counter(body for _, _, body in answers)
    ids = {resource_id(body) for _, _, body in answers} - {None}
    missing = args.n - len(answers)
    parts = ", ".join(f"{count} × {status}" for status, count in sorted(statuses.items())) or "no answer"
    print(
        f"{args.n} requests, one key: {parts} ({replayed} marked Idempotent-Replayed); "
        f"{len(bodies)} distinct bodies, {len(ids)} distinct ids; "
        f"{missing} unanswered after {args.timeout:g} s; last answer after {elapsed_ms:.0f} ms"
    )
    if missing:
        return 3
    if len(statuses) != 1 or len(bodies) != 1:
        return 4
    if args.save:
        with open(args.save, "wb") as file:
            file.write(next(iter(bodies)))
    return 0


def resource_id(body: bytes) -> object:
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value.get("id") if isinstance(value, dict) else None


if __name__ == "__main__":
    sys.exit(main())
