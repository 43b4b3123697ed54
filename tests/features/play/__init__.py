"""Tests of features/play."""
