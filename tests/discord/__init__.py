"""Tests of discord."""
