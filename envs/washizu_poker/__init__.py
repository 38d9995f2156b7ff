"""Draw poker with Washizu (transparent) cards and jokers (docs/rules.md §3).

Modules: ``config`` (options), ``deck`` (deck composition, Washizu set, stacked
decks), ``betting`` (pure betting rules), ``state`` (the match state machine),
``determinize`` (hidden-card resampling), ``view`` (what a seat knows),
``encode`` (observation vector, action names), ``features`` (observation
parts the state keeps up to date for the fast ``observe``), ``render`` (text),
``rules`` (the Game and ``make_game``).
"""
