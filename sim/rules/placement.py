"""Placing a model (rulebook p.23, "РАЗМЕЩЕНИЕ (PLACE)"): where a model may be put down
by an effect that places it instead of moving it.

p.23: "Размещение модели не считается движением. Просто возьмите модель и поместите ее в
новое разрешенное место. Она не имеет траектории движения и игнорирует ЗК, модели и
местность между ней и конечным местоположением. Модель не может быть размещена в
непроходимом элементе местности, внутри другой модели или в контакте с вражеской
моделью. ... Игрок, размещающий модель, определяет Направление модели." And p.22: "Модель
не может быть размещена какой-либо частью ее базы за краем стола."

Pure: a table (:class:`sim.table.Table`) in, reasons out; inches.
"""

from __future__ import annotations

from collections.abc import Sequence

from sim.rules import movement

__all__ = ["place_problems"]


def place_problems(table, model_id: str, point: Sequence[float]) -> list[str]:
    """Why model ``model_id`` may not be placed with its base centred at ``point`` (x, y
    inches) on ``table`` (p.22-23): a base off the table, on another model's base, in
    Impassable terrain, or in base contact with an enemy model. Empty when it may. What
    lies between the model and the point does not matter (a place is not a move).

    Raises:
        MoveError: unknown model.
    """
    mover = movement.Mover(table, model_id)
    p = (float(point[0]), float(point[1]))
    out = []
    if not mover.on_table(p):
        out.append("no part of a base may be placed off the table (p.22)")
    out += [r.message + " (Place p.23)" for r in mover.end_overlaps(p)]
    foes = mover.contacts_at(p)
    if foes:
        out.append(f"the base would be in contact with enemy {', '.join(foes)}: a model is not placed in contact "
                   "with an enemy model (Place p.23)")
    return out
