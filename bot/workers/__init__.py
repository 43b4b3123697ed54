"""Worker processes, so that the event loop never waits: the AI's searches (``ai``) and the
drawing of boards (``renderer``)."""
