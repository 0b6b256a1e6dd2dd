"""Settings, Docker files and README commands agree, and production passes check --deploy."""

import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_production_settings_pass_check_deploy_with_no_warning():
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_SETTINGS_MODULE": "studio.settings.production",
        "DJANGO_SECRET_KEY": "x" * 20 + "Y7#kq9Lz!vB2@wR5pT8^nM3&cF6*hJ1%dG4",
        "DJANGO_ALLOWED_HOSTS": "studio.example.com",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_compose_file_parses_and_runs_web_worker_db_redis():
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"web", "worker", "db", "redis"}
    assert services["web"]["image"] == services["worker"]["image"]
    assert all("healthcheck" in service for service in services.values())
    assert "pgdata" in compose["volumes"]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```(?:bash|sh)?\n(.+?)\n```", text, flags=re.S)[:2]


def test_readme_starts_with_the_two_commands_and_ci_runs_the_second():
    up, test = _readme_commands()
    assert up.strip() == "bin/up" and test.strip() == "bin/test"
    assert "bin/test" in (ROOT / ".ci" / "run").read_text()


def test_image_entry_command_is_the_readme_command():
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    entrypoint = re.search(r'^ENTRYPOINT \["([^"]+)"\]', dockerfile, flags=re.M).group(1)
    assert entrypoint == _readme_commands()[0].strip()


def test_compose_redirects_to_https_by_default():
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
    for name in ("web", "worker"):
        value = compose["services"][name]["environment"]["DJANGO_SECURE_SSL_REDIRECT"]
        assert value.endswith(":-True}"), value  # check --deploy W008 unless overridden


def _gunicorn_command() -> str:
    up = (ROOT / "bin" / "up").read_text()
    return re.search(r"exec gunicorn (.+?)(?<!\\)\n", up, flags=re.S).group(1)


def test_gunicorn_uses_threads_and_a_control_socket_per_instance():
    command = _gunicorn_command()
    assert "--worker-class gthread" in command and "--threads" in command
    assert "--keep-alive" in command
    # gunicorn's default control socket is one per user: a second bin/up would take it over.
    socket = re.search(r'--control-socket "([^"]+)"', command).group(1)
    assert socket.startswith("var/") and "$port" in socket


def test_collected_static_files_are_compressed_hashed_and_include_plotly():
    from studio.core.staticfinders import PLOTLY_STATIC_PATH, PlotlyJsFinder

    listed = [
        f"{storage.prefix}/{path}" for path, storage in PlotlyJsFinder().list(ignore_patterns=[])
    ]
    assert listed == [PLOTLY_STATIC_PATH]  # collectstatic copies (and compresses) it
    for module in ("production", "local"):
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                "import django; django.setup(); from django.conf import settings; "
                "print(settings.STORAGES['staticfiles']['BACKEND'], "
                "settings.WHITENOISE_USE_FINDERS)",
            ],
            cwd=ROOT,
            env={
                **os.environ,
                "DJANGO_SETTINGS_MODULE": f"studio.settings.{module}",
                "DJANGO_SECRET_KEY": "x" * 50,
                "DJANGO_ALLOWED_HOSTS": "localhost",
                "DJANGO_DEBUG": "False",
            },
            capture_output=True,
            text=True,
        )
        assert result.stdout.split() == [
            "whitenoise.storage.CompressedManifestStaticFilesStorage",
            "False",
        ], (module, result.stdout + result.stderr)
