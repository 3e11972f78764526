"""``--scheduler`` and ``--worker-timeout`` of the commands with workers: a malformed
address is one usage line naming ``--scheduler`` and the form ``tcp://host:port`` (not
Dask's own message, after the inputs were read); ``--worker-timeout`` without
``--scheduler`` is refused, naming it, before any work (it would do nothing)."""

from __future__ import annotations

import argparse

import pytest
from conftest import one_line_exit

from penlearn.cli._workers import check_worker_arguments, scheduler_address, workers
from penlearn.cli.main import main

BAD = ["tcp//host", "tcp://host", "tcp://host:0", "tcp://host:99999", "http://host:80",
       "", " ", "host:port", "tcp://:8786", "scheduler.json", "tcp://a b:1",
       "tcp://host:8786/extra", "tcp://[::1:8786", "-1"]
GOOD = ["tcp://127.0.0.1:8786", "127.0.0.1:8786", "tls://sched.example.org:1",
        "tcp://[::1]:8786", "ws://node-7:65535", "tcp://localhost:8786/"]


@pytest.mark.parametrize("address", GOOD)
def test_well_formed_addresses_pass(address):
    assert scheduler_address(address) == address


@pytest.mark.parametrize("address", BAD)
@pytest.mark.parametrize("command", ["peaks", "learn", "report"])
def test_a_malformed_scheduler_is_one_usage_line(tmp_path, capsys, address, command):
    argv = {"peaks": ["peaks", "cov", "--penalty", "1", "--out", str(tmp_path / "o")],
            "report": ["report", "data", "--model", "m.json", "--out",
                       str(tmp_path / "r.html")],
            "learn": ["learn", "data", "--out", str(tmp_path / "m.json")]}[command]
    with pytest.raises(SystemExit) as exit_:
        main(argv + [f"--scheduler={address}"])
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert exit_.value.code == 2 and len(err) == 1, err
    assert "--scheduler" in err[0] and "tcp://host:port" in err[0], err[0]


@pytest.mark.parametrize("timeout", ["0", "5", "120"])
def test_worker_timeout_without_scheduler_is_refused_before_any_work(tmp_path, capsys,
                                                                      timeout):
    code = main(["peaks", str(tmp_path / "no-such-coverage"), "--penalty", "1", "--out",
                 str(tmp_path / "o.bed"), "--worker-timeout", timeout, "-q"])
    # refused before the (missing) coverage is even looked at
    one_line_exit(capsys, code, "--worker-timeout", "--scheduler")


def test_programmatic_arguments_are_checked_too():
    with pytest.raises(ValueError, match="--scheduler must be a Dask scheduler address"):
        check_worker_arguments(argparse.Namespace(scheduler="nonsense", worker_timeout=None))
    with pytest.raises(ValueError, match="--worker-timeout"):
        with workers(argparse.Namespace(jobs=1, scheduler=None, worker_timeout=3.0)):
            pass
    with workers(argparse.Namespace(jobs=1, scheduler=None, worker_timeout=None)) as ex:
        assert ex is None
