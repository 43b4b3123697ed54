"""Tests of features/ratings."""
