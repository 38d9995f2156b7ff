"""Draw poker with Washizu (transparent) cards and jokers (docs/rules.md §3), one job per module:

- ``game``: the config (``WashizuConfig``), the Game (``WashizuGame``) and ``make_game``;
- ``state``: the State (the engine protocol, views, copies, checks) built from the rule
  modules' steps;
- ``fields``: the fields of a match and the steps the rule modules call across, declared
  once (the base of those modules' mixins);
- ``view``: the View (what one seat knows);
- ``encode``: the observation layout, ``encode_view`` and action ids <-> words;
- ``observer``: told each rule event by the state, keeps every seat's observation up to
  date for the fast ``observe``; ``observation_cache``: its storage;
- ``presenter``: the game's presenter (``engine/presenter.py``), all it shows people: the
  text and picture of ``render``, the words of ``narrate``, and the seat notes both print;
- ``render``: text of a view and its SVG picture (``render_svg``);
- ``narrate``: discards named by their cards, moves as a seat saw them, each game's result explained;
- ``determinize``: hidden cards resampled for one seat (``State.determinize``);
- rule modules: ``deck`` (deck composition, the Washizu set, stacked decks), ``match``
  (phases, ante and deal, elimination, the match's end), ``draw`` (discard, draw,
  reshuffle), ``betting`` (the betting round: its rules and steps) and ``showdown``
  (the best hand takes the pot, split pots).
"""
