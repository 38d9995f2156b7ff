"""Draw poker with Washizu (transparent) cards and jokers (docs/rules.md §3), one job per module:

- ``game``: the config (``WashizuConfig``), the Game (``WashizuGame``) and ``make_game``;
- ``state``: the State (the match: ante, deal, draw, betting, showdown, elimination);
- ``view``: the View (what one seat knows);
- ``encode``: the observation layout, ``encode_view``, the incremental observation
  cache the state keeps for the fast ``observe``, and action ids <-> words;
- ``render``: text of a view and its SVG picture (``render_svg``);
- ``narrate``: discards named by their cards, moves as a seat saw them, each game's result explained;
- ``determinize``: hidden cards resampled for one seat (``State.determinize``);
- rule modules: ``deck`` (deck composition, the Washizu set, stacked decks) and
  ``betting`` (the pure betting rules).
"""
