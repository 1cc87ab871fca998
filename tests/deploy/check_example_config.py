"""Checks deploy/animd.example.toml: it is valid TOML, and (given the animd binary) it lists
every option of `animd --help` and no key animd does not know, commented-out keys included.

Usage: /usr/bin/python3 check_example_config.py CONFIG [ANIMD]
"""
import re
import subprocess
import sys
import tomllib

IGNORED = {"help", "config", "version"}  # options that make no sense in a config file

config_path = sys.argv[1]
animd = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
failures = []

text = open(config_path, encoding="utf-8").read()
try:
    values = tomllib.loads(text)
except tomllib.TOMLDecodeError as e:
    print(f"FAIL: {config_path} is not valid TOML: {e}")
    sys.exit(1)
# Keys present, active or commented out ("# key = value").
documented = set(values) | set(re.findall(r"^#\s*([a-z][a-z0-9-]*)\s*=", text, re.M))
print(f"parsed {config_path}: {len(values)} active keys, {len(documented)} documented")

if animd:
    help_text = subprocess.run([animd, "--help"], capture_output=True, text=True,
                               check=True).stdout
    options = set(re.findall(r"--([a-z][a-z0-9-]*)", help_text)) - IGNORED
    for key in sorted(options - documented):
        failures.append(f"animd option --{key} is not in {config_path}")
    for key in sorted(documented - options):
        failures.append(f"{config_path} has key '{key}' that animd does not know")
    # The file as shipped must be accepted by animd itself.
    r = subprocess.run([animd, "--config", config_path, "--help"], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append(f"animd --config {config_path} --help exited {r.returncode}: {r.stderr}")
    print(f"compared with {len(options)} options of {animd}")
else:
    print("(animd not built: keys not compared with its options)")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
