"""A sharded animd client: characters spread over several daemons by a consistent-hash ring.

One ShardedClient holds one animd_client.Client per daemon ("shard", named by its address
"host:port" exactly as given). Characters are placed by a key the caller chooses (an entity
name or number): spawn(key, ...) goes to the daemon the ring names for the key and returns a
CharacterRef(shard, character_id); every per-character command (play, crossfade, set_root,
query_pose, ... any Client method whose first argument is a character id) takes the key or
the CharacterRef and goes to the daemon holding that character.

The ring (HashRing; the C++ animclient::HashRing is the same, bit for bit):

- hash(bytes) = fmix64(fnv1a64(bytes)): 64-bit FNV-1a, then MurmurHash3's 64-bit finalizer
  (FNV-1a alone spreads short, similar strings such as "shard#1", "shard#2" poorly).
- each daemon owns `vnodes` points (default 160): hash(f"{name}#{i}") for i in 0..vnodes-1.
- a key (str: its UTF-8 bytes; int: its decimal digits) belongs to the first point at or
  after hash(key), wrapping around; equal points are ordered by daemon name.
So a ring depends only on its daemons' names and the vnode count, and adding or removing one
daemon of N moves only the keys of that daemon's arcs (about 1/N of them).

Characters already spawned stay where they live: the routing table (key -> CharacterRef),
not the ring, routes their commands. add_daemon/remove_daemon change where new keys go;
misplaced() lists the keys whose ring daemon is no longer the one holding them (to move
them, despawn + spawn, or the daemon's migration, which announces characters_moved).

Fan-out queries: raycast and overlap_sphere go to every daemon at ONE tick number. The
daemons share a fleet clock (animd --tick-epoch; docs/operations.md "Fleet clock"): tick T
is the same instant on all of them, so the merged answer poses every character as it was at
that instant. Without an explicit tick the fleet's newest common tick is used: the smallest
of the daemons' newest published ticks (stats), which every daemon still holds in its pose
history. raycast returns the nearest hit over all daemons (ties: lower shard name, then lower
character id); overlap_sphere the union. Each hit names its shard and key.

Merged stream: subscribe() subscribes on every daemon (all characters, a list of keys, or a
region); frames of all daemons come through one bounded queue, read with frames() or
next_frame(), each a ShardFrame(shard, frame) whose characters are named by CharacterRef.

characters_moved: a daemon that hands characters to another (migration) announces it on its
connections as ServerMessage.characters_moved (target "host:port", tick, from_ids[i] ->
to_ids[i]). When the generated module knows that message, the routing table follows it: the
keys of the moved characters route to (target, new id) from then on, and a connection to an
unknown target is opened (it joins the connections, not the ring). Older generated modules
ignore it.

    with ShardedClient(["127.0.0.1:7450", "127.0.0.1:7460", "127.0.0.1:7470"]) as sc:
        ref = sc.spawn("orc-17", "builtin", clip="walk", at=(3, 0, 0))
        sc.crossfade("orc-17", "run", 0.25)
        hit = sc.raycast((0, 1, 0), (1, 0, 0))
        sc.subscribe(all_characters=True)
        for sf in sc.frames(count=10):
            for ref, character in sf.characters():
                print(sf.frame.tick, ref.shard, ref.character_id)
"""

import bisect
import collections
import concurrent.futures
import threading
import time

from anim.v1 import envelope_pb2, types_pb2

from animd_client import AnimdError, Client, ServerError, vec3

DEFAULT_VNODES = 160
_MASK64 = (1 << 64) - 1
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3


def fnv1a64(data):
    """64-bit FNV-1a of `data` (bytes)."""
    h = _FNV_OFFSET
    for b in data:
        h = ((h ^ b) * _FNV_PRIME) & _MASK64
    return h


def fmix64(h):
    """MurmurHash3's 64-bit finalizer (a bijection that mixes every bit into every bit)."""
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & _MASK64
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & _MASK64
    h ^= h >> 33
    return h


def key_bytes(key):
    """A key as the ring hashes it: str -> UTF-8, int -> decimal digits, bytes as they are."""
    if isinstance(key, bytes):
        return key
    if isinstance(key, bool) or not isinstance(key, (str, int)):
        raise TypeError(f"a shard key is a str, int or bytes, not {type(key).__name__}")
    return str(key).encode("utf-8")


def ring_hash(key):
    """The ring's hash of a key: fmix64(fnv1a64(key_bytes(key)))."""
    return fmix64(fnv1a64(key_bytes(key)))


class HashRing:
    """A consistent-hash ring over named nodes, `vnodes` points per node (see the module)."""

    def __init__(self, nodes=(), vnodes=DEFAULT_VNODES):
        if vnodes < 1:
            raise ValueError("vnodes must be >= 1")
        self.vnodes = vnodes
        self._nodes = set()
        self._points = []  # sorted (hash, node)
        self._hashes = []
        for node in nodes:
            self.add(node)

    @property
    def nodes(self):
        return sorted(self._nodes)

    def __len__(self):
        return len(self._nodes)

    def add(self, node):
        if not isinstance(node, str) or not node:
            raise ValueError("a ring node is a non-empty str")
        if node in self._nodes:
            return
        self._nodes.add(node)
        self._points.extend((ring_hash(f"{node}#{i}"), node) for i in range(self.vnodes))
        self._rebuild()

    def remove(self, node):
        if node not in self._nodes:
            raise KeyError(node)
        self._nodes.discard(node)
        self._points = [p for p in self._points if p[1] != node]
        self._rebuild()

    def _rebuild(self):
        self._points.sort()
        self._hashes = [h for h, _ in self._points]

    def node_for(self, key):
        """The node owning `key`; raises LookupError on an empty ring."""
        if not self._points:
            raise LookupError("the ring has no nodes")
        i = bisect.bisect_left(self._hashes, ring_hash(key))
        return self._points[i if i < len(self._points) else 0][1]


class CharacterRef(collections.namedtuple("CharacterRef", "shard character_id")):
    """A character of a sharded fleet: the daemon holding it ("host:port") and its id there."""

    __slots__ = ()


class ShardFrame(collections.namedtuple("ShardFrame", "shard frame")):
    """A StreamFrame of one daemon of the merged stream."""

    __slots__ = ()

    def characters(self):
        """(CharacterRef, CharacterFrame) for each character of the frame."""
        return [(CharacterRef(self.shard, c.character_id), c) for c in self.frame.characters]

    def despawned(self):
        return [CharacterRef(self.shard, i) for i in self.frame.despawned]


class RaycastHit(collections.namedtuple("RaycastHit", "tick hit shard key reply")):
    """A merged raycast: tick (the one tick every daemon was asked at), hit (False: nothing on
    any daemon), and for a hit its shard, the key routed to that character (None if it was not
    spawned through this client) and that daemon's RaycastReply (character_id, joint_name,
    point, normal, distance)."""

    __slots__ = ()

    @property
    def ref(self):
        return CharacterRef(self.shard, self.reply.character_id) if self.hit else None


class Overlap(collections.namedtuple("Overlap", "shard key character")):
    """One overlapped character of a merged overlap_sphere: its shard, key (or None) and the
    daemon's CharacterOverlap (character_id, joints)."""

    __slots__ = ()

    @property
    def ref(self):
        return CharacterRef(self.shard, self.character.character_id)


# Client methods whose first argument is a character id: routed by key or CharacterRef.
PER_CHARACTER = frozenset((
    "despawn", "set_root", "set_root_motion", "play", "crossfade", "set_speed", "add_layer",
    "update_layer", "add_montage_slot", "add_machine_layer", "play_montage", "jump_to_section",
    "stop_montage", "remove_layer", "set_ik_goal", "clear_ik_goal", "set_aim_ik", "move_aim_target",
    "clear_aim_ik", "set_foot_ik", "set_ground", "clear_foot_ik", "query_pose", "set_parameter",
    "start_state_machine", "stop_state_machine", "set_trigger", "get_state", "set_pose",
    "blend_out_pose", "set_morph_weights", "clear_morph_weights",
))

# Retries of a fan-out query at an earlier tick when the chosen one was skipped by a daemon
# (an overrun: no pose history at that number; docs/operations.md "Fleet clock").
_SKIPPED_TICK_RETRIES = 3


def _split_address(address):
    if isinstance(address, tuple):
        host, port = address
        return f"{host}:{int(port)}", host, int(port)
    host, sep, port = str(address).rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"a daemon address is host:port, not {address!r}")
    return f"{host}:{int(port)}", host, int(port)


def characters_moved_supported():
    """True when the generated module has ServerMessage.characters_moved."""
    return "characters_moved" in envelope_pb2.ServerMessage.DESCRIPTOR.fields_by_name


class ShardedClient:
    """Connections to several daemons, characters placed on them by a consistent-hash ring."""

    def __init__(self, addresses, vnodes=DEFAULT_VNODES, frame_queue=4096, **client_options):
        """addresses: "host:port" strings or (host, port) tuples, one per daemon (its ring
        name is "host:port"). client_options go to every animd_client.Client (token,
        timeout, tls, ca, ...)."""
        self._options = dict(client_options)
        self.ring = HashRing(vnodes=vnodes)
        self._lock = threading.Condition()
        self._clients = {}  # shard -> Client
        self._routes = {}  # key -> CharacterRef
        self._keys = {}  # CharacterRef -> key
        self._subscriptions = {}  # shard -> subscription id (the merged stream's)
        self._subscribe_args = None
        self._frames = collections.deque()
        self._frame_capacity = frame_queue
        self.frames_dropped_locally = 0
        self.moves = []  # (source shard, target shard, tick, [(old ref, new ref)]) as applied
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="animd-shards")
        try:
            for address in addresses:
                self.add_daemon(address)
        except Exception:
            self.close()
            raise
        if not self._clients:
            self.close()
            raise ValueError("a ShardedClient needs at least one daemon")

    # ---- connections and the ring ----

    def _connect(self, shard):
        """The Client of `shard`, connecting when there is none yet (not added to the ring)."""
        with self._lock:
            client = self._clients.get(shard)
        if client is not None:
            return client
        _, host, port = _split_address(shard)
        client = Client(host=host, port=port, **self._options)
        client.set_frame_callback(lambda frame, s=shard: self._on_frame(s, frame))
        client.set_message_callback(lambda message, s=shard: self._on_message(s, message))
        with self._lock:
            if shard in self._clients:  # another thread won the race
                existing = self._clients[shard]
            else:
                self._clients[shard] = client
                existing = None
        if existing is not None:
            client.close()
            return existing
        return client

    def add_daemon(self, address):
        """Connects to a daemon and adds it to the ring; returns its shard name. Keys already
        spawned stay where they are (see misplaced())."""
        shard, _, _ = _split_address(address)
        self._connect(shard)
        self.ring.add(shard)
        if self._subscribe_args is not None and shard not in self._subscriptions:
            self._subscribe_one(shard)
        return shard

    def remove_daemon(self, address, close=False):
        """Takes a daemon out of the ring (new keys no longer go there). Its characters keep
        their routes until moved; close=True also closes the connection and forgets them."""
        shard, _, _ = _split_address(address)
        self.ring.remove(shard)
        if close:
            with self._lock:
                client = self._clients.pop(shard, None)
                self._subscriptions.pop(shard, None)
                for ref in [r for r in self._keys if r.shard == shard]:
                    self._routes.pop(self._keys.pop(ref), None)
            if client is not None:
                client.close()

    @property
    def shards(self):
        """The shards this client has connections to, sorted (ring members and move targets)."""
        with self._lock:
            return sorted(self._clients)

    def client(self, shard):
        """The animd_client.Client of a shard ("host:port")."""
        with self._lock:
            return self._clients[shard]

    def shard_for(self, key):
        """The shard the ring names for `key` (where spawn(key) would go)."""
        return self.ring.node_for(key)

    def ref(self, key_or_ref):
        """The CharacterRef of a key spawned through this client (or the ref itself)."""
        if isinstance(key_or_ref, CharacterRef):
            return key_or_ref
        with self._lock:
            ref = self._routes.get(key_or_ref)
        if ref is None:
            raise KeyError(f"no character with key {key_or_ref!r}")
        return ref

    def key_of(self, ref):
        """The key routed to a CharacterRef, or None."""
        with self._lock:
            return self._keys.get(ref)

    @property
    def routes(self):
        """A copy of the routing table: key -> CharacterRef."""
        with self._lock:
            return dict(self._routes)

    def misplaced(self):
        """{key: (shard holding it, shard the ring names now)} for the keys not on their ring
        shard (after add_daemon / remove_daemon)."""
        with self._lock:
            routes = dict(self._routes)
        out = {}
        for key, ref in routes.items():
            want = self.ring.node_for(key) if len(self.ring) else None
            if want != ref.shard:
                out[key] = (ref.shard, want)
        return out

    def close(self):
        with self._lock:
            clients = list(self._clients.values())
            self._clients.clear()
            self._lock.notify_all()
        for client in clients:
            client.close()
        self._pool.shutdown(wait=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- characters ----

    def spawn(self, key, asset="builtin", clip="", at=None):
        """Spawns the character of `key` on the key's ring shard; returns its CharacterRef.
        A key already spawned through this client raises ValueError."""
        key_bytes(key)  # type check
        with self._lock:
            if key in self._routes:
                raise ValueError(f"key {key!r} is already spawned as {self._routes[key]}")
        shard = self.ring.node_for(key)
        character_id = self._connect(shard).spawn(asset, clip, at=at)
        ref = CharacterRef(shard, character_id)
        with self._lock:
            self._routes[key] = ref
            self._keys[ref] = key
        return ref

    def spawn_many(self, entries, window=48):
        """Spawns many characters with requests pipelined per shard (at most `window` in
        flight on each connection: the daemon holds 64 per connection for the tick). entries:
        (key, asset, clip, at) tuples (at may be None). Returns {key: CharacterRef}; the first
        failure raises once every request was answered (the others stay spawned and routed)."""
        by_shard = collections.defaultdict(list)
        for key, asset, clip, at in entries:
            key_bytes(key)
            with self._lock:
                if key in self._routes:
                    raise ValueError(f"key {key!r} is already spawned as {self._routes[key]}")
            by_shard[self.ring.node_for(key)].append((key, asset, clip, at))
        done = {}
        errors = []
        state = threading.Condition()

        def one_shard(shard, items):
            client = self._connect(shard)
            in_flight = [0]

            def answered(key, reply):
                with state:
                    in_flight[0] -= 1
                    if reply.status.code == types_pb2.STATUS_OK:
                        done[key] = CharacterRef(shard, reply.spawn.character_id)
                    else:
                        errors.append(ServerError(reply.status.code, reply.status.message))
                    state.notify_all()

            for key, asset, clip, at in items:
                request = envelope_pb2.Request()
                request.spawn.asset, request.spawn.clip = asset, clip
                if at is not None:
                    request.spawn.root.translation.CopyFrom(vec3(at))
                with state:
                    while in_flight[0] >= window:
                        if not state.wait(client.timeout) or not client.connected:
                            break
                    in_flight[0] += 1
                client._send_async(request, lambda reply, k=key: answered(k, reply))
            deadline = time.monotonic() + client.timeout
            with state:
                while in_flight[0] > 0 and client.connected and time.monotonic() < deadline:
                    state.wait(0.1)
                if in_flight[0] > 0:
                    errors.append(AnimdError("timeout", f"{in_flight[0]} spawns on {shard} unanswered"))

        futures = [self._pool.submit(one_shard, s, items) for s, items in by_shard.items()]
        for f in futures:
            f.result()
        with self._lock:
            for key, ref in done.items():
                self._routes[key] = ref
                self._keys[ref] = key
        if errors:
            raise errors[0]
        return done

    def adopt(self, key, ref):
        """Routes `key` to a character this client did not spawn (e.g. imported elsewhere)."""
        with self._lock:
            old = self._routes.pop(key, None)
            if old is not None:
                self._keys.pop(old, None)
            self._routes[key] = ref
            self._keys[ref] = key

    def despawn(self, key_or_ref):
        ref = self.ref(key_or_ref)
        tick = self.client(ref.shard).despawn(ref.character_id)
        with self._lock:
            key = self._keys.pop(ref, None)
            if key is not None:
                self._routes.pop(key, None)
        return tick

    def __getattr__(self, name):
        # Per-character commands: sc.play(key, "walk") = client(shard).play(id, "walk").
        if name in PER_CHARACTER:
            def routed(key_or_ref, *args, **kwargs):
                ref = self.ref(key_or_ref)
                return getattr(self.client(ref.shard), name)(ref.character_id, *args, **kwargs)

            routed.__name__ = name
            return routed
        raise AttributeError(name)

    def broadcast(self, method, *args, **kwargs):
        """Calls a Client method on every shard in parallel (asset-wide commands such as
        load_asset, set_hit_volumes, add_clip_events); returns {shard: result}. The first
        error raises, after every call finished."""
        shards = self.shards
        futures = {s: self._pool.submit(getattr(self.client(s), method), *args, **kwargs) for s in shards}
        return {s: f.result() for s, f in futures.items()}

    # ---- fan-out queries at one tick ----

    def fleet_tick(self):
        """The newest tick every shard has published: min over the shards' stats().tick."""
        return min(self.broadcast("stats").values(), key=lambda s: s.tick).tick

    def _ignore_by_shard(self, ignore):
        out = collections.defaultdict(list)
        for item in ignore:
            ref = self.ref(item)
            out[ref.shard].append(ref.character_id)
        return out

    def _fan_out(self, tick, build):
        """Runs build(shard, client, tick) on every shard in parallel at `tick` (None: the fleet
        tick, retried earlier when a daemon skipped it). Returns (tick, {shard: reply})."""
        explicit = tick is not None
        tick = tick if explicit else self.fleet_tick()
        attempt = 0
        while True:
            futures = {s: self._pool.submit(build, s, self.client(s), tick) for s in self.shards}
            replies, errors = {}, []
            for s, f in futures.items():
                try:
                    replies[s] = f.result()
                except AnimdError as e:
                    errors.append(e)
            if not errors:
                return tick, replies
            retry = not explicit and attempt < _SKIPPED_TICK_RETRIES and all(
                isinstance(e, ServerError) and e.code == types_pb2.STATUS_NOT_FOUND for e in errors)
            if not retry:
                raise errors[0]
            attempt += 1
            tick -= 1

    def raycast(self, origin, direction, max_distance=1000.0, tick=None, ignore=()):
        """The nearest hit over every shard, all posed at one tick (see the module). ignore:
        keys or CharacterRefs left out. Returns a RaycastHit."""
        ignored = self._ignore_by_shard(ignore)

        def one(shard, client, t):
            return client.raycast(origin, direction, max_distance, tick=t, ignore=ignored.get(shard, ()))

        tick, replies = self._fan_out(tick, one)
        best = None
        for shard in sorted(replies):
            reply = replies[shard]
            if not reply.hit:
                continue
            rank = (reply.distance, shard, reply.character_id)
            if best is None or rank < best[0]:
                best = (rank, shard, reply)
        if best is None:
            return RaycastHit(tick, False, None, None, None)
        _, shard, reply = best
        return RaycastHit(tick, True, shard, self.key_of(CharacterRef(shard, reply.character_id)), reply)

    def overlap_sphere(self, center, radius, tick=None, ignore=()):
        """Every character of every shard whose capsules the sphere overlaps, all posed at one
        tick. Returns (tick, [Overlap]) sorted by shard, then character id."""
        ignored = self._ignore_by_shard(ignore)

        def one(shard, client, t):
            return client.overlap_sphere(center, radius, tick=t, ignore=ignored.get(shard, ()))

        tick, replies = self._fan_out(tick, one)
        out = []
        for shard in sorted(replies):
            for character in replies[shard].characters:
                out.append(Overlap(shard, self.key_of(CharacterRef(shard, character.character_id)), character))
        return tick, out

    # ---- merged stream ----

    def subscribe(self, keys=(), all_characters=False, region=None, rate_divisor=1, encoding="float",
                  events=False, event_min_weight=0.0):
        """Subscribes on every shard: to all characters, to the characters of `keys` (on the
        shards holding them) or to a region (Client.sphere_region / box_region). Frames of all
        shards then come through frames() / next_frame(). Returns {shard: subscription id}.
        Shards added later (add_daemon, a move target) are subscribed the same way (by keys:
        only shards holding one of the keys)."""
        self._subscribe_args = dict(keys=list(keys), all_characters=all_characters, region=region,
                                    rate_divisor=rate_divisor, encoding=encoding, events=events,
                                    event_min_weight=event_min_weight)
        for shard in self.shards:
            self._subscribe_one(shard)
        with self._lock:
            return dict(self._subscriptions)

    def _subscribe_one(self, shard):
        args = dict(self._subscribe_args)
        keys = args.pop("keys")
        ids = [self.ref(k).character_id for k in keys if self.ref(k).shard == shard]
        if keys and not ids:
            return
        subscription = self.client(shard).subscribe(character_ids=ids, **args)
        with self._lock:
            self._subscriptions[shard] = subscription

    def unsubscribe(self):
        """Ends the merged stream's subscriptions on every shard."""
        with self._lock:
            subscriptions = dict(self._subscriptions)
            self._subscriptions.clear()
        self._subscribe_args = None
        for shard, subscription in subscriptions.items():
            self.client(shard).unsubscribe(subscription)

    def _on_frame(self, shard, frame):
        with self._lock:
            if len(self._frames) >= self._frame_capacity:
                self._frames.popleft()
                self.frames_dropped_locally += 1
            self._frames.append(ShardFrame(shard, frame))
            self._lock.notify_all()

    def next_frame(self, timeout=5.0):
        """The oldest ShardFrame of any shard, or None after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not self._frames:
                left = deadline - time.monotonic()
                if left <= 0 or not self._clients:
                    return None
                self._lock.wait(left)
            return self._frames.popleft()

    def frames(self, count=None, timeout=5.0):
        """Yields ShardFrames of every shard as they arrive (`count` of them; None: until
        close). Raises AnimdError("timeout") when none arrives within `timeout` seconds."""
        n = 0
        while count is None or n < count:
            frame = self.next_frame(timeout)
            if frame is None:
                with self._lock:
                    if not self._clients:
                        return
                raise AnimdError("timeout", f"no stream frame from any shard within {timeout} s")
            n += 1
            yield frame

    def rebalance(self, batch=256, token="", tls=False, deadline_ms=0):
        """Moves every misplaced key's character to the shard the ring names for it now (after
        add_daemon / remove_daemon), alive, with migrate: one request per batch of at most
        `batch` characters going from one shard to another (`token`: the targets' control
        token). The routes follow each reply. Returns [(source, target, count, seconds)] of
        the batches, in order; a refused batch raises ServerError (its characters stay, the
        batches before it are moved)."""
        groups = collections.defaultdict(list)
        for key, (have, want) in self.misplaced().items():
            if want is not None:
                groups[(have, want)].append(key)
        done = []
        for (source, target), keys in sorted(groups.items()):
            _, host, port = _split_address(target)
            for i in range(0, len(keys), batch):
                part = keys[i:i + batch]
                ids = [self.ref(k).character_id for k in part]
                t0 = time.monotonic()
                reply = self.client(source).migrate(ids, host, port, token=token, tls=tls,
                                                    deadline_ms=deadline_ms)
                done.append((source, target, len(part), time.monotonic() - t0))
                self.apply_move(source, reply.target, reply.tick, ids, list(reply.character_ids))
        return done

    # ---- characters_moved ----

    def _on_message(self, shard, message):
        kind = message.WhichOneof("kind")
        if kind != "characters_moved":
            return
        moved = getattr(message, "characters_moved")
        # Connecting blocks; the reader thread must not wait on the network, so the rest runs
        # on the pool.
        self._pool.submit(self.apply_move, shard, moved.target, moved.tick, list(moved.from_ids),
                          list(moved.to_ids))

    def apply_move(self, source, target, tick, from_ids, to_ids):
        """Routes the keys of characters source:from_ids[i] to target:to_ids[i] (what a
        characters_moved message says), connecting to `target` if needed. Ids with no key are
        ignored. Returns [(old ref, new ref)] of the keys rerouted."""
        if len(from_ids) != len(to_ids):
            raise ValueError("characters_moved: from_ids and to_ids differ in length")
        target, _, _ = _split_address(target)
        self._connect(target)
        changed = []
        with self._lock:
            for old_id, new_id in zip(from_ids, to_ids):
                old = CharacterRef(source, old_id)
                key = self._keys.pop(old, None)
                if key is None:
                    continue
                new = CharacterRef(target, new_id)
                self._routes[key] = new
                self._keys[new] = key
                changed.append((old, new))
            self.moves.append((source, target, tick, changed))
            self._lock.notify_all()
        if self._subscribe_args is not None and target not in self._subscriptions:
            try:
                self._subscribe_one(target)
            except AnimdError:
                pass  # the stream misses that shard; commands still route
        return changed
