"""Issue 34.2: reading a hostile policy file, format-1 zip or config costs at most ~64 MB of
memory plus 10x its size, and a few seconds, before it is refused. Measured in a child
process: its peak resident memory (``ru_maxrss``) after every library is imported and a good
policy was loaded once, against the peak after all the crafted files were refused."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fuzz import corpus

BUDGET_MB, PER_BYTE, SECONDS = 64, 10, 3.0

SCRIPT = r"""
import json, resource, sys, time
from pathlib import Path
from parlor import envs
from parlor.agents.policy import load_policy, read_signature
from parlor.agents.policy_legacy import read_sb3_zip
from parlor.envs.engine.config import load_yaml
from parlor.envs.engine.game import ConfigError
from parlor.training.cli.shield import shield
from tests.fuzz import corpus

folder = Path(sys.argv[1])
options = read_signature(corpus.SHIPPED)["options"]
game = envs.make_game("buki_v0", **options)
load_policy(corpus.SHIPPED, game)  # every library imported, one good network built
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rows = []
def attempt(name, path, read):
    start = time.perf_counter()
    try:
        read(path)
        outcome = "accepted"
    except ConfigError as exc:
        outcome = "refused"
    rows.append({"case": name, "outcome": outcome, "seconds": time.perf_counter() - start,
                 "bytes": path.stat().st_size})
for name, make in corpus.POLICY_BOMBS.items():
    path = make(corpus.SHIPPED, folder / "bomb.zip")
    attempt(f"load {name}", path, lambda p: load_policy(p, game))
    attempt(f"shield {name}", path, lambda p: shield(p, folder / "copy.zip", {}))
zeros, crc = corpus.deflated_zeros(1 << 30)
for name, declared in (("a 1 GiB policy.pth", 1 << 30), ("a policy.pth lying about its size", 1000)):
    old = corpus.raw_zip(folder / "old.zip", [corpus.stored(corpus.HEADER, b'{"format": 1, "env": "buki_v0"}'),
                                              corpus.stored("data", b"{}"), ("policy.pth", zeros, 8, crc, declared)])
    attempt(f"convert {name}", old, read_sb3_zip)
for name, (text, words) in corpus.BAD_YAML.items():
    path = folder / "config.yaml"
    path.write_text(text)
    attempt(f"yaml {name}", path, load_yaml)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"extra_mb": (peak - base) / 1024, "rows": rows}))
"""


def test_crafted_files_are_refused_within_the_memory_and_time_bounds(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], cwd=corpus.ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    rows = result["rows"]
    print(f"{len(rows)} crafted files, slowest refused in {max(r['seconds'] for r in rows):.3f} s, "
          f"peak memory +{result['extra_mb']:.1f} MB")  # shown with pytest -s (docs/soak.md)
    assert [r["case"] for r in rows if r["outcome"] != "refused"] == []
    slow = [r for r in rows if r["seconds"] > SECONDS]
    assert slow == []
    largest = max(r["bytes"] for r in rows)
    assert result["extra_mb"] <= BUDGET_MB + PER_BYTE * largest / 2**20, result
