"""The live board: Tholos as a Discord Activity, a web page inside Discord served by the bot's
own process (only with ``THOLOS_WEB_PORT``); see :mod:`.server`."""
