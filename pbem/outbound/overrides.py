"""A home's own templates checked before they meet a player: each file under `<home>/templates/`
compiled, then every mail still queued in the outbox rendered with them, as it would be sent.
Mails are queued as the context they are rendered from (pbem/outbound/outbox.py), so the
queued ones are the stored contexts an override must render."""
from __future__ import annotations

from typing import TYPE_CHECKING

import jinja2

from pbem.outbound import outbox, render

if TYPE_CHECKING:
    from pbem.core.service import Service


def check(svc: Service, per_kind: int = 20) -> tuple[list[str], list[str]]:
    """(the home's template files, the problems found): a file that does not compile, and a
    queued mail (at most `per_kind` of each kind) that does not render with the overrides."""
    folder = svc.settings.templates_path
    names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.j2")) if folder.is_dir() else []
    if not names:
        return [], []
    templates = render.Templates(folder)
    problems = []
    for name in names:
        try:
            templates.env.get_template(name)
        except jinja2.TemplateError as e:
            problems.append(f"{name}: {_what(e)}")
    if problems:
        return names, problems
    previous, svc.templates = svc.templates, templates
    try:
        for row in svc.store.outbox_queued_contexts(per_kind):
            try:
                outbox.rendered(svc, row)
            except (jinja2.TemplateError, TypeError, ValueError, KeyError) as e:
                problems.append(f"mail {row['id']} ({row['kind']}): {_what(e)}")
    finally:
        svc.templates = previous
    return names, problems


def _what(e: Exception) -> str:
    line = getattr(e, "lineno", None)
    where = f"{getattr(e, 'filename', None) or getattr(e, 'name', None) or ''}"
    return f"{type(e).__name__}: {e}" + (f" ({where}, line {line})" if line else "")
