"""Parses every YAML manifest under deploy/ and checks the facts the docs rely on.

The Agones manifests must agree with each other and with animd's flags: the Fleet's Counter
is the one --agones-counter names, with --max-characters as its capacity; the GameServer
ports' containerPorts are the ports animd listens on (--port, --http-port); the
FleetAutoscaler and the GameServerAllocation name that Fleet and that Counter.

Run with Debian's /usr/bin/python3 (python3-yaml). Exit 0 = OK, 1 = a failure (printed),
77 = skipped (PyYAML missing). check_yaml_test.py feeds it broken copies.
"""
import pathlib
import sys

try:
    import yaml
except ImportError:
    print("SKIPPED: PyYAML not importable by", sys.executable, "(install python3-yaml)")
    sys.exit(77)

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


def containers_of(pod_spec):
    return {c["name"]: c for c in pod_spec.get("containers", [])}


def check_probes(where, c, port):
    live = c.get("livenessProbe", {}).get("httpGet", {})
    ready = c.get("readinessProbe", {}).get("httpGet", {})
    check(live.get("path") == "/healthz", f"{where}: livenessProbe is not GET /healthz")
    check(ready.get("path") == "/readyz", f"{where}: readinessProbe is not GET /readyz")
    check(live.get("port") in port and ready.get("port") in port,
          f"{where}: probes not on the HTTP port {port}")
    res = c.get("resources", {})
    check("requests" in res and "limits" in res, f"{where}: resources need requests and limits")
    sc = c.get("securityContext", {})
    check(sc.get("allowPrivilegeEscalation") is False, f"{where}: allowPrivilegeEscalation")
    check(sc.get("capabilities", {}).get("drop") == ["ALL"], f"{where}: capabilities not dropped")


def check_public_defaults(where, animd):
    # A manifest that binds a public address must default to TLS and tokens.
    args = animd.get("args", [])
    if any(a.startswith("--address=") and a not in ("--address=127.0.0.1", "--address=::1")
           for a in args):
        for flag in ("--tls-cert=", "--tls-key=", "--token-file="):
            check(any(a.startswith(flag) for a in args),
                  f"{where}: binds a public address without {flag.rstrip('=')}")


def check_pod(where, pod_spec, port):
    psc = pod_spec.get("securityContext", {})
    check(psc.get("runAsNonRoot") is True, f"{where}: pod securityContext.runAsNonRoot")
    check(isinstance(psc.get("runAsUser"), int) and psc["runAsUser"] != 0,
          f"{where}: runAsUser must be a non-zero uid")
    cs = containers_of(pod_spec)
    check("animd" in cs, f"{where}: no container named animd")
    if "animd" in cs:
        check_probes(where, cs["animd"], port)
        check_public_defaults(where, cs["animd"])
    return cs.get("animd", {})


def flag_values(args):
    """{"--flag": "value"} for every --flag=value argument (the last one wins, as in animd)."""
    out = {}
    for a in args:
        if a.startswith("--") and "=" in a:
            k, v = a.split("=", 1)
            out[k] = v
    return out


def as_int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


# animd's defaults for the flags the manifests may leave out.
DEFAULT_PORT = 7450
DEFAULT_HTTP_PORT = 7451


def check_fleet(fleet):
    """Checks the Agones Fleet; returns (fleet name, counter name, per-GameServer capacity)."""
    check(fleet["apiVersion"] == "agones.dev/v1", "Fleet apiVersion is not agones.dev/v1")
    name = fleet.get("metadata", {}).get("name")
    gs = fleet["spec"]["template"]["spec"]
    check(gs.get("health", {}).get("disabled") is False, "Fleet: health checking disabled")
    pod = gs["template"]
    animd = check_pod("Fleet", pod["spec"], ("http", 7451))
    args = animd.get("args", [])
    flags = flag_values(args)
    check("--agones" in args, "Fleet: animd not started with --agones")

    # Ports: the GameServer ports are the ports animd listens on, by name.
    listen = {"anim": as_int(flags.get("--port", DEFAULT_PORT)),
              "http": as_int(flags.get("--http-port", DEFAULT_HTTP_PORT))}
    for flag in ("--address", "--http-address"):
        check(flags.get(flag) in ("0.0.0.0", "::"),
              f"Fleet: {flag} must be a wildcard address for the allocated port to reach animd")
    ports = {p.get("name"): p for p in gs.get("ports", [])}
    for pname, port in listen.items():
        p = ports.get(pname)
        check(p is not None, f"Fleet: no GameServer port named {pname}")
        if p is None:
            continue
        check(p.get("containerPort") == port,
              f"Fleet: GameServer port {pname} containerPort {p.get('containerPort')} is not "
              f"the port animd listens on ({port})")
        check(p.get("portPolicy") == "Dynamic", f"Fleet: GameServer port {pname} not Dynamic")
        check(p.get("protocol", "TCP") == "TCP", f"Fleet: GameServer port {pname} not TCP")
    for pname in ports.keys() - listen.keys():
        failures.append(f"Fleet: GameServer port {pname} is not a port animd listens on")
    # The Prometheus annotation and the probes use the HTTP port too.
    annotations = pod.get("metadata", {}).get("annotations", {})
    check(as_int(annotations.get("prometheus.io/port")) == listen["http"],
          "Fleet: prometheus.io/port is not the HTTP port")
    for probe in ("livenessProbe", "readinessProbe"):
        port = animd.get(probe, {}).get("httpGet", {}).get("port")
        check(port == listen["http"], f"Fleet: {probe} not on the HTTP port {listen['http']}")
    # Agones adds the GameServer ports to the container: declaring them again is a duplicate.
    for cp in animd.get("ports", []):
        check(cp.get("containerPort") not in listen.values(),
              f"Fleet: container port {cp.get('containerPort')} is declared twice (Agones adds "
              "the GameServer ports)")

    # The Counter: the one animd reports, with animd's capacity.
    counter = flags.get("--agones-counter")
    capacity = as_int(flags.get("--max-characters"))
    check(counter, "Fleet: animd not started with --agones-counter=NAME")
    check(capacity is not None, "Fleet: animd not started with --max-characters=N")
    counters = gs.get("counters", {})
    check(counter in counters, f"Fleet: Counter {counter!r} (--agones-counter) not declared "
          f"in spec.template.spec.counters ({sorted(counters)})")
    if counter in counters:
        c = counters[counter]
        check(c.get("capacity") == capacity,
              f"Fleet: Counter {counter} capacity {c.get('capacity')} != --max-characters "
              f"{capacity}")
        check(c.get("count", 0) == 0, f"Fleet: Counter {counter} must start at count 0")
    return name, counter, capacity


def check_autoscaler(fas, fleet_name, counter, capacity):
    check(fas["apiVersion"] == "autoscaling.agones.dev/v1",
          "FleetAutoscaler apiVersion is not autoscaling.agones.dev/v1")
    spec = fas.get("spec", {})
    check(spec.get("fleetName") == fleet_name,
          f"FleetAutoscaler fleetName {spec.get('fleetName')!r} is not the Fleet {fleet_name!r}")
    policy = spec.get("policy", {})
    check(policy.get("type") == "Counter", "FleetAutoscaler policy is not type Counter")
    c = policy.get("counter", {})
    check(c.get("key") == counter,
          f"FleetAutoscaler counter key {c.get('key')!r} is not the Fleet's Counter {counter!r}")
    # Agones' own validation rules (ValidateCounterPolicy), and room for one GameServer.
    buffer, lo, hi = c.get("bufferSize"), c.get("minCapacity", 0), c.get("maxCapacity")
    check(isinstance(hi, int), "FleetAutoscaler: maxCapacity missing")
    if not isinstance(hi, int):
        return
    check(lo <= hi, "FleetAutoscaler: minCapacity > maxCapacity")
    if isinstance(buffer, int):
        check(buffer > 0, "FleetAutoscaler: bufferSize must be > 0")
        check(hi >= buffer, "FleetAutoscaler: maxCapacity < bufferSize")
        check(lo == 0 or lo >= buffer, "FleetAutoscaler: 0 < minCapacity < bufferSize")
    else:
        pct = as_int(str(buffer).rstrip("%")) if str(buffer).endswith("%") else None
        check(pct is not None and 1 <= pct <= 99,
              f"FleetAutoscaler: bufferSize {buffer!r} is neither > 0 nor 1%..99%")
        check(lo >= 1, "FleetAutoscaler: a percentage bufferSize needs minCapacity > 0")
    if capacity:
        check(hi >= capacity, f"FleetAutoscaler: maxCapacity {hi} is below one GameServer "
              f"({capacity} characters)")


def check_allocation(gsa, fleet_name, counter, capacity):
    check(gsa["apiVersion"] == "allocation.agones.dev/v1",
          "GameServerAllocation apiVersion is not allocation.agones.dev/v1")
    spec = gsa.get("spec", {})
    selectors = spec.get("selectors", [])
    check(selectors, "GameServerAllocation: no selectors")
    for i, sel in enumerate(selectors):
        where = f"GameServerAllocation selector {i}"
        check(sel.get("matchLabels", {}).get("agones.dev/fleet") == fleet_name,
              f"{where}: does not select the Fleet {fleet_name!r} (agones.dev/fleet)")
        for key, f in sel.get("counters", {}).items():
            check(key == counter, f"{where}: Counter {key!r} is not the Fleet's {counter!r}")
            need = f.get("minAvailable", 0)
            check(isinstance(need, int) and 0 < need <= (capacity or 0),
                  f"{where}: counters.{key}.minAvailable {need} not in 1..{capacity}")
    check(any(counter in sel.get("counters", {}) for sel in selectors),
          "GameServerAllocation: no selector filters by the Counter")
    for p in spec.get("priorities", []):
        check(p.get("type") == "Counter" and p.get("key") == counter,
              f"GameServerAllocation priority {p} is not the Counter {counter!r}")
    # animd owns the count: an allocation that changes it would be overwritten.
    check(counter not in spec.get("counters", {}),
          f"GameServerAllocation changes the Counter {counter!r}, which animd owns")


def main(deploy_dir):
    failures.clear()
    files = sorted(pathlib.Path(deploy_dir).rglob("*.yaml")) + sorted(
        pathlib.Path(deploy_dir).rglob("*.yml"))
    check(files, f"no YAML files under {deploy_dir}")
    kinds = {}
    for f in files:
        try:
            docs = [d for d in yaml.safe_load_all(f.read_text()) if d is not None]
        except yaml.YAMLError as e:
            failures.append(f"{f}: does not parse: {e}")
            continue
        check(docs, f"{f}: no documents")
        for d in docs:
            check(isinstance(d, dict) and "apiVersion" in d and "kind" in d,
                  f"{f}: a document without apiVersion/kind")
            if isinstance(d, dict) and "kind" in d:
                kinds[(f.name, d["kind"])] = d
        print(f"parsed {f} ({len(docs)} documents)")

    dep = kinds.get(("deployment.yaml", "Deployment"))
    check(dep is not None, "deployment.yaml: no Deployment")
    if dep:
        check_pod("Deployment", dep["spec"]["template"]["spec"], ("http", 7451))
    svc = kinds.get(("deployment.yaml", "Service"))
    check(svc is not None, "deployment.yaml: no Service")
    if svc:
        ports = {p["port"] for p in svc["spec"]["ports"]}
        check(ports == {7450, 7451}, f"Service ports {ports} != {{7450, 7451}}")

    fleet = kinds.get(("agones-fleet.yaml", "Fleet"))
    check(fleet is not None, "agones-fleet.yaml: no Fleet")
    fas = kinds.get(("agones-autoscaler.yaml", "FleetAutoscaler"))
    check(fas is not None, "agones-autoscaler.yaml: no FleetAutoscaler")
    gsa = kinds.get(("agones-allocation.yaml", "GameServerAllocation"))
    check(gsa is not None, "agones-allocation.yaml: no GameServerAllocation")
    if fleet:
        fleet_name, counter, capacity = check_fleet(fleet)
        if fas:
            check_autoscaler(fas, fleet_name, counter, capacity)
        if gsa:
            check_allocation(gsa, fleet_name, counter, capacity)

    if failures:
        for m in failures:
            print("FAIL:", m)
        return 1
    print("OK:", len(files), "YAML files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
