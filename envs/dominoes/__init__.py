"""Buki, Pulle and the Austrian block/draw games on one shared line-of-play module (docs/rules.md §4)."""
