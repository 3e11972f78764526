"""Griffe extension: render the Sphinx roles of penlearn's docstrings as cross-references.

The docstrings are numpydoc, read by ``help()`` and by Sphinx-minded readers, so they
write ``:func:`~penlearn.aum.aum```, ``:mod:`.blocks``` and ``:class:`PeakSegModel```.
mkdocstrings' numpy parser leaves such roles as literal text; this extension, loaded by
``mkdocs.yml`` (``extensions: [docs/_ext/sphinx_roles.py:SphinxRoles]``), rewrites them
when griffe has loaded the package, before any docstring is parsed:

- the target is resolved like Sphinx does it: absolute, else relative to the object, its
  parents, its module and the package (a leading ``.`` is relative to the package);
  aliases (re-exports) resolve to the object they re-export;
- a resolved role becomes an *optional* autoref (``<autoref identifier=... optional>``):
  a link where the object is rendered on the site, plain code where it is not (private
  helpers), never a strict-mode warning;
- an unresolved role (``:mod:`tempfile```) becomes plain inline code;
- ``~`` shows only the last component, as in Sphinx; ``title <target>`` shows the title.

The source docstrings are not changed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from griffe import Alias, Extension, Module, Object

ROLE = re.compile(
    r":(?:py:)?(?:func|meth|class|mod|attr|data|obj|exc|const|attribute|function|module):"
    r"`(?P<body>[^`]+)`"
)


def convert_roles(text: str, resolve: Callable[[str], str | None]) -> str:
    """Replace each Sphinx role of ``text`` by an optional autoref or inline code.

    ``resolve(target)`` returns the identifier of the documented object, or ``None``.
    """

    def one(match: re.Match) -> str:
        body = match["body"].strip()
        titled = re.fullmatch(r"(?P<title>.+?)\s*<(?P<target>[^>]+)>", body)
        if titled:
            title, target = titled["title"], titled["target"]
        else:
            target = body.lstrip("~")
            title = target.lstrip(".").rsplit(".", 1)[-1] if body.startswith("~") else target
        target = target.removesuffix("()")
        identifier = resolve(target)
        if identifier is None:
            return f"`{title}`"
        return f'<autoref identifier="{identifier}" optional>`{title}`</autoref>'

    return ROLE.sub(one, text)


def _lookup(root: Module, path: str) -> Object | Alias | None:
    """The object at the dotted ``path`` under the package ``root`` (``None`` if absent)."""
    parts = path.split(".")
    if parts[0] != root.name:
        return None
    obj: Object | Alias = root
    for part in parts[1:]:
        try:
            obj = obj.members[part]
        except Exception:  # noqa: BLE001 (a missing member, or an alias griffe cannot resolve)
            return None
    return obj


def _canonical(obj: Object | Alias) -> str:
    if isinstance(obj, Alias):
        try:
            return obj.final_target.path
        except Exception:  # noqa: BLE001 (an alias to something griffe did not load)
            return obj.path
    return obj.path


def resolver(root: Module, obj: Object) -> Callable[[str], str | None]:
    """Resolve role targets written in the docstring of ``obj`` (Sphinx's search order)."""
    scopes: list[str] = []
    cur: Object | None = obj
    while cur is not None:
        scopes.append(cur.path)
        cur = cur.parent
    module = obj if isinstance(obj, Module) else obj.module
    package = module if module.is_package else (module.parent or module)

    def resolve(target: str) -> str | None:
        if target.startswith("."):
            candidates = [package.path + target]
        else:
            candidates = [target] + [f"{scope}.{target}" for scope in scopes]
        for path in candidates:
            found = _lookup(root, path)
            if found is not None:
                return _canonical(found)
        return None

    return resolve


def _walk(obj: Object):
    yield obj
    for member in obj.members.values():
        if not isinstance(member, Alias):
            yield from _walk(member)


class SphinxRoles(Extension):
    """Rewrite the Sphinx roles of every docstring of a loaded package (see the module)."""

    def on_package(self, *, pkg: Module, **kwargs) -> None:
        for obj in _walk(pkg):
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = convert_roles(obj.docstring.value, resolver(pkg, obj))
