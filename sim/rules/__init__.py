"""Rules of Bushido: Risen Sun on top of the geometry (pure, no Panda3D).

* :mod:`sim.rules.movement` -- Walk, Run, Charge and the melee move (p.22-25).
"""
