"""The mistakes: each an edit to a known-good kind (``base``), placed where an author would make it.

A mistake in a template or a status rule is placed twice: once where the examples
go (``taken``) and once inside ``{% if spec.canary is defined %}`` (or the arm of a
conditional no example reaches) that no example takes (``untaken``), since a check
that only renders the examples sees the first and not the second.  A mistake in an
example, a CRD or a field of kind.yaml has no branch, and is placed ``once``.

``at`` is the file and a fragment of the line the finding must name: the line
number is found in the edited file, never written down, so the table stays true
when the base kind changes.  ``says`` is the rule or field the message must name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tests.mistakes.base import READY_COLUMNS, UNTAKEN, WEB_CRD, WEB_KIND

Where = Literal["taken", "untaken", "once"]
Severity = Literal["error", "warning"]

DEPLOYMENT = "templates/web/deployment.yaml"
SERVICE = "templates/web/service.yaml"
KIND = "templates/web/kind.yaml"
EXAMPLE = "templates/web/examples/shop.yaml"


@dataclass(frozen=True)
class Edit:
    """Replace the first ``old`` in ``file`` by ``new``; ``old`` None writes the file whole, ``new``
    None deletes it."""

    file: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class Placement:
    """One place the mistake is made, and the line (``at``: file, fragment) where lint must say so."""

    where: Where
    edits: tuple[Edit, ...]
    at: tuple[str, str]
    snippet: str = ""  # what the guide shows the author wrote; the first edit's new text by default
    xfail: str = ""  # why lint cannot catch it here (a known gap), or "" when it must

    @property
    def shown(self) -> str:
        return self.snippet or self.edits[0].new or ""


@dataclass(frozen=True)
class Mistake:
    slug: str
    title: str  # what the author did, as the guide's heading says it
    says: str  # the rule or field the message must name
    placements: tuple[Placement, ...]
    severity: Severity = "error"
    base: str = "web"
    why_once: str = ""  # why the mistake has no branch to be placed in


def _inserted(file: str, after: str, block: str) -> Edit:
    return Edit(file, after, after + block)


def _wrapped(block: str) -> str:
    return f"{UNTAKEN}\n{block}{{% endif %}}\n"


def _both(file: str, after: str, block: str, fragment: str) -> tuple[Placement, ...]:
    """The block inserted after the line ``after``, once as it is and once in the branch no example takes."""
    return (
        Placement("taken", (_inserted(file, after, block),), (file, fragment)),
        Placement("untaken", (_inserted(file, after, _wrapped(block)),), (file, fragment)),
    )


def _either(file: str, old: str, new: str, fragment: str) -> tuple[Placement, ...]:
    """The line ``old`` replaced by ``new``, once as it is and once only in the branch no example takes."""
    untaken = f"{UNTAKEN}\n{new}{{% else %}}\n{old}{{% endif %}}\n"
    return (
        Placement("taken", (Edit(file, old, new),), (file, fragment)),
        Placement("untaken", (Edit(file, old, untaken),), (file, fragment)),
    )


def _rule(old: str, new: str, untaken: str, fragment: str) -> tuple[Placement, ...]:
    """A status rule of kind.yaml replaced: as it is, and in the arm of a conditional no example reaches."""
    return (
        Placement("taken", (Edit(KIND, old, new),), (KIND, fragment)),
        Placement("untaken", (Edit(KIND, old, untaken),), (KIND, fragment)),
    )


def _once(
    file: str, old: str | None, new: str | None, fragment: str, *, at_file: str = ""
) -> tuple[Placement]:
    return (Placement("once", (Edit(file, old, new),), (at_file or file, fragment)),)


# Lint renders a branch no example takes for an example with the fields its test reads made up,
# and only when the example leaves them out: a branch chosen by the value of a field the examples
# set is rendered for no parent, so only its coverage warning shows.
_BY_VALUE = "lint makes up only fields the examples leave out, and the examples set spec.replicas"
_NO_BRANCH_EXAMPLE = "an example is data, not a template: it has no branches"
_NO_BRANCH_KIND = "a field of kind.yaml, read when the kind loads: it has no branches"
_NO_BRANCH_CRD = "a CRD is read whole when lint starts: it has no branches"
_STATUS = "            status:\n              type: object\n"
_PRESERVED_STATUS = _STATUS + "              x-kubernetes-preserve-unknown-fields: true\n"
_GENERATION_ONLY = (
    _STATUS + "              properties:\n                observedGeneration: {type: integer}\n"
)

_CONTAINER = "          image: {{ spec.image }}\n"
_DEPLOYMENT_LABELS = "  labels:\n    app: {{ name }}\n"
_SERVICE_NAME = "  name: {{ name }}\n"
_URL_RULE = "url: \"'http://' ~ name ~ '.' ~ namespace ~ ':' ~ spec.port\""
_AVAILABLE_RULE = "status: \"condition_status(children.deployment, 'Available')\""
_TEMPLATES = "templates: [deployment.yaml, service.yaml]"
_READS_DEPLOYMENT = '  annotations:\n    replicas: "{{ children.deployment.spec.replicas }}"\n'


def _url(port: str) -> str:
    return f"url: \"'http://' ~ name ~ '.' ~ namespace ~ ':' ~ {port}\""


def _canary_url(port: str) -> str:
    chosen = f"(spec.port if spec.canary is undefined else {port})"
    return f"url: \"'http://' ~ name ~ '.' ~ namespace ~ ':' ~ {chosen}\""


_EXAMPLE_SPEC = "spec:\n  image: nginx:1.27\n"


def _example_adds(slug: str, title: str, says: str, line: str, fragment: str) -> Mistake:
    """An example given one more spec field, ``line``, that its CRD refuses."""
    placed = _once(EXAMPLE, _EXAMPLE_SPEC, _EXAMPLE_SPEC + line, fragment)
    return Mistake(slug, title, says, placed, why_once=_NO_BRANCH_EXAMPLE)


def _kind_reads(slug: str, title: str, says: str, templates: str, fragment: str) -> Mistake:
    """kind.yaml's ``templates:`` line replaced by ``templates``."""
    placed = _once(KIND, _TEMPLATES, templates, fragment)
    return Mistake(slug, title, says, placed, why_once=_NO_BRANCH_KIND)


MISTAKES: tuple[Mistake, ...] = (
    # -- templates ------------------------------------------------------------------------------
    Mistake(
        "guarded-typo",
        "A typo in a spec path inside an `is defined` guard",
        "spec.logLevle",
        _both(
            DEPLOYMENT,
            _CONTAINER,
            '{% if spec.logLevle is defined %}\n          args: ["--log-level={{ spec.logLevel }}"]\n'
            "{% endif %}\n",
            "logLevle",
        ),
    ),
    Mistake(
        "wrong-level",
        "A field at the wrong level of a child that is still valid YAML (`volumes:` under a container)",
        "volumes",
        _both(
            DEPLOYMENT,
            _CONTAINER,
            "          volumes:\n            - name: cache\n              emptyDir: {}\n",
            "volumes:",
        ),
    ),
    Mistake(
        "child-name",
        "A child name the API server refuses",
        "metadata.name",
        _either(SERVICE, _SERVICE_NAME, "  name: {{ name }}_web\n", "_web"),
    ),
    Mistake(
        "unknown-filter",
        "An unknown filter",
        "tostring",
        _both(DEPLOYMENT, _CONTAINER, "          args: [{{ spec.port | tostring }}]\n", "tostring"),
    ),
    Mistake(
        "unknown-test",
        "An unknown test",
        "defind",
        _both(
            DEPLOYMENT,
            _CONTAINER,
            '{% if spec.logLevel is defind %}\n          args: ["--log-level={{ spec.logLevel }}"]\n'
            "{% endif %}\n",
            "defind",
        ),
    ),
    Mistake(
        "unknown-function",
        "A filter called as a function",
        "b64encode",
        _both(
            DEPLOYMENT,
            _DEPLOYMENT_LABELS,
            "  annotations:\n    image: {{ b64encode(spec.image) }}\n",
            "b64encode",
        ),
    ),
    Mistake(
        "long-child-name",
        "A child name made from the parent's name that a long parent name overflows",
        "metadata.name",
        _either(
            SERVICE,
            _SERVICE_NAME,
            "  name: {{ name }}-frontend-service\n",
            "frontend-service",
        ),
        severity="warning",
    ),
    Mistake(
        "long-label",
        "A label made from the parent's name that a long parent name overflows",
        "component",
        _both(
            DEPLOYMENT,
            _DEPLOYMENT_LABELS,
            "    component: {{ name }}-web-frontend-tier\n",
            "component:",
        ),
        severity="warning",
    ),
    Mistake(
        "yaml-error",
        "A template whose output is not YAML",
        "not valid YAML",
        _both(
            DEPLOYMENT,
            _DEPLOYMENT_LABELS,
            "  annotations:\n    description: serves: {{ name }}\n",
            "description:",
        ),
    ),
    Mistake(
        "duplicate-key",
        "A key written twice in a child",
        "replicas",
        _both(
            DEPLOYMENT,
            "  replicas: {{ spec.replicas }}\n",
            "  replicas: 2\n",
            "replicas: 2",
        ),
    ),
    Mistake(
        "namespace",
        "A child in a namespace the kind does not allow",
        "monitoring",
        _both(SERVICE, _SERVICE_NAME, "  namespace: monitoring\n", "monitoring"),
    ),
    Mistake(
        "rbac",
        "An RBAC child without `placement.rbac`",
        "Role",
        _both(
            SERVICE,
            "      targetPort: {{ spec.port }}\n",
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
            "metadata:\n  name: {{ name }}-reader\n"
            'rules:\n  - apiGroups: [""]\n    resources: [configmaps]\n    verbs: [get]\n',
            "apiVersion: rbac",
        ),
    ),
    Mistake(
        "unknown-field",
        "An unknown field in a child",
        "loadBalancerIp",
        _both(
            SERVICE,
            "spec:\n",
            "  loadBalancerIp: 10.0.0.10\n",
            "loadBalancerIp",
        ),
    ),
    Mistake(
        "label-value",
        "A label value over 63 characters",
        "team",
        _both(
            DEPLOYMENT,
            _DEPLOYMENT_LABELS,
            "    team: storefront-web-platform-and-edge-services-for-the-customer-facing-shop\n",
            "team:",
        ),
    ),
    Mistake(
        "unknown-field-by-value",
        "An unknown field in a child, in a branch chosen by a value the examples set",
        "topologySpreadConstraint",
        (
            Placement(
                "untaken",
                (
                    _inserted(
                        DEPLOYMENT,
                        "    spec:\n",
                        "{% if spec.replicas > 3 %}\n"
                        "      topologySpreadConstraint: {maxSkew: 1}\n"
                        "{% endif %}\n",
                    ),
                ),
                (DEPLOYMENT, "topologySpreadConstraint"),
                xfail=_BY_VALUE,
            ),
        ),
    ),
    # -- between children ---------------------------------------------------------------------------
    Mistake(
        "selector-mismatch",
        "A workload selector that does not select its own pod template",
        "app=web does not select the pod template's labels",
        _either(
            DEPLOYMENT,
            "    matchLabels:\n      app: {{ name }}\n",
            "    matchLabels:\n      app: web\n",
            "app: web",
        ),
    ),
    Mistake(
        "target-port-name",
        "A Service `targetPort` by a name no container of its pods gives a port",
        "targetPort http",
        _either(
            SERVICE, "      targetPort: {{ spec.port }}\n", "      targetPort: http\n", "targetPort: http"
        ),
    ),
    # -- status rules ----------------------------------------------------------------------------
    Mistake(
        "rule-name",
        "A typo in a status rule: an unknown name",
        "sepc",
        _rule(_URL_RULE, _url("sepc.port"), _canary_url("sepc.port"), "sepc"),
    ),
    Mistake(
        "rule-path",
        "A typo in a status rule: a parent path the CRD does not have",
        "spec.prot",
        _rule(_URL_RULE, _url("spec.prot"), _canary_url("spec.prot"), "spec.prot"),
    ),
    Mistake(
        "rule-kind",
        "A status rule naming a kind that is never rendered",
        "Ingress",
        _rule(
            _URL_RULE,
            "url: \"child('Ingress', name).spec.rules[0].host\"",
            "url: \"child('Ingress', name).spec.rules[0].host if spec.canary is defined else name\"",
            "Ingress",
        ),
    ),
    Mistake(
        "rule-child-id",
        "A status rule reading `children.<id>` of no template",
        "children.deploy",
        _rule(
            _AVAILABLE_RULE,
            "status: \"condition_status(children.deploy, 'Available')\"",
            'status: "condition_status(children.deployment if spec.canary is undefined else children.deploy,'
            " 'Available')\"",
            "children.deploy",
        ),
    ),
    Mistake(
        "rule-one-child-as-list",
        "A status rule counting a template of one child as a list (`children.<id> | length`)",
        "children.deployment is one child, not a list",
        _rule(
            _AVAILABLE_RULE,
            'status: "children.deployment | length > 0"',
            'status: "spec.canary is undefined or children.deployment | length > 0"',
            "children.deployment",
        ),
    ),
    # -- examples against their CRD -----------------------------------------------------------------
    Mistake(
        "cel-rule",
        "An example its CRD's CEL rule refuses (a Network gateway outside its CIDR)",
        "gateway must be an address inside cidr",
        _once(
            "templates/network/examples/example-network.yaml",
            'gateway: "192.168.0.1"',
            'gateway: "10.0.0.1"',
            "gateway:",
        ),
        base="network",
        why_once=_NO_BRANCH_EXAMPLE,
    ),
    Mistake(
        "pattern",
        "An example that does not match a `pattern`",
        "spec.image",
        _once(EXAMPLE, "image: nginx:1.27", "image: Nginx:1.27", "image:"),
        why_once=_NO_BRANCH_EXAMPLE,
    ),
    _example_adds(
        "format",
        "An example that breaks a `format`",
        "spec.contact",
        "  contact: webmaster at example.com\n",
        "contact:",
    ),
    _example_adds("enum", "An example value outside an `enum`", "spec.tier", "  tier: gold\n", "tier:"),
    _example_adds(
        "min-properties",
        "An example with fewer properties than `minProperties`",
        "spec.env",
        "  env: {}\n",
        "env:",
    ),
    _example_adds(
        "max-properties",
        "An example with more properties than `maxProperties`",
        "spec.podLabels",
        "  podLabels: {team: shop, tier: web, zone: eu}\n",
        "podLabels:",
    ),
    _example_adds(
        "int32", "An example number outside `int32`", "spec.replicas", "  replicas: 3000000000\n", "replicas:"
    ),
    _example_adds(
        "wrong-type", "An example value of the wrong type", "spec.port", '  port: "8080"\n', "port:"
    ),
    Mistake(
        "required",
        "An example without a required field",
        "image",
        _once(EXAMPLE, _EXAMPLE_SPEC, "spec:\n  replicas: 2\n", "spec:"),
        why_once=_NO_BRANCH_EXAMPLE,
    ),
    # -- CRDs and kind.yaml --------------------------------------------------------------------------
    Mistake(
        "no-crd",
        "No CRD for the parent",
        "Web",
        (
            Placement(
                "once",
                (Edit("crds/web.yaml", WEB_CRD, None),),
                (KIND, "kind: Web"),
            ),
        ),
        severity="warning",
        why_once=_NO_BRANCH_CRD,
    ),
    Mistake(
        "no-ready-column",
        "A CRD whose `kubectl get` does not show Ready",
        "additionalPrinterColumns",
        (
            Placement(
                "once",
                (Edit("crds/web.yaml", READY_COLUMNS, ""),),
                ("crds/web.yaml", "- name: v1"),
                snippet="    - name: v1\n      served: true\n      storage: true\n      schema: ...\n",
            ),
        ),
        severity="warning",
        why_once=_NO_BRANCH_CRD,
    ),
    Mistake(
        "pruned-status",
        "A CRD whose status schema prunes what the engine writes",
        "status.conditions",
        (
            Placement(
                "once",
                (Edit("crds/web.yaml", _PRESERVED_STATUS, _GENERATION_ONLY),),
                ("crds/web.yaml", "            status:"),
                snippet=_GENERATION_ONLY,
            ),
        ),
        why_once=_NO_BRANCH_CRD,
    ),
    Mistake(
        "crd-in-kind-folder",
        "A broken CRD kept in the kind folder (found there without `--crds`)",
        "type",
        (
            Placement(
                "once",
                (
                    Edit("crds/web.yaml", WEB_CRD, None),
                    Edit(
                        "templates/web/crds/web.yaml",
                        None,
                        WEB_CRD.replace("contact: {type: string,", "contact: {type: text,"),
                    ),
                ),
                ("templates/web/crds/web.yaml", "contact:"),
                snippet="                contact: {type: text, format: email}\n",
            ),
        ),
        why_once=_NO_BRANCH_CRD,
    ),
    _kind_reads(
        "kind-field",
        "A misspelt field of kind.yaml",
        "placement",
        _TEMPLATES + "\nplacment:\n  rbac: true",
        "placment:",
    ),
    _kind_reads(
        "duplicate-kind-key",
        "A key written twice in kind.yaml",
        "templates",
        _TEMPLATES + "\ntemplates: [deployment.yaml]",
        "templates: [deployment.yaml]",
    ),
    _kind_reads(
        "after-unknown-id",
        "`after:` naming an id no template has",
        "deploy",
        "templates:\n  - deployment.yaml\n  - {file: service.yaml, after: [deploy]}",
        "after: [deploy]",
    ),
    _kind_reads(
        "after-cycle",
        "Templates waiting for each other in `after:`",
        "waits for",
        "templates:\n  - {file: deployment.yaml, after: [service]}\n"
        "  - {file: service.yaml, after: [deployment]}",
        "after: [service]",
    ),
    Mistake(
        "read-cycle",
        "Templates waiting for each other through `children.<id>`",
        "children.deployment",
        (
            Placement(
                "once",
                (
                    Edit(SERVICE, _SERVICE_NAME, _SERVICE_NAME + _READS_DEPLOYMENT),
                    Edit(
                        KIND,
                        _TEMPLATES,
                        "templates:\n  - {file: deployment.yaml, after: [service]}\n  - service.yaml",
                    ),
                ),
                (SERVICE, "children.deployment"),
                snippet=_SERVICE_NAME
                + _READS_DEPLOYMENT
                + "# and in kind.yaml:\n# templates:\n"
                + "#   - {file: deployment.yaml, after: [service]}\n#   - service.yaml\n",
            ),
        ),
        why_once="a read makes its edge wherever it is written, branch or not, when the kind loads",
    ),
)

assert WEB_KIND.count(_TEMPLATES) == 1  # the kind.yaml edits replace this one line


@dataclass(frozen=True)
class Case:
    """One placement of one mistake: what the table test runs, and the guide shows."""

    mistake: Mistake
    placement: Placement

    @property
    def id(self) -> str:
        return f"{self.mistake.slug}-{self.placement.where}"


CASES: tuple[Case, ...] = tuple(Case(m, p) for m in MISTAKES for p in m.placements)
