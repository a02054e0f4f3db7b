"""Conflicting lessons: the same finding confirmed in one task and a false positive in another.

Two lessons conflict when they name the same class and summary in the same scope (company
and category keys), one `Confirmed <class>: <summary>` and the other `Do not re-report
without new mechanics: <summary> (prior false_positive)`. `kb lessons lint` reports such a
pair (`lessons-conflict`), and selection never shows both to one task: the lesson whose
newest evidence is newer wins and the other is withheld; when their newest evidence is
equally new, both are withheld. Every withheld lesson carries a note saying why.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from kbkit.lessons.fold import LessonRow

CONFIRMED, REFUTED = "confirmed", "false positive"
Key = tuple[str | None, str | None, str, str]


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def side(row: LessonRow) -> tuple[Key, str] | None:
    """The finding a lesson speaks about and which side it takes; None when it takes none."""
    if not row.subject:
        return None
    key = (row.company_key, row.category_key, _norm(row.cue), _norm(row.subject))
    if row.kind == "positive" and row.action.startswith("Confirmed "):
        return key, CONFIRMED
    if row.kind == "negative" and row.action.endswith("(prior false_positive)"):
        return key, REFUTED
    return None


def conflicts(lessons: Mapping[str, LessonRow]) -> list[tuple[Key, list[str], list[str]]]:
    """Every conflicting finding with its confirmed and its false-positive lessons, sorted."""
    sides: dict[Key, dict[str, list[str]]] = defaultdict(lambda: {CONFIRMED: [], REFUTED: []})
    for lid, row in lessons.items():
        found = side(row)
        if found is not None:
            sides[found[0]][found[1]].append(lid)
    return [
        (key, sorted(both[CONFIRMED]), sorted(both[REFUTED]))
        for key, both in sorted(sides.items(), key=lambda item: repr(item[0]))
        if both[CONFIRMED] and both[REFUTED]
    ]


def rivals(lessons: Mapping[str, LessonRow]) -> dict[str, list[str]]:
    """Lesson id -> the lessons that contradict it (the other side of the same finding)."""
    out: dict[str, list[str]] = {}
    for _key, confirmed, refuted in conflicts(lessons):
        for lid in confirmed:
            out[lid] = list(refuted)
        for lid in refuted:
            out[lid] = list(confirmed)
    return out


class Withheld(NamedTuple):
    """A lesson selection left out because another lesson contradicts it."""

    lesson: str
    against: tuple[str, ...]
    why: str

    def to_dict(self) -> dict[str, object]:
        return {"lesson": self.lesson, "against": list(self.against), "why": self.why}


def contest(lesson: str, latest: str, others: Iterable[tuple[str, str]]) -> Withheld | None:
    """Whether `lesson` (its newest evidence at `latest`) gives way to the rivals `others`
    ((id, newest evidence) of each one known): None when its evidence is newer than every
    rival's, else why it is withheld."""
    known = list(others)
    if not known:
        return None
    newest = max(at for _lid, at in known)
    against = tuple(sorted(lid for lid, _at in known))
    if latest > newest:
        return None
    if latest == newest:
        why = "contradicts equally new evidence: both are withheld until one is forgotten"
    else:
        why = f"contradicted by newer evidence ({newest})"
    return Withheld(lesson, against, why)


def standing(
    lessons: Mapping[str, LessonRow], latest: Mapping[str, str]
) -> list[tuple[Withheld | None, Withheld | None, str, str]]:
    """Each live conflict as selection resolves it now: (the confirmed side's note or None,
    the false-positive side's note or None, confirmed id, false-positive id), one per pair.
    `latest`: each live lesson's newest evidence time."""
    out = []
    for _key, confirmed, refuted in conflicts({k: v for k, v in lessons.items() if k in latest}):
        for yes in confirmed:
            for no in refuted:
                out.append(
                    (
                        contest(yes, latest[yes], [(no, latest[no])]),
                        contest(no, latest[no], [(yes, latest[yes])]),
                        yes,
                        no,
                    )
                )
    return out
