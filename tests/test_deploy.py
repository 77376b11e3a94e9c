"""The deployment files in ``deploy/`` say what the README and the failover bench rely on: each replica runs the
README's app command on its own port with settings the README documents, comes back when killed, and stops as
``bench/classroom_failover.py`` stops it; nginx sends each replica's tabs to the other when it is down."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UNIT = (ROOT / "deploy" / "bert-lab@.service").read_text(encoding="utf-8")
NGINX = (ROOT / "deploy" / "nginx-bert-lab.conf").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def unit_values(key: str) -> list[str]:
    return re.findall(rf"^{key}=(.*)$", UNIT, flags=re.MULTILINE)


def test_a_replica_service_runs_the_app_on_its_instance_port_with_documented_settings():
    (command,) = unit_values("ExecStart")
    assert " -m streamlit run serve.py " in command and "--server.port %i" in command
    assert "--server.address 127.0.0.1" in command  # reached through nginx only
    for setting in unit_values("Environment"):
        name = setting.split("=", 1)[0]
        assert f"| `{name}` |" in README or name == "HF_HUB_OFFLINE", name
    assert unit_values("Restart") == ["always"] and unit_values("KillMode") == ["control-group"]
    assert unit_values("TimeoutStopSec") == ["20"]  # Replica.stop in the bench: SIGTERM, SIGKILL after 20 s


def test_nginx_keeps_a_tab_on_its_replica_and_fails_over_to_the_other():
    upstreams = re.findall(r"upstream (\w+) \{ server ([\d.:]+) [^;]*; server ([\d.:]+) backup; \}", NGINX)
    assert upstreams == [  # each replica the other's backup
        ("bert_lab_a", "127.0.0.1:8501", "127.0.0.1:8502"),
        ("bert_lab_b", "127.0.0.1:8502", "127.0.0.1:8501"),
    ]
    for header in ("Upgrade $http_upgrade", "Connection $bert_lab_connection"):  # the websocket passes through
        assert f"proxy_set_header {header};" in NGINX
    assert 'Set-Cookie "replica=$bert_lab_replica' in NGINX  # the balancer keeps a new browser where it landed
