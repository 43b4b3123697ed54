"""Tests of features/lessons."""
