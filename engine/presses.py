"""A turn in as few presses as the choices allow: what one press may choose.

:class:`~engine.builder.TurnBuilder` offers a turn one token at a time. A press may choose more:
the choices of a press are the paths the next steps lead to, as deep as they fit in one message
(:data:`MOST_CHOICES`): a step with one choice is made with the step before it, and a step
whose choices fit beside the others is opened (the shallowest first, the smallest first). The
choices of a press are a partition of the turns under its path — every legal turn is reached by
exactly one sequence of presses, and nothing else is — so :func:`presses` finds the presses of
any path again (Back undoes one press)::

    >>> from engine.position import Position
    >>> start = Position.parse("-/-/-/-/-/-/- ww bb w -")
    >>> ["".join(path) for path in choices(start)][:9]
    ['Tw1', 'Tb1', 'Tg1', 'PwA', 'PwB', 'PwC', 'PwDw', 'PwDb', 'PwDg']
    >>> full = Position.parse("-/-/-/-/-/-/- wbg bb w -")
    >>> ["".join(path) for path in presses(full, ("P", "w", "D", "b"))]
    ['PwD', 'PwDb']
"""

from __future__ import annotations

from .builder import Path, _tree
from .position import Position

MOST_CHOICES = 15
"""The most choices a press offers (the step's own domain may show more, disabled)."""


def choices(position: Position, path: Path = ()) -> tuple[Path, ...]:
    """The paths one press may choose after ``path`` (a path of :func:`presses`, not a turn),
    in the order of the steps' domains."""
    tree = _tree(position)
    children = tree.children

    def below(node: Path) -> list[Path]:
        """``node``'s children, each followed down while it has a single choice."""
        found = []
        for token in children[node]:
            child = (*node, token)
            while child not in tree.turns and len(children[child]) == 1:
                child = (*child, children[child][0])
            found.append(child)
        return found

    offered = below(path)
    while True:
        openable = sorted(
            (node for node in offered if node not in tree.turns),
            key=lambda node: (len(node), len(children[node])),
        )
        for node in openable:
            opened = below(node)
            if len(offered) - 1 + len(opened) <= MOST_CHOICES:
                at = offered.index(node)
                offered[at : at + 1] = opened
                break
        else:
            return tuple(offered)


def presses(position: Position, path: Path) -> tuple[Path, ...]:
    """The paths chosen press by press to reach ``path`` (a turn's, or a press's) from the
    start; ``ValueError`` if no sequence of presses reaches it."""
    reached: list[Path] = []
    at: Path = ()
    while at != path:
        step = next(
            (choice for choice in choices(position, at) if path[: len(choice)] == choice), None
        )
        if step is None:
            raise ValueError(f"no press reaches {''.join(path)!r}")
        reached.append(step)
        at = step
    return tuple(reached)
