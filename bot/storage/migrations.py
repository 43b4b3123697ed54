"""Numbered forward migrations, one numbering for both dialects: migration n takes a schema
from version n-1 to n, ``MIGRATIONS[n - 1]`` in SQLite and ``POSTGRES_MIGRATIONS[n - 1]`` in
PostgreSQL (``None``: nothing to do there — PostgreSQL's migration 1 already holds SQLite's 2
and 3). The two schemas hold the same tables and columns; PostgreSQL's types are wider
(``BIGINT`` ids, ``double precision`` times, identity columns, ``boolean``).

A new migration: append its SQLite script to :data:`MIGRATIONS` and its PostgreSQL script to
:data:`POSTGRES_MIGRATIONS` (the same number n in both; a test checks the two lists are as long).
Never edit a migration that has shipped.

The version is recorded with the migrations: ``PRAGMA user_version`` in SQLite (one transaction
per migration), the ``schema_version`` table in PostgreSQL (all pending migrations in one
transaction). PostgreSQL was numbered on its own until version 7 (= 9 here): such a database
still says 1-7, which :data:`LEGACY_POSTGRES_VERSIONS` translates; since its migrations run to
the newest in one transaction, this code only ever records a version of at least 9, so the two
numberings never meet, and a bot of before the change refuses a migrated database (too new)
rather than misreading it.
"""

from __future__ import annotations

MIGRATIONS: list[str] = [
    # 1: games, their turns, challenges; settings the bot keeps for itself.
    """
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        white_id INTEGER NOT NULL,
        black_id INTEGER NOT NULL,
        white_name TEXT NOT NULL,
        black_name TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('basic', 'advanced')),
        seed INTEGER NOT NULL,
        start_position TEXT NOT NULL,
        position TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 0,
        plies INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished')),
        result TEXT CHECK (result IN ('white', 'black', 'draw')),
        reason TEXT CHECK (reason IN ('points', 'columns', 'tie', 'resignation', 'timeout')),
        white_points INTEGER,
        black_points INTEGER,
        board_message_id INTEGER,
        board_version INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        last_move_at REAL NOT NULL,
        finished_at REAL,
        CHECK (white_id != black_id),
        CHECK ((status = 'finished') = (result IS NOT NULL AND reason IS NOT NULL))
    );
    CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id)
        WHERE status = 'active';
    CREATE INDEX games_needing_a_board ON games (updated_at)
        WHERE (board_version IS NULL OR board_version < version);
    CREATE TABLE turns (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL CHECK (ply >= 1),
        player_id INTEGER NOT NULL,
        turn TEXT NOT NULL,
        position_after TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;
    CREATE TABLE challenges (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        challenger_id INTEGER NOT NULL,
        opponent_id INTEGER NOT NULL,
        challenger_name TEXT NOT NULL,
        opponent_name TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('basic', 'advanced')),
        ornaments INTEGER NOT NULL CHECK (ornaments BETWEEN 0 AND 5),
        colour TEXT NOT NULL CHECK (colour IN ('white', 'black', 'random')),
        first TEXT NOT NULL CHECK (first IN ('me', 'opponent', 'random')),
        message_id INTEGER,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'accepted', 'declined', 'withdrawn', 'expired')),
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL,
        game_id INTEGER REFERENCES games (id),
        CHECK (challenger_id != opponent_id)
    );
    CREATE UNIQUE INDEX challenges_one_pending_per_channel ON challenges (channel_id)
        WHERE status = 'pending';
    CREATE INDEX challenges_pending_by_expiry ON challenges (expires_at)
        WHERE status = 'pending'
    """,
    # 2: Glicko-2 ratings per server; games may be unrated (against the AI); the order in which
    # games were rated (to rebuild ratings identically); indexes for players' histories.
    """
    ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 1 CHECK (rated IN (0, 1));
    ALTER TABLE games ADD COLUMN rated_seq INTEGER;
    CREATE UNIQUE INDEX games_in_rating_order ON games (rated_seq) WHERE rated_seq IS NOT NULL;
    CREATE TABLE ratings (
        guild_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        games INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        draws INTEGER NOT NULL DEFAULT 0,
        updated_at REAL NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    ) WITHOUT ROWID;
    CREATE INDEX ratings_by_rank ON ratings (guild_id, rating DESC, user_id);
    CREATE INDEX games_finished_as_white ON games (guild_id, white_id, finished_at)
        WHERE status = 'finished';
    CREATE INDEX games_finished_as_black ON games (guild_id, black_id, finished_at)
        WHERE status = 'finished'
    """,
    # 3: games against the bot's AI (never rated).
    """
    ALTER TABLE games ADD COLUMN ai_level TEXT CHECK (ai_level IN ('easy', 'medium', 'hard'));
    CREATE INDEX games_ai_to_move ON games (id) WHERE status = 'active' AND ai_level IS NOT NULL
    """,
    # 4: leases: which process does a piece of background work (post a missing board, play an
    # AI turn) when several processes share the database.
    """
    CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at REAL NOT NULL
    ) WITHOUT ROWID
    """,
    # 5: a thread per game: a game is played in ``channel_id`` (its thread, or the channel
    # itself), started from ``parent_id`` (the thread's channel) where ``parent_message_id``
    # stands for it; many pending challenges per channel, one per pair; server settings.
    """
    ALTER TABLE games ADD COLUMN parent_id INTEGER;
    ALTER TABLE games ADD COLUMN parent_message_id INTEGER;
    CREATE INDEX games_active_in_parent ON games (parent_id)
        WHERE status = 'active' AND parent_id IS NOT NULL;
    DROP INDEX challenges_one_pending_per_channel;
    CREATE UNIQUE INDEX challenges_one_pending_per_pair
        ON challenges (channel_id, challenger_id, opponent_id) WHERE status = 'pending';
    CREATE TABLE guild_settings (
        guild_id INTEGER PRIMARY KEY,
        threads INTEGER CHECK (threads IN (0, 1)),
        inactivity_timeout REAL,
        challenge_timeout REAL,
        default_mode TEXT CHECK (default_mode IN ('basic', 'advanced')),
        updated_by INTEGER NOT NULL,
        updated_at REAL NOT NULL
    )
    """,
    # 6: an admin may end a stuck game: status 'aborted', with who ended it. SQLite cannot
    # change a CHECK in place, so the games table is rebuilt (a table rebuild: see
    # SQLITE_TABLE_REBUILDS) with the same columns, plus ``ended_by``, and its indexes.
    """
    CREATE TABLE games_rebuilt (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        white_id INTEGER NOT NULL,
        black_id INTEGER NOT NULL,
        white_name TEXT NOT NULL,
        black_name TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('basic', 'advanced')),
        seed INTEGER NOT NULL,
        start_position TEXT NOT NULL,
        position TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 0,
        plies INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'active'
            CHECK (status IN ('active', 'finished', 'aborted')),
        result TEXT CHECK (result IN ('white', 'black', 'draw')),
        reason TEXT CHECK (reason IN ('points', 'columns', 'tie', 'resignation', 'timeout')),
        white_points INTEGER,
        black_points INTEGER,
        board_message_id INTEGER,
        board_version INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        last_move_at REAL NOT NULL,
        finished_at REAL,
        rated INTEGER NOT NULL DEFAULT 1 CHECK (rated IN (0, 1)),
        rated_seq INTEGER,
        ai_level TEXT CHECK (ai_level IN ('easy', 'medium', 'hard')),
        parent_id INTEGER,
        parent_message_id INTEGER,
        ended_by INTEGER,
        CHECK (white_id != black_id),
        CHECK ((status = 'finished') = (result IS NOT NULL AND reason IS NOT NULL)),
        CHECK ((status = 'aborted') = (ended_by IS NOT NULL))
    );
    INSERT INTO games_rebuilt (
        id, guild_id, channel_id, white_id, black_id, white_name, black_name, mode, seed,
        start_position, position, version, plies, status, result, reason, white_points,
        black_points, board_message_id, board_version, created_at, updated_at, last_move_at,
        finished_at, rated, rated_seq, ai_level, parent_id, parent_message_id
    ) SELECT
        id, guild_id, channel_id, white_id, black_id, white_name, black_name, mode, seed,
        start_position, position, version, plies, status, result, reason, white_points,
        black_points, board_message_id, board_version, created_at, updated_at, last_move_at,
        finished_at, rated, rated_seq, ai_level, parent_id, parent_message_id
    FROM games;
    DROP TABLE games;
    ALTER TABLE games_rebuilt RENAME TO games;
    CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id)
        WHERE status = 'active';
    CREATE INDEX games_needing_a_board ON games (updated_at)
        WHERE (board_version IS NULL OR board_version < version);
    CREATE UNIQUE INDEX games_in_rating_order ON games (rated_seq) WHERE rated_seq IS NOT NULL;
    CREATE INDEX games_finished_as_white ON games (guild_id, white_id, finished_at)
        WHERE status = 'finished';
    CREATE INDEX games_finished_as_black ON games (guild_id, black_id, finished_at)
        WHERE status = 'finished';
    CREATE INDEX games_ai_to_move ON games (id) WHERE status = 'active' AND ai_level IS NOT NULL;
    CREATE INDEX games_active_in_parent ON games (parent_id)
        WHERE status = 'active' AND parent_id IS NOT NULL
    """,
    # 7: the language a game (and its challenge) is played in: the server's at challenge time.
    """
    ALTER TABLE games ADD COLUMN language TEXT NOT NULL DEFAULT 'en'
        CHECK (language IN ('en', 'es', 'de'));
    ALTER TABLE challenges ADD COLUMN language TEXT NOT NULL DEFAULT 'en'
        CHECK (language IN ('en', 'es', 'de'))
    """,
    # 8: reviews of finished games by the AI: queued, running (under a lease), done.
    """
    CREATE TABLE reviews (
        game_id INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        message_id INTEGER,
        requested_by INTEGER NOT NULL,
        requested_at REAL NOT NULL,
        status TEXT NOT NULL DEFAULT 'queued'
            CHECK (status IN ('queued', 'running', 'done', 'failed')),
        done INTEGER NOT NULL DEFAULT 0,
        total INTEGER NOT NULL DEFAULT 0,
        review TEXT,
        finished_at REAL,
        CHECK ((status = 'done') = (review IS NOT NULL))
    );
    CREATE INDEX reviews_waiting ON reviews (requested_at) WHERE status IN ('queued', 'running')
    """,
    # 9: turn reminders: when the player to move is reminded (NULL: no reminder pending), a
    # server's reminder time (NULL: the default, 0: off), each player's choice of where.
    """
    ALTER TABLE games ADD COLUMN reminder_due_at REAL;
    CREATE INDEX games_reminders_due ON games (reminder_due_at)
        WHERE status = 'active' AND reminder_due_at IS NOT NULL;
    ALTER TABLE guild_settings ADD COLUMN reminder_after REAL CHECK (reminder_after >= 0);
    CREATE TABLE player_settings (
        user_id INTEGER PRIMARY KEY,
        reminders TEXT NOT NULL DEFAULT 'here' CHECK (reminders IN ('off', 'here', 'dm')),
        updated_at REAL NOT NULL
    )
    """,
    # 10: a review that fails is tried again later: how many tries failed, when the next one
    # is due (the loop takes the next due review, so a failing one delays no other), and why
    # the last one failed.
    """
    ALTER TABLE reviews ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE reviews ADD COLUMN next_attempt_at REAL NOT NULL DEFAULT 0;
    ALTER TABLE reviews ADD COLUMN failure TEXT;
    DROP INDEX reviews_waiting;
    CREATE INDEX reviews_due ON reviews (next_attempt_at) WHERE status IN ('queued', 'running')
    """,
    # 11: open challenges (open_to_all). Their opponent_id is 0 (and opponent_name '') until
    # a member accepts, who is written in then; so the index of one pending challenge per pair
    # also keeps one open challenge per member and channel. rating_range: only members rated
    # within that many points of the challenger may accept (NULL: anyone).
    """
    ALTER TABLE challenges ADD COLUMN open_to_all INTEGER NOT NULL DEFAULT 0
        CHECK (open_to_all IN (0, 1));
    ALTER TABLE challenges ADD COLUMN rating_range INTEGER CHECK (rating_range > 0);
    CREATE INDEX challenges_open ON challenges (guild_id, expires_at)
        WHERE status = 'pending' AND opponent_id = 0
    """,
    # 12: live clocks. time_control: '5+3' (minutes + seconds a turn; NULL: correspondence).
    # A game's white_clock / black_clock: each player's seconds left when their turn began
    # (NULL: no clock — correspondence, or the AI's side); clock_started_at: when the mover's
    # clock started (the board of their turn posted; NULL: not running), flag_at: when it runs
    # out (the sweep's index). turns.clock: the mover's time left after the turn (with the
    # increment). A server's default pace and the clocks it offers (NULL: the bot's).
    """
    ALTER TABLE challenges ADD COLUMN time_control TEXT;
    ALTER TABLE games ADD COLUMN time_control TEXT;
    ALTER TABLE games ADD COLUMN white_clock REAL;
    ALTER TABLE games ADD COLUMN black_clock REAL;
    ALTER TABLE games ADD COLUMN clock_started_at REAL;
    ALTER TABLE games ADD COLUMN flag_at REAL;
    CREATE INDEX games_flags_due ON games (flag_at) WHERE status = 'active' AND flag_at IS NOT NULL;
    ALTER TABLE turns ADD COLUMN clock REAL;
    ALTER TABLE guild_settings ADD COLUMN default_pace TEXT;
    ALTER TABLE guild_settings ADD COLUMN clocks TEXT
    """,
    # 13: tournaments. A tournament's format is 'swiss' (``rounds`` rounds) or 'round_robin'
    # (``rounds``: the cycles, 1 or 2); time_control NULL: correspondence, each round with a
    # deadline of round_hours. status: 'signup' (Join / Leave), 'running', 'paused', 'finished'
    # (every round played, or ended by the organiser) or 'cancelled' (too few players). round:
    # the round under way (0 before the first); paired by a compare-and-set on it, so a round
    # is never paired twice; announced_round: the last round whose standings were posted.
    # Its entrants (rating: at the start, for seeding and the rating change at the end;
    # withdrawn_round: the round after which they play no more) and its pairings, one row
    # per game or bye (black_id NULL); game_id NULL until the game starts, and for a bye, a
    # forfeit (result set without a game) or a pairing void (a game that could not be opened
    # before the round's deadline: 'void', no points). event_id: the server's scheduled
    # event for its start, if the bot could make one.
    """
    CREATE TABLE tournaments (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        message_id INTEGER,
        organiser_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('swiss', 'round_robin')),
        rounds INTEGER NOT NULL CHECK (rounds > 0),
        time_control TEXT,
        round_hours REAL NOT NULL CHECK (round_hours > 0),
        mode TEXT NOT NULL CHECK (mode IN ('basic', 'advanced')),
        ornaments INTEGER NOT NULL,
        language TEXT NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'es', 'de')),
        starts_at REAL NOT NULL,
        max_players INTEGER NOT NULL CHECK (max_players >= 2),
        rated INTEGER NOT NULL CHECK (rated IN (0, 1)),
        status TEXT NOT NULL DEFAULT 'signup'
            CHECK (status IN ('signup', 'running', 'paused', 'finished', 'cancelled')),
        round INTEGER NOT NULL DEFAULT 0,
        round_deadline REAL,
        announced_round INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        ended_by INTEGER,
        event_id INTEGER
    );
    CREATE INDEX tournaments_under_way ON tournaments (guild_id)
        WHERE status IN ('signup', 'running');
    CREATE TABLE tournament_players (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        joined_at REAL NOT NULL,
        rating REAL,
        withdrawn_round INTEGER,
        withdrawn_why TEXT CHECK (withdrawn_why IN ('withdrew', 'removed', 'absent')),
        PRIMARY KEY (tournament_id, user_id)
    ) WITHOUT ROWID;
    CREATE TABLE tournament_games (
        tournament_id INTEGER NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        round INTEGER NOT NULL,
        board INTEGER NOT NULL,
        white_id INTEGER NOT NULL,
        black_id INTEGER,
        game_id INTEGER UNIQUE REFERENCES games (id),
        result TEXT CHECK (result IN ('white', 'black', 'draw', 'void')),
        PRIMARY KEY (tournament_id, round, board)
    )
    """,
    # 14: puzzles. A puzzle: a position whose side to move has exactly one best turn
    # (``answer``; best and alternative: the result it keeps and the best any other turn
    # keeps, 1 a win, 0.5 a draw), proven by exhaustive search; where it comes from; its
    # difficulty (legal turns) and its Glicko-2 rating. A member's puzzle rating, counts and
    # streaks, and ``cycle``: the round of puzzles they are in (no puzzle twice in one). An
    # attempt: a puzzle shown to a member (in their cycle, or as a server's puzzle of the day:
    # guild_id and day), answered once by a compare-and-set on answered_at (correct: right or
    # wrong); rated: whether it
    # moved the ratings. A server's puzzle of the day, claimed by its primary key before it is
    # posted (message_id NULL until then), so it is posted once; revealed: the answer shown.
    # puzzle_channel: where a server wants it. games_by_finish: the finished games in the order
    # they are searched for puzzles (meta 'puzzles:searched' marks how far).
    """
    CREATE TABLE puzzles (
        id INTEGER PRIMARY KEY,
        position TEXT NOT NULL UNIQUE,
        answer TEXT NOT NULL,
        best REAL NOT NULL,
        alternative REAL NOT NULL,
        source TEXT NOT NULL,
        difficulty INTEGER NOT NULL,
        rating REAL NOT NULL DEFAULT 1500,
        deviation REAL NOT NULL DEFAULT 350,
        volatility REAL NOT NULL DEFAULT 0.06,
        attempts INTEGER NOT NULL DEFAULT 0,
        solved INTEGER NOT NULL DEFAULT 0,
        added_at REAL NOT NULL
    );
    CREATE INDEX puzzles_by_rating ON puzzles (rating);
    CREATE TABLE puzzle_players (
        user_id INTEGER PRIMARY KEY,
        rating REAL NOT NULL DEFAULT 1500,
        deviation REAL NOT NULL DEFAULT 350,
        volatility REAL NOT NULL DEFAULT 0.06,
        attempts INTEGER NOT NULL DEFAULT 0,
        solved INTEGER NOT NULL DEFAULT 0,
        streak INTEGER NOT NULL DEFAULT 0,
        best_streak INTEGER NOT NULL DEFAULT 0,
        cycle INTEGER NOT NULL DEFAULT 1,
        updated_at REAL NOT NULL
    );
    CREATE TABLE puzzle_attempts (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL,
        puzzle_id INTEGER NOT NULL REFERENCES puzzles (id),
        cycle INTEGER NOT NULL,
        guild_id INTEGER,
        day TEXT,
        shown_at REAL NOT NULL,
        answered_at REAL,
        answer TEXT,
        correct INTEGER CHECK (correct IN (0, 1)),
        rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1))
    );
    CREATE UNIQUE INDEX puzzle_attempts_once ON puzzle_attempts (user_id, cycle, puzzle_id)
        WHERE day IS NULL;
    CREATE UNIQUE INDEX puzzle_attempts_daily ON puzzle_attempts (guild_id, day, user_id)
        WHERE day IS NOT NULL;
    CREATE INDEX puzzle_attempts_open ON puzzle_attempts (user_id) WHERE answered_at IS NULL;
    CREATE TABLE daily_puzzles (
        guild_id INTEGER NOT NULL,
        day TEXT NOT NULL,
        puzzle_id INTEGER NOT NULL REFERENCES puzzles (id),
        channel_id INTEGER NOT NULL,
        language TEXT NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'es', 'de')),
        message_id INTEGER,
        first_solver INTEGER,
        solvers INTEGER NOT NULL DEFAULT 0,
        tries INTEGER NOT NULL DEFAULT 0,
        revealed INTEGER NOT NULL DEFAULT 0 CHECK (revealed IN (0, 1)),
        PRIMARY KEY (guild_id, day)
    );
    ALTER TABLE guild_settings ADD COLUMN puzzle_channel INTEGER;
    CREATE INDEX games_by_finish ON games (finished_at, id) WHERE status = 'finished'
    """,
    # 15: what a tournament has said. announced_pairings: the last round whose pairings (byes
    # and forfeits with them) were posted — a round stored by a process killed before its
    # post is posted by the next; version: bumped by every change its announcement shows
    # (status, round, entrants), shown_version: the version its announcement last showed —
    # one that a crash left stale is shown again. Rounds already under way were announced.
    """
    ALTER TABLE tournaments ADD COLUMN announced_pairings INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE tournaments ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE tournaments ADD COLUMN shown_version INTEGER NOT NULL DEFAULT 0;
    UPDATE tournaments SET announced_pairings = round
    """,
    # 16: learning. learners: where a member is in the course (the lesson shown, which
    # /tholos learn continues) and when they first finished it; lessons_done: each lesson a
    # member tried (misses counted) and when they first did its task. games.hints: a game
    # against the AI where the player may ask for hints; hints_used: how many they asked.
    # page_requests: the finished game a member asked to analyse from Discord, which the live
    # page they open next in that channel shows (one per member and channel).
    """
    CREATE TABLE learners (
        user_id INTEGER PRIMARY KEY,
        current TEXT NOT NULL,
        finished_at REAL,
        updated_at REAL NOT NULL
    );
    CREATE TABLE lessons_done (
        user_id INTEGER NOT NULL,
        lesson TEXT NOT NULL,
        misses INTEGER NOT NULL DEFAULT 0,
        passed_at REAL,
        PRIMARY KEY (user_id, lesson)
    );
    ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0 CHECK (hints IN (0, 1));
    ALTER TABLE games ADD COLUMN hints_used INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE page_requests (
        user_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        game_id INTEGER NOT NULL,
        requested_at REAL NOT NULL,
        PRIMARY KEY (user_id, channel_id)
    )
    """,
    # 17: fair play. watched_positions: the position of each game the engine may not help with
    # (unfinished, rated or between members) and the positions one turn from it, by a 64-bit
    # key of the canonical position (engine.position_key), replaced with each turn and
    # deleted when the game ends; puzzle_positions: each puzzle's position and those one turn
    # from it, for the members who have not answered it.
    """
    CREATE TABLE watched_positions (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        position_key INTEGER NOT NULL,
        PRIMARY KEY (game_id, position_key)
    ) WITHOUT ROWID;
    CREATE INDEX watched_positions_by_key ON watched_positions (position_key);
    CREATE TABLE puzzle_positions (
        puzzle_id INTEGER NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
        position_key INTEGER NOT NULL,
        PRIMARY KEY (puzzle_id, position_key)
    ) WITHOUT ROWID;
    CREATE INDEX puzzle_positions_by_key ON puzzle_positions (position_key)
    """,
    # 18: play anywhere. games.venue and challenges.venue: where they are played — a server
    # with the bot, the bot's DM (guild_id 0, as before), or, through a member's install of the
    # app, a DM or group DM between members or a server without the bot (guild_id 0: the bot
    # can only answer the interactions made there).
    """
    ALTER TABLE games ADD COLUMN venue TEXT NOT NULL DEFAULT 'server'
        CHECK (venue IN ('server', 'bot_dm', 'dm', 'group_dm', 'server_without_bot'));
    UPDATE games SET venue = 'bot_dm' WHERE guild_id = 0;
    ALTER TABLE challenges ADD COLUMN venue TEXT NOT NULL DEFAULT 'server'
        CHECK (venue IN ('server', 'bot_dm', 'dm', 'group_dm', 'server_without_bot'));
    UPDATE challenges SET venue = 'bot_dm' WHERE guild_id = 0
    """,
    # 19: one rating per member in each of two pools (live: any clock; correspondence), not
    # per server: member_ratings, ranked by its index per pool; server_players: the members a
    # server's leaderboard shows (they played a rated game there, or queued from there), filled
    # from the stored rated games; games.ai_id: the AI's side of a game against it (a rated one
    # rates only the member). The per-server ratings are dropped: the meta row
    # 'ratings:replay' (if there are rated games) asks the ratings feature to replay every
    # stored rated game, in rating order, into the pools at start (one transaction under the
    # ratings' lock, which deletes the row; docs/data.md).
    """
    CREATE TABLE member_ratings (
        pool TEXT NOT NULL CHECK (pool IN ('live', 'correspondence')),
        user_id INTEGER NOT NULL,
        rating REAL NOT NULL,
        deviation REAL NOT NULL,
        volatility REAL NOT NULL,
        games INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        draws INTEGER NOT NULL DEFAULT 0,
        updated_at REAL NOT NULL,
        PRIMARY KEY (pool, user_id)
    ) WITHOUT ROWID;
    CREATE INDEX member_ratings_by_rank ON member_ratings (pool, rating DESC, user_id);
    CREATE TABLE server_players (
        guild_id INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    ) WITHOUT ROWID;
    INSERT INTO server_players (guild_id, user_id)
        SELECT guild_id, white_id FROM games WHERE status = 'finished' AND rated AND guild_id != 0
        UNION SELECT guild_id, black_id FROM games
        WHERE status = 'finished' AND rated AND guild_id != 0;
    ALTER TABLE games ADD COLUMN ai_id INTEGER;
    DROP TABLE ratings;
    INSERT INTO meta (key, value) SELECT 'ratings:replay', '19'
        WHERE EXISTS (SELECT 1 FROM games WHERE status = 'finished' AND rated)
    """,
    # 20: the pool (quick pairing across servers). pool_members: the members who opted in,
    # by their global display name, with their last pool opponent (no rematch while others
    # wait); blocks: who blocked whom (never paired, their challenges never shown); pool_queue:
    # who waits for which pace (one pace at a time) and where their game is to be shown (a
    # server's channel, or their DM with the bot), with the server's name only if its admins
    # allowed it; guild_settings.pool, pool_shows_server: a server's admins opened the pool
    # there, and let its name be shown to opponents from other servers.
    """
    CREATE TABLE pool_members (
        user_id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        joined_at REAL NOT NULL,
        last_opponent_id INTEGER
    );
    CREATE TABLE blocks (
        user_id INTEGER NOT NULL,
        blocked_id INTEGER NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (user_id, blocked_id),
        CHECK (user_id != blocked_id)
    ) WITHOUT ROWID;
    CREATE INDEX blocks_by_blocked ON blocks (blocked_id);
    CREATE TABLE pool_queue (
        user_id INTEGER PRIMARY KEY REFERENCES pool_members (user_id) ON DELETE CASCADE,
        pace TEXT NOT NULL,
        since REAL NOT NULL,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        venue TEXT NOT NULL CHECK (venue IN ('server', 'bot_dm')),
        language TEXT NOT NULL CHECK (language IN ('en', 'es', 'de')),
        server_name TEXT
    );
    CREATE INDEX pool_queue_by_pace ON pool_queue (pace, since);
    ALTER TABLE guild_settings ADD COLUMN pool INTEGER NOT NULL DEFAULT 0 CHECK (pool IN (0, 1));
    ALTER TABLE guild_settings ADD COLUMN pool_shows_server INTEGER NOT NULL DEFAULT 0
        CHECK (pool_shows_server IN (0, 1))
    """,
    # 21: a game in two places. A game the pool paired between members who asked in different
    # places (two servers, a server and a DM with the bot) is one game shown in each: games.pool
    # marks it (several may share a channel, so the one-active-game index leaves them out);
    # game_places holds one row per player (the place they asked in); the home row (home: the
    # first seat's, the place games.guild_id/channel_id show) keeps its boards in games, every
    # other row its own: board_message_id, board_version, and version (the game's, written by
    # every change, so that the index finds a place whose board is behind). placed: its thread
    # question settled (a thread opened, or the channel itself) before its first board.
    """
    ALTER TABLE games ADD COLUMN pool INTEGER NOT NULL DEFAULT 0 CHECK (pool IN (0, 1));
    DROP INDEX games_one_active_per_channel;
    CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id)
        WHERE status = 'active' AND NOT pool;
    CREATE TABLE game_places (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        home INTEGER NOT NULL CHECK (home IN (0, 1)),
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        parent_id INTEGER,
        parent_message_id INTEGER,
        venue TEXT NOT NULL CHECK (venue IN ('server', 'bot_dm')),
        language TEXT NOT NULL,
        server_name TEXT,
        placed INTEGER NOT NULL DEFAULT 0 CHECK (placed IN (0, 1)),
        version INTEGER NOT NULL DEFAULT 0,
        board_message_id INTEGER,
        board_version INTEGER,
        PRIMARY KEY (game_id, user_id)
    ) WITHOUT ROWID;
    CREATE INDEX game_places_behind ON game_places (game_id)
        WHERE NOT home AND (board_version IS NULL OR board_version < version);
    CREATE INDEX game_places_by_channel ON game_places (channel_id);
    CREATE INDEX game_places_by_server ON game_places (guild_id) WHERE NOT home
    """,
    # 22: the AI's six levels (challenging between medium and hard; expert, master above): the
    # CHECK on games.ai_level names them. SQLite rebuilds the games table (see
    # SQLITE_TABLE_REBUILDS) with the same columns in the same order, and its indexes.
    """
    CREATE TABLE games_rebuilt (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        white_id INTEGER NOT NULL,
        black_id INTEGER NOT NULL,
        white_name TEXT NOT NULL,
        black_name TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('basic', 'advanced')),
        seed INTEGER NOT NULL,
        start_position TEXT NOT NULL,
        position TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 0,
        plies INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'active'
            CHECK (status IN ('active', 'finished', 'aborted')),
        result TEXT CHECK (result IN ('white', 'black', 'draw')),
        reason TEXT CHECK (reason IN ('points', 'columns', 'tie', 'resignation', 'timeout')),
        white_points INTEGER,
        black_points INTEGER,
        board_message_id INTEGER,
        board_version INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        last_move_at REAL NOT NULL,
        finished_at REAL,
        rated INTEGER NOT NULL DEFAULT 1 CHECK (rated IN (0, 1)),
        rated_seq INTEGER,
        ai_level TEXT
            CHECK (ai_level IN ('easy', 'medium', 'challenging', 'hard', 'expert', 'master')),
        parent_id INTEGER,
        parent_message_id INTEGER,
        ended_by INTEGER,
        language TEXT NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'es', 'de')),
        reminder_due_at REAL,
        time_control TEXT,
        white_clock REAL,
        black_clock REAL,
        clock_started_at REAL,
        flag_at REAL,
        hints INTEGER NOT NULL DEFAULT 0 CHECK (hints IN (0, 1)),
        hints_used INTEGER NOT NULL DEFAULT 0,
        venue TEXT NOT NULL DEFAULT 'server'
            CHECK (venue IN ('server', 'bot_dm', 'dm', 'group_dm', 'server_without_bot')),
        ai_id INTEGER,
        pool INTEGER NOT NULL DEFAULT 0 CHECK (pool IN (0, 1)),
        CHECK (white_id != black_id),
        CHECK ((status = 'finished') = (result IS NOT NULL AND reason IS NOT NULL)),
        CHECK ((status = 'aborted') = (ended_by IS NOT NULL))
    );
    INSERT INTO games_rebuilt (
        id, guild_id, channel_id, white_id, black_id, white_name, black_name, mode, seed,
        start_position, position, version, plies, status, result, reason, white_points,
        black_points, board_message_id, board_version, created_at, updated_at, last_move_at,
        finished_at, rated, rated_seq, ai_level, parent_id, parent_message_id, ended_by,
        language, reminder_due_at, time_control, white_clock, black_clock, clock_started_at,
        flag_at, hints, hints_used, venue, ai_id, pool
    ) SELECT
        id, guild_id, channel_id, white_id, black_id, white_name, black_name, mode, seed,
        start_position, position, version, plies, status, result, reason, white_points,
        black_points, board_message_id, board_version, created_at, updated_at, last_move_at,
        finished_at, rated, rated_seq, ai_level, parent_id, parent_message_id, ended_by,
        language, reminder_due_at, time_control, white_clock, black_clock, clock_started_at,
        flag_at, hints, hints_used, venue, ai_id, pool
    FROM games;
    DROP TABLE games;
    ALTER TABLE games_rebuilt RENAME TO games;
    CREATE INDEX games_needing_a_board ON games (updated_at)
        WHERE (board_version IS NULL OR board_version < version);
    CREATE UNIQUE INDEX games_in_rating_order ON games (rated_seq) WHERE rated_seq IS NOT NULL;
    CREATE INDEX games_finished_as_white ON games (guild_id, white_id, finished_at)
        WHERE status = 'finished';
    CREATE INDEX games_finished_as_black ON games (guild_id, black_id, finished_at)
        WHERE status = 'finished';
    CREATE INDEX games_ai_to_move ON games (id) WHERE status = 'active' AND ai_level IS NOT NULL;
    CREATE INDEX games_active_in_parent ON games (parent_id)
        WHERE status = 'active' AND parent_id IS NOT NULL;
    CREATE INDEX games_reminders_due ON games (reminder_due_at)
        WHERE status = 'active' AND reminder_due_at IS NOT NULL;
    CREATE INDEX games_flags_due ON games (flag_at) WHERE status = 'active' AND flag_at IS NOT NULL;
    CREATE INDEX games_by_finish ON games (finished_at, id) WHERE status = 'finished';
    CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id)
        WHERE status = 'active' AND NOT pool
    """,
]

SQLITE_TABLE_REBUILDS = frozenset({6, 22})
"""SQLite migrations that rebuild a table (create, copy, drop, rename). They run with foreign
keys off, as SQLite's documentation prescribes, so that dropping the old table neither fails nor
cascades to the rows referring to it (``turns`` deletes with its game); the references are
checked with ``PRAGMA foreign_key_check`` before the migration commits."""

POSTGRES_MIGRATIONS: list[str | None] = [
    # 1: SQLite's migrations 1-3 in one: games, turns, challenges, meta, ratings.
    """
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE games (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        guild_id BIGINT NOT NULL,
        channel_id BIGINT NOT NULL,
        white_id BIGINT NOT NULL,
        black_id BIGINT NOT NULL,
        white_name TEXT NOT NULL,
        black_name TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('basic', 'advanced')),
        seed BIGINT NOT NULL,
        start_position TEXT NOT NULL,
        position TEXT NOT NULL,
        version INTEGER NOT NULL DEFAULT 0,
        plies INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished')),
        result TEXT CHECK (result IN ('white', 'black', 'draw')),
        reason TEXT CHECK (reason IN ('points', 'columns', 'tie', 'resignation', 'timeout')),
        white_points INTEGER,
        black_points INTEGER,
        board_message_id BIGINT,
        board_version INTEGER,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        last_move_at DOUBLE PRECISION NOT NULL,
        finished_at DOUBLE PRECISION,
        rated BOOLEAN NOT NULL DEFAULT TRUE,
        rated_seq BIGINT,
        ai_level TEXT CHECK (ai_level IN ('easy', 'medium', 'hard')),
        CHECK (white_id != black_id),
        CHECK ((status = 'finished') = (result IS NOT NULL AND reason IS NOT NULL))
    );
    CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id)
        WHERE status = 'active';
    CREATE INDEX games_needing_a_board ON games (updated_at)
        WHERE (board_version IS NULL OR board_version < version);
    CREATE UNIQUE INDEX games_in_rating_order ON games (rated_seq) WHERE rated_seq IS NOT NULL;
    CREATE INDEX games_finished_as_white ON games (guild_id, white_id, finished_at)
        WHERE status = 'finished';
    CREATE INDEX games_finished_as_black ON games (guild_id, black_id, finished_at)
        WHERE status = 'finished';
    CREATE INDEX games_ai_to_move ON games (id) WHERE status = 'active' AND ai_level IS NOT NULL;
    CREATE TABLE turns (
        game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL CHECK (ply >= 1),
        player_id BIGINT NOT NULL,
        turn TEXT NOT NULL,
        position_after TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (game_id, ply)
    );
    CREATE TABLE challenges (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        guild_id BIGINT NOT NULL,
        channel_id BIGINT NOT NULL,
        challenger_id BIGINT NOT NULL,
        opponent_id BIGINT NOT NULL,
        challenger_name TEXT NOT NULL,
        opponent_name TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('basic', 'advanced')),
        ornaments INTEGER NOT NULL CHECK (ornaments BETWEEN 0 AND 5),
        colour TEXT NOT NULL CHECK (colour IN ('white', 'black', 'random')),
        first TEXT NOT NULL CHECK (first IN ('me', 'opponent', 'random')),
        message_id BIGINT,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'accepted', 'declined', 'withdrawn', 'expired')),
        created_at DOUBLE PRECISION NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL,
        game_id BIGINT REFERENCES games (id),
        CHECK (challenger_id != opponent_id)
    );
    CREATE UNIQUE INDEX challenges_one_pending_per_channel ON challenges (channel_id)
        WHERE status = 'pending';
    CREATE INDEX challenges_pending_by_expiry ON challenges (expires_at)
        WHERE status = 'pending';
    CREATE TABLE ratings (
        guild_id BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        deviation DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        draws INTEGER NOT NULL DEFAULT 0,
        updated_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    );
    CREATE INDEX ratings_by_rank ON ratings (guild_id, rating DESC, user_id)
    """,
    # 2, 3: in PostgreSQL's migration 1.
    None,
    None,
    # 4: leases.
    """
    CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at DOUBLE PRECISION NOT NULL
    )
    """,
    # 5: a thread per game, server settings.
    """
    ALTER TABLE games ADD COLUMN parent_id BIGINT;
    ALTER TABLE games ADD COLUMN parent_message_id BIGINT;
    CREATE INDEX games_active_in_parent ON games (parent_id)
        WHERE status = 'active' AND parent_id IS NOT NULL;
    DROP INDEX challenges_one_pending_per_channel;
    CREATE UNIQUE INDEX challenges_one_pending_per_pair
        ON challenges (channel_id, challenger_id, opponent_id) WHERE status = 'pending';
    CREATE TABLE guild_settings (
        guild_id BIGINT PRIMARY KEY,
        threads BOOLEAN,
        inactivity_timeout DOUBLE PRECISION,
        challenge_timeout DOUBLE PRECISION,
        default_mode TEXT CHECK (default_mode IN ('basic', 'advanced')),
        updated_by BIGINT NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL
    )
    """,
    # 6: aborted games, with who ended them.
    """
    ALTER TABLE games ADD COLUMN ended_by BIGINT;
    ALTER TABLE games DROP CONSTRAINT games_status_check;
    ALTER TABLE games ADD CONSTRAINT games_status_check
        CHECK (status IN ('active', 'finished', 'aborted'));
    ALTER TABLE games ADD CONSTRAINT games_aborted_by_someone
        CHECK ((status = 'aborted') = (ended_by IS NOT NULL))
    """,
    # 7: the language of games and challenges.
    """
    ALTER TABLE games ADD COLUMN language TEXT NOT NULL DEFAULT 'en'
        CHECK (language IN ('en', 'es', 'de'));
    ALTER TABLE challenges ADD COLUMN language TEXT NOT NULL DEFAULT 'en'
        CHECK (language IN ('en', 'es', 'de'))
    """,
    # 8: reviews.
    """
    CREATE TABLE reviews (
        game_id BIGINT PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
        guild_id BIGINT NOT NULL,
        channel_id BIGINT NOT NULL,
        message_id BIGINT,
        requested_by BIGINT NOT NULL,
        requested_at DOUBLE PRECISION NOT NULL,
        status TEXT NOT NULL DEFAULT 'queued'
            CHECK (status IN ('queued', 'running', 'done', 'failed')),
        done INTEGER NOT NULL DEFAULT 0,
        total INTEGER NOT NULL DEFAULT 0,
        review TEXT,
        finished_at DOUBLE PRECISION,
        CHECK ((status = 'done') = (review IS NOT NULL))
    );
    CREATE INDEX reviews_waiting ON reviews (requested_at) WHERE status IN ('queued', 'running')
    """,
    # 9: turn reminders.
    """
    ALTER TABLE games ADD COLUMN reminder_due_at DOUBLE PRECISION;
    CREATE INDEX games_reminders_due ON games (reminder_due_at)
        WHERE status = 'active' AND reminder_due_at IS NOT NULL;
    ALTER TABLE guild_settings ADD COLUMN reminder_after DOUBLE PRECISION
        CHECK (reminder_after >= 0);
    CREATE TABLE player_settings (
        user_id BIGINT PRIMARY KEY,
        reminders TEXT NOT NULL DEFAULT 'here' CHECK (reminders IN ('off', 'here', 'dm')),
        updated_at DOUBLE PRECISION NOT NULL
    )
    """,
    # 10: review retries.
    """
    ALTER TABLE reviews ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE reviews ADD COLUMN next_attempt_at DOUBLE PRECISION NOT NULL DEFAULT 0;
    ALTER TABLE reviews ADD COLUMN failure TEXT;
    DROP INDEX reviews_waiting;
    CREATE INDEX reviews_due ON reviews (next_attempt_at) WHERE status IN ('queued', 'running')
    """,
    # 11: open challenges.
    """
    ALTER TABLE challenges ADD COLUMN open_to_all BOOLEAN NOT NULL DEFAULT FALSE;
    ALTER TABLE challenges ADD COLUMN rating_range INTEGER CHECK (rating_range > 0);
    CREATE INDEX challenges_open ON challenges (guild_id, expires_at)
        WHERE status = 'pending' AND opponent_id = 0
    """,
    # 12: live clocks.
    """
    ALTER TABLE challenges ADD COLUMN time_control TEXT;
    ALTER TABLE games ADD COLUMN time_control TEXT;
    ALTER TABLE games ADD COLUMN white_clock DOUBLE PRECISION;
    ALTER TABLE games ADD COLUMN black_clock DOUBLE PRECISION;
    ALTER TABLE games ADD COLUMN clock_started_at DOUBLE PRECISION;
    ALTER TABLE games ADD COLUMN flag_at DOUBLE PRECISION;
    CREATE INDEX games_flags_due ON games (flag_at) WHERE status = 'active' AND flag_at IS NOT NULL;
    ALTER TABLE turns ADD COLUMN clock DOUBLE PRECISION;
    ALTER TABLE guild_settings ADD COLUMN default_pace TEXT;
    ALTER TABLE guild_settings ADD COLUMN clocks TEXT
    """,
    # 13: tournaments.
    """
    CREATE TABLE tournaments (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        guild_id BIGINT NOT NULL,
        channel_id BIGINT NOT NULL,
        message_id BIGINT,
        organiser_id BIGINT NOT NULL,
        name TEXT NOT NULL,
        format TEXT NOT NULL CHECK (format IN ('swiss', 'round_robin')),
        rounds INTEGER NOT NULL CHECK (rounds > 0),
        time_control TEXT,
        round_hours DOUBLE PRECISION NOT NULL CHECK (round_hours > 0),
        mode TEXT NOT NULL CHECK (mode IN ('basic', 'advanced')),
        ornaments INTEGER NOT NULL,
        language TEXT NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'es', 'de')),
        starts_at DOUBLE PRECISION NOT NULL,
        max_players INTEGER NOT NULL CHECK (max_players >= 2),
        rated BOOLEAN NOT NULL,
        status TEXT NOT NULL DEFAULT 'signup'
            CHECK (status IN ('signup', 'running', 'paused', 'finished', 'cancelled')),
        round INTEGER NOT NULL DEFAULT 0,
        round_deadline DOUBLE PRECISION,
        announced_round INTEGER NOT NULL DEFAULT 0,
        created_at DOUBLE PRECISION NOT NULL,
        ended_by BIGINT,
        event_id BIGINT
    );
    CREATE INDEX tournaments_under_way ON tournaments (guild_id)
        WHERE status IN ('signup', 'running');
    CREATE TABLE tournament_players (
        tournament_id BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        user_id BIGINT NOT NULL,
        name TEXT NOT NULL,
        joined_at DOUBLE PRECISION NOT NULL,
        rating DOUBLE PRECISION,
        withdrawn_round INTEGER,
        withdrawn_why TEXT CHECK (withdrawn_why IN ('withdrew', 'removed', 'absent')),
        PRIMARY KEY (tournament_id, user_id)
    );
    CREATE TABLE tournament_games (
        tournament_id BIGINT NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
        round INTEGER NOT NULL,
        board INTEGER NOT NULL,
        white_id BIGINT NOT NULL,
        black_id BIGINT,
        game_id BIGINT UNIQUE REFERENCES games (id),
        result TEXT CHECK (result IN ('white', 'black', 'draw', 'void')),
        PRIMARY KEY (tournament_id, round, board)
    )
    """,
    # 14: puzzles.
    """
    CREATE TABLE puzzles (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        position TEXT NOT NULL UNIQUE,
        answer TEXT NOT NULL,
        best DOUBLE PRECISION NOT NULL,
        alternative DOUBLE PRECISION NOT NULL,
        source TEXT NOT NULL,
        difficulty INTEGER NOT NULL,
        rating DOUBLE PRECISION NOT NULL DEFAULT 1500,
        deviation DOUBLE PRECISION NOT NULL DEFAULT 350,
        volatility DOUBLE PRECISION NOT NULL DEFAULT 0.06,
        attempts INTEGER NOT NULL DEFAULT 0,
        solved INTEGER NOT NULL DEFAULT 0,
        added_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX puzzles_by_rating ON puzzles (rating);
    CREATE TABLE puzzle_players (
        user_id BIGINT PRIMARY KEY,
        rating DOUBLE PRECISION NOT NULL DEFAULT 1500,
        deviation DOUBLE PRECISION NOT NULL DEFAULT 350,
        volatility DOUBLE PRECISION NOT NULL DEFAULT 0.06,
        attempts INTEGER NOT NULL DEFAULT 0,
        solved INTEGER NOT NULL DEFAULT 0,
        streak INTEGER NOT NULL DEFAULT 0,
        best_streak INTEGER NOT NULL DEFAULT 0,
        cycle INTEGER NOT NULL DEFAULT 1,
        updated_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE puzzle_attempts (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        user_id BIGINT NOT NULL,
        puzzle_id BIGINT NOT NULL REFERENCES puzzles (id),
        cycle INTEGER NOT NULL,
        guild_id BIGINT,
        day TEXT,
        shown_at DOUBLE PRECISION NOT NULL,
        answered_at DOUBLE PRECISION,
        answer TEXT,
        correct BOOLEAN,
        rated BOOLEAN NOT NULL DEFAULT FALSE
    );
    CREATE UNIQUE INDEX puzzle_attempts_once ON puzzle_attempts (user_id, cycle, puzzle_id)
        WHERE day IS NULL;
    CREATE UNIQUE INDEX puzzle_attempts_daily ON puzzle_attempts (guild_id, day, user_id)
        WHERE day IS NOT NULL;
    CREATE INDEX puzzle_attempts_open ON puzzle_attempts (user_id) WHERE answered_at IS NULL;
    CREATE TABLE daily_puzzles (
        guild_id BIGINT NOT NULL,
        day TEXT NOT NULL,
        puzzle_id BIGINT NOT NULL REFERENCES puzzles (id),
        channel_id BIGINT NOT NULL,
        language TEXT NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'es', 'de')),
        message_id BIGINT,
        first_solver BIGINT,
        solvers INTEGER NOT NULL DEFAULT 0,
        tries INTEGER NOT NULL DEFAULT 0,
        revealed BOOLEAN NOT NULL DEFAULT FALSE,
        PRIMARY KEY (guild_id, day)
    );
    ALTER TABLE guild_settings ADD COLUMN puzzle_channel BIGINT;
    CREATE INDEX games_by_finish ON games (finished_at, id) WHERE status = 'finished'
    """,
    # 15: what a tournament has said.
    """
    ALTER TABLE tournaments ADD COLUMN announced_pairings INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE tournaments ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE tournaments ADD COLUMN shown_version INTEGER NOT NULL DEFAULT 0;
    UPDATE tournaments SET announced_pairings = round
    """,
    # 16: learning.
    """
    CREATE TABLE learners (
        user_id BIGINT PRIMARY KEY,
        current TEXT NOT NULL,
        finished_at DOUBLE PRECISION,
        updated_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE lessons_done (
        user_id BIGINT NOT NULL,
        lesson TEXT NOT NULL,
        misses INTEGER NOT NULL DEFAULT 0,
        passed_at DOUBLE PRECISION,
        PRIMARY KEY (user_id, lesson)
    );
    ALTER TABLE games ADD COLUMN hints BOOLEAN NOT NULL DEFAULT FALSE;
    ALTER TABLE games ADD COLUMN hints_used INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE page_requests (
        user_id BIGINT NOT NULL,
        channel_id BIGINT NOT NULL,
        game_id BIGINT NOT NULL,
        requested_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (user_id, channel_id)
    )
    """,
    # 17: fair play.
    """
    CREATE TABLE watched_positions (
        game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        position_key BIGINT NOT NULL,
        PRIMARY KEY (game_id, position_key)
    );
    CREATE INDEX watched_positions_by_key ON watched_positions (position_key);
    CREATE TABLE puzzle_positions (
        puzzle_id BIGINT NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
        position_key BIGINT NOT NULL,
        PRIMARY KEY (puzzle_id, position_key)
    );
    CREATE INDEX puzzle_positions_by_key ON puzzle_positions (position_key)
    """,
    # 18: play anywhere.
    """
    ALTER TABLE games ADD COLUMN venue TEXT NOT NULL DEFAULT 'server'
        CHECK (venue IN ('server', 'bot_dm', 'dm', 'group_dm', 'server_without_bot'));
    UPDATE games SET venue = 'bot_dm' WHERE guild_id = 0;
    ALTER TABLE challenges ADD COLUMN venue TEXT NOT NULL DEFAULT 'server'
        CHECK (venue IN ('server', 'bot_dm', 'dm', 'group_dm', 'server_without_bot'));
    UPDATE challenges SET venue = 'bot_dm' WHERE guild_id = 0
    """,
    # 19: one rating per member in each of two pools.
    """
    CREATE TABLE member_ratings (
        pool TEXT NOT NULL CHECK (pool IN ('live', 'correspondence')),
        user_id BIGINT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        deviation DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        draws INTEGER NOT NULL DEFAULT 0,
        updated_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (pool, user_id)
    );
    CREATE INDEX member_ratings_by_rank ON member_ratings (pool, rating DESC, user_id);
    CREATE TABLE server_players (
        guild_id BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    );
    INSERT INTO server_players (guild_id, user_id)
        SELECT guild_id, white_id FROM games WHERE status = 'finished' AND rated AND guild_id != 0
        UNION SELECT guild_id, black_id FROM games
        WHERE status = 'finished' AND rated AND guild_id != 0;
    ALTER TABLE games ADD COLUMN ai_id BIGINT;
    DROP TABLE ratings;
    INSERT INTO meta (key, value) SELECT 'ratings:replay', '19'
        WHERE EXISTS (SELECT 1 FROM games WHERE status = 'finished' AND rated)
    """,
    # 20: the pool.
    """
    CREATE TABLE pool_members (
        user_id BIGINT PRIMARY KEY,
        name TEXT NOT NULL,
        joined_at DOUBLE PRECISION NOT NULL,
        last_opponent_id BIGINT
    );
    CREATE TABLE blocks (
        user_id BIGINT NOT NULL,
        blocked_id BIGINT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (user_id, blocked_id),
        CHECK (user_id != blocked_id)
    );
    CREATE INDEX blocks_by_blocked ON blocks (blocked_id);
    CREATE TABLE pool_queue (
        user_id BIGINT PRIMARY KEY REFERENCES pool_members (user_id) ON DELETE CASCADE,
        pace TEXT NOT NULL,
        since DOUBLE PRECISION NOT NULL,
        guild_id BIGINT NOT NULL,
        channel_id BIGINT NOT NULL,
        venue TEXT NOT NULL CHECK (venue IN ('server', 'bot_dm')),
        language TEXT NOT NULL CHECK (language IN ('en', 'es', 'de')),
        server_name TEXT
    );
    CREATE INDEX pool_queue_by_pace ON pool_queue (pace, since);
    ALTER TABLE guild_settings ADD COLUMN pool BOOLEAN NOT NULL DEFAULT FALSE;
    ALTER TABLE guild_settings ADD COLUMN pool_shows_server BOOLEAN NOT NULL DEFAULT FALSE
    """,
    # 21: a game in two places.
    """
    ALTER TABLE games ADD COLUMN pool BOOLEAN NOT NULL DEFAULT FALSE;
    DROP INDEX games_one_active_per_channel;
    CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id)
        WHERE status = 'active' AND NOT pool;
    CREATE TABLE game_places (
        game_id BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        user_id BIGINT NOT NULL,
        home BOOLEAN NOT NULL,
        guild_id BIGINT NOT NULL,
        channel_id BIGINT NOT NULL,
        parent_id BIGINT,
        parent_message_id BIGINT,
        venue TEXT NOT NULL CHECK (venue IN ('server', 'bot_dm')),
        language TEXT NOT NULL,
        server_name TEXT,
        placed BOOLEAN NOT NULL DEFAULT FALSE,
        version INTEGER NOT NULL DEFAULT 0,
        board_message_id BIGINT,
        board_version INTEGER,
        PRIMARY KEY (game_id, user_id)
    );
    CREATE INDEX game_places_behind ON game_places (game_id)
        WHERE NOT home AND (board_version IS NULL OR board_version < version);
    CREATE INDEX game_places_by_channel ON game_places (channel_id);
    CREATE INDEX game_places_by_server ON game_places (guild_id) WHERE NOT home
    """,
    # 22: the AI's six levels.
    """
    ALTER TABLE games DROP CONSTRAINT games_ai_level_check;
    ALTER TABLE games ADD CONSTRAINT games_ai_level_check
        CHECK (ai_level IN ('easy', 'medium', 'challenging', 'hard', 'expert', 'master'))
    """,
]


LEGACY_POSTGRES_VERSIONS = {1: 3, 2: 4, 3: 5, 4: 6, 5: 7, 6: 8, 7: 9}
"""A PostgreSQL database migrated before the numbering was shared records its own number: the
version in the shared numbering of each (its 1 was SQLite's 1-3 in one)."""
FIRST_SHARED_POSTGRES_VERSION = 9
"""The least version this code records in PostgreSQL (it migrates to the newest in one
transaction): a recorded version below it and not in :data:`LEGACY_POSTGRES_VERSIONS` was
written by no release."""


def postgres_version(recorded: int) -> int:
    """The version, in the shared numbering, of a PostgreSQL database whose ``schema_version``
    says ``recorded`` (0: a new database)."""
    if recorded in LEGACY_POSTGRES_VERSIONS:
        return LEGACY_POSTGRES_VERSIONS[recorded]
    if 0 < recorded < FIRST_SHARED_POSTGRES_VERSION:
        raise ValueError(f"schema_version {recorded} was written by no release of the bot")
    return recorded


def statements(script: str) -> list[str]:
    """Split a migration script into statements (they contain no ';' inside strings)."""
    return [statement.strip() for statement in script.split(";") if statement.strip()]
