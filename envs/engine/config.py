"""Option validation and strict loading into frozen config dataclasses.

Every game's config is a ``@dataclass(frozen=True, slots=True, kw_only=True)``
that validates itself in ``__post_init__`` with the checks below; ``build``
turns a plain mapping (keyword options or YAML) into one, rejecting unknown
keys. Errors name the field and the allowed values.

It also owns the limits every game's numeric options share (docs/rules.md §0.4), chosen so
that every reward an accepted option set can pay is a finite float, and what a seed is.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Collection, Mapping
from typing import Any, TypeVar

from parlor.envs.engine.game import ConfigError, shown

C = TypeVar("C")

# Limits of numeric options (docs/rules.md §0.4). Rewards are sums of stakes, bets and chip
# counts over an episode's deals, so with these caps the largest possible reward stays far
# inside a float's range (and exact in it): no option set can pay an infinite reward.
MAX_DEALS = 100_000        # hands / deals / games of one episode
MAX_STAKE = 1_000_000      # a stake, bet or payment per deal
MAX_CHIPS = 1_000_000_000  # a player's starting chips
MAX_SEED = 2**64 - 1       # seeds are integers 0..MAX_SEED


def check_choice(field: str, value: Any, allowed: Collection[Any]) -> None:
    if value not in allowed:
        raise ConfigError(f"{field}={shown(value)} is not allowed; allowed values: {', '.join(map(repr, allowed))}")


def check_int(field: str, value: Any, lo: int | None = None, hi: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{field}={shown(value)} must be an integer{_range_text(lo, hi)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ConfigError(f"{field}={shown(value)} is out of range; allowed values: {_range_text(lo, hi).strip()}")


def check_number(field: str, value: Any, lo: float | None = None, hi: float | None = None) -> None:
    """A real number (int or float, not a bool) in ``lo..hi``; NaN and infinities are refused
    (every comparison with NaN is false, so a range check alone would let it through)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{field}={shown(value)} must be a number{_range_text(lo, hi)}")
    if not math.isfinite(value):
        raise ConfigError(f"{field}={shown(value)} must be a finite number{_range_text(lo, hi)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ConfigError(f"{field}={shown(value)} is out of range; allowed values: {_range_text(lo, hi).strip()}")


def check_seed(value: Any, field: str = "seed", *, none: bool = False) -> int | None:
    """A seed as a plain int: an integer 0..MAX_SEED (numpy integers too); ``None`` where
    ``none`` allows it. A bool is not a seed (``seed=True`` would silently be seed 1), nor
    is a float or a string."""
    if value is None and none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value <= MAX_SEED:
        also = " (or null: no seed)" if none else ""
        raise ConfigError(f"{field}={shown(value)} is not a seed; allowed values: an integer 0..2**64-1{also}")
    return int(value)


def check_bool(field: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{field}={shown(value)} must be true or false")


def _range_text(lo: Any, hi: Any) -> str:
    if lo is not None and hi is not None:
        return f" {lo}..{hi}"
    if lo is not None:
        return f" >= {lo}"
    if hi is not None:
        return f" <= {hi}"
    return ""


def field_names(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def build(cls: type[C], options: Mapping[str, Any] | None = None) -> C:
    """Build config ``cls`` from ``options``; unknown keys raise naming the allowed ones."""
    options = dict(options or {})
    allowed = field_names(cls)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ConfigError(
            f"unknown option(s) {', '.join(map(repr, unknown))} for {cls.__name__}; "
            f"allowed options: {', '.join(allowed)}"
        )
    return cls(**options)


def load_yaml(path: str) -> dict[str, Any]:
    """Read a YAML mapping with the safe loader (no tags, no eval)."""
    import yaml  # local: pyyaml is a runtime dependency, but the engine stays importable without it

    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a mapping of option names to values")
    return data


def to_dict(config: Any) -> dict[str, Any]:
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}
