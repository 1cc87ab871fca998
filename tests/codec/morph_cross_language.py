"""Driver of tests/codec/morph_cross_language_test.cpp on the Python side: decodes the C++
codec's compact_morphs cases with client/python/animd_compact.py (and encodes the result
again), quantizes the given weights, and feeds the given stream frames through the Python
client's compact decoding (animd_client._CompactStreams). Prints the outcome as JSON.

    python3 morph_cross_language.py spec.json   (PYTHONPATH: the generated modules, client/python)

spec: {"cases": [{"bytes": hex, "baseline": [q...]}], "weights": [number or "NaN", ...],
       "client": {"skeleton": hex SkeletonData, "asset": name, "frames": [hex StreamFrame]}}
"""

import json
import sys

import animd_compact


def decode_case(case):
    data = bytes.fromhex(case["bytes"])
    baseline = case["baseline"]
    try:
        q = animd_compact.decode_morphs(data, baseline)
    except animd_compact.CompactError as e:
        return {"ok": False, "error": str(e)}
    out = {"ok": True, "q": q, "w": [animd_compact.dequantize_morph_weight(v) for v in q]}
    if q:
        out["key"] = animd_compact.encode_morph_key(q).hex()
    if q and len(baseline) == len(q):
        out["delta"] = animd_compact.encode_morph_delta(q, baseline).hex()
    return out


def client_frames(spec):
    import animd_client
    from anim.v1 import assets_pb2, stream_pb2

    skeleton = assets_pb2.SkeletonData()
    skeleton.ParseFromString(bytes.fromhex(spec["skeleton"]))
    streams = animd_client._CompactStreams(None)
    streams.skeletons[spec["asset"]] = animd_compact.Skeleton(skeleton)
    out = []
    for hex_frame in spec["frames"]:
        frame = stream_pb2.StreamFrame()
        frame.ParseFromString(bytes.fromhex(hex_frame))
        streams._decode(frame)
        out.append([{"id": cf.character_id, "weights": list(cf.morph_weights),
                     "compact_morphs": len(cf.compact_morphs), "palette": len(cf.palette)}
                    for cf in frame.characters])
    return {"frames": out, "errors": streams.errors, "last_error": streams.last_error}


def main(argv):
    with open(argv[1]) as f:
        spec = json.load(f)
    out = {"cases": [decode_case(c) for c in spec["cases"]],
           "quantized": [animd_compact.quantize_morph_weight(float(w)) for w in spec["weights"]]}
    if "client" in spec:
        out["client"] = client_frames(spec["client"])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv)
