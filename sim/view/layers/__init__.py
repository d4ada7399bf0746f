"""The visual layers of the 3D table, one module each; :class:`sim.view.scene3d.TableScene`
composes them into one scene graph.

* :mod:`.paint`: how the layers stack (heights above the ground, cull bins), colours
  with alpha and the terrain textures;
* :mod:`.labels`: billboard text labels and where they sit for the camera's pitch;
* :mod:`.ground`: the drawn ground (raised terrain) and overlays draped over it;
* :mod:`.marks`: small flat marks on the ground (arrowheads, crosses, dashes, end rings);
* :mod:`.table_mesh`: the lights, the table with its grid, terrain pieces and scenario
  objectives;
* :mod:`.models`: the models' bases, facing marks and figures (standing or Prone);
* :mod:`.measure`: the selected model's front arc, zone of control, selection ring and
  LoS lines coloured by cover;
* :mod:`.movement`: the selected model's Walk and Run regions and charge lanes;
* :mod:`.preview`: a move being set up (ghost base, path, readout);
* :mod:`.special`: a special move (swept paths, start ghosts, collisions, Prone);
* :mod:`.tape`: the tape measure;
* :mod:`.markers`: a game's markers on the models (condition tokens, wounds bar, Ki
  pips, activation counters);
* :mod:`.legend`: the 2D legend panel and the status line.

Panda3D is imported by these modules, so only :mod:`sim.view` uses them. Table
coordinates throughout: inches, x right, y away from player 1, z up; facings in degrees
counter-clockwise from +x.
"""
