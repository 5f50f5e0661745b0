"""YAML with libyaml (``CSafeLoader``/``CSafeDumper``) versus pure Python (``SafeLoader``/``SafeDumper``).

Stencil parses every rendered template and every example and CRD file as YAML,
so the loader is on the reconcile path.  Run: ``python bench/bench_yaml.py [N]``
(default 300 documents: Deployments and ConfigMaps as multi-document YAML).
"""

from __future__ import annotations

import sys
from typing import Any

import yaml
from measure import cpu_seconds, table
from samples import configmap, deployment


def main(count: int = 300) -> None:
    if not yaml.__with_libyaml__:
        sys.exit("PyYAML was built without libyaml: CSafeLoader is missing")
    docs: list[dict[str, Any]] = []
    for i in range(count // 2):
        docs += [deployment(i), configmap(i)]
    for doc in docs:
        doc["metadata"].pop("managedFields")  # a rendered manifest has none
    text = yaml.dump_all(docs, Dumper=yaml.CSafeDumper, sort_keys=False)
    assert list(yaml.load_all(text, Loader=yaml.CSafeLoader)) == list(
        yaml.load_all(text, Loader=yaml.SafeLoader)
    )

    def load(loader: Any) -> Any:
        return lambda: list(yaml.load_all(text, Loader=loader))

    def dump(dumper: Any) -> Any:
        return lambda: yaml.dump_all(docs, Dumper=dumper, sort_keys=False)

    rows = []
    for operation, fast, slow in (
        ("load", load(yaml.CSafeLoader), load(yaml.SafeLoader)),
        ("dump", dump(yaml.CSafeDumper), dump(yaml.SafeDumper)),
    ):
        c_seconds, py_seconds = cpu_seconds(fast), cpu_seconds(slow)
        rows.append(
            (operation, c_seconds / len(docs) * 1e6, py_seconds / len(docs) * 1e6, py_seconds / c_seconds)
        )
    print(
        f"{len(docs)} documents, {len(text) / len(docs) / 1024:.1f} KiB of YAML each; "
        f"PyYAML {yaml.__version__}"
    )
    print(table(["operation", "libyaml µs/doc", "pure Python µs/doc", "speed-up with libyaml"], rows))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
