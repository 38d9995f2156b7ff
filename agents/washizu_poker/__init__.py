"""Washizu poker agents."""
