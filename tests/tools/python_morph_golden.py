"""The Python client's morph helpers against three.js (../shared/golden/*.morphs.json), through
a real animd serving MorphArm and RobotExpressive: decode_morph_sets on get_asset_data, the
flat names against AssetInfo.morph_targets, and for every golden scenario the clip held at
its time (start_time t, speed 0), query_pose's palette and the golden's weights through
morphed_skinned_positions, within 1e-4 of the golden's scene-space vertices.

Usage: python3 python_morph_golden.py PORT SHARED_DIR (run by python_client_test.cpp with the
installed animd-client on PYTHONPATH). Prints one line per scenario; exit 0 when all match.
"""

import json
import os
import sys
import time

from animd_client import (Client, MorphError, decode_morph_sets, default_weights,
                          morph_target_names, morphed_skinned_positions)

TOLERANCE = 1e-4
ASSETS = [("MorphArm", "MorphArm.morphs.json"), ("RobotExpressive", "RobotExpressive.morphs.json")]


def held_palette(client, character_id, play_tick):
    """query_pose's palette once a tick after `play_tick` is done (speed 0: the same pose)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        pose = client.query_pose(character_id)
        if pose.tick > play_tick:
            return list(pose.palette)
        time.sleep(0.005)
    raise RuntimeError(f"character {character_id}: no tick after {play_tick}")


def golden_meshes(sets):
    """Golden mesh i is range i of the sets in order: (set index, first vertex, count)."""
    return [(s, first, count) for s, ms in enumerate(sets) for first, count in ms.ranges]


def run_asset(client, asset, golden):
    data = client.get_asset_data(asset)
    sets = decode_morph_sets(data)
    names = morph_target_names(sets)
    if names != list(data.info.morph_targets):
        raise AssertionError(f"{asset}: names {names} != AssetInfo {list(data.info.morph_targets)}")
    if len(default_weights(sets)) != len(names):
        raise AssertionError(f"{asset}: default weights do not match the targets")
    meshes = golden_meshes(sets)
    if len(meshes) != len(golden["meshes"]):
        raise AssertionError(f"{asset}: {len(meshes)} ranges, golden has {len(golden['meshes'])}")
    worst_all = 0.0
    for sc in golden["scenarios"]:
        cid = client.spawn(asset)
        play_tick = client.play(cid, sc["clip"], speed=0.0, start_time=sc["t"])
        palette = held_palette(client, cid, play_tick)
        weights = []
        for s in range(len(sets)):
            first_mesh = next(i for i, m in enumerate(meshes) if m[0] == s)
            weights += sc["meshes"][first_mesh]["weights"]
        drawn = morphed_skinned_positions(data, palette, weights, sets)
        worst = 0.0
        for i, (_, first, count) in enumerate(meshes):
            want = sc["meshes"][i]["positions"]
            if len(want) != count:
                raise AssertionError(f"{asset} {sc['name']}: mesh {i} has {count} vertices, "
                                     f"golden {len(want)}")
            for v in range(count):
                got = drawn[first + v]
                worst = max(worst, max(abs(got[c] - want[v][c]) for c in range(3)))
        print(f"[python morph golden] {asset}: {sc['name']}: max vertex error {worst:.3g}")
        worst_all = max(worst_all, worst)
    return worst_all


def main():
    port, shared = int(sys.argv[1]), sys.argv[2]
    failed = False
    with Client(port=port, timeout=20.0) as client:
        for asset, golden_file in ASSETS:
            with open(os.path.join(shared, "golden", golden_file)) as f:
                golden = json.load(f)
            try:
                worst = run_asset(client, asset, golden)
            except (AssertionError, MorphError) as e:
                print(f"FAIL {e}")
                failed = True
                continue
            if worst > TOLERANCE:
                print(f"FAIL {asset}: max vertex error {worst:.3g} > {TOLERANCE}")
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
