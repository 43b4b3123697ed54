"""Tests of features/pool."""
