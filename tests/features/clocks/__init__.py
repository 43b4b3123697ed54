"""Tests of features/clocks."""
