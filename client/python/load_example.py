#!/usr/bin/python3
"""A few connections, each spawning characters, subscribing to them and sending crossfades
for a few seconds; prints stream frames/s, characters/s and reply latency. Exit 0 when no
command failed.

    animd-py-load-example --port 7450 --connections 4 --characters 5 --seconds 3   # installed
    PYTHONPATH=build/release/python:client/python /usr/bin/python3 \
        client/python/load_example.py --port 7450 --connections 4 --characters 5 --seconds 3
"""

import argparse
import random
import sys
import threading
import time

from animd_client import AnimdError, Client


def percentile(samples, p):
    """Nearest-rank percentile (0 for no samples)."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), int(-(-p * len(ordered) // 1))))
    return ordered[rank - 1]


class Worker(threading.Thread):
    def __init__(self, index, args, start_barrier):
        super().__init__(name=f"load-{index}", daemon=True)
        self.index, self.args, self.barrier = index, args, start_barrier
        self.latencies_ms, self.frames, self.characters, self.errors = [], 0, 0, []

    def run(self):
        try:
            with Client(self.args.host, self.args.port, token=self.args.token, tls=self.args.tls,
                        ca=self.args.ca, cert=self.args.cert, key=self.args.key) as client:
                ids = [client.spawn("builtin", clip="walk", at=(self.index * 2.0, 0.0, k * 2.0))
                       for k in range(self.args.characters)]
                client.subscribe(ids)
                self.barrier.wait()
                rng = random.Random(self.index)
                end = time.monotonic() + self.args.seconds
                next_command = time.monotonic()
                while time.monotonic() < end:
                    # Drain the stream, then send the next command when it is due.
                    frame = client.next_frame(timeout=max(0.0, min(0.05, next_command - time.monotonic())))
                    if frame is not None:
                        self.frames += 1
                        self.characters += len(frame.characters)
                    if time.monotonic() >= next_command:
                        t0 = time.perf_counter()
                        client.crossfade(rng.choice(ids), rng.choice(["walk", "run", "idle"]), 0.2)
                        self.latencies_ms.append((time.perf_counter() - t0) * 1000.0)
                        next_command += 1.0 / self.args.rate
                client.unsubscribe()
                for cid in ids:
                    client.despawn(cid)
        except AnimdError as e:
            self.errors.append(str(e))
        except threading.BrokenBarrierError:
            self.errors.append("another connection failed before the start")
        finally:
            if self.errors:
                self.barrier.abort()  # release the others instead of leaving them waiting


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7450)
    parser.add_argument("--token", default="")
    parser.add_argument("--tls", action="store_true", help="connect with TLS (1.2+)")
    parser.add_argument("--ca", help="PEM CA file for the daemon's certificate (default: system store)")
    parser.add_argument("--cert", help="PEM client certificate (with --key)")
    parser.add_argument("--key", help="PEM private key of --cert")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--characters", type=int, default=5, help="characters per connection")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rate", type=float, default=20.0, help="crossfades per connection per second")
    args = parser.parse_args()
    if args.connections < 1 or args.characters < 1 or not (0 < args.seconds <= 3600) or not (0 < args.rate <= 10000):
        parser.error("--connections and --characters must be >= 1, --seconds in (0, 3600], --rate in (0, 10000]")
    if not args.tls and (args.ca or args.cert or args.key):
        parser.error("--ca, --cert and --key need --tls")

    barrier = threading.Barrier(args.connections)
    workers = [Worker(i, args, barrier) for i in range(args.connections)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=args.seconds + 60)

    latencies = [ms for w in workers for ms in w.latencies_ms]
    frames = sum(w.frames for w in workers)
    characters = sum(w.characters for w in workers)
    errors = [e for w in workers for e in w.errors]
    print(f"{args.connections} connections x {args.characters} characters, {args.seconds:.1f} s")
    print(f"stream: {frames / args.seconds:.1f} frames/s, {characters / args.seconds:.0f} characters/s")
    print(f"crossfade reply latency: p50 {percentile(latencies, 0.5):.2f} ms, p99 {percentile(latencies, 0.99):.2f} ms, "
          f"max {max(latencies, default=0.0):.2f} ms ({len(latencies)} commands)")
    print(f"errors: {len(errors)}")
    for e in errors[:5]:
        print(f"  {e}", file=sys.stderr)
    return 0 if not errors and frames > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
