"""The README's own ``parlor eval`` commands play enough duplicate deals that their CIs are not
rough: planned with the real command line (no game is played), every pairing of agents gets
at least ``MIN_CI_SAMPLES`` deals, the threshold below which ``parlor eval`` warns."""
from __future__ import annotations

import re
import shlex
from collections import Counter
from pathlib import Path

import pytest

from parlor.training.evaluation.stats import MIN_CI_SAMPLES

README = Path(__file__).resolve().parents[3] / "README.md"
# whole commands (with --agents), not flags named in the text (`parlor eval --ray`)
COMMANDS = sorted(set(re.findall(r"`(?:\.venv/bin/)?(parlor eval [^`]*--agents [^`]+)`", README.read_text(encoding="utf-8"))))


def test_the_readme_shows_eval_commands() -> None:
    assert len(COMMANDS) >= 4


@pytest.mark.parametrize("command", COMMANDS)
def test_a_readme_eval_command_plays_enough_deals_per_pairing(command: str, monkeypatch) -> None:
    from parlor.cli import build_parser
    from parlor.training.cli.eval import config_from_args
    from parlor.training.evaluation.runner import plan

    monkeypatch.chdir(README.parent)  # the commands name files relative to the checkout
    config = config_from_args(build_parser().parse_args(shlex.split(command)[1:]))
    deals = Counter(job.matchup for job in plan(config).jobs)
    assert min(deals.values()) >= MIN_CI_SAMPLES, f"`{command}`: {dict(deals)} deals per pairing"
