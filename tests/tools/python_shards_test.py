#!/usr/bin/python3
"""Tests of the sharded Python client (client/python/animd_shards.py), run by ctest.

Ring properties need no daemon: the hash's fixed values (shared with the C++ ring's test),
balance of 10,000 keys over 3 daemons, minimal movement when a daemon is added or removed,
determinism. The loopback test starts 3 real animd (argv: --animd PATH) with one
--tick-epoch, spawns 30 characters by key, and checks placement, routing, the fanned-out
raycast (nearest hit of all shards at one tick), overlap_sphere (union) and the merged
stream. Exit 77 (ctest: skipped, reason printed) without python3-protobuf.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

try:
    import google.protobuf  # noqa: F401
except ImportError:
    print("skipped: python3-protobuf is not installed")
    sys.exit(77)

import animd_shards
from animd_shards import CharacterRef, HashRing, ShardedClient, fnv1a64, ring_hash

ANIMD = None  # set from argv
THREE = ["10.0.0.1:7450", "10.0.0.2:7450", "10.0.0.3:7450"]
KEYS = [f"entity-{i}" for i in range(10000)]


class RingTest(unittest.TestCase):
    def test_hash_has_the_documented_values(self):
        # FNV-1a's published values, and fmix64 over them (the C++ ring test has the same).
        self.assertEqual(fnv1a64(b""), 0xCBF29CE484222325)
        self.assertEqual(fnv1a64(b"a"), 0xAF63DC4C8601EC8C)
        self.assertEqual(ring_hash(""), 17280346270528514342)
        self.assertEqual(ring_hash("a"), 9413272369427828315)
        self.assertEqual(ring_hash("orc-17"), 17486665625998528021)
        self.assertEqual(ring_hash(42), ring_hash("42"))
        self.assertEqual(ring_hash(42), 9298553800152202476)

    def test_placement_is_fixed(self):
        ring = HashRing(["127.0.0.1:7450", "127.0.0.1:7460", "127.0.0.1:7470"])
        self.assertEqual(ring.vnodes, 160)
        got = [ring.node_for(i)[-4:] for i in range(10)]
        self.assertEqual(got, ["7460", "7470", "7460", "7470", "7460", "7450", "7460", "7450", "7450", "7470"])

    def test_deterministic_whatever_the_order_nodes_came_in(self):
        a = HashRing(THREE)
        b = HashRing(list(reversed(THREE)))
        c = HashRing(THREE + ["10.0.0.9:1"])
        c.remove("10.0.0.9:1")
        for key in KEYS[:2000]:
            self.assertEqual(a.node_for(key), b.node_for(key))
            self.assertEqual(a.node_for(key), c.node_for(key))

    def test_balance_of_10000_keys_over_3_daemons(self):
        ring = HashRing(THREE)
        counts = {n: 0 for n in THREE}
        for key in KEYS:
            counts[ring.node_for(key)] += 1
        for node, n in counts.items():
            # 160 points a daemon: each share within 15% of a third.
            self.assertLess(abs(n / len(KEYS) - 1 / 3), 0.15 / 3, f"{node}: {n} of {len(KEYS)}")

    def test_adding_a_daemon_moves_only_keys_to_it(self):
        before = HashRing(THREE)
        after = HashRing(THREE + ["10.0.0.4:7450"])
        moved = 0
        for key in KEYS:
            old, new = before.node_for(key), after.node_for(key)
            if old != new:
                moved += 1
                self.assertEqual(new, "10.0.0.4:7450", key)
        self.assertLess(abs(moved / len(KEYS) - 1 / 4), 0.1, f"{moved} moved")

    def test_removing_a_daemon_moves_only_its_keys(self):
        before = HashRing(THREE)
        after = HashRing(THREE)
        after.remove(THREE[1])
        moved = 0
        for key in KEYS:
            old, new = before.node_for(key), after.node_for(key)
            if old != new:
                moved += 1
                self.assertEqual(old, THREE[1], key)
        self.assertLess(abs(moved / len(KEYS) - 1 / 3), 0.1, f"{moved} moved")

    def test_bad_input(self):
        with self.assertRaises(LookupError):
            HashRing().node_for("x")
        with self.assertRaises(ValueError):
            HashRing(vnodes=0)
        with self.assertRaises(TypeError):
            ring_hash(1.5)


def start_daemon(directory, name, epoch):
    port_file = os.path.join(directory, f"{name}.port")
    log = open(os.path.join(directory, f"{name}.log"), "wb")
    process = subprocess.Popen(
        [ANIMD, "--address", "127.0.0.1", "--port", "0", "--port-file", port_file, "--http-port", "-1",
         "--tick-epoch", str(epoch), "--workers", "1", "--log-level", "warn"],
        stdout=log, stderr=subprocess.STDOUT)
    log.close()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"animd {name} exited with {process.returncode}")
        try:
            with open(port_file) as f:
                text = f.read().strip()
            if text:
                return process, f"127.0.0.1:{int(text)}"
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"animd {name} wrote no port within 60 s")


class LoopbackTest(unittest.TestCase):
    """Three daemons on loopback with one tick epoch."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="animd-shards-")
        cls.processes = []
        epoch = int(time.time()) - 3600
        for name in ("a", "b", "c"):
            process, address = start_daemon(cls.dir, name, epoch)
            cls.processes.append((process, address))
        cls.addresses = [a for _, a in cls.processes]
        cls.sc = ShardedClient(cls.addresses, timeout=20.0)
        cls.keys = [f"npc-{i}" for i in range(30)]
        # In a row along +x, 2 m apart: npc-0 at x = 0 is the nearest to a ray from x = -3.
        # Half one by one, half pipelined.
        cls.refs = {k: cls.sc.spawn(k, "builtin", "walk", at=(2.0 * i, 0, 0)) for i, k in enumerate(cls.keys[:15])}
        cls.refs.update(cls.sc.spawn_many(
            (k, "builtin", "walk", (2.0 * i, 0, 0)) for i, k in enumerate(cls.keys) if i >= 15))
        assert len(cls.refs) == 30

    @classmethod
    def tearDownClass(cls):
        cls.sc.close()
        for process, _ in cls.processes:
            process.terminate()
        for process, _ in cls.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_each_key_lands_where_the_ring_says(self):
        shards = set()
        for key, ref in self.refs.items():
            self.assertEqual(ref.shard, self.sc.ring.node_for(key), key)
            shards.add(ref.shard)
        self.assertEqual(shards, set(self.addresses))
        for shard in self.addresses:
            held = {c.character_id for c in self.sc.client(shard).list_characters()}
            mine = {r.character_id for r in self.refs.values() if r.shard == shard}
            self.assertTrue(mine <= held, shard)

    def test_commands_route_by_key(self):
        for key in ("npc-3", "npc-4", "npc-5"):
            self.sc.crossfade(key, "run", 0.2)
            pose = self.sc.query_pose(key, joints=["head"], world=True)
            self.assertEqual(len(pose.joints), 1)
        with self.assertRaises(KeyError):
            self.sc.play("nobody", "walk")

    def test_raycast_returns_the_nearest_hit_of_all_shards_at_one_tick(self):
        hit = self.sc.raycast((-3, 1.0, 0), (1, 0, 0), 100.0)
        self.assertTrue(hit.hit)
        self.assertEqual(hit.key, "npc-0")
        self.assertEqual(hit.ref, self.refs["npc-0"])
        self.assertEqual(hit.reply.tick, hit.tick)
        # Each shard asked alone at that tick: the merged hit is the nearest of theirs.
        distances = []
        for shard in self.addresses:
            reply = self.sc.client(shard).raycast((-3, 1.0, 0), (1, 0, 0), 100.0, tick=hit.tick)
            self.assertEqual(reply.tick, hit.tick)
            if reply.hit:
                distances.append(reply.distance)
        self.assertEqual(len(distances), 3)
        self.assertEqual(hit.reply.distance, min(distances))
        # The shooter's own character ignored (by key): the next one along the ray.
        second = self.sc.raycast((-3, 1.0, 0), (1, 0, 0), 100.0, tick=hit.tick, ignore=["npc-0"])
        self.assertEqual(second.tick, hit.tick)
        self.assertEqual(second.key, "npc-1")
        # A miss on every shard.
        miss = self.sc.raycast((-3, 50.0, 0), (1, 0, 0), 100.0)
        self.assertFalse(miss.hit)

    def test_overlap_sphere_is_the_union_of_all_shards(self):
        tick, overlaps = self.sc.overlap_sphere((10.0, 1.0, 0), 2.5)
        self.assertEqual(sorted(o.key for o in overlaps), ["npc-4", "npc-5", "npc-6"])
        for o in overlaps:
            self.assertEqual(o.ref, self.refs[o.key])
            self.assertTrue(o.character.joints)

    def test_merged_subscription_yields_frames_of_all_3(self):
        self.sc.subscribe(all_characters=True)
        try:
            seen = {}
            known = set(self.refs.values())
            for sf in self.sc.frames(count=3000, timeout=20.0):
                for ref, _ in sf.characters():
                    if ref in known:
                        seen.setdefault(sf.shard, set()).add(ref)
                if len(seen) == 3 and all(len(v) == sum(r.shard == s for r in known) for s, v in seen.items()):
                    break
            self.assertEqual(set(seen), set(self.addresses))
            self.assertEqual(set().union(*seen.values()), known)
        finally:
            self.sc.unsubscribe()

    def test_misplaced_after_a_daemon_leaves_the_ring(self):
        leaving = self.addresses[2]
        self.sc.remove_daemon(leaving)
        try:
            misplaced = self.sc.misplaced()
            held = {k for k, r in self.refs.items() if r.shard == leaving}
            self.assertEqual(set(misplaced), held)
            for key, (now, want) in misplaced.items():
                self.assertEqual(now, leaving)
                self.assertNotEqual(want, leaving)
            # Routing still follows the table: the character is where it was.
            some = next(iter(held))
            self.sc.set_speed(some, 1.0)
        finally:
            self.sc.add_daemon(leaving)
        self.assertEqual(self.sc.misplaced(), {})

    def test_apply_move_reroutes_keys(self):
        key = "moving-1"
        ref = self.sc.spawn(key, "builtin", "walk", at=(0, 0, 40))
        target = next(a for a in self.addresses if a != ref.shard)
        new_id = self.sc.client(target).spawn("builtin", "walk", at=(0, 0, 40))
        changed = self.sc.apply_move(ref.shard, target, 0, [ref.character_id, 999999], [new_id, 1])
        self.assertEqual(changed, [(ref, CharacterRef(target, new_id))])
        self.assertEqual(self.sc.ref(key), CharacterRef(target, new_id))
        self.sc.set_speed(key, 0.5)  # goes to the target
        self.sc.client(ref.shard).despawn(ref.character_id)
        self.sc.despawn(key)

    def test_characters_moved_message_updates_routes(self):
        if not animd_shards.characters_moved_supported():
            print("\nskipped: ServerMessage has no characters_moved field in this generated module",
                  file=sys.stderr)
            self.skipTest("ServerMessage.characters_moved is not in the generated module")
        from anim.v1 import envelope_pb2
        key = "moving-2"
        ref = self.sc.spawn(key, "builtin", "walk", at=(0, 0, 50))
        target = next(a for a in self.addresses if a != ref.shard)
        new_id = self.sc.client(target).spawn("builtin", "walk", at=(0, 0, 50))
        message = envelope_pb2.ServerMessage()
        moved = message.characters_moved
        moved.target, moved.tick = target, 1
        moved.from_ids.append(ref.character_id)
        moved.to_ids.append(new_id)
        self.sc._on_message(ref.shard, message)
        deadline = time.monotonic() + 20
        while self.sc.ref(key) == ref and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(self.sc.ref(key), CharacterRef(target, new_id))
        self.sc.client(ref.shard).despawn(ref.character_id)
        self.sc.despawn(key)

    def test_rebalance_migrates_misplaced_characters_alive(self):
        leaving = self.addresses[2]
        held = {k for k, r in self.sc.routes.items() if r.shard == leaving}
        self.assertTrue(held)
        self.sc.remove_daemon(leaving)
        try:
            batches = self.sc.rebalance(batch=4)
            self.assertEqual(sum(b[2] for b in batches), len(held))
            self.assertTrue(all(b[0] == leaving and b[1] != leaving for b in batches))
            self.assertEqual(self.sc.misplaced(), {})
            self.assertEqual(self.sc.client(leaving).list_characters(), [])
            for key in held:  # alive where the ring names, driven by key
                self.assertEqual(self.sc.ref(key).shard, self.sc.shard_for(key))
                self.sc.set_speed(key, 1.0)
        finally:
            self.sc.add_daemon(leaving)
            self.sc.rebalance()  # back where the ring names them, for the other tests
        self.assertEqual(self.sc.misplaced(), {})
        self.assertEqual({k for k, r in self.sc.routes.items() if r.shard == leaving}, held)


def main():
    global ANIMD
    parser = argparse.ArgumentParser()
    parser.add_argument("--animd", help="the animd binary (without it the loopback test is skipped)")
    args, rest = parser.parse_known_args()
    ANIMD = args.animd
    if not ANIMD:
        print("skipped: loopback test (no --animd)")
        del globals()["LoopbackTest"]
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
