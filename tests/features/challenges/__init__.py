"""Tests of features/challenges."""
