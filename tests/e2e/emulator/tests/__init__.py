"""Tests of e2e/emulator/tests."""
