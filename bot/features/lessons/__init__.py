"""Lessons, a feature that is a package: ``/tholos learn`` and the buttons of the course
(``feature``), and what a lesson's message shows (``face``)."""
