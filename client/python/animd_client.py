"""A small animd client on the protoc-generated modules (anim/v1/*_pb2.py).

The wire format: every TCP frame is a 4-byte little-endian length followed by one serialized
anim.v1.Request (to the daemon) or anim.v1.ServerMessage (from it). Each request carries a
request_id; the reply echoes it. After subscribe, StreamFrames arrive interleaved with replies.

A background thread reads the socket: replies wake the caller waiting for that request_id,
stream frames go to a bounded queue (the oldest frame is dropped when it is full) read with
frames(). Every method may be called from any thread.

With tls=True the connection is TLS 1.2 or newer, the daemon's certificate is verified
against `ca` (a PEM file; the system store when None) and the host name or IP address (or
`server_name`), and `cert`/`key` present a client certificate to daemons that ask for one.

Needs Debian's python3-protobuf (run with /usr/bin/python3). Installed as the distribution
animd-client (`cmake --install <build> --component python`; docs/tools.md "Python client")
it imports with no PYTHONPATH; from a build tree, put <build>/python (the generated modules,
CMake target animproto) and client/python on PYTHONPATH.

Morph targets: decode_morph_sets(c.get_asset_data(asset)) gives an asset's morph sets as plain
Python values, and morphed_skinned_positions() what a renderer draws from a palette and the
flat morph weights (animd_morph, re-exported here).

    with Client(port=7450) as c:
        cid = c.spawn("builtin", clip="walk")
        c.crossfade(cid, "run", 0.25)
        c.subscribe([cid])
        for frame in c.frames(count=10):
            print(frame.tick)
"""

import collections
import errno
import itertools
import select
import socket
import ssl
import struct
import threading
import time

from anim.v1 import assets_pb2  # noqa: F401  (registers the message types)
from anim.v1 import (
    blend_pb2,
    characters_pb2,
    envelope_pb2,
    fleet_pb2,
    hits_pb2,
    ik_pb2,
    montage_pb2,
    morph_pb2,
    pose_pb2,
    state_machine_pb2,
    state_pb2,
    stream_pb2,
    types_pb2,
)

import animd_compact
from animd_morph import (  # noqa: F401  (the client's morph target helpers)
    MorphError,
    decode_morph_sets,
    default_weights,
    morph_target_names,
    morphed_positions,
    morphed_skinned_positions,
    skinned_positions,
)

DEFAULT_PORT = 7450
_HEADER = struct.Struct("<I")


class AnimdError(Exception):
    """A call produced no result. kind: connect, timeout, disconnected, protocol or server."""

    def __init__(self, kind, message, code=None):
        super().__init__(message if kind in ("connect", "server") else f"{kind}: {message}")
        self.kind = kind
        self.code = code  # anim.v1.StatusCode for kind "server"
        self.message = message


class ServerError(AnimdError):
    """The daemon answered with a non-OK status."""

    def __init__(self, code, message):
        name = types_pb2.StatusCode.Name(code) if code in types_pb2.StatusCode.values() else str(code)
        super().__init__("server", f"{name.removeprefix('STATUS_')}: {message}", code)
        self.status_message = message


class _TlsSocket:
    """A connected ssl.SSLSocket shared by the reader thread and the senders.

    One OpenSSL connection must not be used by two threads at once, and the reader would sit
    in SSL_read while a sender writes. So the socket is non-blocking, every SSL call holds a
    lock, and waiting for the network (select) happens without it."""

    def __init__(self, sock):
        self._sock = sock
        self._sock.setblocking(False)
        self._lock = threading.Lock()

    def _wait(self, want):
        fd = self._sock.fileno()
        if fd < 0:
            raise OSError(errno.EBADF, "connection closed")
        readable, writable = ([fd], []) if want == "read" else ([], [fd])
        # A bounded wait: close() from another thread is noticed within it.
        select.select(readable, writable, [], 0.5)

    def recv(self, n):
        while True:
            with self._lock:
                try:
                    return self._sock.recv(n)
                except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
                    return b""  # the daemon closed (it does not wait to send close_notify)
                except (ssl.SSLWantReadError, BlockingIOError):
                    want = "read"
                except ssl.SSLWantWriteError:
                    want = "write"
            self._wait(want)

    def sendall(self, data):
        view = memoryview(data)
        while view:
            want = None
            with self._lock:
                try:
                    view = view[self._sock.send(view):]
                except (ssl.SSLWantWriteError, BlockingIOError):
                    want = "write"
                except ssl.SSLWantReadError:
                    want = "read"
            if want:
                self._wait(want)

    def shutdown(self, how):
        with self._lock:
            socket.socket.shutdown(self._sock, how)  # TCP only: no TLS close_notify wait

    def close(self):
        with self._lock:
            self._sock.close()


def _tls_context(ca, cert, key):
    """A client context: TLS 1.2+, the server verified (CA file or system store, host name)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies the certificate and host name
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if (cert is None) != (key is None):
        raise AnimdError("connect", "TLS client certificate needs both cert and key")
    for what, path, load in (("CA file", ca, lambda: context.load_verify_locations(cafile=ca)),
                             ("client certificate", cert, lambda: context.load_cert_chain(cert, key))):
        if path is None:
            continue
        try:
            load()
        except (OSError, ssl.SSLError) as e:
            reason = getattr(e, "reason", None) or e.strerror or str(e)
            raise AnimdError("connect", f"TLS {what} {path}: {reason}") from None
    if ca is None:
        context.load_default_certs()
    return context


def vec3(v):
    """(x, y, z) -> anim.v1.Vec3."""
    x, y, z = (float(c) for c in v)
    return types_pb2.Vec3(x=x, y=y, z=z)


class Client:
    """One TCP connection to animd."""

    def __init__(self, host="127.0.0.1", port=DEFAULT_PORT, token="", timeout=5.0,
                 max_frame_bytes=256 << 20, frame_queue=1024,
                 tls=False, ca=None, cert=None, key=None, server_name=None):
        """tls: connect with TLS 1.2+; ca: PEM CA file for the daemon's certificate (None =
        the system store); cert/key: PEM client certificate and key (both or neither);
        server_name: the name the daemon's certificate must carry (default: host)."""
        self.host, self.port, self.token, self.timeout = host, port, token, timeout
        self.max_frame_bytes = max_frame_bytes
        context = _tls_context(ca, cert, key) if tls else None
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as e:
            raise AnimdError("connect", f"connect {host}:{port}: {e.strerror or e}") from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if context is None:
            sock.settimeout(None)
            self._sock = sock
        else:
            try:  # the handshake runs under the connect timeout
                tls_sock = context.wrap_socket(sock, server_hostname=server_name or host)
            except ssl.SSLCertVerificationError as e:
                sock.close()
                raise AnimdError("connect", f"TLS handshake with {host}:{port} failed: "
                                            f"certificate verify failed ({e.verify_message})") from None
            except (ssl.SSLError, OSError) as e:
                sock.close()
                reason = getattr(e, "reason", None) or e.strerror or str(e)
                raise AnimdError("connect", f"TLS handshake with {host}:{port} failed: {reason}") from None
            self._sock = _TlsSocket(tls_sock)
        self._ids = itertools.count(1)
        self._send_lock = threading.Lock()
        self._lock = threading.Condition()
        self._pending = {}  # request_id -> [reply or None]
        self._frames = collections.deque()
        self._callbacks = {}  # request_id -> fn(reply), run on the reader thread
        self._compact = _CompactStreams(self)
        self._frame_capacity = frame_queue
        self.frames_dropped_locally = 0
        # set_frame_callback / set_message_callback; run on the reader thread.
        self._frame_callback = None
        self._message_callback = None
        self._closed = None  # the AnimdError that closed the connection
        self._reader = threading.Thread(target=self._read_loop, name="animd-reader", daemon=True)
        self._reader.start()

    # ---- connection ----

    def close(self):
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        self._reader.join(timeout=5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def connected(self):
        with self._lock:
            return self._closed is None

    def _recv_exact(self, n):
        chunks = []
        while n > 0:
            chunk = self._sock.recv(min(n, 1 << 20))
            if not chunk:
                return None
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def _read_loop(self):
        reason = None
        try:
            while True:
                header = self._recv_exact(4)
                if header is None:
                    reason = AnimdError("disconnected", f"server {self.host}:{self.port} closed the connection")
                    break
                (length,) = _HEADER.unpack(header)
                if length > self.max_frame_bytes:
                    reason = AnimdError("protocol", f"server sent a frame of {length} bytes, over the limit "
                                                    f"of {self.max_frame_bytes} bytes")
                    break
                body = self._recv_exact(length) if length else b""
                if body is None:
                    reason = AnimdError("disconnected", f"server {self.host}:{self.port} closed the connection")
                    break
                message = envelope_pb2.ServerMessage()
                try:
                    message.ParseFromString(body)
                except Exception:  # DecodeError; the exact class differs between implementations
                    reason = AnimdError("protocol", f"server sent a frame of {length} bytes that does not "
                                                    "parse as anim.v1.ServerMessage")
                    break
                kind = message.WhichOneof("kind")
                if kind == "frame":
                    # Compact frames are decoded here, in order, before anything may drop them.
                    self._compact.on_frame(message.frame)
                    continue
                if kind == "subscription_ended":
                    self._compact.forget(message.subscription_ended.subscription_id)
                if kind != "reply" and self._message_callback is not None:
                    self._message_callback(message)
                with self._lock:
                    if kind == "reply":
                        callback = self._callbacks.pop(message.reply.request_id, None)
                        slot = self._pending.get(message.reply.request_id)
                        if slot is not None:  # else its caller timed out and left
                            slot[0] = message.reply
                            self._lock.notify_all()
                if kind == "reply" and callback is not None:
                    callback(message.reply)
        except OSError as e:
            reason = AnimdError("disconnected", f"read from {self.host}:{self.port}: {e.strerror or e}")
        with self._lock:
            self._closed = reason or AnimdError("disconnected", "connection closed")
            self._lock.notify_all()
        try:
            self._sock.close()
        except OSError:
            pass

    def set_frame_callback(self, callback):
        """callback(StreamFrame) receives every stream frame (decoded like frames() yields
        them) on the reader thread instead of the queue; None goes back to the queue. Keep it
        short and never wait on this client from it."""
        self._frame_callback = callback

    def set_message_callback(self, callback):
        """callback(ServerMessage) receives, on the reader thread, every message that is
        neither a reply nor a stream frame: subscription_ended, and kinds newer than this
        client (e.g. characters_moved, looked up with WhichOneof("kind")). None: ignored."""
        self._message_callback = callback

    def _push_frame(self, frame):
        callback = self._frame_callback
        if callback is not None:
            callback(frame)
            return
        with self._lock:
            if len(self._frames) >= self._frame_capacity:
                self._frames.popleft()
                self.frames_dropped_locally += 1
            self._frames.append(frame)
            self._lock.notify_all()

    def _send_async(self, request, callback):
        """Sends `request` without waiting: callback(reply) runs on the reader thread."""
        request.request_id = next(self._ids)
        if self.token and not request.auth_token:
            request.auth_token = self.token
        body = request.SerializeToString()
        with self._lock:
            self._callbacks[request.request_id] = callback
        try:
            with self._send_lock:
                self._sock.sendall(_HEADER.pack(len(body)) + body)
        except OSError:
            pass  # the reader sees the connection close

    @property
    def compact_errors(self):
        """Compact characters left out of their frame (undecodable); see last_compact_error."""
        return self._compact.errors

    @property
    def last_compact_error(self):
        return self._compact.last_error

    # ---- requests ----

    def request(self, request, timeout=None):
        """Sends an anim.v1.Request (request_id is set here) and returns the anim.v1.Reply,
        whatever its status. Raises AnimdError on timeout or a lost connection."""
        timeout = self.timeout if timeout is None else timeout
        request_id = next(self._ids)
        request.request_id = request_id
        if self.token and not request.auth_token:
            request.auth_token = self.token
        body = request.SerializeToString()
        slot = [None]
        with self._lock:
            if self._closed is not None:
                raise AnimdError("disconnected", f"connection closed ({self._closed})")
            self._pending[request_id] = slot
        try:
            with self._send_lock:
                self._sock.sendall(_HEADER.pack(len(body)) + body)
        except OSError as e:
            with self._lock:
                self._pending.pop(request_id, None)
            raise AnimdError("disconnected", f"write to {self.host}:{self.port}: {e.strerror or e}") from None
        deadline = time.monotonic() + timeout
        with self._lock:
            while slot[0] is None and self._closed is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._lock.wait(left)
            self._pending.pop(request_id, None)
            if slot[0] is not None:
                return slot[0]
            if self._closed is not None:
                raise self._closed
        command = request.WhichOneof("command") or "empty"
        raise AnimdError("timeout", f"no reply to {command} within {int(timeout * 1000)} ms")

    def call(self, command, message, timeout=None):
        """Sends one command (the name of a Request field, e.g. "spawn", and its message);
        returns the Reply, raising ServerError when the status is not OK."""
        request = envelope_pb2.Request()
        getattr(request, command).CopyFrom(message)
        reply = self.request(request, timeout)
        if reply.status.code != types_pb2.STATUS_OK:
            raise ServerError(reply.status.code, reply.status.message)
        return reply

    # ---- typed helpers (raise ServerError on a non-OK status) ----

    def list_assets(self):
        return list(self.call("list_assets", assets_pb2.ListAssetsRequest()).list_assets.assets)

    def load_asset(self, path, name="", *, attach_to="", clip_name="", bvh_scale=None,
                   shared=False):
        """Loads a file under the daemon's asset root (.glb, .gltf, .md5mesh, .bvh); returns its
        AssetInfo. For a .bvh: attach_to names a loaded asset to retarget the clip onto (its new
        AssetInfo is returned), clip_name names the clip, bvh_scale sets the units. With tokens,
        the asset is this token's alone unless shared is True."""
        request = assets_pb2.LoadAssetRequest(path=path, name=name, attach_to=attach_to,
                                              clip_name=clip_name, shared=shared)
        if bvh_scale is not None:
            request.bvh_scale = bvh_scale
        return self.call("load_asset", request).load_asset.asset

    def upload_bvh(self, text, name="", *, attach_to="", clip_name="", bvh_scale=None,
                   shared=False):
        """Sends the text of a .bvh file (str or bytes) as a new asset named `name`, or with
        attach_to as a clip (named clip_name) of a loaded asset; returns the AssetInfo. With
        tokens, a new asset is this token's alone unless shared is True."""
        data = text.encode() if isinstance(text, str) else bytes(text)
        request = assets_pb2.LoadAssetRequest(bvh_data=data, name=name, attach_to=attach_to,
                                              clip_name=clip_name, shared=shared)
        if bvh_scale is not None:
            request.bvh_scale = bvh_scale
        return self.call("load_asset", request).load_asset.asset

    def get_asset_data(self, asset, skip_mesh=False):
        return self.call("get_asset_data",
                         assets_pb2.GetAssetDataRequest(asset=asset, skip_mesh=skip_mesh)).get_asset_data

    def spawn(self, asset="builtin", clip="", at=None):
        """Returns the new character's id."""
        request = characters_pb2.SpawnRequest(asset=asset, clip=clip)
        if at is not None:
            request.root.translation.CopyFrom(vec3(at))
        return self.call("spawn", request).spawn.character_id

    def despawn(self, character_id):
        return self.call("despawn", characters_pb2.DespawnRequest(character_id=character_id)).tick

    def set_significance(self, character_ids, significance=None):
        """How much characters matter to the daemon's update-rate budget: a value in [0, 1]
        (1: evaluated every tick whatever the load), or None to go back to the significance
        computed from what watches them. All or none. Returns the tick."""
        if isinstance(character_ids, int):
            character_ids = [character_ids]
        request = characters_pb2.SetSignificanceRequest(character_ids=list(character_ids))
        if significance is None:
            request.clear = True
        else:
            request.significance = significance
        return self.call("set_significance", request).tick

    def set_root(self, character_id, position, yaw_rad=0.0):
        import math
        request = characters_pb2.SetRootTransformRequest(character_id=character_id)
        request.root.translation.CopyFrom(vec3(position))
        request.root.rotation.CopyFrom(types_pb2.Quat(y=math.sin(yaw_rad / 2), w=math.cos(yaw_rad / 2)))
        return self.call("set_root", request).tick

    def set_root_motion(self, character_id, on=True, joint="", vertical=False):
        """Root motion on (the root moves by what `joint`, default the skeleton's root joint,
        travels in the clips; with `vertical` its height too) or off. Returns the tick."""
        mode = characters_pb2.ROOT_MOTION_EXTRACT if on else characters_pb2.ROOT_MOTION_OFF
        request = characters_pb2.SetRootMotionRequest(character_id=character_id, mode=mode, joint=joint,
                                                      extract_vertical=vertical)
        return self.call("set_root_motion", request).tick

    def play(self, character_id, clip, loop=None, speed=None, start_time=0.0):
        request = characters_pb2.PlayRequest(character_id=character_id, clip=clip, start_time=start_time)
        if loop is not None:
            request.loop = loop
        if speed is not None:
            request.speed = speed
        return self.call("play", request).tick

    def crossfade(self, character_id, clip, duration, sync=False, loop=None, speed=None):
        request = characters_pb2.CrossfadeRequest(character_id=character_id, clip=clip, duration=duration,
                                                  sync_normalized_time=sync)
        if loop is not None:
            request.loop = loop
        if speed is not None:
            request.speed = speed
        return self.call("crossfade", request).tick

    def set_speed(self, character_id, speed):
        return self.call("set_speed", characters_pb2.SetSpeedRequest(character_id=character_id, speed=speed)).tick

    def add_layer(self, character_id, clip, weight=None, mask_root="", time_source="own", parameter=0.0,
                  blend="additive", state_machine="", state="", speed=None, morph_targets=()):
        """Returns the layer id. time_source: own, base or param; blend: additive or override.
        With state_machine (and clip ""): a machine layer running that machine of the asset
        from `state` (docs/animation.md, "Machine layers"). morph_targets: the morph targets
        the layer reaches (names, "set/target" or set names; empty: all its clips animate)."""
        sources = {"own": characters_pb2.LAYER_TIME_OWN_CLOCK,
                   "base": characters_pb2.LAYER_TIME_BASE_NORMALIZED,
                   "param": characters_pb2.LAYER_TIME_PARAMETER}
        blends = {"additive": characters_pb2.LAYER_BLEND_ADDITIVE,
                  "override": characters_pb2.LAYER_BLEND_OVERRIDE}
        request = characters_pb2.AddLayerRequest(character_id=character_id, clip=clip,
                                                 time_source=sources[time_source], parameter=parameter,
                                                 blend=blends[blend], state_machine=state_machine,
                                                 state=state, morph_targets=list(morph_targets))
        if weight is not None:
            request.weight = weight
        if speed is not None:
            request.speed = speed
        if mask_root:
            request.mask.blend_root = mask_root
        return self.call("add_layer", request).add_layer.layer_id

    def update_layer(self, character_id, layer_id, weight=None, speed=None, parameter=None):
        request = characters_pb2.UpdateLayerRequest(character_id=character_id, layer_id=layer_id)
        if weight is not None:
            request.weight = weight
        if speed is not None:
            request.speed = speed
        if parameter is not None:
            request.parameter = parameter
        return self.call("update_layer", request).tick

    def add_montage_slot(self, character_id, mask_root="", weight=None):
        """Adds a montage slot (an override layer without a clip); returns its layer id."""
        return self.add_layer(character_id, "", weight=weight, mask_root=mask_root, blend="override")

    def add_machine_layer(self, character_id, state_machine, state="", weight=None, mask_root="",
                          blend="override", speed=None):
        """Runs a state machine of the character's asset in a new layer; returns its layer id
        (update_layer / remove_layer work on it; get_state lists it under `layers`)."""
        return self.add_layer(character_id, "", weight=weight, mask_root=mask_root, blend=blend,
                              state_machine=state_machine, state=state, speed=speed)

    def play_montage(self, character_id, slot, clip, rate=None, blend_in=0.0, blend_out=0.0, start_time=0.0,
                     sections=()):
        """Plays `clip` once in montage slot `slot`; returns the tick it started at. `sections`:
        (name, start_time) or (name, start_time, next) tuples in clip order, the first at 0;
        `next` is the section played after it (itself: a loop), none: the montage ends there."""
        request = montage_pb2.PlayMontageRequest(character_id=character_id, slot=slot, clip=clip,
                                                 blend_in=blend_in, blend_out=blend_out, start_time=start_time)
        if rate is not None:
            request.rate = rate
        for section in sections:
            name, start, next_section = (tuple(section) + ("",))[:3]
            request.sections.add(name=name, start_time=start, next=next_section)
        return self.call("play_montage", request).tick

    def jump_to_section(self, character_id, slot, section):
        """Moves the montage in `slot` to the start of its section named `section`; returns the tick."""
        return self.call("jump_to_section", montage_pb2.JumpToSectionRequest(character_id=character_id, slot=slot,
                                                                              section=section)).tick

    def stop_montage(self, character_id, slot, blend_out=0.0):
        """Blends out the montage in `slot` over `blend_out` seconds; returns the tick."""
        return self.call("stop_montage", montage_pb2.StopMontageRequest(character_id=character_id, slot=slot,
                                                                         blend_out=blend_out)).tick

    def remove_layer(self, character_id, layer_id):
        return self.call("remove_layer",
                         characters_pb2.RemoveLayerRequest(character_id=character_id, layer_id=layer_id)).tick

    def set_ik_goal(self, character_id, root_joint, effector_joint, target, solver="fabrik", world=False,
                    weight=None, pole=None, goal_id=0):
        """Returns the goal id. solver: fabrik, ccd or two-bone."""
        solvers = {"fabrik": characters_pb2.IK_SOLVER_FABRIK, "ccd": characters_pb2.IK_SOLVER_CCD,
                   "two-bone": characters_pb2.IK_SOLVER_TWO_BONE}
        request = characters_pb2.SetIkGoalRequest(
            character_id=character_id, goal_id=goal_id, root_joint=root_joint, effector_joint=effector_joint,
            solver=solvers[solver], space=types_pb2.SPACE_WORLD if world else types_pb2.SPACE_MODEL,
            target=vec3(target))
        if weight is not None:
            request.weight = weight
        if pole is not None:
            request.pole.CopyFrom(vec3(pole))
        return self.call("set_ik_goal", request).set_ik_goal.goal_id

    def clear_ik_goal(self, character_id, goal_id):
        return self.call("clear_ik_goal",
                         characters_pb2.ClearIkGoalRequest(character_id=character_id, goal_id=goal_id)).tick

    def set_aim_ik(self, character_id, root_joint, end_joint, target, world=False, weight=None,
                   forward_axis=None, pole=None, up_axis=None, joint_weights=(), max_angles=()):
        """Aims end_joint's forward_axis (its own frame; default +Z) at `target`, the turn spread
        over the chain root_joint..end_joint by joint_weights, each joint within max_angles
        (radians); with `pole` (a direction) the end joint's up_axis leans toward it. Replaces
        the character's aim IK. Returns the tick."""
        request = ik_pb2.SetAimIkRequest(
            character_id=character_id, root_joint=root_joint, end_joint=end_joint,
            space=types_pb2.SPACE_WORLD if world else types_pb2.SPACE_MODEL, target=vec3(target),
            joint_weights=list(joint_weights), max_angles=list(max_angles))
        if weight is not None:
            request.weight = weight
        if forward_axis is not None:
            request.forward_axis.CopyFrom(vec3(forward_axis))
        if pole is not None:
            request.pole.CopyFrom(vec3(pole))
        if up_axis is not None:
            request.up_axis.CopyFrom(vec3(up_axis))
        return self.call("set_aim_ik", request).tick

    def move_aim_target(self, character_id, target, weight=None):
        """The per-tick update of the aim: new target (in the aim's space) and weight."""
        request = ik_pb2.MoveAimTargetRequest(character_id=character_id, target=vec3(target))
        if weight is not None:
            request.weight = weight
        return self.call("move_aim_target", request).tick

    def clear_aim_ik(self, character_id):
        return self.call("clear_aim_ik", ik_pb2.ClearAimIkRequest(character_id=character_id)).tick

    def set_foot_ik(self, character_id, left=None, right=None, pelvis="", sole_offsets=None,
                    max_tilt=None, weight=None, lock_feet=None, contact_height=0.0,
                    contact_speed=0.0, release_time=None):
        """Foot-to-ground IK. left/right: (hip, knee, ankle) joint names, None = found by name;
        sole_offsets: (left, right) ankle heights above the sole, None = from the rest pose.
        Nothing moves until set_ground describes the ground. Returns the tick."""
        request = ik_pb2.SetFootIkRequest(character_id=character_id, pelvis=pelvis,
                                          contact_height=contact_height,
                                          contact_speed=contact_speed)
        for leg, joints in ((request.left, left), (request.right, right)):
            if joints is not None:
                leg.hip, leg.knee, leg.ankle = joints
        if sole_offsets is not None:
            request.left_sole_offset, request.right_sole_offset = sole_offsets
        if max_tilt is not None:
            request.max_tilt = max_tilt
        if weight is not None:
            request.weight = weight
        if lock_feet is not None:
            request.lock_feet = lock_feet
        if release_time is not None:
            request.release_time = release_time
        return self.call("set_foot_ik", request).tick

    def set_ground(self, character_id, point=None, normal=None, heights=None, normals=None,
                   weight=None):
        """The ground under a character (world space): a plane (point, normal), or heights
        under each foot ((left, right), with optional normals ((l), (r))). Returns the tick."""
        request = ik_pb2.SetGroundRequest(character_id=character_id)
        if heights is not None:
            request.feet.left.height, request.feet.right.height = heights
            if normals is not None:
                request.feet.left.normal.CopyFrom(vec3(normals[0]))
                request.feet.right.normal.CopyFrom(vec3(normals[1]))
        else:
            request.plane.point.CopyFrom(vec3(point if point is not None else (0.0, 0.0, 0.0)))
            if normal is not None:
                request.plane.normal.CopyFrom(vec3(normal))
        if weight is not None:
            request.weight = weight
        return self.call("set_ground", request).tick

    def clear_foot_ik(self, character_id):
        return self.call("clear_foot_ik", ik_pb2.ClearFootIkRequest(character_id=character_id)).tick

    def query_pose(self, character_id, joints=(), tick=None, world=False):
        request = characters_pb2.QueryPoseRequest(character_id=character_id, joint_names=list(joints),
                                                  space=types_pb2.SPACE_WORLD if world else types_pb2.SPACE_MODEL)
        if tick is not None:
            request.tick = tick
        return self.call("query_pose", request).query_pose

    def raycast(self, origin, direction, max_distance=1000.0, tick=None, ignore=()):
        """The first character joint the ray origin + t * direction (t up to max_distance)
        enters, with the characters posed as at `tick` (None: the newest published tick; else a
        tick still in the daemon's pose history). Returns the RaycastReply: .hit is False when
        nothing is in the way, else character_id, joint_index, joint_name, point, normal and
        distance. `ignore`: character ids left out (e.g. the shooter's own)."""
        request = hits_pb2.RaycastRequest(origin=vec3(origin), direction=vec3(direction),
                                          max_distance=max_distance, ignore_character_ids=list(ignore))
        if tick is not None:
            request.tick = tick
        return self.call("raycast", request).raycast

    def overlap_sphere(self, center, radius, tick=None, ignore=()):
        """The characters whose hit capsules the sphere overlaps at `tick` (as raycast).
        Returns the OverlapSphereReply: .characters, each with character_id and joints
        (index, name)."""
        request = hits_pb2.OverlapSphereRequest(center=vec3(center), radius=radius,
                                                ignore_character_ids=list(ignore))
        if tick is not None:
            request.tick = tick
        return self.call("overlap_sphere", request).overlap_sphere

    def set_hit_volumes(self, asset, capsules=None, reset=False):
        """Replaces hit capsules of an asset's joints. capsules: {joint: (a, b, radius)} with
        joint a name or an index, a and b the segment's ends in the joint's space, radius >= 0
        (0 removes the joint's volume). reset=True first goes back to the capsules fitted at
        load (alone, it only does that). Returns the tick it took effect at."""
        request = hits_pb2.SetHitVolumesRequest(asset=asset, reset=reset)
        for joint, (a, b, radius) in (capsules or {}).items():
            entry = request.joints.add()
            if isinstance(joint, int):
                entry.joint_index = joint
            else:
                entry.joint_name = joint
            entry.capsule.a.CopyFrom(vec3(a))
            entry.capsule.b.CopyFrom(vec3(b))
            entry.capsule.radius = radius
        return self.call("set_hit_volumes", request).tick

    def get_hit_volumes(self, asset):
        """The HitVolumesReply of an asset: fitted (no set_hit_volumes since it loaded) and
        joints (joint_index, name, capsule)."""
        return self.call("get_hit_volumes", hits_pb2.GetHitVolumesRequest(asset=asset)).hit_volumes

    def migrate(self, character_ids, host, port, token="", tls=False, deadline_ms=0):
        """Moves characters to the daemon at host:port (migrate: docs/protocol.md, "Moving
        characters between daemons"), authenticated with its control token `token`. Blocks
        until the move ended (the reply waits for the target's commit, at most `deadline_ms`,
        0: the daemon's 10 s). Returns the MigrateReply (target, character_ids there, tick);
        a failure raises ServerError and the characters stay."""
        request = fleet_pb2.MigrateRequest(character_ids=list(character_ids), deadline_ms=deadline_ms)
        request.target.host, request.target.port = host, port
        request.target.token, request.target.tls = token, tls
        timeout = max(self.timeout, (deadline_ms or 10000) / 1000.0 + 5.0)
        return self.call("migrate", request, timeout=timeout).migrate

    def list_characters(self):
        return list(self.call("list_characters", characters_pb2.ListCharactersRequest()).list_characters.characters)

    def subscribe(self, character_ids=(), all_characters=False, rate_divisor=1, region=None, encoding="float",
                  events=False, event_min_weight=0.0, camera=None):
        """Returns the subscription id; frames then arrive for frames(). `region` (from
        sphere_region() or box_region()) subscribes to the characters inside it instead.
        encoding "compact" (ENCODING_COMPACT) is decoded by this client: frames() yields the
        same palettes, assets, roots and morph weights as with "float". `events`: frames also
        carry the animation events the characters fire (frame.events), of clips weighing at
        least `event_min_weight` in the pose. `camera` (from camera()): where this client looks
        from; it makes what it sees more significant under an animation budget and does not
        change what is streamed."""
        encodings = {"float": types_pb2.ENCODING_FLOAT_3X4, "compact": types_pb2.ENCODING_COMPACT}
        if encoding not in encodings:
            raise ValueError(f"encoding must be 'float' or 'compact', not {encoding!r}")
        request = stream_pb2.SubscribeRequest(character_ids=list(character_ids), all_characters=all_characters,
                                              rate_divisor=rate_divisor, encoding=encodings[encoding])
        if region is not None:
            request.region.CopyFrom(region)
        if camera is not None:
            request.camera.CopyFrom(camera)
        if events:
            request.events.enabled = True
            request.events.min_weight = event_min_weight
        return self.call("subscribe", request).subscribe.subscription_id

    def add_clip_events(self, asset, clip, events, replace=False):
        """Adds animation events to a clip: `events` holds (name, time) or (name, time,
        payload) tuples. replace=True sets them instead (an empty list clears them). Returns
        the clip's events now, as (name, time, payload) tuples sorted by time."""
        request = assets_pb2.AddClipEventsRequest(asset=asset, clip=clip, replace=replace)
        for event in events:
            name, time, payload = (tuple(event) + ("",))[:3]
            request.events.add(name=name, time=time, payload=payload)
        reply = self.call("add_clip_events", request).add_clip_events
        return [(e.name, e.time, e.payload) for e in reply.events]

    def define_blend_space(self, asset, name, axes, samples, sync_markers=False):
        """Defines a blend space on an asset (docs/animation.md, "Blend spaces"); play and
        crossfade then take its name like a clip's. `axes`: one parameter name (1D) or two
        (2D: x, y). `samples`: (clip, x) tuples in 1D, (clip, x, y) in 2D. sync_markers: the
        samples keep to the leading one's foot plants. Returns the number of triangles of a
        2D space's triangulation (0 in 1D)."""
        if isinstance(axes, str):
            axes = [axes]
        request = blend_pb2.DefineBlendSpaceRequest(asset=asset, name=name, axes=list(axes),
                                                    sync_markers=sync_markers)
        for sample in samples:
            clip, x, y = (tuple(sample) + (0.0,))[:3]
            request.samples.add(clip=clip, x=x, y=y)
        return self.call("define_blend_space", request).define_blend_space.triangles

    def set_parameter(self, character_id, name, value, smoothing=0.0):
        """Sets a character's named parameter (what blend spaces' axes read). It reaches
        `value` as a critically damped spring covering about 90% of the change in `smoothing`
        seconds (0: at once). Returns the tick."""
        request = blend_pb2.SetParameterRequest(character_id=character_id, name=name, value=value,
                                                smoothing=smoothing)
        return self.call("set_parameter", request).tick

    def define_state_machine(self, asset, machine):
        """Defines a state machine on an asset (docs/protocol.md, "State machines"): `machine`
        is a StateMachineDef, or a dict in its JSON form (as one entry of an .animgraph.json
        file's state_machines, e.g. {"name": "loco", "states": [{"name": "idle", "motion":
        "idle"}], "transitions": [{"from": "*", "to": "idle", "conditions": [{"parameter":
        "stop", "op": "CONDITION_TRIGGER"}]}]}). Returns the tick."""
        if isinstance(machine, dict):
            from google.protobuf import json_format
            machine = json_format.ParseDict(machine, state_machine_pb2.StateMachineDef())
        request = state_machine_pb2.DefineStateMachineRequest(asset=asset)
        request.machine.CopyFrom(machine)
        return self.call("define_state_machine", request).tick

    def start_state_machine(self, character_id, machine, state=""):
        """Runs a state machine of the character's asset on its base, cut to `state` (empty:
        its entry). play and crossfade are refused while it runs. Returns the tick."""
        request = state_machine_pb2.StartStateMachineRequest(character_id=character_id, machine=machine,
                                                             state=state)
        return self.call("start_state_machine", request).tick

    def stop_state_machine(self, character_id):
        """Stops the character's state machine; the base keeps playing. Returns the tick."""
        request = state_machine_pb2.StopStateMachineRequest(character_id=character_id)
        return self.call("stop_state_machine", request).tick

    def set_trigger(self, character_id, name, clear=False):
        """Sets a trigger (clear=True clears it); a set trigger stays set until a transition
        testing it fires. Returns the tick."""
        request = state_machine_pb2.SetTriggerRequest(character_id=character_id, name=name, clear=clear)
        return self.call("set_trigger", request).tick

    def get_state(self, character_id):
        """The GetStateReply of a character: machine ("" when none runs on the base), state,
        state_time and, while a transition fades, transition (from, to, elapsed, duration,
        index; test it with HasField("transition")); `layers` the same per machine layer
        (with layer_id); `parameters` (name, value) and `triggers` (name, set)."""
        request = state_machine_pb2.GetStateRequest(character_id=character_id)
        return self.call("get_state", request).get_state

    def set_pose(self, character_id, locals_):
        """Holds a pose (docs/animation.md, "Held poses") from the next tick: `locals_` has one
        joint per skeleton joint in order, each (tx, ty, tz, rx, ry, rz, rw, sx, sy, sz) or a
        flat list of 10 floats per joint. Returns the tick."""
        flat = []
        for joint in locals_:
            if isinstance(joint, (list, tuple)):
                flat.extend(float(v) for v in joint)
            else:
                flat.append(float(joint))
        request = pose_pb2.SetPoseRequest(character_id=character_id, locals=flat)
        return self.call("set_pose", request).tick

    def blend_out_pose(self, character_id, duration):
        """Fades from the held pose into the animation over `duration` seconds; returns the tick."""
        request = pose_pb2.BlendOutPoseRequest(character_id=character_id, duration=duration)
        return self.call("blend_out_pose", request).tick

    @staticmethod
    def _morph_target(entry, name):
        if isinstance(name, int):
            entry.index = name
        else:
            entry.name = name
        return entry

    def set_morph_weights(self, character_id, weights, blend_time=0.0):
        """Overrides morph target weights: `weights` maps a target (its name, "set/target", or
        its index in the character's weights) to a value in [-1, 2]; each moves there over
        `blend_time` seconds. Returns the tick."""
        request = morph_pb2.SetMorphWeightsRequest(character_id=character_id, blend_time=blend_time)
        for name, value in weights.items():
            self._morph_target(request.weights.add(), name).value = value
        return self.call("set_morph_weights", request).tick

    def clear_morph_weights(self, character_id, targets=(), blend_time=0.0):
        """Hands the named targets (none: every overridden one) back to the clips over
        `blend_time` seconds. Returns the tick."""
        request = morph_pb2.ClearMorphWeightsRequest(character_id=character_id,
                                                     blend_time=blend_time)
        for name in targets:
            self._morph_target(request.targets.add(), name)
        return self.call("clear_morph_weights", request).tick

    def export_characters(self, character_ids):
        """The characters' whole animation states (state_pb2.CharacterState, in the order
        asked); the characters stay. Serialize them to keep them, or hand them to
        import_characters on this or another daemon with the same assets."""
        request = state_pb2.ExportCharactersRequest(character_ids=list(character_ids))
        return list(self.call("export_characters", request).export_characters.states)

    def import_characters(self, states):
        """New characters from CharacterState messages (all or none); returns their ids."""
        request = state_pb2.ImportCharactersRequest()
        request.states.extend(states)
        return list(self.call("import_characters", request).import_characters.character_ids)

    @staticmethod
    def sphere_region(center, radius, outer_margin=0.0, outer_rate_divisor=0):
        """A Region: the characters whose root is within `radius` metres of `center`."""
        region = stream_pb2.Region(outer_margin=outer_margin, outer_rate_divisor=outer_rate_divisor)
        region.sphere.center.CopyFrom(vec3(center))
        region.sphere.radius = radius
        return region

    @staticmethod
    def box_region(lo, hi, outer_margin=0.0, outer_rate_divisor=0):
        """A Region: the characters whose root is inside the axis-aligned box [lo, hi]."""
        region = stream_pb2.Region(outer_margin=outer_margin, outer_rate_divisor=outer_rate_divisor)
        region.box.min.CopyFrom(vec3(lo))
        region.box.max.CopyFrom(vec3(hi))
        return region

    @staticmethod
    def camera(eye, forward, vertical_fov, aspect):
        """A Camera for subscribe() / update_subscription(): at `eye` (metres) looking along
        `forward` (any non-zero length), `vertical_fov` radians in (0, pi), `aspect` = width /
        height."""
        camera = stream_pb2.Camera(vertical_fov=vertical_fov, aspect=aspect)
        camera.eye.CopyFrom(vec3(eye))
        camera.forward.CopyFrom(vec3(forward))
        return camera

    def update_subscription(self, subscription_id, region=None, camera=None, clear_camera=False):
        """Changes a subscription, keeping what is not given: moves a region subscription's
        region (the camera moved), replaces its camera (camera()), or removes it
        (clear_camera=True). Give at least one."""
        request = stream_pb2.UpdateSubscriptionRequest(subscription_id=subscription_id,
                                                       clear_camera=clear_camera)
        if region is not None:
            request.region.CopyFrom(region)
        if camera is not None:
            request.camera.CopyFrom(camera)
        return self.call("update_subscription", request)

    def unsubscribe(self, subscription_id=0):
        return self.call("unsubscribe", stream_pb2.UnsubscribeRequest(subscription_id=subscription_id)).tick

    def stats(self):
        return self.call("stats", stream_pb2.StatsRequest()).stats

    # ---- stream ----

    def next_frame(self, timeout=None):
        """The oldest queued StreamFrame, or None after `timeout` seconds or when the
        connection closed with nothing queued."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        with self._lock:
            while not self._frames and self._closed is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._lock.wait(left)
            return self._frames.popleft() if self._frames else None

    def frames(self, count=None, timeout=None):
        """Yields StreamFrames as they arrive: `count` of them (None = until the connection
        closes). Raises AnimdError("timeout") when none arrives within `timeout` seconds."""
        n = 0
        while count is None or n < count:
            frame = self.next_frame(timeout)
            if frame is None:
                if not self.connected:
                    return
                raise AnimdError("timeout", f"no stream frame within {timeout if timeout is not None else self.timeout} s")
            n += 1
            yield frame


class _CompactStreams:
    """The reader thread's decoding of ENCODING_COMPACT frames (animd_compact): the baselines
    of every (subscription, character), the skeletons fetched with get_asset_data, and the
    frames held back while one is being fetched."""

    def __init__(self, client):
        self.client = client
        self.skeletons = {}  # asset -> animd_compact.Skeleton, or the error string
        self.states = {}     # (subscription, character) -> animd_compact.CharacterState
        self.waiting = collections.deque()
        self.fetching = None
        self.errors = 0
        self.last_error = ""

    def forget(self, subscription_id):
        for key in [k for k in self.states if k[0] == subscription_id]:
            del self.states[key]

    def on_frame(self, frame):
        self.waiting.append(frame)
        self._drain()

    def _missing(self, frame):
        for cf in frame.characters:
            if not cf.compact:
                continue
            try:
                kind, skeleton_id, _ = animd_compact.read_header(cf.compact)
            except animd_compact.CompactError:
                continue
            if kind != animd_compact.KEY:
                continue
            held = self.skeletons.get(cf.asset)
            if held is None or (isinstance(held, animd_compact.Skeleton) and held.id != skeleton_id):
                return cf.asset
        return None

    def _drain(self):
        while self.waiting and self.fetching is None:
            missing = self._missing(self.waiting[0])
            if missing is not None:
                self.fetching = missing
                request = envelope_pb2.Request()
                request.get_asset_data.asset = missing
                request.get_asset_data.skip_mesh = True
                self.client._send_async(request, lambda reply, asset=missing: self._skeleton_reply(asset, reply))
                return
            frame = self.waiting.popleft()
            self._decode(frame)
            self.client._push_frame(frame)

    def _skeleton_reply(self, asset, reply):
        if reply.status.code != types_pb2.STATUS_OK:
            self.skeletons[asset] = "get_asset_data: " + reply.status.message
        else:
            try:
                self.skeletons[asset] = animd_compact.Skeleton(reply.get_asset_data.skeleton)
            except animd_compact.CompactError as e:
                self.skeletons[asset] = str(e)
        if self.fetching == asset:
            self.fetching = None
        self._drain()

    def _fail(self, frame, cf, message):
        self.errors += 1
        self.last_error = (f"subscription {frame.subscription_id}, tick {frame.tick}, "
                           f"character {cf.character_id}: {message}")

    def _decode(self, frame):
        sub = frame.subscription_id
        for cid in list(frame.despawned) + list(frame.left):
            self.states.pop((sub, cid), None)
        if frame.dropped_since_last and frame.part == 0:
            members = set(frame.members)
            for key in [k for k in self.states if k[0] == sub and k[1] not in members]:
                del self.states[key]
        i = 0
        while i < len(frame.characters):
            cf = frame.characters[i]
            if not cf.compact:
                i += 1
                continue
            key = (sub, cf.character_id)
            state = self.states.get(key) or animd_compact.CharacterState()
            try:
                self._decode_character(frame.tick, cf, state)
            except animd_compact.CompactError as e:
                self._fail(frame, cf, str(e))
                self.states.pop(key, None)
                del frame.characters[i]
                continue
            self.states[key] = state
            i += 1

    def _decode_character(self, tick, cf, state):
        kind, _, _ = animd_compact.read_header(cf.compact)
        if kind == animd_compact.KEY:
            held = self.skeletons.get(cf.asset)
            if not isinstance(held, animd_compact.Skeleton):
                raise animd_compact.CompactError(f"no skeleton for asset '{cf.asset}'" +
                                                 (f": {held}" if held else ""))
            state.skeleton, state.asset, state.held = held, cf.asset, 0
            pose, root = animd_compact.decode_frame(held, cf.compact)
            morph_baseline = ()
        else:
            need = 1 if kind == animd_compact.DELTA1 else 2
            # The ticks of the frames the delta refers to (CharacterFrame.baseline_ticks_skipped).
            newest = tick - 1 - cf.baseline_ticks_skipped
            older = newest - 1 - cf.baseline2_ticks_skipped
            if state.held < need or state.ticks[0] != newest or (need == 2 and state.ticks[1] != older):
                raise animd_compact.CompactError(
                    "a delta frame against frames this client does not hold (a frame was lost)")
            pose, root = animd_compact.decode_frame(
                state.skeleton, cf.compact, state.frames[0], state.roots[0],
                state.frames[1] if need == 2 else None, state.roots[1] if need == 2 else None)
            # A morph delta refers to the newest frame the pose's delta refers to.
            morph_baseline = state.morphs[0]
        morphs = animd_compact.decode_morphs(cf.compact_morphs, morph_baseline)
        state.frames = [pose, state.frames[0]]
        state.roots = [root, state.roots[0]]
        state.morphs = [morphs, state.morphs[0]]
        state.ticks = [tick, state.ticks[0]]
        state.held = min(state.held + 1, 2)
        cf.palette.extend(animd_compact.build_palette(state.skeleton, pose))
        t, r, s = animd_compact.dequantize_root(root)
        cf.root.translation.x, cf.root.translation.y, cf.root.translation.z = t
        cf.root.rotation.x, cf.root.rotation.y, cf.root.rotation.z, cf.root.rotation.w = r
        cf.root.scale.x, cf.root.scale.y, cf.root.scale.z = s
        cf.ClearField("morph_weights")
        cf.morph_weights.extend(animd_compact.dequantize_morph_weight(q) for q in morphs)
        cf.asset = state.asset
        cf.ClearField("compact")
        cf.ClearField("compact_morphs")
