"""Tonk (docs/rules.md §5): rules, settlement, views, observation encoding and rendering."""
