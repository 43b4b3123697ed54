"""Tests of features/hints."""
