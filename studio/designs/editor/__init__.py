"""The design editor: forms generated from the engine's JSON Schema, so the two never drift."""
