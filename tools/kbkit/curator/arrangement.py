"""Where the new sections of one page go, as the earlier rows of the reply leave the page.

Every new section is inserted at a line of the base page (an anchor's end, the end of the
rules, the start). Several may share that line, in the reply's order: "after X" (a rule or
group of the page, or one an earlier row added) lands after X and after what earlier rows
already put after X in the same group, but before a new group an earlier row opened there
(a rule anchored on the last rule of a group stays in that group); `null` lands after the
last rule of the page, `^` before the first group or rule. Validation and the plan build
the same arrangement row by row, so what is accepted is what is written.
"""

from __future__ import annotations

from typing import NamedTuple

from kbkit.curator.layout import Layout

START = "^"  # the `after` that places a section before the page's first group or rule


class Entry(NamedTuple):
    rule_id: str
    group: str | None  # a new group heading opened right before the section
    level: int  # heading level of the section


class Spot(NamedTuple):
    line: int  # 1-based base line the section is inserted at
    order: int  # its position among the new sections inserted at that line
    level: int  # heading level of the rules around it
    opens_group: bool  # a new group heading may open here (it splits no group)


class Arrangement:
    """The new sections of one page, per insertion line, in page order."""

    def __init__(self, layout: Layout):
        self.layout = layout
        self.at: dict[int, list[Entry]] = {}
        self.line_of: dict[str, int] = {}  # new rule ID or new group -> its line
        self._boundaries = {g.end for g in layout.groups} | {layout.area_end}

    def _spot(self, line: int, index: int, level: int) -> Spot:
        entries = self.at.get(line, [])
        if index < len(entries):
            opens = entries[index].group is not None
        elif line == self.layout.start and line != self.layout.area_end:
            opens = bool(self.layout.groups) and not self.layout.leading_rules
        else:
            opens = line in self._boundaries
        return Spot(line, index, level, opens)

    def locate(self, after: str | None) -> Spot | None:
        """Where a section placed after `after` goes (None: no such anchor)."""
        layout = self.layout
        if after is None:
            entries = self.at.get(layout.area_end, [])
            last = entries[-1].level if entries else None
            level = last or (layout.rules[-1].level if layout.rules else layout.level)
            return self._spot(layout.area_end, len(entries), level)
        if after == START:
            entries = self.at.get(layout.start, [])
            return self._spot(layout.start, self._group_end(entries, 0), layout.level)
        if after in self.line_of:
            line = self.line_of[after]
            entries = self.at[line]
            for i, entry in enumerate(entries):
                if after in (entry.rule_id, entry.group):
                    return self._spot(line, self._group_end(entries, i + 1), entry.level)
        for rule in layout.rules:
            if rule.id == after:
                entries = self.at.get(rule.end, [])
                return self._spot(rule.end, self._group_end(entries, 0), rule.level)
        for group in layout.groups:
            if group.text == after:
                entries = self.at.get(group.end, [])
                inside = [r for r in layout.rules if group.line < r.line <= group.end]
                level = inside[-1].level if inside else group.level + 1
                return self._spot(group.end, self._group_end(entries, 0), level)
        return None

    @staticmethod
    def _group_end(entries: list[Entry], begin: int) -> int:
        """The index after the last entry that still belongs to the group before `begin`."""
        index = begin
        while index < len(entries) and entries[index].group is None:
            index += 1
        return index

    def add(self, spot: Spot, entry: Entry) -> None:
        self.at.setdefault(spot.line, []).insert(spot.order, entry)
        self.line_of[entry.rule_id] = spot.line
        if entry.group is not None:
            self.line_of[entry.group] = spot.line
