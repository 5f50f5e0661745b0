"""Static checks of a kind folder: every branch of its templates and status rules, read without running.

``stencil lint`` finds what rendering the examples would not: a mistake in a
branch no example takes, a child a longer parent name breaks.  This module is
its front door, the names ``engine.tools.linter`` calls; each check lives in a
module of its own beside it, read in this order:

* ``findings``: a problem is a value (``Finding``), never raised, so one
  run reports them all;
* ``trees``: the Jinja syntax tree of every template and rule, every
  branch alike: filters, tests, functions, names, child kinds, and paths into
  the parent by its CRD's schema (``paths``);
* ``text``: what a template spells out in plain text: a child placement
  would refuse, a field a cluster controller sets;
* ``examples``: the examples rendered with a line tracer, and their
  children checked as the API server would (``render_traced``, ``check_children``);
* ``relations``: what is wrong between the children of one parent: a
  selector, a port, a volume or a name that points at no sibling;
* ``long_names``: the examples rendered again under the longest names
  their CRD allows;
* ``branches`` and ``coverage``: which branches no example takes, each
  tried once with a parent made up to take it;
* ``columns``: whether ``kubectl get`` shows the parent's Ready (its CRD's
  printer columns);
* ``pruned``: whether the parent's CRD keeps what the engine writes in its
  status, or prunes it;
* ``roundtrips``: whether the kind's versions convert to each other and back
  without loss.

``engine.tools.linter`` reads the folders and CRDs and gathers the findings.
"""

from __future__ import annotations

from engine.core.offline.linting.coverage import UNTAKEN, check_coverage
from engine.core.offline.linting.examples import Traced, check_children, render_traced
from engine.core.offline.linting.findings import Finding
from engine.core.offline.linting.long_names import LONG_NAME, check_long_names, one_per_path
from engine.core.offline.linting.pruned import PRUNED, check_pruned_status, pruned_conditions
from engine.core.offline.linting.relations import check_relations
from engine.core.offline.linting.roundtrips import ROUND_TRIP, check_round_trips
from engine.core.offline.linting.text import check_controller_fields, check_placement
from engine.core.offline.linting.trees import check_rules, check_templates

__all__ = [
    "LONG_NAME",
    "PRUNED",
    "ROUND_TRIP",
    "UNTAKEN",
    "Finding",
    "Traced",
    "check_children",
    "check_controller_fields",
    "check_coverage",
    "check_long_names",
    "check_placement",
    "check_pruned_status",
    "check_relations",
    "check_round_trips",
    "check_rules",
    "check_templates",
    "one_per_path",
    "pruned_conditions",
    "render_traced",
]
