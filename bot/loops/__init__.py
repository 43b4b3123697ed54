"""Background loops: the one runner of every loop (``loop``), the :class:`~.alarm.Alarm` that
wakes one early (``alarm``), Discord calls under a timeout and bounded retries (``background``),
and the work in flight (``work``)."""
