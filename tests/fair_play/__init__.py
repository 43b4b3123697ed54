"""Tests of fair_play."""
