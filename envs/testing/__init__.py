"""The rules harness as a public tool: every check parlor runs over its own games, for yours.

Like ``pettingzoo.test.api_test``, one call checks an environment factory (an entry point
``env(**options)`` from :func:`parlor.envs.aec.entry_points`)::

    from parlor.envs.testing import check_env
    check_env(env, options={"ante": 2}, hidden=my_hidden)

It runs every check in :data:`CHECKS` (PettingZoo's api and seed tests, the Game/State
protocol, random playouts under the game's invariants, no leak through ``determinize``,
clone, pickling, illegal actions, option validation, stacked decks, state text, game records
that re-simulate, the game's presenter) and raises an ``AssertionError`` that names the failing check. Each check
is also a function of its own (``check_clone(Subject(env))``); parlor's test suite
(tests/harness/) runs them one by one over its seven games.

What a seat cannot see is the one thing a harness cannot read off a game: pass ``hidden``
(``hidden(state, seat) -> Hidden``) so the no-leak check also proves that ``determinize``
really resamples it; without it, that check proves only that the seat's view is kept and
that the resampling does not depend on the true hidden cards.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from parlor.envs.testing.common import Hidden, Subject
from parlor.envs.testing.play import (
    check_bad_option_values,
    check_bad_stacked_deck,
    check_clone,
    check_illegal_action_penalty,
    check_illegal_action_raises,
    check_no_leak,
    check_pettingzoo_api,
    check_pickle,
    check_protocol,
    check_random_playouts,
    check_render_ansi,
    check_sampled_deck,
    check_seed,
    check_unknown_option,
)
from parlor.envs.testing.presenter import check_presenter
from parlor.envs.testing.records import (
    check_edited_record_fails,
    check_final_infos,
    check_penalty_record,
    check_pending_rewards_serialize,
    check_record_resimulates,
    check_state_text_errors,
    check_state_text_restores,
)

__all__ = ["CHECKS", "Hidden", "Subject", "check_env"]

CHECKS: dict[str, Callable[[Subject], str | None]] = {
    "pettingzoo_api": check_pettingzoo_api, "seed": check_seed, "protocol": check_protocol,
    "random_playouts": check_random_playouts, "no_leak": check_no_leak, "clone": check_clone,
    "pickle": check_pickle, "illegal_action_raises": check_illegal_action_raises,
    "illegal_action_penalty": check_illegal_action_penalty, "unknown_option": check_unknown_option,
    "bad_option_values": check_bad_option_values, "render_ansi": check_render_ansi,
    "bad_stacked_deck": check_bad_stacked_deck, "sampled_deck": check_sampled_deck,
    "state_text_restores": check_state_text_restores, "pending_rewards_serialize": check_pending_rewards_serialize,
    "state_text_errors": check_state_text_errors, "record_resimulates": check_record_resimulates,
    "edited_record_fails": check_edited_record_fails, "final_infos": check_final_infos,
    "penalty_record": check_penalty_record, "presenter": check_presenter,
}


def check_env(env_fn: Callable[..., Any], options: Mapping[str, Any] | None = None, *,
              hidden: Callable[[Any, int], Hidden] | None = None, playouts: int = 200,
              skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Run every check of :data:`CHECKS` but those in ``skip`` on ``env_fn(**options)``.

    Raises ``AssertionError("ENV: check 'NAME' failed: ...")`` at the first failing check
    (the original error chained). Returns, per check that could not apply to this game, why
    (e.g. ``{"edited_record_fails": "no step with a choice in this episode"}``)."""
    unknown = sorted(set(skip) - set(CHECKS))
    if unknown:
        raise ValueError(f"unknown check(s) in skip: {', '.join(unknown)}; allowed values: {', '.join(CHECKS)}")
    if isinstance(playouts, bool) or not isinstance(playouts, int) or playouts < 1:
        raise ValueError(f"playouts={playouts!r}: a positive integer (random episodes per playout check)")
    options = dict(options or {})
    try:
        label = f"{env_fn(**options).metadata['name']}{options or ''}"
    except Exception as err:
        raise AssertionError(f"check 'build' failed: env_fn(**{options}) raised {type(err).__name__}: {err}") from err
    subject = Subject(env_fn, options, hidden, playouts, label)
    not_applicable = {}
    for name, check in CHECKS.items():
        if name in skip:
            continue
        try:
            why = check(subject)
        except Exception as err:
            raise AssertionError(f"{label}: check {name!r} failed: {type(err).__name__}: {err}") from err
        if why:
            not_applicable[name] = why
    return not_applicable
