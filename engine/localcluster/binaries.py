"""Finding, or building from Go modules, the binaries of a local control plane.

A test machine here has Go and a Go module proxy but no way to download the
release binaries that kind, minikube or setup-envtest fetch.  So the binaries
are built from source, once, into a cache outside the repository that is keyed
by the component's version and the Go version that built it.

Order of preference for every binary:

1. an explicit path in ``STENCIL_<NAME>`` (``STENCIL_KUBE_APISERVER=/opt/kube-apiserver``);
2. ``$KUBEBUILDER_ASSETS/<name>`` (controller-runtime's envtest layout);
3. the cache (``$STENCIL_CACHE_DIR`` or ``~/.cache/stencil``), built on demand.

``k8s.io/kubernetes`` cannot be ``go install``-ed: its go.mod replaces every
``k8s.io/*`` staging module with a ``./staging/...`` path.  We build it from a
throw-away wrapper module that requires it and replaces each staging module
with the matching published ``v0.X.Y`` release, a list generated from the real
go.mod.  etcd's server module has the same problem for the same reason.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

KUBERNETES_VERSION = "v1.34.4"
ETCD_VERSION = "v3.6.16"
KWOK_VERSION = "v0.7.0"
HELM_VERSION = "v4.3.1"
KRO_VERSION = "v0.9.4"

KUBE_COMMANDS = ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl")


class BuildError(RuntimeError):
    """A component could not be built; the message names it and quotes Go."""


@dataclass(frozen=True)
class Component:
    """One cached build: the binaries it yields and how to make them."""

    key: str  # cache folder name, e.g. "kubernetes-v1.34.4"
    binaries: tuple[str, ...]


KUBERNETES = Component(f"kubernetes-{KUBERNETES_VERSION}", KUBE_COMMANDS)
ETCD = Component(f"etcd-{ETCD_VERSION}", ("etcd",))
KWOK = Component(f"kwok-{KWOK_VERSION}", ("kwok",))
HELM = Component(f"helm-{HELM_VERSION}", ("helm",))
COMPONENTS = (ETCD, KUBERNETES, KWOK, HELM)
# kro is what the benchmarks compare Stencil with, not part of a plane: `stencil cluster
# prepare` leaves it out, and it is built when something asks for it by name.
KRO = Component(f"kro-{KRO_VERSION}", ("kro",))
_BY_BINARY = {name: c for c in (*COMPONENTS, KRO) for name in c.binaries}


def cache_root() -> Path:
    explicit = os.environ.get("STENCIL_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "stencil"


def go_version() -> str:
    try:
        out = subprocess.run(
            ["go", "env", "GOVERSION"], check=True, capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise BuildError(f"Go is needed to build the control plane binaries: {exc}") from exc
    return out


def component_dir(component: Component, go: str | None = None) -> Path:
    return cache_root() / "bin" / f"{component.key}-{go or go_version()}"


def _env_name(binary: str) -> str:
    return "STENCIL_" + binary.upper().replace("-", "_")


def find(binary: str) -> Path | None:
    """Where ``binary`` already is, without building anything."""
    explicit = os.environ.get(_env_name(binary))
    if explicit:
        if not Path(explicit).is_file():
            # Falling back to a build would hide the typo the user needs to see.
            raise BuildError(f"{_env_name(binary)}={explicit} is not a file")
        return Path(explicit)
    assets = os.environ.get("KUBEBUILDER_ASSETS")
    if assets and (Path(assets) / binary).is_file():
        return Path(assets) / binary
    component = _BY_BINARY[binary]
    root = cache_root() / "bin"
    if root.is_dir():
        # Any Go version's build of the right component version will do for
        # finding; ensure() prefers the current Go's and builds it if absent.
        for candidate in sorted(root.glob(f"{component.key}-go*"), reverse=True):
            if (candidate / binary).is_file():
                return candidate / binary
    return None


def ensure(binaries: Iterable[str], log: _Log | None = None) -> dict[str, Path]:
    """Paths to every named binary, building the missing components."""
    log = log or _Log()
    paths: dict[str, Path] = {}
    for binary in binaries:
        found = find(binary)
        if found is None:
            component = _BY_BINARY[binary]
            _build(component, log)
            found = find(binary)
            if found is None:
                raise BuildError(f"{component.key}: build finished but {binary} is missing")
        paths[binary] = found
    return paths


class _Log:
    def __call__(self, message: str) -> None:
        print(f"[stencil binaries] {message}", file=sys.stderr, flush=True)


def _build(component: Component, log: _Log) -> None:
    builder = {
        KUBERNETES.key: _build_kubernetes,
        ETCD.key: _build_etcd,
        KWOK.key: _build_kwok,
        HELM.key: _build_helm,
        KRO.key: _build_kro,
    }[component.key]
    _build_into(component_dir(component), component.key, builder, log)


def _build_into(target: Path, what: str, builder: Callable[[Path, _Log], None], log: _Log) -> None:
    """Run ``builder`` into a staging folder beside ``target``, then put it in place whole."""
    log(f"building {what} into {target} (a cold build takes minutes)")
    started = time.monotonic()
    staging = Path(tempfile.mkdtemp(prefix=f".{what}-", dir=_ensure_dir(target.parent)))
    try:
        builder(staging, log)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log(f"built {what} in {time.monotonic() - started:.0f}s")


def ensure_module(name: str, source: Path, log: _Log | None = None) -> Path:
    """The binary ``name`` built from the Go main module in the folder ``source``.

    For a program of this checkout's own (the benchmark's Go floor) rather than a
    published component: its go.mod and go.sum pin the modules, which come from the
    module proxy like the plane's; the build is cached by the digest of the module's
    files and the Go version, so an edit rebuilds it.  ``STENCIL_<NAME>`` overrides.
    """
    explicit = os.environ.get(_env_name(name))
    if explicit:
        if not Path(explicit).is_file():
            raise BuildError(f"{_env_name(name)}={explicit} is not a file")
        return Path(explicit)
    target = cache_root() / "bin" / f"{name}-{module_digest(source)}-{go_version()}"
    if not (target / name).is_file():

        def compile_module(out: Path, log: _Log) -> None:
            # -mod=readonly: the checkout's go.mod and go.sum are read, never rewritten.
            args = ["build", "-trimpath", "-ldflags", "-s -w", "-o", str(out / name), "."]
            _go(args, source, f"compile {name}", log, env={"GOFLAGS": "-mod=readonly -buildvcs=false"})

        _build_into(target, name, compile_module, log or _Log())
    return target / name


def module_digest(source: Path) -> str:
    """A digest of a Go module's go.mod, go.sum and Go files, names and contents."""
    digest = hashlib.sha256()
    files = sorted(p for p in source.iterdir() if p.name in ("go.mod", "go.sum") or p.suffix == ".go")
    if not any(p.name == "go.mod" for p in files):
        raise BuildError(f"{source}: no go.mod, not a Go module")
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def _ensure_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _go(args: Sequence[str], cwd: Path, what: str, log: _Log, env: dict[str, str] | None = None) -> str:
    # GOTOOLCHAIN=auto (unless the caller chose otherwise) lets an older Go fetch,
    # through the module proxy, the toolchain a component's go.mod asks for; a
    # Go that is new enough builds with itself.  `go env -w GOTOOLCHAIN=local`
    # alone would make a too-old Go fail instead.
    toolchain = os.environ.get("GOTOOLCHAIN", "auto")
    full_env = {**os.environ, "CGO_ENABLED": "0", "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": toolchain}
    full_env.update(env or {})
    log(f"{what}: go {' '.join(args[:3])}{' ...' if len(args) > 3 else ''}")
    # A session of its own, so that on Ctrl-C or SIGTERM we can stop go and the
    # compilers it runs together instead of leaving them to finish unwatched.
    proc = subprocess.Popen(
        ["go", *args],
        cwd=cwd,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    done = threading.Event()
    started = time.monotonic()

    def heartbeat() -> None:
        while not done.wait(30):
            log(f"{what}: still working ({time.monotonic() - started:.0f}s)")

    thread = threading.Thread(target=heartbeat, daemon=True)
    thread.start()
    try:
        output, _ = proc.communicate()
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    finally:
        done.set()
    if proc.returncode != 0:
        raise BuildError(f"{what} failed (go {' '.join(args)}):\n{output[-6000:]}")
    return output


def _wrapper(directory: Path, module_path: str, version: str, replaces: dict[str, str]) -> None:
    lines = ["module stencil.local/build", "", "go 1.24", "", f"require {module_path} {version}", ""]
    for old, new in sorted(replaces.items()):
        lines.append(f"replace {old} => {new}")
    (directory / "go.mod").write_text("\n".join(lines) + "\n")


def _download_gomod(
    module: str, version: str, cwd: Path, log: _Log, env: dict[str, str] | None = None
) -> str:
    out = _go(["mod", "download", "-json", f"{module}@{version}"], cwd, f"download {module}", log, env)
    info = json.loads(out[out.index("{") :])
    return Path(info["GoMod"]).read_text()


_RELEASE = re.compile(r"v(?P<major>\d+)\.(?P<minor>\d+)\.(?P<patch>\d+)(?P<suffix>[-+].*)?")
_STAGING_REPLACE = re.compile(r"^\s*(?:replace\s+)?(k8s\.io/[\w.\-/]+)\s+=>\s+\./staging/", re.M)


def staging_replacements(kubernetes_gomod: str, kubernetes_version: str) -> dict[str, str]:
    """Map each staging module replaced in k8s.io/kubernetes's go.mod to its release.

    Kubernetes v1.Y.Z publishes its staging modules as v0.Y.Z (and v1.Y.Z-rc.N
    as v0.Y.Z-rc.N).
    """
    match = _RELEASE.fullmatch(kubernetes_version)
    if match is None:
        raise BuildError(f"not a Kubernetes release version: {kubernetes_version!r}")
    staging_version = f"v0.{match['minor']}.{match['patch']}{match['suffix'] or ''}"
    modules = _STAGING_REPLACE.findall(kubernetes_gomod)
    if not modules:
        raise BuildError("found no ./staging replace directives in k8s.io/kubernetes go.mod")
    return {m: f"{m} {staging_version}" for m in modules}


def version_ldflags(version: str) -> str:
    """-X flags stamping the release into component-base and client-go."""
    major, minor = version.lstrip("v").split(".")[:2]
    values = {
        "gitVersion": version,
        "gitMajor": major,
        "gitMinor": minor,
        "gitTreeState": "clean",
        "gitCommit": "0000000000000000000000000000000000000000",
        "buildDate": "1970-01-01T00:00:00Z",
    }
    flags = ["-s", "-w"]
    for package in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        flags += [f"-X {package}.{name}={value}" for name, value in values.items()]
    return " ".join(flags)


def _build_kubernetes(out: Path, log: _Log) -> None:
    work = Path(tempfile.mkdtemp(prefix="stencil-k8s-build-"))
    try:
        _wrapper(work, "k8s.io/kubernetes", KUBERNETES_VERSION, {})
        gomod = _download_gomod("k8s.io/kubernetes", KUBERNETES_VERSION, work, log)
        replaces = staging_replacements(gomod, KUBERNETES_VERSION)
        _wrapper(work, "k8s.io/kubernetes", KUBERNETES_VERSION, replaces)
        (work / "tools.go").write_text("package build\n")
        packages = [f"k8s.io/kubernetes/cmd/{name}" for name in KUBE_COMMANDS]
        versioned = [f"{p}@{KUBERNETES_VERSION}" for p in packages]
        _go(["get", *versioned], work, "resolve kubernetes modules", log)
        ldflags = version_ldflags(KUBERNETES_VERSION)
        _go(
            ["build", "-trimpath", "-ldflags", ldflags, "-o", str(out), *packages],
            work,
            f"compile {', '.join(KUBE_COMMANDS)}",
            log,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _build_etcd(out: Path, log: _Log) -> None:
    work = Path(tempfile.mkdtemp(prefix="stencil-etcd-build-"))
    try:
        _wrapper(work, "go.etcd.io/etcd/server/v3", ETCD_VERSION, {})
        (work / "tools.go").write_text("package build\n")
        _go(["get", f"go.etcd.io/etcd/server/v3@{ETCD_VERSION}"], work, "resolve etcd modules", log)
        _go(
            ["build", "-trimpath", "-ldflags", "-s -w", "-o", str(out / "etcd"), "go.etcd.io/etcd/server/v3"],
            work,
            "compile etcd",
            log,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _go_install(module_cmd: str, version: str, out: Path, log: _Log, ldflags: str = "-s -w") -> None:
    _go(
        ["install", "-trimpath", "-ldflags", ldflags, f"{module_cmd}@{version}"],
        out,
        f"install {module_cmd}",
        log,
        env={"GOBIN": str(out), "GOFLAGS": ""},
    )


def _build_kwok(out: Path, log: _Log) -> None:
    _go_install("sigs.k8s.io/kwok/cmd/kwok", KWOK_VERSION, out, log)


def helm_ldflags(helm_version: str) -> str:
    """-X flags that helm's Makefile sets and ``go install`` alone leaves at defaults.

    Without them ``helm version`` says "v4.3" rather than the release.  Helm 4 reads the
    Kubernetes version it renders for (``.Capabilities.KubeVersion``) from its client-go
    module in the binary's build information, which ``go install`` keeps, so unlike
    Helm 3 that needs no flag.
    """
    package = f"helm.sh/helm/{helm_version.split('.')[0]}/internal/version"
    return f"-s -w -X {package}.version={helm_version} -X {package}.gitTreeState=clean"


def _build_helm(out: Path, log: _Log) -> None:
    _go_install("helm.sh/helm/v4/cmd/helm", HELM_VERSION, out, log, ldflags=helm_ldflags(HELM_VERSION))


def _build_kro(out: Path, log: _Log) -> None:
    """kro's controller, named ``kro``, with the CRDs of the same release beside it in ``crds/``.

    The CRDs are not compiled in: they ship in the module's ``helm/crds``, so they are taken
    from the module cache that the download fills.
    """
    args = ["mod", "download", "-json", f"github.com/kubernetes-sigs/kro@{KRO_VERSION}"]
    downloaded = _go(args, out, "download kro", log, env={"GOFLAGS": ""})
    info = json.loads(downloaded[downloaded.index("{") :])
    _go_install("github.com/kubernetes-sigs/kro/cmd/controller", KRO_VERSION, out, log)
    (out / "controller").rename(out / "kro")
    shutil.copytree(Path(info["Dir"]) / "helm" / "crds", out / "crds")
    # The module cache is read-only; the copies must not be, or replacing the build fails.
    for crd in (out / "crds").iterdir():
        crd.chmod(0o644)
    (out / "crds").chmod(0o755)


ALL_BINARIES = tuple(name for c in COMPONENTS for name in c.binaries)


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Build (or find) every binary and print where each one is.

    An argument ``NAME=FOLDER`` names a Go main module of the checkout (``ensure_module``);
    with only those, no control-plane binary is built.
    """
    given = list(argv if argv is not None else sys.argv[1:])
    modules = dict(arg.split("=", 1) for arg in given if "=" in arg)
    names = [arg for arg in given if "=" not in arg] or ([] if modules else list(ALL_BINARIES))
    unknown = [n for n in names if n not in _BY_BINARY]
    if unknown:
        print(f"error: unknown binaries {unknown}; known: {', '.join(ALL_BINARIES)}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _interrupted)  # unwind, so a running go build is stopped too
    try:
        paths = ensure(names)
        paths.update({name: ensure_module(name, Path(folder)) for name, folder in modules.items()})
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    for name, path in paths.items():
        print(f"{name}\t{path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
