"""Typed states of the three graphs."""
