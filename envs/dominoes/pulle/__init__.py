"""Pulle, the pool game of docs/rules.md §4b: 4 players, 7 tiles each, running pip totals.

Stakes and the pool, running totals, sitting out at 101+, the pool's winner,
the all-over-101 reset, the ``buy_back`` option (median rule) and the
``per_deal_payment`` option (half after a block). Action ids: 0..71 tile plays,
72 pass, 73 buy back, 74 no buy-back.

Modules: ``game`` (the config, the Game and ``make_game``), ``state`` (the State
and the game's constants), ``view`` (the shared ``DominoView`` plus this game's
fields), ``presenter`` (running totals, pool and buy-backs in words); the line of play (``line``), ``encode``, ``render`` and ``determinize``
are shared with the other domino games one level up (``envs/dominoes``).
"""
