# Stencil's engine image: `stencil run` as a non-root user, with the kinds of templates/
# at /etc/stencil/kinds.  Checked without Docker by hack/check-dockerfile, which runs
# the builder stage's steps in a temporary directory and lints this file.

ARG PYTHON_IMAGE=python:3.11.13-slim-bookworm

# -- builder: the project and its dependencies in a virtual environment --------------
FROM ${PYTHON_IMAGE} AS builder

ARG VENV=/opt/stencil
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src
# Metadata first, so a change to the code alone does not invalidate the dependency layer.
COPY pyproject.toml README.md ./
COPY engine/ engine/
RUN python -m venv "$VENV" \
    && "$VENV/bin/pip" install --no-cache-dir . \
    && "$VENV/bin/python" -m compileall -q "$VENV/lib"

# -- runtime: the environment and the kinds, nothing else ------------------------------
FROM ${PYTHON_IMAGE}

ARG VENV=/opt/stencil
# Bytecode was compiled in the builder: with a read-only root nothing needs writing.
ENV PATH="$VENV/bin:$PATH" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    HOME=/tmp

RUN groupadd --gid 65532 stencil \
    && useradd --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin stencil

COPY --from=builder $VENV $VENV
COPY templates/ /etc/stencil/kinds/

# Numeric, so that Kubernetes can verify runAsNonRoot without reading /etc/passwd.
USER 65532:65532
EXPOSE 8443 8081

ENTRYPOINT ["stencil", "run"]
CMD ["--templates", "/etc/stencil/kinds"]
