#!/usr/bin/python3
"""Measures a running animd: tick time percentiles (StatsReply) and the size of stream frames.

Usage: measure.py --port PORT [--python-dir BUILD/python] [--settle 10] [--frames 120]

Start the daemon with the load to measure, e.g. `animd --spawn-builtin 1000`, wait, then run
this. It prints the daemon's tick p50/p99/max over its last 1,000 ticks and overrun count,
then subscribes to all characters (float 3x4 encoding) and reports bytes per frame and per
character-frame (total frame bytes incl. the 4-byte length / characters in it, and the
serialized CharacterFrame alone).
"""
import argparse
import os
import socket
import struct
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--python-dir", default=os.path.join(os.path.dirname(__file__), "../../build/release/python"))
    ap.add_argument("--settle", type=float, default=10.0, help="seconds to wait before reading stats")
    ap.add_argument("--frames", type=int, default=120)
    args = ap.parse_args()
    sys.path.insert(0, args.python_dir)
    from anim.v1 import envelope_pb2  # noqa: E402

    s = socket.create_connection((args.host, args.port))
    buf = b""

    def send(req):
        body = req.SerializeToString()
        s.sendall(struct.pack("<I", len(body)) + body)

    def recv():
        nonlocal buf
        while len(buf) < 4:
            buf += s.recv(1 << 20)
        (n,) = struct.unpack("<I", buf[:4])
        while len(buf) < 4 + n:
            buf += s.recv(1 << 20)
        msg = envelope_pb2.ServerMessage()
        msg.ParseFromString(buf[4:4 + n])
        buf = buf[4 + n:]
        return msg, 4 + n

    time.sleep(args.settle)
    req = envelope_pb2.Request(request_id=1)
    req.stats.SetInParent()
    send(req)
    st = recv()[0].reply.stats
    print(f"characters {st.characters}, workers {st.worker_threads}, tick {st.tick}, "
          f"tick p50 {st.tick_time_p50_us:.0f} us, p99 {st.tick_time_p99_us:.0f} us, "
          f"max {st.tick_time_max_us:.0f} us, overruns {st.tick_overruns}")

    req = envelope_pb2.Request(request_id=2)
    req.subscribe.all_characters = True
    send(req)
    sizes, chars, char_bytes, joints = [], 0, 0, 0
    while len(sizes) < args.frames:
        msg, size = recv()
        if msg.WhichOneof("kind") != "frame":
            continue
        f = msg.frame
        sizes.append(size)
        chars += len(f.characters)
        for c in f.characters[:8]:
            char_bytes += c.ByteSize()
            joints += len(c.palette) // 12
    n = len(sizes)
    sampled = min(8, chars // n) * n
    print(f"frames {n}, mean frame {sum(sizes) / n:.0f} bytes, "
          f"{sum(sizes) / chars:.1f} bytes per character-frame (frame total / characters), "
          f"CharacterFrame alone {char_bytes / sampled:.1f} bytes for {joints / sampled:.0f} joints")


if __name__ == "__main__":
    main()
