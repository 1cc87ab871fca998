#!/usr/bin/python3
"""Spawns the built-in character, plays walk, crossfades to run, subscribes and prints the
tick and the hips position of N stream frames, then despawns it. Exit 0 on success.

    animd-py-example --port 7450 --frames 10          # installed (docs/tools.md)
    PYTHONPATH=build/release/python:client/python /usr/bin/python3 client/python/example.py \
        --port 7450 --frames 10                        # from a build tree
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
    parser.add_argument("--tls", action="store_true", help="connect with TLS (1.2+)")
    parser.add_argument("--ca", help="PEM CA file for the daemon's certificate (default: system store)")
    parser.add_argument("--cert", help="PEM client certificate (with --key)")
    parser.add_argument("--key", help="PEM private key of --cert")
    args = parser.parse_args()
    if not args.tls and (args.ca or args.cert or args.key):
        parser.error("--ca, --cert and --key need --tls")

    try:
        with Client(args.host, args.port, token=args.token, tls=args.tls, ca=args.ca, cert=args.cert,
                    key=args.key) as client:
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
