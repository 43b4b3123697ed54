"""Tests of features/admin."""
