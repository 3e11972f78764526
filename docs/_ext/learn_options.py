"""Griffe extension: show the options of ``@with_options`` functions in their signatures.

``learn_penalty``, ``fit_penalty`` and ``PenaltyModel`` take ``**options``; their runtime
signature (``inspect.signature``, ``help``) lists every field of
:class:`penlearn.learn.options.LearnOptions` as a keyword with its default, because the
decorator :func:`penlearn.learn.options.with_options` sets ``__signature__`` from the
dataclass (one definition of each option). Griffe reads the source statically and sees
only ``**options``: the API pages would show no option, or mark the documented ones as
missing from the signature. This extension, loaded by ``mkdocs.yml``, does statically
what the decorator does at run time: it replaces the ``**options`` parameter of every
function decorated with ``with_options`` by one keyword-only parameter per field of
``LearnOptions``, with the field's annotation and default as written in its source.
The source is not changed.
"""

from __future__ import annotations

from griffe import Alias, Class, Extension, Function, Module, Object, Parameter, ParameterKind

OPTIONS_CLASS = "penlearn.learn.options.LearnOptions"
DECORATOR = "with_options"


def _walk(obj: Object):
    yield obj
    for member in obj.members.values():
        if not isinstance(member, Alias):
            yield from _walk(member)


def _default(options: Class, value):
    """The default as written, a module constant (``DEFAULT_MODEL``) by its value."""
    constant = options.module.members.get(str(value))
    if constant is not None and not isinstance(constant, Alias) and constant.is_attribute \
            and constant.value is not None:
        return constant.value
    return value


def option_parameters(options: Class) -> list[Parameter]:
    """One keyword-only parameter per dataclass field of ``options`` (source order)."""
    return [
        Parameter(attr.name, annotation=attr.annotation, kind=ParameterKind.keyword_only,
                  default=_default(options, attr.value))
        for attr in options.attributes.values()
        if attr.value is not None and not attr.name.startswith("_")
        and "class-attribute" in attr.labels
    ]


def _decorated(func: Function) -> bool:
    return any(str(d.value).split(".")[-1] == DECORATOR for d in func.decorators)


def expand(func: Function, params: list[Parameter]) -> None:
    """Replace ``func``'s ``**kwargs`` parameter by ``params`` (kept before it otherwise)."""
    kept = [p for p in func.parameters if p.kind is not ParameterKind.var_keyword]
    names = {p.name for p in kept}
    func.parameters.__init__(*kept, *(p for p in params if p.name not in names))


class LearnOptionsSignature(Extension):
    """Expand ``**options`` of ``@with_options`` functions (see the module docstring)."""

    def on_package(self, *, pkg: Module, **kwargs) -> None:
        if pkg.name != OPTIONS_CLASS.split(".")[0]:
            return
        options = pkg.get_member(OPTIONS_CLASS.split(".", 1)[1])
        params = option_parameters(options)
        for obj in _walk(pkg):
            if isinstance(obj, Function) and _decorated(obj):
                expand(obj, params)
