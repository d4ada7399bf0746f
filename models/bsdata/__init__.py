"""Import BattleScribe / NewRecruit data (game system ``.gst``, catalogues ``.cat``) into
the project's model profiles and special cards.

Players keep their Bushido profiles and warbands in BattleScribe or NewRecruit. This
package reads a game system file and its catalogues (plain XML, or zipped ``.gstz`` /
``.catz``) and yields:

* one :class:`CatalogueProfile` per ``Character Profile`` in the data: the project's
  :class:`models.profiles.Profile` (stats, base, Size, types, traits, weapons, Ki feat
  names, rice) plus what the ``bushido-profiles/1`` format has no field for: factions,
  Ronin, boost costs, wound tracks, max copies, Su/Sp (not recruitable), Ki feats with
  cost, timing and area, unique effects as text, the characteristics as printed;
* one :class:`Card` per card: profile cards and the special cards of rulebook p.18-19
  (enhancements, events, terrain cards with Passage/Visibility/Size, themes), with the
  restrictions the warband rules need (:mod:`models.warband`).

Ronin and library catalogues are resolved through the catalogues' links
(``catalogueLink``, ``entryLink``, ``infoLink``). Text that cannot be parsed is kept as
text and reported once per import as an :class:`Issue`; nothing is dropped silently.

Units: base diameters in mm, distances (ranges, trait ranges, Ki feat areas) in inches,
rice in the game's rice points.

Errors: :class:`CatalogueError` (a ``ValueError``) for input that cannot be imported at
all (unreadable file, not a regular file, XML syntax error, wrong root element, a
catalogue whose game system or linked catalogue is missing, input past a bound); its
message is one line, ``"<file>: [<entry>: ]<problem>"``. Nothing is returned
half-imported: either every file is read or the error is raised. Bounds (size, zip
members, encodings, markup, nesting, links, field lengths, parsing work) are the
``MAX_*`` constants of :mod:`models.bsdata.limits`, listed in docs/bounds.md
("Catalogues and rosters").

Typical use::

    from models.bsdata import load_catalogues, write_profiles, register_profiles
    cs = load_catalogues("../shared/bsdata")
    print(cs.summary())
    cs.profile("Takashi Akira").profile.melee     # 4
    write_profiles(cs, "data/profiles/imported")  # bushido-profiles/1 YAML per catalogue
    register_profiles(cs)                         # get_profile() now finds every model

The package, one concept per module (the names below are re-exported here; the modules
share package-private helpers whose names start with ``_``):

* :mod:`~models.bsdata.limits`: every bound (``MAX_*``), looked up when used;
* :mod:`~models.bsdata.records`: the result records (``Card``, ``CatalogueProfile``, ...);
* :mod:`~models.bsdata.text`: text helpers (``clean``, ``slug``, bounded numbers);
* :mod:`~models.bsdata.traittext`: the repairing reader of printed trait text;
* :mod:`~models.bsdata.fields`: characteristic text (stats, wounds, Size & Base ...);
* :mod:`~models.bsdata.xmlread`: the bounded XML reader (``read_xml``);
* :mod:`~models.bsdata.conditions`: BattleScribe condition trees (``Condition``);
* :mod:`~models.bsdata.entries`: what one entry holds, as the walk collects it;
* :mod:`~models.bsdata.importer`: the walk through the catalogues and their links;
* :mod:`~models.bsdata.build`: building profiles and cards from what the walk collected;
* :mod:`~models.bsdata.catalogueset`: the result, ``CatalogueSet``, and its look-ups;
* :mod:`~models.bsdata.load`: ``load_catalogues`` (files, totals, cache);
* :mod:`~models.bsdata.export`: ``write_profiles`` (``bushido-profiles/1`` YAML);
* :mod:`~models.bsdata.register`: ``register_profiles`` for ``get_profile``.
"""

from __future__ import annotations

from models.bsdata import limits  # noqa: F401  (where the bounds live)
from models.bsdata.catalogueset import CatalogueSet
from models.bsdata.conditions import Condition
from models.bsdata.export import WriteReport, profiles_document, write_profiles

# Read-only copies of the bounds, for readers of the former single module; to change a bound
# (in a test), set it on models.bsdata.limits.
from models.bsdata.limits import (  # noqa: F401
    MAX_ATTRIBUTE_NUMBER,
    MAX_BASE_MM,
    MAX_FIELD_CHARS,
    MAX_IMPORT_BYTES,
    MAX_IMPORT_FILES,
    MAX_IMPORT_MARKUP,
    MAX_LINK_DEPTH,
    MAX_LINK_VISITS,
    MAX_NAME_COMPARISONS,
    MAX_PARSED_FIELDS,
    MAX_XML_BYTES,
    MAX_XML_DEPTH,
    MAX_XML_MARKUP,
    MAX_ZIP_MEMBERS,
)
from models.bsdata.load import _CACHE, clear_cache, load_catalogues  # noqa: F401  (_CACHE: a test inspects it)
from models.bsdata.records import (
    RICE_COST_TYPE,
    Card,
    CatalogueError,
    CatalogueInfo,
    CatalogueProfile,
    ImportStats,
    Issue,
    KiFeat,
    TerrainStats,
    UniqueEffect,
)
from models.bsdata.register import register_profiles, registered_profiles, unregister_profiles
from models.bsdata.text import clean, slug  # noqa: F401  (clean: models.warband)
from models.bsdata.traittext import canonical_trait_text, parse_trait, parse_traits
from models.bsdata.xmlread import read_file_bytes, read_xml  # noqa: F401

__all__ = [
    "RICE_COST_TYPE",
    "Card",
    "CatalogueError",
    "CatalogueInfo",
    "CatalogueProfile",
    "CatalogueSet",
    "Condition",
    "ImportStats",
    "Issue",
    "KiFeat",
    "TerrainStats",
    "UniqueEffect",
    "WriteReport",
    "canonical_trait_text",
    "clear_cache",
    "load_catalogues",
    "parse_trait",
    "parse_traits",
    "profiles_document",
    "read_xml",
    "register_profiles",
    "registered_profiles",
    "slug",
    "unregister_profiles",
    "write_profiles",
]
