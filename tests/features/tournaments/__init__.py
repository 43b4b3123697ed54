"""Tests of features/tournaments."""
