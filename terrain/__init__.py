"""Terrain pieces and the rulebook's terrain presets (Terrain p.60-62)."""

from .pieces import DEFAULT_HEIGHTS, TerrainPiece, TerrainPreset, load_presets

__all__ = ["DEFAULT_HEIGHTS", "TerrainPiece", "TerrainPreset", "load_presets"]
