"""Values, pure rules, settings and logging: no database, no Discord."""
