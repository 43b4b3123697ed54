"""Admin: ``/tholos-admin`` (the server's settings, ending a game: ``feature``), backups
(``backup``) and copying between databases (``copy``)."""
