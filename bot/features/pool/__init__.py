"""The pool: quick pairing across servers. A wave of those waiting for one pace is paired by
rating, within windows that widen with the wait (``matching``)."""
