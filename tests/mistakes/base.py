"""The known-good kinds every mistake is made in, as the files of a project folder.

``web`` is written here rather than taken from ``templates/``: its CRD has one field
for each kind of check an example can fail (a pattern, a format, an enum, bounds on
properties, an int32, a required field), and ``spec.canary`` is a field no example
sets, so ``{% if spec.canary is defined %}`` is a branch no example takes.  ``network``
is the shipped Network kind, read from the repository, for the mistake its CRD's CEL
rule is there to catch.  Both lint clean, which the table test checks too, so what
lint says about a case is said about its mistake alone.
"""

from __future__ import annotations

from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]

# The branch no example takes: examples never set spec.canary.
UNTAKEN = "{% if spec.canary is defined %}"

WEB_KIND = """\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: example.com/v1
  kind: Web
templates: [deployment.yaml, service.yaml]
status:
  conditions:
    - type: Available
      status: "condition_status(children.deployment, 'Available')"
  fields:
    url: "'http://' ~ name ~ '.' ~ namespace ~ ':' ~ spec.port"
"""

WEB_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ name }}
  labels:
    app: {{ name }}
spec:
  replicas: {{ spec.replicas }}
  selector:
    matchLabels:
      app: {{ name }}
  template:
    metadata:
      labels:
        app: {{ name }}
    spec:
      containers:
        - name: web
          image: {{ spec.image }}
          ports:
            - containerPort: {{ spec.port }}
"""

WEB_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: {{ name }}
spec:
  selector:
    app: {{ name }}
  ports:
    - port: 80
      targetPort: {{ spec.port }}
"""

WEB_EXAMPLE = """\
apiVersion: example.com/v1
kind: Web
metadata:
  name: shop
spec:
  image: nginx:1.27
"""

# What `kubectl get webs` shows: Ready, its reason and the age.
READY_COLUMNS = """\
      additionalPrinterColumns:
        - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
        - {name: Reason, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].reason'}
        - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
"""
WEB_CRD = (
    """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: webs.example.com
spec:
  group: example.com
  names: {kind: Web, plural: webs, singular: web}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
"""
    + READY_COLUMNS
    + """\
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-validations:
            - rule: self.metadata.name.size() <= 50
              message: a Web name is at most 50 characters
          required: [spec]
          properties:
            apiVersion: {type: string}
            kind: {type: string}
            metadata: {type: object}
            spec:
              type: object
              required: [image]
              properties:
                image:
                  type: string
                  pattern: '^[a-z0-9][a-z0-9./-]*(:[A-Za-z0-9._-]+)?$'
                replicas: {type: integer, format: int32, minimum: 0, default: 1}
                port: {type: integer, format: int32, minimum: 1, maximum: 65535, default: 8080}
                tier: {type: string, enum: [basic, premium], default: basic}
                contact: {type: string, format: email}
                podLabels:
                  type: object
                  additionalProperties: {type: string}
                  maxProperties: 2
                env:
                  type: object
                  additionalProperties: {type: string}
                  minProperties: 1
                logLevel: {type: string, enum: [debug, info, warn]}
                canary: {type: boolean}
            status:
              type: object
              x-kubernetes-preserve-unknown-fields: true
"""
)

WEB: dict[str, str] = {
    "templates/web/kind.yaml": WEB_KIND,
    "templates/web/deployment.yaml": WEB_DEPLOYMENT,
    "templates/web/service.yaml": WEB_SERVICE,
    "templates/web/examples/shop.yaml": WEB_EXAMPLE,
    "crds/web.yaml": WEB_CRD,
}


def network() -> dict[str, str]:
    """The shipped Network kind, as it is in the repository now (its kind.yaml writes its CRD)."""
    files = ["templates/network/kind.yaml", "templates/network/configmap.yaml"]
    files += [
        str(p.relative_to(REPOSITORY))
        for p in sorted((REPOSITORY / "templates/network/examples").glob("*.yaml"))
    ]
    return {name: (REPOSITORY / name).read_text() for name in files}


BASES = {"web": lambda: dict(WEB), "network": network}
