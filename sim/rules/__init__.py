"""Rules of Bushido: Risen Sun on top of the geometry (pure, no Panda3D).

* :mod:`sim.rules.movement` -- Walk, Run, Charge and the melee move (p.22-25).
* :mod:`sim.rules.planning` -- shortest legal Walk, Walk/Run regions, charge lanes.
* :mod:`sim.rules.special` -- moves of special attacks and defences (p.39-42).
* :mod:`sim.rules.dice` -- challenge, opposed, size, tactical and fear tests (p.27-29);
  what each roll is for (``RollPurpose``).
* :mod:`sim.rules.action_kinds` -- the kinds of action as rulebook data: Simple, Complex
  or free, page, timing (p.24-26).
* :mod:`sim.rules.notation` -- actions as typed text and back (``walk matsu 4.50 9.00``),
  for the hot-seat, ``replay --actions`` and bots' logs.
* :mod:`sim.rules.wounds` -- damage rolls and the wound table (p.38).
* :mod:`sim.rules.melee` -- the melee exchange, steps 1-15, and special attacks and
  defences (p.33-42); a package by concept.
* :mod:`sim.rules.ranged` -- ranged attacks, steps 1a-7a: range bands, target numbers,
  interception, shooting into contact, Ammo and Reload (p.30-32); a package by concept.
* :mod:`sim.rules.invariants` -- what every game position must keep (no overlapping
  bases, none off the table or in Impassable terrain; counters, Ki, damage in range).
"""
