"""Tests of features/reminders."""
