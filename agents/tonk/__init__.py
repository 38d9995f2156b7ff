"""Tonk agents."""
