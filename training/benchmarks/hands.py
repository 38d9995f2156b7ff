"""Hand-evaluator speed, side by side in one run: our scalar ``rank5`` and
vectorized ``rank5_batch`` against treys (pure Python) and, when installed,
eval7 (a compiled Cython evaluator).

All evaluators see the same random 5-card hands of a standard deck, already
converted to each library's card format (conversion is not timed). Scalar
evaluators are timed in a plain Python loop over a list of ``SCALAR_N`` hands
(one pass), the batch evaluator by one call on ``BATCH_N`` hands. Passes repeat
in interleaved rounds and the fastest pass of each evaluator counts, the one
least disturbed by other load. Machines are shared and noisy: compare ratios
measured in the same run, not absolute numbers. ``parlor bench`` runs it.
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from parlor.envs.engine.cards import format_card
from parlor.envs.engine.hands import rank5, rank5_batch

BATCH_N = 1_000_000
SCALAR_N = 20_000


def random_hands(n: int, seed: int = 0) -> np.ndarray:
    """``n`` random 5-card hands (distinct cards) of the standard deck, int64 [n, 5]."""
    rng = np.random.default_rng(seed)
    hands = rng.integers(0, 52, size=(n, 5))
    while True:
        s = np.sort(hands, axis=1)
        dup = (s[:, 1:] == s[:, :-1]).any(1)
        if not dup.any():
            return hands
        hands[dup] = rng.integers(0, 52, size=(int(dup.sum()), 5))


ROUND = 0.25   # seconds per evaluator per round; rounds interleave the evaluators


def _scalar_rate(evaluate: Callable[..., object], hands: Sequence, seconds: float, star: bool = False) -> float:
    """Best hands per second of one pass of ``evaluate(h)`` (or ``evaluate(*h)``) over
    ``hands``, passes repeated for ``seconds``."""
    best, start = 0.0, time.perf_counter()
    while True:
        t0 = time.perf_counter()
        if star:
            for h in hands:
                evaluate(*h)
        else:
            for h in hands:
                evaluate(h)
        now = time.perf_counter()
        best = max(best, len(hands) / (now - t0))
        if now - start >= seconds:
            return best


def _batch_rate(hands: np.ndarray, seconds: float) -> float:
    """Best hands per second of one ``rank5_batch`` call, calls repeated for ``seconds``."""
    best, start = 0.0, time.perf_counter()
    while True:
        t0 = time.perf_counter()
        rank5_batch(hands)
        now = time.perf_counter()
        best = max(best, len(hands) / (now - t0))
        if now - start >= seconds:
            return best


def _short(n: int) -> str:
    return f"{n // 10**6}M" if n % 10**6 == 0 else f"{n // 1000}k" if n % 1000 == 0 else str(n)


def _contenders(batch_n: int, scalar_n: int) -> list[tuple[str, Callable[[float], float]]]:
    """(name, rate(seconds)) for every evaluator that is installed."""
    batch = random_hands(batch_n)
    ids = batch[:scalar_n].tolist()
    out = [
        ("parlor rank5 (scalar)", lambda t: _scalar_rate(rank5, ids, t)),
        (f"parlor rank5_batch (N={_short(batch_n)})", lambda t: _batch_rate(batch, t)),
    ]
    text = [[format_card(c, symbols=False) for c in h] for h in ids]  # treys and eval7 read the letters
    try:
        from treys import Card, Evaluator
    except ImportError:
        pass
    else:
        evaluate = Evaluator().evaluate
        split = [([Card.new(t) for t in h[:2]], [Card.new(t) for t in h[2:]]) for h in text]
        out.append(("treys evaluate (scalar)", lambda t: _scalar_rate(evaluate, split, t, star=True)))
    try:
        with warnings.catch_warnings():   # eval7 uses deprecated pyparsing names
            warnings.simplefilter("ignore")
            import eval7
    except ImportError:
        pass
    else:
        cards = [[eval7.Card(t) for t in h] for h in text]
        out.append(("eval7 (compiled, scalar)", lambda t: _scalar_rate(eval7.evaluate, cards, t)))
    return out


def bench_hands(seconds: float = 2.0, *, batch_n: int = BATCH_N, scalar_n: int = SCALAR_N) -> list[dict]:
    """One row ``{"name", "hands_per_s"}`` per evaluator; each runs about ``seconds``
    in total, in interleaved rounds, and its fastest pass counts."""
    contenders = _contenders(batch_n, scalar_n)
    best = {name: 0.0 for name, _ in contenders}
    for _ in range(max(1, round(seconds / ROUND))):
        for name, rate in contenders:
            best[name] = max(best[name], rate(min(ROUND, seconds)))
    return [{"name": name, "hands_per_s": best[name]} for name, _ in contenders]


def summary(rows: list[dict]) -> list[str]:
    """The target ratios (README / issue 2) as text lines."""
    rate = {r["name"]: r["hands_per_s"] for r in rows}
    ours, batch = rows[0]["hands_per_s"], rows[1]["hands_per_s"]
    lines = []
    if "treys evaluate (scalar)" in rate:
        lines.append(f"rank5 / treys: {ours / rate['treys evaluate (scalar)']:.1f}x (target >= 2x)")
    compiled = [v for k, v in rate.items() if k.startswith("eval7")]
    if compiled:
        lines.append(f"rank5_batch / fastest compiled: {batch / max(compiled):.1f}x (target >= 5x)")
    lines.append(f"rank5_batch: {batch / 1e6:.1f} M hands/s (target >= 30 M)")
    return lines
