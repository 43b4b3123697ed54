"""Tests of loops."""
