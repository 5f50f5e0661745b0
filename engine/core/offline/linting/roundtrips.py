"""Whether a kind's versions convert without loss: every example and a made-up object of each version,
taken to every other version and back, must come back as it was.

Conversion keeps aside what a version cannot hold (``engine.core.model.versioning.conversion``), so
what a round trip can still lose is what its rules get wrong: a field a mapping adds that was not
there, a value that does not come back, a rule that fails on a value the schema allows.  The
examples are the kind's own; the made-up objects (``made_up``) hold every field of a version's
schema, once each, with a value the schema takes, so that a field no example sets is tried too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core.model import kinds
from engine.core.model.language import documents
from engine.core.model.versioning.conversion import ConversionError
from engine.core.offline.linting.findings import Finding

ROUND_TRIP = "round-trip"
_FORMATS = {"date-time": "2006-01-02T15:04:05Z", "date": "2006-01-02", "int-or-string": 1}


def check_round_trips(kind: kinds.Kind, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    """An error for each field of an example or a made-up object that does not come back."""
    converting = kind.conversion
    if converting is None:
        return []
    file = kind.directory / kinds.KIND_FILE
    document = documents.Document.read(file)
    names = [entry["name"] for entry in document.data["versions"]]
    tried = [(where, parent) for where, parent in parents]
    for version, schema in [
        (converting.hub, converting.hub_schema),
        *[(s.name, s.schema) for s in converting.spokes.values()],
    ]:
        made = made_up(schema)
        made.update(
            {
                "apiVersion": f"{converting.group}/{version}",
                "kind": kind.kind,
                "metadata": {"name": "made-up"},
            }
        )
        tried.append((f"a {kind.kind} made up of every field of {version}", made))
    findings = []
    for where, obj in tried:
        try:
            lost = converting.round_trip_losses(obj)
        except ConversionError as failed:
            line = failed.line or document.line_of(("versions",))
            message = f"{where}: cannot be converted: {failed.message}"
            findings.append(Finding(failed.file or str(file), line, None, "error", message, ROUND_TRIP))
            continue
        for version in dict.fromkeys(version for version, _ in lost):
            said = ", ".join(text for at, text in lost if at == version)
            line = document.line_of(("versions", names.index(version), "convert"))
            message = f"{where}: does not come back as it was: {said}"
            findings.append(Finding(str(file), line, None, "error", message, ROUND_TRIP))
    return findings


def made_up(schema: dict[str, Any], name: str = "value") -> Any:
    """A value ``schema`` takes, with every field it names: the first of an enum, a default, the
    least a bound allows, one item of a list, one key of a map; a string is its field's name, so
    that a mapping reading one field for another shows."""
    if "enum" in schema:
        return schema["enum"][0]
    if "default" in schema and not isinstance(schema["default"], dict):
        return schema["default"]
    if schema.get("x-kubernetes-int-or-string"):
        return 1
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        value = {key: made_up(sub, key) for key, sub in (schema.get("properties") or {}).items()}
        if isinstance(schema.get("additionalProperties"), dict):
            value["key"] = made_up(schema["additionalProperties"], "key")
        return value
    if kind == "array":
        return [made_up(schema.get("items") or {}, name)]
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 1.5))
    if kind == "boolean":
        return True
    if str(schema.get("format")) in _FORMATS:
        return _FORMATS[str(schema["format"])]
    return name.ljust(int(schema.get("minLength", 1)), "x")[: schema.get("maxLength")]
