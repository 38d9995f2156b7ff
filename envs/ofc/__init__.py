"""Open Face Chinese poker (docs/rules.md §1), one job per module:

- ``game``: the config (``OFCConfig``), the Game (``OFCGame``) and ``make_game``;
- ``state``: the State (dealing, placement, showdown, Fantasyland);
- ``determinize``: hidden cards resampled for one seat (``State.determinize``);
- ``stats``: the episode's statistics (``State.stats()``; the multi-hand rates'
  terms, ``MULTI_HAND_RATIOS``);
- ``view``: the View (what one seat knows);
- ``encode``: the observation layout, ``encode(view)`` and action names;
- ``presenter``: the game's presenter (``engine/presenter.py``), all it shows people: the
  text and picture of ``render``, the words of ``narrate``, and the seat notes both print;
- ``render``: text of a view and its SVG picture (``render_svg``);
- ``narrate``: actions named by their card, moves as a seat saw them, the showdown explained;
- rule modules: ``deal`` (cards per turn, Fantasyland deal sizes, turn order),
  ``scoring`` (rows, fouls, royalties, Fantasyland entry and stay).

The optional ``features=True`` observation block and the planner it shares with the
heuristic live apart from the rules, in ``parlor.envs.ofc_outlook``.
"""
