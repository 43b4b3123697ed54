"""Tests of features/puzzles."""
