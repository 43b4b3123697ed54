"""Tests of features/reviews."""
