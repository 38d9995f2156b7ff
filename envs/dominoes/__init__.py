"""The domino games of docs/rules.md §4: Buki, Pulle and the Austrian block/draw games.

Three games share one line of play, one observation core and one episode
machinery, so the package has two levels with the same module names as every
other game package:

- shared here: ``line`` (the line-of-play rules: a ``Deal``, must-play, passing,
  drawing, blocking, void inference), ``game`` / ``state`` / ``view`` (the base
  Game, State and View each game extends), ``encode`` (the shared observation core,
  its incremental cache, action names), ``presenter`` (the presenter the games share),
  ``render`` (text and SVG picture of any domino view),
  ``narrate`` (moves as a seat saw them, each deal's end explained) and
  ``determinize`` (the hidden tiles redealt consistently with the voids);
- one sub-package per game, ``buki``, ``pulle``, ``austrian``, each with ``game``
  (its config, Game and ``make_game``), ``state`` (its State), ``view`` (its View),
  ``presenter`` (its title, seat notes, footer and moves in words) and, for Buki, ``features`` (the optional ``features=True`` block).
"""
