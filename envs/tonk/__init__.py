"""Tonk (RULES.md §5): rules, settlement, views, observation encoding and rendering."""
