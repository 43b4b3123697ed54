"""Tests of features/games."""
