"""Ki feats as data (issue #13): the feat effects file's loader, and each operation applied
through the Game with the card's numbers (p.46-47).

Rulebook p.46: "Все Умения имеют стоимость в жетонах Ки; эта стоимость должна быть
потрачена на применение эффектов Умения." The fixture entries below copy the catalogue
cards' FACTS (cost, timing, area, range, test) and say their effect in the project's
vocabulary; the test-only feats (``Test ...``) exercise the operations no card of the
fixture uses.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from models.profiles import add_profile_source, get_profile
from sim.rules import feat_effects as fe
from sim.rules.game import Action, Game
from sim.table import parse_table
from tests.conftest import feat_data, set_active, set_model

FIXTURE = """
format: bushido-feat-effects/1
feats:
  Tenacious:
    {cost: 2, timing: active, area: personal, when: action, affects: self,
     effects: [{op: grant, traits: ["Tough (+1)"], until: end_phase}], summary: tougher until the End phase}
  Precision Strike:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: grant_weapon, traits: ["Pierce (1)"], weapon: all, until: action}], summary: piercing weapons}
  Memories of Life:
    {cost: 2, timing: active, area: personal, when: action, affects: self,
     effects: [{op: lose, traits: [Insignificant], until: activation}], summary: not Insignificant}
  Encourage:
    {cost: 2, timing: active, area: target, range: 6, limits: [once_per_turn], when: action,
     affects: target_friend, effects: [{op: stat, changes: {melee: 1, ranged: 1}, until: end_phase}],
     summary: a friend fights and shoots better}
  Rally:
    {cost: 3, timing: active, area: pulse, range: 8, when: action, affects: friends,
     effects: [{op: remove_condition, name: frightened, n: all}], summary: friends stop being afraid}
  Obey:
    {cost: 3, timing: simple, area: target, range: 8, opposed: true, limits: [no_btb], when: action,
     affects: target_enemy, effects: [{op: condition, name: controlled, n: 1}], summary: controls an enemy}
  Vitality:
    {cost: 3, timing: instant, area: personal, limits: [once_per_turn], when: any, affects: self,
     effects: [{op: counter, n: 1}], summary: one more activation counter}
  Military Training:
    {cost: 1, timing: instant, area: special, limits: [once_per_turn], when: any, affects: self,
     effects: [{op: pass_token, n: 1}], summary: a pass token}
  Distraction:
    {cost: 2, timing: active, area: target, range: 6, limits: [no_btb], when: action, affects: target_enemy,
     test: {kind: challenge, stat: ki, tn: 6, by: target}, effects: [{op: facing}], summary: turns an enemy}
  Umbrella Block:
    {cost: 2, timing: instant, area: personal, when: exchange, affects: self,
     effects: [{op: grant, traits: ["Parry (1)"], until: exchange}], summary: parries in this exchange}
  Test Wound:
    {cost: X, timing: simple, area: target, range: 6, when: action, affects: target_enemy,
     effects: [{op: wound, n: X}], summary: X wounds}
  Test Heal:
    {cost: 1, timing: active, area: personal, when: action, affects: self,
     effects: [{op: heal, n: 2}], summary: heals two}
  Test Ki:
    {cost: 1, timing: active, area: target, range: 6, when: action, affects: target_friend,
     effects: [{op: ki, n: 2}], summary: two Ki to a friend}
  Test Manual:
    {cost: 1, timing: active, area: personal, when: action, affects: self, effects: [],
     manual: a choice the engine cannot offer, summary: by hand}
"""

YAML = """
format: bushido-table/1
name: feats
table: {width: 24, depth: 24}
terrain: []
models:
  - {id: akira, player: 1, profile: USER, position: [6, 6], facing: 0}
  - {id: kenta, player: 1, profile: takashi-kenta, position: [6, 10], facing: 0}
  - {id: masunagi, player: 2, profile: ito-masunagi, position: [11, 6], facing: 180}
  - {id: ishi, player: 2, profile: ishi, position: [20, 20], facing: 180}
"""


@pytest.fixture(autouse=True)
def _fixture_file(tmp_path, monkeypatch):
    """The game reads this test's feat effects file instead of the repository's."""
    yield from feat_data(FIXTURE, tmp_path, monkeypatch)


def game(*feats: str, traits=(), seed: int = 1, masunagi=(11, 6)) -> Game:
    """Akira's card with ``feats`` (names only, as the bundled profiles keep them)."""
    card = get_profile("takashi-akira")
    card = replace(card, id="akira-feats", name="akira-feats", bs_id="test-akira-feats", feats=tuple(feats),
                   traits=tuple(card.traits) + tuple(traits))
    add_profile_source({card.id: card})  # the conftest fixture removes it after the test
    y = YAML.replace("USER", card.id).replace("[11, 6]", f"[{masunagi[0]}, {masunagi[1]}]")
    g = Game(parse_table(y, "<test>"), seed=seed, length=("fixed", 3))
    set_active(g, 1)
    set_model(g, "akira", ki=6)
    return g


def kinds(events) -> list[str]:
    return [e.kind for e in events]


# ------------------------------------------------------------------ the loader
def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "bad.yaml"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("body, words", [
    ("feats: {A: {cost: 1, timing: active, area: personal, effects: [{op: grnt, traits: [Aware]}]}}",
     ["feat 'A'", "unknown op"]),
    ("feats: {A: {cost: 1, timing: active, area: personal, effects: [{op: grant, traits: [Aware], until: soon}]}}",
     ["feat 'A'", "until"]),
    ("feats: {A: {cost: 1, timing: active, area: personal, colour: red}}", ["feat 'A'", "unknown field 'colour'"]),
    ("feats: {A: {cost: 1, timing: sometimes, area: personal}}", ["feat 'A'", "timing"]),
    ("feats: {A: {cost: -1, timing: active, area: personal}}", ["feat 'A'", "negative"]),
    ("feats: {A: {cost: 1, timing: active, area: personal, when: never}}", ["feat 'A'", "when"]),
    ("feats: {A: {cost: 1, timing: active, area: personal, affects: target_enemy}}", ["feat 'A'", "area 'target'"]),
])
def test_a_bad_entry_is_one_line_naming_the_file_and_the_feat(tmp_path, body, words):
    p = _write(tmp_path, "format: bushido-feat-effects/1\n" + body + "\n")
    with pytest.raises(fe.FeatDataError) as err:
        fe.load_effects(p)
    msg = str(err.value)
    assert "\n" not in msg and str(p) in msg
    for w in words:
        assert w in msg


def test_a_file_of_another_format_or_not_yaml_is_refused(tmp_path):
    with pytest.raises(fe.FeatDataError, match="format"):
        fe.load_effects(_write(tmp_path, "format: other/1\nfeats: {}\n"))
    with pytest.raises(fe.FeatDataError):
        fe.load_effects(_write(tmp_path, "format: [\n"))
    with pytest.raises(fe.FeatDataError, match="mapping"):
        fe.load_effects(_write(tmp_path, "- 1\n"))


def test_the_fixture_loads_and_effect_status_says_what_is_applied():
    effects = fe.feat_effects()
    assert effects["Tenacious"].ops == ("grant",)
    assert fe.feat_effect("tenacious") is effects["Tenacious"]  # case-insensitive
    assert fe.effect_status("Tenacious") == (True, "")
    applied, why = fe.effect_status("Test Manual")
    assert not applied and "manual" in why
    applied, why = fe.effect_status("No Such Feat")
    assert not applied and "no data entry" in why


def test_the_repository_file_loads():
    """The repository's data file (H6's) validates against the schema."""
    if not fe.DEFAULT_PATH.name:
        pytest.skip("no file")
    real = Path(fe.__file__).resolve().parents[2] / "data" / "feats" / "effects.yaml"
    if not real.exists():
        pytest.skip("data/feats/effects.yaml not written yet")
    assert len(fe.load_effects(real)) > 0


# ------------------------------------------------------------------ ops through the Game
def test_grant_tough_until_the_end_phase():
    """Tenacious (cost 2): the user gains Tough (+1) until the End phase (p.48: +X adds)."""
    g = game("Tenacious")
    before = g.profile("akira").trait("tough")
    a = Action("feat", "akira", feat="Tenacious")
    assert a in g.feat_actions("akira")
    g.push(a)
    t = g.profile("akira").trait("tough")
    assert t is not None and t.value == (before.value if before else 0) + 1
    assert g.state.models["akira"].ki == 4


def test_grant_weapon_pierce_until_the_action_is_resolved():
    """Precision Strike (cost 1): its weapons gain Pierce (1) until the current action is resolved."""
    g = game("Precision Strike")
    g.push(Action("feat", "akira", feat="Precision Strike"))
    assert all("Pierce (1)" in w.traits for w in g.profile("akira").weapons)
    g.push(Action("wait", "akira"))  # the activation's action is resolved
    assert not any("Pierce (1)" in w.traits for w in g.profile("akira").weapons)


def test_lose_insignificant_until_the_activation_ends():
    """Memories of Life (cost 2): the model loses Insignificant for the current activation."""
    from models.profiles import Trait
    g = game("Memories of Life", traits=(Trait("insignificant", None, None, "Insignificant"),))
    assert g.profile("akira").trait("insignificant") is not None
    g.push(Action("feat", "akira", feat="Memories of Life"))
    assert g.profile("akira").trait("insignificant") is None


def test_stat_on_a_friendly_target_only():
    """Encourage (cost 2, Target 6"): a friendly model gets +1 Melee and +1 Ranged until the End phase."""
    g = game("Encourage")
    offered = [a for a in g.feat_actions("akira") if a.feat == "Encourage"]
    assert [a.target for a in offered] == ["kenta"]
    ok, why = g.is_legal(Action("feat", "akira", feat="Encourage", target="masunagi"))
    assert not ok and "friendly" in why
    melee = g.profile("kenta").melee
    g.push(offered[0])
    assert g.profile("kenta").melee == melee + 1


def test_remove_condition_from_friends_in_the_pulse():
    """Rally (cost 3, Pulse 8"): friendly models in the Pulse lose Frightened; enemies keep it."""
    g = game("Rally")
    set_model(g, "kenta", conditions={"frightened": 6})
    set_model(g, "masunagi", conditions={"frightened": 6})
    g.push(Action("feat", "akira", feat="Rally"))
    assert "frightened" not in g.state.models["kenta"].conditions
    assert "frightened" in g.state.models["masunagi"].conditions


def test_opposed_feat_places_a_marker_only_when_the_user_wins():
    """Obey (cost 3, Simple, Target 8", OKi): "Если проверка пройдена успешно, Умение вступает
    в силу" (p.47) -- the target gains a Controlled marker only when Akira wins."""
    seen = set()
    for seed in range(1, 16):
        g = game("Obey", seed=seed)
        evs = g.push(Action("ki_feat", "akira", feat="Obey", target="masunagi"))
        won = next(e.data["passed"] for e in evs if e.kind == "test")
        assert ("controlled" in g.state.models["masunagi"].conditions) == won
        seen.add(won)
    assert seen == {True, False}


def test_counter_and_pass_token():
    """Vitality (cost 3): one more activation counter; Military Training (cost 1): a pass token."""
    g = game("Vitality", "Military Training")
    c, p = g.state.models["akira"].counters, g.state.pass_tokens.get(1, 0)
    g.push(Action("feat", "akira", feat="Vitality"))
    g.push(Action("feat", "akira", feat="Military Training"))
    assert g.state.models["akira"].counters == c + 1
    assert g.state.pass_tokens[1] == p + 1
    assert g.state.models["akira"].ki == 2


def test_facing_when_the_target_fails_its_ki_challenge():
    """Distraction (cost 2, Target 6"): the target takes a Ki (6) challenge test; if it fails
    the user's player changes its facing (offered: its back to the user)."""
    seen = set()
    for seed in range(1, 12):
        g = game("Distraction", seed=seed, masunagi=(10, 6))
        a = next(a for a in g.feat_actions("akira") if a.feat == "Distraction")
        assert a.target == "masunagi" and a.facing is not None
        evs = g.push(a)
        passed = next(e.data["passed"] for e in evs if e.kind == "test")
        facing = g.state.models["masunagi"].facing
        assert (abs(facing - a.facing) < 1e-6) == (not passed)
        seen.add(passed)
    assert seen == {True, False}


def test_wound_x_heal_and_ki():
    """A variable cost X: X wounds; a heal removes wounds and the Bleed markers (p.43); Ki to a friend."""
    g = game("Test Wound", "Test Heal", "Test Ki")
    offers = [a for a in g.feat_actions("akira") if a.feat == "Test Wound"]
    assert {a.x for a in offers} == {1, 3}
    dmg = g.state.models["masunagi"].damage
    g.push(Action("ki_feat", "akira", feat="Test Wound", target="masunagi", x=2))
    assert g.state.models["masunagi"].damage == dmg + 2
    assert g.state.models["akira"].ki == 4
    g = game("Test Heal", "Test Ki")
    set_model(g, "akira", damage=3, conditions={"bleed": 1})
    g.push(Action("feat", "akira", feat="Test Heal"))
    assert g.state.models["akira"].damage == 1 and "bleed" not in g.state.models["akira"].conditions
    ki = g.state.models["kenta"].ki
    g.push(Action("feat", "akira", feat="Test Ki", target="kenta"))
    assert g.state.models["kenta"].ki == min(ki + 2, g.state.models["kenta"].ki_limit)


def test_exchange_feat_is_offered_before_allocating_and_ends_with_the_exchange():
    """Umbrella Block (cost 2, Instant): Parry (1) until the end of the current melee exchange;
    Instant feats are declared at step 4 of the exchange, before the dice are allocated (p.33)."""
    g = game("Umbrella Block", masunagi=(7.25, 6))
    assert not [a for a in g.feat_actions("akira") if a.feat == "Umbrella Block"]  # no exchange yet
    g.push(Action("melee", "akira", target="masunagi"))
    assert g.state.exchange is not None
    while g.to_move() != 1:
        g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
    a = Action("feat", "akira", feat="Umbrella Block")
    assert a in g.legal_actions()
    g.push(a)
    assert g.profile("akira").trait("parry") is not None
    assert a not in g.legal_actions() or g.state.models["akira"].ki >= 2
    while g.state.exchange is not None:
        g.push(next(a for a in g.legal_actions() if a.kind == "allocate"))
    assert g.profile("akira").trait("parry") is None


def test_a_feat_the_engine_does_not_apply_is_a_manual_step_with_its_text():
    """Paid and logged, never silently nothing (issue #13)."""
    g = game("Test Manual")
    assert not g.feat_actions("akira")  # not offered: nothing automated
    evs = g.push(Action("feat", "akira", feat="Test Manual"))
    step = next(e for e in evs if e.kind == "manual_step")
    assert step.data["source"] == "Test Manual" and "choice the engine cannot offer" in step.data["text"]
    assert "MANUAL STEP" in step.describe()
    assert g.state.models["akira"].ki == 5


# ------------------------------------------------------------------ bots and the bundled table
def test_the_greedy_bot_uses_catalogue_feats_on_the_default_table(monkeypatch):
    """The default table's bundled profiles keep feat NAMES only; the data file gives their
    cost, timing and area (ki.feat_from_entry) and their effects, and the greedy bot uses a
    feat when it is worth its Ki (issue #13)."""
    from sim.rules.bots import GreedyBot, play
    from sim.table import load_table

    real = Path(fe.__file__).resolve().parents[2] / "data" / "feats" / "effects.yaml"
    if not real.exists():
        pytest.skip("data/feats/effects.yaml not written yet")
    monkeypatch.setattr(fe, "DEFAULT_PATH", real)
    fe.reset_cache()
    g = Game(load_table(Path(__file__).resolve().parents[1] / "data" / "tables" / "default.yaml"), seed=3,
             length=("fixed", 4))
    usable = {n for mid in g.state.models for n in g.feats(mid) if fe.effect_status(n)[0]}
    if not usable:
        pytest.skip("no feat of the default table has an applied entry in the data file")
    play(g, [GreedyBot(1), GreedyBot(2)])
    used = [e for e in g.events if e.kind == "feat_used" and e.data["feat"] in usable]
    assert used, "the greedy bots used no catalogue feat"
    after = g.events.index(used[0]) + 1
    assert g.events[after].kind in ("effect", "condition", "wounds", "healed", "ki_change", "counters_gained",
                                    "pass_token_gained", "move", "test")
    assert not [e for e in g.events if e.kind == "manual_step" and e.data["source"] in usable]


def test_curated_files_replace_drafted_entries_and_may_not_both_give_a_feat(tmp_path):
    """data/feats/curated/*.yaml lie over the drafted file: a curated entry replaces the
    drafted one; two curated files giving one feat are refused in one line."""
    cur = tmp_path / "curated"
    cur.mkdir()
    drafted = fe.feat_effect("Tenacious")
    assert drafted is not None
    (cur / "a.yaml").write_text(
        "format: bushido-feat-effects/1\nfeats:\n  Tenacious:\n    cost: 2\n    timing: active\n"
        "    area: personal\n    when: action\n    affects: self\n    effects:\n"
        "      - {op: grant, traits: ['Tough (+2)'], until: end_phase}\n    summary: test\n", encoding="utf-8")
    fe.reset_cache()
    assert fe.feat_effect("Tenacious").summary == "test"
    (cur / "b.yaml").write_text((cur / "a.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    fe.reset_cache()
    with pytest.raises(fe.FeatDataError, match=r"b\.yaml: feat .Tenacious.: also given by .*a\.yaml"):
        fe.feat_effect("Tenacious")
