"""Golden digests of the OFC expert's numbers: speed work on its kernel
(``agents/ofc/expert_kernel.py``) must leave every score and every move as it was.

Recorded from the code before the kernel's speed work (main at ff9fd8e) and never
regenerated for a speed change. Each case hashes, bit for bit (the kernel sums in one
order, so its float64 scores are exact):

- ``values``: the expert's mean score of every candidate (``OFCExpert.values``) at every
  regular turn of seeded heuristic play, each position with its own expert seed;
- ``play``: seeded hands of the expert in every seat (actions and rewards), which also
  runs the hidden Fantasyland boards, the solver and the screening of the opening.

The cases cover heads-up and 3-handed play, Pineapple and the original deal, and a
2-hand Pineapple match (a Fantasyland value above 0). The expert values Fantasyland at 17
in every case, the default when they were recorded (``FANTASYLAND_VALUE``; the default is
now ``EXPERT_FL_VALUE``, 11: a change of behaviour, not of speed). Regenerate only when a change of
behaviour is intended: ``python -m tests.agents.ofc.test_expert_digests``. To record
them from another checkout (``git worktree add /tmp/parlor-ref ff9fd8e``):
``python -c "import sys; sys.path[:0] = ['training/benchmarks', '.']; import ofc_advisors, runpy;
ofc_advisors.use_code_tree('/tmp/parlor-ref'); runpy.run_module('tests.agents.ofc.test_expert_digests',
run_name='__main__')"``.
"""
from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from parlor.agents.episodes import play_episode
from parlor.agents.ofc.expert import OFCExpert
from parlor.agents.ofc.fantasyland import FANTASYLAND_VALUE
from parlor.agents.ofc.heuristic import OFCHeuristic
from parlor.envs.ofc.game import make_game

GOLDEN = Path(__file__).with_name("expert_digests.json")
SETUPS = {
    "pineapple": {"variant": "pineapple"},
    "pineapple 3p": {"variant": "pineapple", "num_players": 3},
    "original": {"variant": "original"},
    "pineapple 2 hands": {"variant": "pineapple", "num_hands": 2},
}


def values_digest(options: dict, deals: int, samples: int) -> str:
    """Every candidate's score at every regular turn of ``deals`` seeded heuristic hands."""
    h = hashlib.sha256()
    game = make_game(**options)
    for deal in range(deals):
        rng = np.random.default_rng(deal)
        state = game.new_state(rng)
        seats = [OFCHeuristic(game, seed=deal * 10 + p) for p in range(game.num_players)]
        turn = 0
        while not state.is_terminal():
            p, mask = state.current_player, state.legal_mask()
            view = state.view(p)
            if view.pending and not view.fantasyland[view.player]:
                dests, values = OFCExpert(game, seed=deal * 100 + turn, samples=samples,
                                          fl_value=FANTASYLAND_VALUE).values(view)
                h.update(repr(dests).encode() + np.asarray(values, dtype=np.float64).tobytes())
                turn += 1
            state.apply(seats[p].act(None, mask, view))
    return h.hexdigest()[:16]


def play_digest(options: dict, deals: int, samples: int) -> str:
    """Seeded hands (or matches) of ``expert:samples`` in every seat."""
    h = hashlib.sha256()
    game = make_game(**options)
    for deal in range(deals):
        agents = [OFCExpert(game, seed=deal * 10 + p, samples=samples, fl_value=FANTASYLAND_VALUE)
                  for p in range(game.num_players)]
        result = play_episode(game, agents, seed=deal)
        h.update(repr((result.rewards, result.steps, sorted(result.stats.items()))).encode())
    return h.hexdigest()[:16]


CASES: dict[str, Callable[[], str]] = {}
for _name, _options in SETUPS.items():
    CASES[f"values {_name}"] = lambda o=_options: values_digest(o, deals=2, samples=4)
    CASES[f"play {_name}"] = lambda o=_options: play_digest(o, deals=2, samples=2)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_expert_computes_what_it_computed_before(case: str) -> None:
    golden = json.loads(GOLDEN.read_text())
    assert CASES[case]() == golden[case], f"the expert's {case} changed"


def test_the_golden_file_holds_every_case() -> None:
    assert sorted(json.loads(GOLDEN.read_text())) == sorted(CASES)


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps({name: run() for name, run in CASES.items()}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}", file=sys.stderr)
