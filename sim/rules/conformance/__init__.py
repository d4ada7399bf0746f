"""The conformance page (``docs/conformance.md``): every rulebook section, action kind,
condition, special attack or defence, Ki feat, trait and bundled scenario, with its
rulebook page, its status (automated / partly / manual), where it lives and the tests
that cover it. It is written from the registries (:data:`models.traits.TRAITS`,
:data:`sim.rules.game.ACTION_KINDS`, :data:`sim.rules.conditions.CONDITIONS`,
:data:`sim.rules.melee.SPECIAL_RULES`, :data:`sim.rules.ki.GENERIC_FEATS`, the scenario
files) and from :mod:`sim.rules.conformance.data` (the rulebook's chapters and sections
and the statuses no registry holds yet); the covering tests are found by reading the
tests (:mod:`sim.rules.conformance.coverage`).

``python -m sim.rules.conformance`` writes the page; ``--check`` says whether it is up
to date (``tests/test_conformance.py`` runs that check). This package is a documentation
tool: it imports the rules, nothing imports it.

Modules: :mod:`~sim.rules.conformance.coverage` (the test scan),
:mod:`~sim.rules.conformance.data` (rulebook sections, statuses),
:mod:`~sim.rules.conformance.page` (rows and Markdown), ``__main__`` (the command).
"""

from sim.rules.conformance.coverage import Probe, TestIndex, scan_tests
from sim.rules.conformance.page import ROOT, Reading, Row, build_page, readings, rows

__all__ = ["DEFAULT_OUT", "Probe", "ROOT", "Reading", "Row", "TestIndex", "build_page", "readings", "rows",
           "scan_tests"]

#: Where the page is written.
DEFAULT_OUT = ROOT / "docs" / "conformance.md"
