"""Bounds on what the BattleScribe importer reads (docs/bounds.md, "Catalogues and rosters").

Every ``MAX_*`` constant of :mod:`models.bsdata` lives here, in one module, so that the
readers (:mod:`models.bsdata.xmlread`, :mod:`models.bsdata.importer`,
:mod:`models.bsdata.load` ...) look them up as ``limits.MAX_...`` when they run: a test may
lower a bound with ``monkeypatch.setattr(models.bsdata.limits, "MAX_...", n)``.

The real Bushido data (23 files, 8.1 MB): largest file 855 KB, at most 13 231 '<' in a
file and 130 000 in all, elements nested at most 15 deep, entry links at most 3 deep.
"""

from __future__ import annotations

#: Largest base diameter read from a catalogue, mm (real bases: 30 to 60).
MAX_BASE_MM = 200

#: Largest number read from an XML attribute (costs, constraint and condition values).
MAX_ATTRIBUTE_NUMBER = 1_000_000

#: Largest XML document read, in bytes (a plain file, or a zip member once inflated).
MAX_XML_BYTES = 32 * 1024 * 1024
#: Most markup characters ``<`` in one document (bounds the elements, hence the memory).
MAX_XML_MARKUP = 500_000
#: Deepest element nesting in one document.
MAX_XML_DEPTH = 64
#: Most members in a zipped file (``.gstz``/``.catz``/``.rosz`` hold one).
MAX_ZIP_MEMBERS = 16
#: Most files in one import, their total size (bytes) and total markup characters.
MAX_IMPORT_FILES = 200
MAX_IMPORT_BYTES = 64 * 1024 * 1024
MAX_IMPORT_MARKUP = 1_000_000
#: Deepest chain of entry / info links followed, and the most entries an import visits
#: through links (a chain of links that doubles at each step would otherwise never end).
MAX_LINK_DEPTH = 32
MAX_LINK_VISITS = 200_000
#: Longest characteristic text (the longest real one, a card's Description, has 1 199
#: characters; a Traits list 217) and the most fields (characteristics, traits, Ki feat
#: fields) parsed in one import (19 523 in the real data).
MAX_FIELD_CHARS = 4000
MAX_PARSED_FIELDS = 200_000
#: Most comparisons of unknown trait names with the known rule names (close matches
#: repair typos) in one import: 9 567 in the real data.
MAX_NAME_COMPARISONS = 1_000_000
