"""Distill fixtures live in world.py (shared with tests/distill/test_publication.py)."""

from tests.distill.world import world_fixture

__all__ = ["world_fixture"]
