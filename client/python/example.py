#!/usr/bin/python3
"""Spawns the built-in character, plays walk, crossfades to run, subscribes and prints the
tick and the hips position of N stream frames, then despawns it. Exit 0 on success.

    PYTHONPATH=build/dev/python /usr/bin/python3 client/python/example.py --port 7450 --frames 10
"""

import argparse
import sys

from animd_client import AnimdError, Client


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7450)
    parser.add_argument("--token", default="")
    parser.add_argument("--frames", type=int, default=10, help="stream frames to print")
    args = parser.parse_args()

    try:
        with Client(args.host, args.port, token=args.token) as client:
            character = client.spawn("builtin", clip="walk")
            print(f"spawned character {character}")
            client.play(character, "walk")
            tick = client.crossfade(character, "run", 0.25)
            print(f"crossfading to run at tick {tick}")
            subscription = client.subscribe([character])
            print(f"subscription {subscription}")
            for frame in client.frames(count=args.frames):
                for c in frame.characters:
                    # Palette matrix 1 (hips): row-major 3x4, translation in elements 3, 7, 11.
                    p = c.palette
                    hips = (p[12 + 3], p[12 + 7], p[12 + 11]) if len(p) >= 24 else (0.0, 0.0, 0.0)
                    print(f"tick {frame.tick}: character {c.character_id} "
                          f"palette[1].t ({hips[0]:.3f}, {hips[1]:.3f}, {hips[2]:.3f}), {len(p) // 12} joints")
            client.unsubscribe(subscription)
            client.despawn(character)
            print("done")
    except AnimdError as e:
        print(f"example.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
