"""Buffalo Bill: score-sheet poker with exchanges and chips (docs/rules.md §2), one job per module:

- ``game``: the config (``BuffaloBillConfig``), the Game (``BuffaloBillGame``) and ``make_game``;
- ``state``: the State (rounds, exchanges, chips, scoring, rewards; ``determinize``
  is a State method: only the stock order is hidden);
- ``view``: the View (what one seat knows);
- ``encode``: action ids <-> words and the observation layout and ``encode``;
- ``presenter``: the game's presenter (``engine/presenter.py``), all it shows people: the
  text and picture of ``render``, the words of ``narrate``, and the seat notes both print;
- ``render``: text of a view and its SVG picture (``render_svg``);
- ``narrate``: exchanges named by their cards, moves as a seat saw them, the sheet explained;
- ``features``: the optional ``features=True`` observation block;
- rule module: ``categories`` (score-sheet categories and line values).
"""
