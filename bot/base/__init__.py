"""The values every layer shares, settings and logging — no database, no Discord: the game
(``game``), who acts (``people``), a refusal (``refusals``), a game's options and paces, a
server's rules (``server_rules``), the rating formula (``glicko2``), which servers are this
process's (``shards``), Discord's answer deadline (``answer_deadline``)."""
