"""The check of a game's presenter (``parlor.envs.engine.presenter``): registered, with the
Presenter base's signatures, and wording every view of a random episode: a note per seat,
text, a label for each legal action, each move as every seat saw it, the explanation, and
one picture size for the whole episode when the game draws pictures."""
from __future__ import annotations

import re

import numpy as np

from parlor.envs.engine.presenter import differing_signatures, draws_pictures, presenter_for
from parlor.envs.testing.common import Subject

MAX_STEPS = 300  # long games are checked on their first steps
_SIZE = re.compile(r'<svg [^>]*?width="([0-9.]+)" height="([0-9.]+)"')


def check_presenter(s: Subject) -> None:
    game = s.make_raw().game
    presenter = presenter_for(game)
    name = type(presenter).__name__
    differ = differing_signatures(type(presenter))
    assert not differ, f"{name} changes the signatures of the Presenter base: {'; '.join(differ)}"
    pictures, sizes = draws_pictures(presenter), set()
    rng = np.random.default_rng(0)
    state = game.new_state(np.random.default_rng(0))
    n = game.num_players
    for _ in range(MAX_STEPS):
        views = [state.view(q) for q in range(n)]
        for q, view in enumerate(views):
            notes = presenter.seat_notes(view)
            assert isinstance(notes, list) and len(notes) == n and all(isinstance(x, str) for x in notes), \
                f"{name}.seat_notes gave {notes!r} for seat {q}: a list of one str per seat"
        p = state.current_player
        shown = views[p if p is not None else 0]
        text = presenter.render(shown)
        assert isinstance(text, str) and text.strip(), f"{name}.render gave no text"
        if pictures:
            size = _SIZE.match(presenter.render_svg(shown))
            assert size is not None, f"{name}.render_svg did not give an <svg> with its width and height"
            sizes.add(size.groups())
        if p is None or state.is_terminal() or state.is_truncated():
            break
        legal = [int(a) for a in np.flatnonzero(state.legal_mask())]
        for a in legal:
            label = presenter.move_name(views[p], a)
            assert isinstance(label, str) and label.strip(), f"{name}.move_name gave {label!r} for action {a}"
        action = legal[int(rng.integers(len(legal)))]
        state.apply(action)
        for q in range(n):
            after = state.view(q)
            told = presenter.describe_move(views[q], after, p, action)
            assert isinstance(told, str) and told.strip(), f"{name}.describe_move gave {told!r} to seat {q}"
            assert isinstance(presenter.explain(after), str), f"{name}.explain gave no str"
    assert len(sizes) <= 1, f"{name}.render_svg changed size within an episode: {sorted(sizes)} (rgb_array needs one)"
