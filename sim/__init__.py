"""Bushido: Risen Sun virtual table.

Layers (arrows point one way):

* :mod:`sim.geometry` -- pure geometry (shapely, numpy): distance, front arc, LoS,
  cover, ZoC. No Panda3D.
* :mod:`terrain`, :mod:`models` -- terrain presets, bases and model profiles (data and
  loaders).
* :mod:`sim.table` -- the ``bushido-table/1`` table file: loading, validation, and the
  measurement of every pair of models.
* :mod:`sim.view` (Panda3D, imported lazily) and :mod:`sim.cli` -- the views.
"""

__version__ = "0.1.0"
