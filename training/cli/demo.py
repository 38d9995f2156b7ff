"""``parlor demo``: the main job of ``make demo``.

1. A quick MaskablePPO run on heads-up Pineapple OFC
   (``configs/ofc_pineapple_quick.yaml``, about a minute): run folder with the
   learning curve, TensorBoard logs and the model.
2. An evaluation of the shipped OFC policy (``agents/pretrained/ofc_pineapple.zip``)
   against the heuristic and random agents with duplicate deals: the table with
   95% confidence intervals is printed, the plots are saved in the run folder.
"""
from __future__ import annotations

import argparse
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QUICK_CONFIG = ROOT / "configs" / "ofc_pineapple_quick.yaml"
SHIPPED_POLICY = ROOT / "agents" / "pretrained" / "ofc_pineapple.zip"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=100, help="evaluation episodes per matchup (default 100)")
    parser.add_argument("--workers", type=int, default=2, help="evaluation worker processes (default 2)")
    parser.add_argument("--out", default="runs/demo", help="parent folder of the demo's run folders")
    parser.add_argument("--skip-training", action="store_true", help="only evaluate the shipped policy")


def eval_argv(policy: Path, games: int, workers: int, out: str) -> list[str]:
    """``parlor eval`` arguments for ``policy`` against heuristic and random, in the env and
    with the options the policy was trained with (``--game-from``); the demo owns ``out``
    and replaces the evaluation a previous demo left there (``--force``)."""
    return ["eval", "--game-from", str(policy), "--agents", f"ppo:{policy},heuristic,random",
            "--games", str(games), "--workers", str(workers), "--out", out, "--force"]


def run(args: argparse.Namespace) -> int:
    from parlor.cli import main

    if not args.skip_training:
        print(f"== 1/2 quick training run: parlor train {QUICK_CONFIG.relative_to(ROOT)}", flush=True)
        code = main(["train", str(QUICK_CONFIG), "--out", f"{args.out}/train"])
        if code:
            return code
    argv = eval_argv(SHIPPED_POLICY, args.games, args.workers, f"{args.out}/eval")
    print(f"\n== 2/2 the shipped policy {SHIPPED_POLICY.relative_to(ROOT)} against heuristic and random: "
          f"{shlex.join(['parlor', *argv])}", flush=True)
    return main(argv)
