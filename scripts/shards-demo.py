#!/usr/bin/python3
"""Sharding from the client, measured: N daemons on this machine (one --tick-epoch), M
characters spread over them by the sharded Python client's ring (animd_shards), and one merged
subscriber watching all of them. Prints the CPU, how the ring spread the characters, each
daemon's tick p50/p99/max and overruns (StatsReply: the last 1,000 ticks) and the subscriber's
frames/s (whole shard frames, messages, ticks of the whole fleet seen) and character-frames/s.

    scripts/shards-demo.sh [--daemons 3] [--characters 3000] [--seconds 20] [--rate-divisor 1]

(scripts/shards-demo.sh sets PYTHONPATH to the release build's python-package and finds the
daemon; run it after `cmake --build --preset release`.) Loopback only; every daemon it starts
is stopped at the end. Results go to stdout, a JSON line last.
"""

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from animd_shards import ShardedClient


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def start_daemon(animd, directory, name, epoch, extra):
    port_file = os.path.join(directory, f"{name}.port")
    log = open(os.path.join(directory, f"{name}.log"), "wb")
    process = subprocess.Popen([animd, "--address", "127.0.0.1", "--port", "0", "--port-file", port_file,
                                "--http-port", "-1", "--tick-epoch", str(epoch), "--log-level", "warn"] + extra,
                               stdout=log, stderr=subprocess.STDOUT)
    log.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"shards-demo: animd {name} exited with {process.returncode}")
        try:
            with open(port_file) as f:
                text = f.read().strip()
            if text:
                return process, f"127.0.0.1:{int(text)}"
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    process.kill()
    raise SystemExit(f"shards-demo: animd {name} wrote no port within 60 s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--animd", required=True)
    parser.add_argument("--daemons", type=int, default=3)
    parser.add_argument("--characters", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=20.0, help="measured watching time")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--rate-divisor", type=int, default=1)
    parser.add_argument("--workers", type=int, default=0, help="animd --workers (0: its default)")
    parser.add_argument("--drain", action="store_true",
                        help="then drain the first daemon into the others with migrate while the "
                             "subscriber watches")
    parser.add_argument("--batch", type=int, default=250, help="--drain: characters per migrate")
    args = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="animd-shards-demo-")
    epoch = int(time.time()) - 60
    extra = ["--workers", str(args.workers)] if args.workers else []
    processes = []
    try:
        for i in range(args.daemons):
            processes.append(start_daemon(args.animd, directory, f"d{i}", epoch, extra))
        addresses = [a for _, a in processes]
        with ShardedClient(addresses, timeout=30.0, frame_queue=100000) as sc:
            side = max(1, int(args.characters ** 0.5))
            t0 = time.monotonic()
            sc.spawn_many((f"npc-{i}", "builtin", "walk", (2.0 * (i % side), 0, 2.0 * (i // side)))
                          for i in range(args.characters))
            spawn_s = time.monotonic() - t0
            per_shard = {s: 0 for s in addresses}
            for ref in sc.routes.values():
                per_shard[ref.shard] += 1

            # A tick's frame too large for one message comes as StreamFrame parts (the Python
            # client delivers each): frames count part 0, messages every part.
            counts = {"frames": 0, "messages": 0, "characters": 0, "ticks": set()}
            # --drain: characters in the merged stream per fleet tick, while the drain runs.
            per_tick = collections.Counter()
            draining = threading.Event()
            lock = threading.Lock()
            measuring = threading.Event()

            def reader():
                while True:
                    sf = sc.next_frame(timeout=1.0)
                    if sf is None:
                        if not sc.shards:
                            return
                        continue
                    if measuring.is_set():
                        with lock:
                            counts["messages"] += 1
                            counts["frames"] += sf.frame.part == 0
                            counts["characters"] += len(sf.frame.characters)
                            counts["ticks"].add(sf.frame.tick)
                    if draining.is_set():
                        with lock:
                            per_tick[sf.frame.tick] += len(sf.frame.characters)

            thread = threading.Thread(target=reader, daemon=True)
            thread.start()
            sc.subscribe(all_characters=True, rate_divisor=args.rate_divisor)
            time.sleep(args.warmup)
            measuring.set()
            t0 = time.monotonic()
            time.sleep(args.seconds)
            measuring.clear()
            elapsed = time.monotonic() - t0
            stats = sc.broadcast("stats")
            dropped = sc.frames_dropped_locally
            drain = None
            if args.drain:
                drained = addresses[0]
                draining.set()
                time.sleep(1.0)
                sc.remove_daemon(drained)
                t0 = time.monotonic()
                batches = sc.rebalance(batch=args.batch)
                drain_s = time.monotonic() - t0
                time.sleep(1.0)
                draining.clear()
                after = sc.broadcast("stats")
                left = {s: len(sc.client(s).list_characters()) for s in addresses}
                with lock:
                    ticks = sorted(per_tick)
                # The first and last ticks seen may be cut (frames of other shards not yet in).
                inner = [per_tick[t] for t in ticks[5:-5]]
                drain = {"drained": drained, "moved": sum(b[2] for b in batches), "batches": len(batches),
                         "seconds": round(drain_s, 2),
                         "batch_max_s": round(max((b[3] for b in batches), default=0.0), 3),
                         "left": left, "total_after": sum(left.values()),
                         "min_characters_per_tick": min(inner) if inner else 0,
                         "ticks_seen": len(ticks),
                         "targets": {s: {"tick_p99_us": round(after[s].tick_time_p99_us),
                                         "tick_max_us": round(after[s].tick_time_max_us),
                                         "overruns": after[s].tick_overruns - stats[s].tick_overruns}
                                     for s in addresses[1:]}}
            sc.unsubscribe()

        print(f"CPU: {cpu_model()} ({os.cpu_count()} logical CPUs)")
        print(f"{args.daemons} daemons, {args.characters} characters (builtin, walk) spawned in {spawn_s:.2f} s")
        result = {"cpu": cpu_model(), "daemons": args.daemons, "characters": args.characters,
                  "seconds": round(elapsed, 2), "per_daemon": []}
        for shard in addresses:
            st = stats[shard]
            print(f"  {shard}: {per_shard[shard]} characters, tick p50 {st.tick_time_p50_us:.0f} us, "
                  f"p99 {st.tick_time_p99_us:.0f} us, max {st.tick_time_max_us:.0f} us, "
                  f"overruns {st.tick_overruns}, stream frames sent {st.stream_frames_sent}, "
                  f"dropped {st.stream_frames_dropped}")
            result["per_daemon"].append({
                "shard": shard, "characters": per_shard[shard], "tick_p50_us": round(st.tick_time_p50_us),
                "tick_p99_us": round(st.tick_time_p99_us), "tick_max_us": round(st.tick_time_max_us),
                "overruns": st.tick_overruns, "stream_frames_dropped": st.stream_frames_dropped})
        fps = counts["frames"] / elapsed
        mps = counts["messages"] / elapsed
        ticks = len(counts["ticks"]) / elapsed
        cfs = counts["characters"] / elapsed
        print(f"merged subscriber (rate divisor {args.rate_divisor}, float palettes): {fps:.1f} shard frames/s "
              f"({mps:.1f} messages/s with parts), {ticks:.1f} fleet ticks/s seen, {cfs:.0f} character-frames/s, "
              f"{dropped} dropped locally over {elapsed:.1f} s")
        result.update(frames_per_s=round(fps, 1), messages_per_s=round(mps, 1), ticks_per_s=round(ticks, 1),
                      character_frames_per_s=round(cfs), dropped_locally=dropped)
        if drain is not None:
            print(f"drain of {drain['drained']}: {drain['moved']} characters moved in {drain['batches']} migrate "
                  f"requests of at most {args.batch} in {drain['seconds']:.2f} s (slowest request "
                  f"{drain['batch_max_s'] * 1000:.0f} ms); characters after: {drain['left']} "
                  f"(total {drain['total_after']}); fewest characters in the merged stream in one tick "
                  f"during the drain: {drain['min_characters_per_tick']} over {drain['ticks_seen']} ticks")
            for shard, t in drain["targets"].items():
                print(f"  target {shard}: tick p99 {t['tick_p99_us']} us, max {t['tick_max_us']} us, "
                      f"overruns during the drain {t['overruns']}")
            result["drain"] = drain
        print(json.dumps(result))
    finally:
        for process, _ in processes:
            process.terminate()
        for process, _ in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
