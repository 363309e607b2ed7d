"""The compose file and the Kubernetes manifest describe the layout `deploy/haproxy.cfg` is tested with.

They cannot be run here (no Docker daemon, no cluster); these checks keep them from drifting from the
configuration `tests/test_replicas.py` runs: the same variables, replica count, port and file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from server.config import DEFAULT_PORT
from server.routes import EPISODE_ID_HEADER

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
CONFIG = (DEPLOY / "haproxy.cfg").read_text(encoding="utf-8")
SLOTS = re.findall(r'^\s*server (replica-\d) "\$\{(REPLICA_\d)-', CONFIG, re.MULTILINE)


def variables() -> set[str]:
    """The environment variables `haproxy.cfg` reads (its comments left out)."""
    settings = "\n".join(line for line in CONFIG.splitlines() if not line.lstrip().startswith("#"))
    return set(re.findall(r"\$\{([A-Z0-9_]+)-", settings))


def k8s() -> dict[str, dict[str, Any]]:
    docs = list(yaml.safe_load_all((DEPLOY / "kubernetes.yaml").read_text(encoding="utf-8")))
    return {f"{d['kind']}/{d['metadata']['name']}": d for d in docs}


def test_the_config_routes_on_the_header_the_server_sends_and_the_ids_the_api_carries() -> None:
    assert f"res.hdr({EPISODE_ID_HEADER.lower()})" in CONFIG
    assert "url_param(episode_id)" in CONFIG and "json_query('$.episode_id')" in CONFIG
    assert [slot for slot, _ in SLOTS] == ["replica-1", "replica-2", "replica-3"]
    assert variables() == {"LB_BIND", "STATS_BIND", "LB_MAXCONN"} | {var for _, var in SLOTS}


def test_compose_runs_one_service_per_slot_and_sets_every_variable() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))
    services = compose["services"]
    balancer = services.pop("balancer")
    assert set(services) == {slot for slot, _ in SLOTS}
    for slot, var in SLOTS:
        assert balancer["environment"][var] == f"{slot}:{DEFAULT_PORT}"
        assert services[slot]["expose"] == [str(DEFAULT_PORT)]
    assert variables() - {"LB_MAXCONN"} <= set(balancer["environment"])
    assert "./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro" in balancer["volumes"]


def test_kubernetes_runs_one_pod_per_slot_behind_one_haproxy_with_the_config_mounted() -> None:
    objects = k8s()
    replicas, lb = objects["StatefulSet/bug-triage"], objects["Deployment/bug-triage-lb"]
    assert replicas["spec"]["replicas"] == len(SLOTS)
    assert lb["spec"]["replicas"] == 1, "the stick table lives in one HAProxy's memory"
    assert replicas["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] == DEFAULT_PORT
    container = lb["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in container["env"]}
    service = replicas["spec"]["serviceName"]
    for n, (_, var) in enumerate(SLOTS):
        assert env[var].startswith(f"bug-triage-{n}.{service}.") and env[var].endswith(f":{DEFAULT_PORT}")
    assert variables() - {"LB_MAXCONN"} <= set(env)
    assert objects[f"Service/{service}"]["spec"]["clusterIP"] == "None"
    volume = lb["spec"]["template"]["spec"]["volumes"][0]
    assert container["volumeMounts"][0]["mountPath"] == "/usr/local/etc/haproxy"
    kustomization = yaml.safe_load((DEPLOY / "kustomization.yaml").read_text(encoding="utf-8"))
    assert kustomization["resources"] == ["kubernetes.yaml"]
    assert kustomization["configMapGenerator"] == [{"name": volume["configMap"]["name"], "files": ["haproxy.cfg"]}]
