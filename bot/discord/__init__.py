"""The Discord layer every feature shares: the :class:`~.app.App` (``app``), what a feature is
(``feature``), answering (``answers``), buttons and the router (``controls``), the ``/tholos``
group and the commands' registration (``commands``, ``registration``), the board's layout and
its posting (``layout``, ``poster``), where a game lives (``places``) and who may open it
(``visibility``)."""
