"""Request bodies checked against Discord's own OpenAPI 3.1 schema (``discord_openapi/``).

Every write request the emulator serves has its JSON body (for a multipart request, the
``payload_json`` part) validated against the ``requestBody`` schema of its route in Discord's
published schema, with JSON Schema 2020-12 (``jsonschema``). A body that fails is answered like
any other "Invalid Form Body" (400, 50035) and each error is recorded as a violation under the
rule ``schema.request``, naming the JSON path and the schema error.

The emulator's own, more specific rules (``rules.py``) speak first: the schema errors of a
request are held (``hold``) when its body is read and raised (``enforce``) where the request
would take effect, so a body that breaks a documented limit is reported under that limit's rule
(``content.length``, ``embed.title``...), and the schema catches everything else.

Deliberate departures from the published schema, each a known quirk of it (README):

- ``SnowflakeType`` is a string of digits in the schema; Discord also accepts integers, which
  discord.py sends (``"attachments": [{"id": 0}]``, ``recipient_id``...): string or integer.
- Permission bit sets (``default_member_permissions`` of commands, ``permissions`` of install
  params: integers up to 2^54 - 1 in the schema) are strings in Discord's documentation and
  answers, and Discord accepts both: integer or string of digits.

As JSON Schema does by default, ``format`` (``uri``, ``date-time``...) is not asserted.

The document also keeps the 200 answers of a few read routes (``prune.RESPONSES``: ``GET
/users/@me``, activity instances), which the emulator's tests check its own answers against
(``check_answer``).
"""

from __future__ import annotations

import copy
import functools
import json
import reprlib
from collections.abc import Iterable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, relevance

from .rules import FormError, Rejection
from .rules import Path as JsonPath

SPEC = Path(__file__).resolve().parent / "discord_openapi" / "openapi.json"
RULE = "schema.request"
MAX_ERRORS = 10
_SNOWFLAKE = {
    "anyOf": [
        {"type": "string", "pattern": "^(0|[1-9][0-9]*)$"},
        {"type": "integer", "minimum": 0},
    ],
    "format": "snowflake",
}
_DIGITS = {"type": "string", "pattern": "^[0-9]+$"}
PERMISSIONS_MAX = (1 << 54) - 1  # the schema's maximum of a permission bit set
_short = reprlib.Repr()
_short.maxstring = 40
_short.maxother = 40

# Discord's error codes and messages for the JSON Schema keywords (the rest: the keyword).
_CODES = {
    "required": ("BASE_TYPE_REQUIRED", "This field is required"),
    "maxLength": ("BASE_TYPE_MAX_LENGTH", "Must be {v} or fewer in length."),
    "minLength": ("BASE_TYPE_MIN_LENGTH", "Must be {v} or more in length."),
    "maxItems": ("BASE_TYPE_MAX_LENGTH", "Must be {v} or fewer in length."),
    "minItems": ("BASE_TYPE_MIN_LENGTH", "Must be {v} or more in length."),
    "maxProperties": ("BASE_TYPE_MAX_LENGTH", "Must be {v} or fewer in length."),
    "minProperties": ("BASE_TYPE_MIN_LENGTH", "Must be {v} or more in length."),
    "maximum": ("NUMBER_TYPE_MAX", "int value should be less than or equal to {v}."),
    "minimum": ("NUMBER_TYPE_MIN", "int value should be greater than or equal to {v}."),
    "enum": ("BASE_TYPE_CHOICES", "Value must be one of {v}."),
    "const": ("BASE_TYPE_CHOICES", "Value must be one of ({v},)."),
    "pattern": ("STRING_TYPE_REGEX", "String value did not match validation regex."),
    "uniqueItems": ("LIST_ITEM_VALUE_DUPLICATE", "List items must be unique."),
}
_TYPES = {
    "string": ("BASE_TYPE_STRING", "Must be a string."),
    "integer": ("NUMBER_TYPE_COERCE", "Value is not int."),
    "number": ("NUMBER_TYPE_COERCE", "Value is not a number."),
    "boolean": ("BASE_TYPE_BOOLEAN", "Must be either true or false."),
    "array": ("LIST_TYPE_CONVERT", "Only iterables may be used in a ListType"),
    "object": ("DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType"),
}


class RequestSchemas:
    """The request-body schemas of Discord's OpenAPI document, compiled once per operation."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = _adjusted(document)
        self._validators: dict[tuple[str, str], Draft202012Validator | None] = {}
        self._answers: dict[tuple[str, str], Draft202012Validator] = {}

    @classmethod
    def load(cls, path: Path = SPEC) -> RequestSchemas:
        return cls(json.loads(path.read_text(encoding="utf-8")))

    def operations(self) -> set[tuple[str, str]]:
        """Every ``(METHOD, path)`` with a JSON request body in the document."""
        return {
            (method.upper(), path)
            for path, item in self.document["paths"].items()
            for method, operation in item.items()
            if "application/json" in operation.get("requestBody", {}).get("content", {})
        }

    def validator(self, method: str, path: str) -> Draft202012Validator | None:
        """The compiled validator of the JSON body of ``METHOD path`` (a path of the document,
        e.g. ``/channels/{channel_id}/messages``), or None if it takes no body."""
        key = (method.upper(), path)
        if key not in self._validators:
            self._validators[key] = None
            if key in self.operations():
                where = (path, method.lower(), "requestBody", "content", "application/json")
                self._validators[key] = self._compile(where)
        return self._validators[key]

    def _compile(self, where: tuple[str, ...]) -> Draft202012Validator:
        """A validator of the schema under ``paths`` at ``where`` (its ``schema`` member)."""
        pointer = "/".join(p.replace("~", "~0").replace("/", "~1") for p in ("paths", *where))
        # the document itself is the root schema, so that its "#/components/..." references
        # resolve; its other members are not keywords, hence ignored
        return Draft202012Validator({**self.document, "$ref": f"#/{pointer}/schema"})

    def check(self, method: str, path: str, body: object) -> list[FormError]:
        """The schema errors of ``body`` sent to ``METHOD path`` (none for a route without a
        body schema), at most ``MAX_ERRORS``, the most relevant first."""
        return self._errors(self.validator(method, path), body)

    def check_answer(self, method: str, path: str, answer: object) -> list[FormError]:
        """The schema errors of ``answer``, a 200 answer of ``METHOD path``, for the routes
        whose answers the document keeps (``prune.RESPONSES``; KeyError for others)."""
        key = (method.upper(), path)
        if key not in self._answers:
            if "responses" not in self.document["paths"][path][method.lower()]:
                raise KeyError(f"the answers of {method} {path} are not kept (prune.RESPONSES)")
            where = (path, method.lower(), "responses", "200", "content", "application/json")
            self._answers[key] = self._compile(where)
        return self._errors(self._answers[key], answer)

    @staticmethod
    def _errors(validator: Draft202012Validator | None, body: object) -> list[FormError]:
        if validator is None:
            return []
        errors: list[FormError] = []
        for error in sorted(validator.iter_errors(body), key=relevance, reverse=True):
            found = _describe(error)
            if found not in errors:
                errors.append(found)
        return errors[:MAX_ERRORS]


@functools.cache
def schemas() -> RequestSchemas:
    """The schemas of ``discord_openapi/openapi.json``, loaded once per process."""
    return RequestSchemas.load()


def _adjusted(document: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``document`` with the quirks listed in the module docstring handled."""
    document = copy.deepcopy(document)
    schemas_ = document["components"]["schemas"]
    schemas_["SnowflakeType"] = _SNOWFLAKE

    def visit(node: object) -> None:
        if isinstance(node, dict):
            for name, prop in (node.get("properties") or {}).items():
                if isinstance(prop, dict) and prop.get("maximum") == PERMISSIONS_MAX:
                    node["properties"][name] = {"anyOf": [prop, _DIGITS]}
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(schemas_)
    return document


def _mismatched(errors: Iterable[ValidationError]) -> bool:
    """Whether the errors of one branch of a union say it is for another kind of value: the
    wrong JSON type, or another ``type`` discriminator (component, option, callback types)."""
    return any(
        (not e.relative_path and e.validator == "type")
        or (list(e.relative_path) in ([], ["type"]) and e.validator in ("enum", "const"))
        for e in errors
    )


def _choices(branches: list[list[ValidationError]]) -> tuple[JsonPath, list[Any]] | None:
    """When every branch of a union refuses the value for its ``type`` (or itself, for a union
    of constants), the relative path of that field and every value the branches accept."""
    where: set[JsonPath] = set()
    values: list[Any] = []
    for errors in branches:
        found = [
            e
            for e in errors
            if e.validator in ("enum", "const") and list(e.relative_path) in ([], ["type"])
        ]
        if not found:
            return None
        where.add(tuple(found[0].relative_path))
        accepted = found[0].validator_value
        values += accepted if found[0].validator == "enum" else [accepted]
    if len(where) != 1:
        return None
    return where.pop(), sorted(set(values), key=lambda v: (isinstance(v, str), v))


def _describe(error: ValidationError) -> FormError:
    """``error`` as Discord would report it. Under a union (``anyOf``/``oneOf``) the most
    telling error is that of the branch meant for this value (whose ``type`` matches),
    descending through nested unions; when no branch is, the accepted values."""
    while error.validator in ("anyOf", "oneOf") and error.context:
        grouped: dict[object, list[ValidationError]] = {}
        for sub in error.context:
            grouped.setdefault(sub.relative_schema_path[0], []).append(sub)
        branches = list(grouped.values())
        fitting = [errors for errors in branches if not _mismatched(errors)]
        if not fitting:
            choices = _choices(branches)
            if choices is not None:
                relative, values = choices
                path = (*error.absolute_path, *relative)
                message = "Value must be one of {" + ", ".join(map(str, values)) + "}."
                where = "/".join(map(str, error.absolute_schema_path))
                detail = f"{error.validator}: none accepts {_short.repr(error.instance)} [{where}]"
                return FormError(path, "BASE_TYPE_CHOICES", message, RULE, detail)
        # as jsonschema's best_match does under a union: the deepest error
        error = min((e for errors in (fitting or branches) for e in errors), key=relevance)
    return _form_error(error)


def _form_error(error: ValidationError) -> FormError:
    """``error`` as an entry of Discord's "Invalid Form Body" answer, with the schema error."""
    path: JsonPath = tuple(error.absolute_path)
    keyword = str(error.validator)
    value = error.validator_value
    if keyword == "required":
        instance = error.instance if isinstance(error.instance, dict) else {}
        missing = [name for name in value if name not in instance]
        path = (*path, missing[0]) if missing else path
    if keyword == "type":
        wanted = value if isinstance(value, str) else next(iter(value), "")
        code, message = _TYPES.get(wanted, ("BASE_TYPE_INVALID", "Invalid type."))
    else:
        code, template = _CODES.get(keyword, ("BASE_TYPE_INVALID", "Invalid value."))
        shown = "{" + ", ".join(map(str, value)) + "}" if keyword == "enum" else value
        message = template.format(v=shown)
    where = "/".join(map(str, error.absolute_schema_path))
    detail = f"{keyword} {_short.repr(value)} failed for {_short.repr(error.instance)} [{where}]"
    return FormError(path, code, message, RULE, detail)


# The schema errors of the request being answered (one aiohttp task per request).
_pending: ContextVar[tuple[FormError, ...]] = ContextVar("schema_errors", default=())


def hold(errors: list[FormError]) -> None:
    """Keep the schema errors of the request being answered until ``enforce``."""
    _pending.set(tuple(errors))


def enforce() -> None:
    """Raise the held schema errors (once) as an "Invalid Form Body"; called where a request
    would take effect, after the emulator's own rules."""
    errors = _pending.get()
    if errors:
        _pending.set(())
        raise Rejection.form(list(errors))
