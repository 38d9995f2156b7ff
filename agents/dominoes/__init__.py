"""Agents for the domino games (Buki, Pulle, Austrian block and draw)."""
