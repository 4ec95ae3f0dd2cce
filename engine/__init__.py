"""The shared engine: positions, legal plays, notation, formats and the plugin contract.

Pure and synchronous; imports neither discord nor PIL, and never names a rule set.
"""

from .geometry import Geometry
from .movegen import HIT, Play, PlaySet, Submove, TurnRules
from .notation import NotationError, format_plain, format_play, parse_play
from .position import BAR, OFF, Position, PositionError
from .positionid import decode_position_id, encode_position_id
from .validate import IllegalPlay
from .variant import GameOver, Variant, VariantOptionError

__all__ = [
    "BAR",
    "HIT",
    "OFF",
    "GameOver",
    "Geometry",
    "IllegalPlay",
    "NotationError",
    "Play",
    "PlaySet",
    "Position",
    "PositionError",
    "Submove",
    "TurnRules",
    "Variant",
    "VariantOptionError",
    "decode_position_id",
    "encode_position_id",
    "format_plain",
    "format_play",
    "parse_play",
]
