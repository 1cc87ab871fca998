"""Driver of tests/codec/morph_cross_language_test.cpp on the Python side: decodes the C++
codec's compact_morphs cases with client/python/animd_compact.py (and encodes the result
again) and quantizes the given weights. Prints the outcome as JSON.

    python3 morph_cross_language.py spec.json   (PYTHONPATH: the generated modules, client/python)

spec: {"cases": [{"bytes": hex, "baseline": [q...]}], "weights": [number or "NaN", ...]}
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


def main(argv):
    with open(argv[1]) as f:
        spec = json.load(f)
    out = {"cases": [decode_case(c) for c in spec["cases"]],
           "quantized": [animd_compact.quantize_morph_weight(float(w)) for w in spec["weights"]]}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv)
