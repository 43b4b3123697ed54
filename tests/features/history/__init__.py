"""Tests of features/history."""
