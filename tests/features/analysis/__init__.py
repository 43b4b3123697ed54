"""Tests of features/analysis."""
