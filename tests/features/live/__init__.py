"""Tests of features/live."""
