"""The Austrian block and draw games of docs/rules.md §4c: 2-4 players, no bets.

The mode, the hand-size table, ``max_draws`` and the per-deal reward (+1 to the
winner, -1/(n-1) to each other player, 0 for all on a draw); dealing, drawing
and blocking are the shared line of play. Action ids: 0..71 tile plays, 72 draw
(draw game, while allowed) or pass.

Modules: ``game`` (the config, the Game and ``make_game``), ``state`` (the State
and the game's constants), ``view`` (the shared ``DominoView`` plus this game's
fields), ``presenter`` (deals won and draws in words); the line of play (``line``), ``encode``, ``render`` and ``determinize``
are shared with the other domino games one level up (``envs/dominoes``).
"""
