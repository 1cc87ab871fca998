"""Parses every YAML manifest under deploy/ and checks the facts the docs rely on.

Run with Debian's /usr/bin/python3 (python3-yaml). Exit 0 = OK, 1 = a failure (printed),
77 = skipped (PyYAML missing).
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


def main(deploy_dir):
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
    if fleet:
        check(fleet["apiVersion"] == "agones.dev/v1", "Fleet apiVersion is not agones.dev/v1")
        gs = fleet["spec"]["template"]["spec"]
        check(any(p.get("containerPort") == 7450 for p in gs.get("ports", [])),
              "Fleet: GameServer port 7450 missing")
        check(gs.get("health", {}).get("disabled") is False, "Fleet: health checking disabled")
        animd = check_pod("Fleet", gs["template"]["spec"], ("http", 7451))
        args = animd.get("args", [])
        check("--agones" in args, "Fleet: animd not started with --agones")

    if failures:
        for m in failures:
            print("FAIL:", m)
        return 1
    print("OK:", len(files), "YAML files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
