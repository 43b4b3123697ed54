"""The process's health: its Prometheus counters (``metrics``) and the ``/metrics`` and
``/healthz`` server (``server``)."""
