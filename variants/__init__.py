"""Rule sets, each a pluggy plugin registering :class:`engine.variant.Variant` subclasses."""
