"""Buki (Bukidomino), the betting game of docs/rules.md §4a: 4 players against a banker.

Betting phases (bet amount or "later", the banker's accept/refuse of a
``raise_before_4th`` raise) and the settlement (winner: bet back plus exactly
2.5x from the banker; losers' bets to the banker; drawn deals carry the bets).
Chips are exact (ints, Fractions for halves) in an engine ``Ledger``; bets on
the table sit in its pot. Action ids: 0..71 tile plays, 72 pass,
``73 + (amount - min_bet)`` bet/raise to ``amount``, then LATER, ACCEPT, REFUSE.

Modules: ``game`` (the config, the Game and ``make_game``), ``state`` (the State
and the game's constants), ``view`` (the shared ``DominoView`` plus this game's
fields), ``presenter`` (banker, bets and raises in words), ``features`` (the optional ``features=True`` block: the bettor's numbers); the line of play (``line``), ``encode``, ``render`` and ``determinize``
are shared with the other domino games one level up (``envs/dominoes``).
"""
