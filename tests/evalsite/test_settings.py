"""Settings read the environment; production mode refuses insecure defaults."""

from tests.manage_py import environ_without, manage_py


def _manage(args, env_extra, tmp_path):
    env = environ_without(
        "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE"
    )
    env.update({"EVALSITE_VAR_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": "evalsite.settings"})
    env.update(env_extra)
    return manage_py(env, *args)


def test_check_deploy_passes_in_production_mode(tmp_path):
    result = _manage(
        ["check", "--deploy", "--fail-level", "WARNING"],
        {
            "EVALSITE_PRODUCTION": "1",
            "SECRET_KEY": "k3y-" + "x9Qz7" * 12,
            "ALLOWED_HOSTS": "evalsite.example.com",
        },
        tmp_path,
    )
    assert result.returncode == 0, result.stderr + result.stdout


def test_production_mode_refuses_to_start_without_secret_key(tmp_path):
    result = _manage(["check"], {"EVALSITE_PRODUCTION": "1"}, tmp_path)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_embedded_mode_generates_a_secret_key_once_and_keeps_it(tmp_path):
    assert _manage(["check"], {}, tmp_path).returncode == 0
    key = (tmp_path / ".secret_key").read_text()
    assert len(key) >= 50
    assert _manage(["check"], {}, tmp_path).returncode == 0
    assert (tmp_path / ".secret_key").read_text() == key
    assert oct((tmp_path / ".secret_key").stat().st_mode)[-3:] == "600"


def test_a_malformed_boolean_fails_loudly(tmp_path):
    result = _manage(["check"], {"DEBUG": "maybe"}, tmp_path)
    assert result.returncode != 0
    assert "DEBUG must be a boolean" in result.stderr
