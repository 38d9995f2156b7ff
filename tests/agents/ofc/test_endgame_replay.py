"""The endgame judge's shortcut through a four-free-slot board's known risks
(agents.ofc.endgame._mean_of_best) takes the very steps of the branch-and-bound search
(_best_placement_mean) it replaces: the same number, bit for bit, under every bound."""
from __future__ import annotations

import numpy as np

from parlor.agents.ofc.endgame import _best_placement_mean, _mean_of_best


def test_known_risks_give_the_searchs_number_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    for _ in range(2000):
        draws, plans = int(rng.integers(1, 6)), int(rng.integers(1, 22))
        # coarse values: ties, zeros and ones, as exact two-slot probabilities often are
        risks = (rng.integers(0, 9, (draws, plans)) / 8.0 * rng.choice([1.0, 0.3, 0.05])).tolist()
        bound = float(rng.choice([1.0, 0.0, 0.02, 0.1, 0.3]))
        enough = float(rng.choice([0.0, 0.0, 0.02, 0.1]))
        searched = _best_placement_mean(plans, np.zeros((draws, 3)), bound,
                                        lambda d, draw, known=risks: lambda i, best: known[d][i], enough)
        assert _mean_of_best(risks, bound, enough) == searched
