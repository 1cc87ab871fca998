"""Feeds check_yaml.py broken copies of deploy/ and checks that each break is reported: the
consistency checks of the Agones manifests must fail when the manifests disagree.

Usage: /usr/bin/python3 check_yaml_test.py DEPLOY_DIR. Exit 0 = OK, 1 = a check missed a
break (printed), 77 = skipped (PyYAML missing).
"""
import contextlib
import io
import pathlib
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
try:
    import yaml  # noqa: F401  (check_yaml needs it)
except ImportError:
    print("SKIPPED: PyYAML not importable by", sys.executable, "(install python3-yaml)")
    sys.exit(77)
import check_yaml  # noqa: E402

FLEET = "k8s/agones-fleet.yaml"
FAS = "k8s/agones-autoscaler.yaml"
GSA = "k8s/agones-allocation.yaml"

# (name, file, text to replace (its first occurrence must be in the manifest, not in a
# comment), replacement, message expected, or None = passes)
CASES = [
    ("counter capacity differs from --max-characters", FLEET, "capacity: 2000",
     "capacity: 1000", "capacity 1000 != --max-characters 2000"),
    ("--max-characters differs from the counter", FLEET, "--max-characters=2000",
     "--max-characters=3000", "capacity 2000 != --max-characters 3000"),
    ("--agones-counter names an undeclared counter", FLEET, "- --agones-counter=characters",
     "- --agones-counter=players", "Counter 'players' (--agones-counter) not declared"),
    ("no --agones-counter", FLEET, "- --agones-counter=characters",
     "- --agones-counter-seconds=1",
     "not started with --agones-counter"),
    ("http containerPort is not --http-port", FLEET, "--http-port=7451", "--http-port=7452",
     "port http containerPort 7451 is not the port animd listens on (7452)"),
    ("anim containerPort is not --port", FLEET, "containerPort: 7450", "containerPort: 7449",
     "port anim containerPort 7449 is not the port animd listens on (7450)"),
    ("a GameServer port animd does not listen on", FLEET, "- name: http\n",
     "- name: web\n", "GameServer port web is not a port animd listens on"),
    ("a static port", FLEET, "portPolicy: Dynamic", "portPolicy: Static",
     "GameServer port anim not Dynamic"),
    ("--port left at its default", FLEET, "- --port=7450", "- --agones-counter-seconds=1", None),
    ("autoscaler names another fleet", FAS, "fleetName: animd", "fleetName: animd-old",
     "fleetName 'animd-old' is not the Fleet 'animd'"),
    ("autoscaler on another counter", FAS, "key: characters", "key: rooms",
     "counter key 'rooms' is not the Fleet's Counter 'characters'"),
    ("autoscaler maximum below the buffer", FAS, "maxCapacity: 40000", "maxCapacity: 1000",
     "maxCapacity < bufferSize"),
    ("autoscaler minimum above the maximum", FAS, "minCapacity: 4000", "minCapacity: 50000",
     "minCapacity > maxCapacity"),
    ("allocation selects another fleet", GSA, "agones.dev/fleet: animd\n      counters",
     "agones.dev/fleet: other\n      counters", "does not select the Fleet 'animd'"),
    ("allocation needs more than one animd holds", GSA, "minAvailable: 200  #",
     "minAvailable: 5000  #", "minAvailable 5000 not in 1..2000"),
    ("allocation prioritises another counter", GSA, "key: characters", "key: rooms",
     "is not the Counter 'characters'"),
    ("allocation changes the count", GSA, "  priorities:",
     "  counters:\n    characters:\n      action: Increment\n      amount: 200\n  priorities:",
     "changes the Counter 'characters', which animd owns"),
]


def run(deploy_dir):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = check_yaml.main(str(deploy_dir))
    return code, out.getvalue()


def main(deploy_dir):
    missed = []
    code, text = run(deploy_dir)
    if code != 0:
        missed.append(f"the manifests as shipped fail:\n{text}")
    for name, rel, old, new, expected in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            copy = pathlib.Path(tmp) / "deploy"
            shutil.copytree(deploy_dir, copy)
            f = copy / rel
            body = f.read_text()
            if old not in body:
                missed.append(f"{name}: {rel} no longer contains {old!r} (update this test)")
                continue
            f.write_text(body.replace(old, new, 1))
            code, text = run(copy)
            if expected is None:
                ok = code == 0
            else:
                ok = code == 1 and expected in text
            print(f"{'ok  ' if ok else 'MISS'} {name}")
            if not ok:
                missed.append(f"{name}: exit {code}, expected "
                              f"{'success' if expected is None else repr(expected)}:\n{text}")
    for m in missed:
        print("FAIL:", m)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
