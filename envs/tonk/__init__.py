"""Tonk (docs/rules.md §5), one job per module:

- ``game``: the config (``TonkConfig``), the Game (``TonkGame``) and ``make_game``;
- ``state``: the State (deal, turns, hands, the episode; the observation buffers
  it keeps for the fast ``observe``);
- ``view``: the View dataclasses and ``build_view`` (what one seat knows);
- ``encode``: action ids <-> words, the observation layout and ``encode(view)``;
- ``presenter``: the game's presenter (``engine/presenter.py``), all it shows people: the
  text and picture of ``render``, the words of ``narrate``, and the seat notes both print;
- ``render``: text of a view and its SVG picture (``render_svg``);
- ``narrate``: actions named in context, moves as a seat saw them, each hand's end explained;
- ``determinize``: hidden cards resampled for one seat (``State.determinize``);
- rule modules: ``turns`` (the steps of a turn: draw or take, lay, hit, discard,
  side pot) and ``settle`` (who pays whom).
"""
