"""Argo CD's health check for the kinds' parents: the Lua its ``argocd-cm`` takes, one key a kind.

Argo CD judges a custom resource only by a health check it is given; with none, a parent
shows no health at all, whatever its conditions say.  The check is Lua, set in the
``argocd-cm`` ConfigMap under ``resource.customizations.health.<group>_<Kind>``, and reads
the parent as the engine writes it (``engine.core.decisions.status`` and ``progress``):

- ``Healthy`` when ``Ready`` is True for the parent's current generation;
- ``Degraded`` when ``Stalled`` is True, with its reason and message: only a change to the
  kind, the parent or what it depends on can help, so nothing is gained by waiting;
- ``Progressing`` otherwise, with ``Reconciling``'s message (else ``Ready``'s): what the
  engine is waiting for.

The same script serves every kind, since every parent's conditions mean the same; only
the key names the kind.  It uses nothing beyond Lua's base functions, which Argo CD gives a
health check without ``useOpenLibs``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.core.decisions import progress, status
from engine.core.model import apis, kinds
from engine.tools import yamlwriting

HEALTH_KEY = "resource.customizations.health."  # argocd-cm: + <group>_<Kind>

_LUA = """\
-- The health of a Stencil parent, from the conditions the engine writes.
local hs = {status = "Progressing", message = "waiting for the engine to report"}
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
local generation = obj.metadata.generation
local function current(condition)
  local seen = condition.observedGeneration
  return generation == nil or seen == nil or seen == generation
end
local function said(condition)
  if condition.message ~= nil and condition.message ~= "" then
    return (condition.reason or condition.type) .. ": " .. condition.message
  end
  return condition.reason or condition.type
end
local found = {}
for _, condition in ipairs(obj.status.conditions) do
  if condition.type ~= nil and found[condition.type] == nil then
    found[condition.type] = condition
  end
end
if generation ~= nil and obj.status.observedGeneration ~= generation then
  hs.message = "generation " .. generation .. " not observed by the engine yet"
  return hs
end
local stalled, ready, reconciling = found["@STALLED@"], found["@READY@"], found["@RECONCILING@"]
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = said(stalled)
elseif ready ~= nil and ready.status == "True" and current(ready) then
  hs.status = "Healthy"
  hs.message = "ready"
elseif reconciling ~= nil and reconciling.status == "True" then
  hs.message = said(reconciling)
elseif ready ~= nil then
  hs.message = said(ready)
end
return hs
"""


def health_lua() -> str:
    """The Lua health check of every parent, with the engine's condition types in it."""
    names = {"@STALLED@": progress.STALLED, "@READY@": status.READY, "@RECONCILING@": progress.RECONCILING}
    text = _LUA
    for placeholder, name in names.items():
        text = text.replace(placeholder, name)
    return text


def health_key(api_version: str, kind: str) -> str:
    """The ``argocd-cm`` key of ``kind``'s health check: ``…health.<group>_<Kind>`` (a parent
    always has a group: the kind loader refuses Kubernetes' own, the core group's among them)."""
    return f"{HEALTH_KEY}{apis.group_of(api_version)}_{kind}"


def health_checks(loaded: Iterable[kinds.Kind]) -> dict[str, str]:
    """``argocd-cm`` data: each kind's health check under its key, by key."""
    script = health_lua()
    return {health_key(kind.api_version, kind.kind): script for kind in sorted(loaded, key=lambda k: k.name)}


def dump(data: Mapping[str, Any]) -> str:
    """``data`` as YAML, each script a literal block, as a person writes them into ``argocd-cm``."""
    return yamlwriting.dump_blocks([dict(data)])
