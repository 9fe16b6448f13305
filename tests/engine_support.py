"""Starting and stopping the engines the cross-engine suite (and bench/engines.py) runs on.

* PostgreSQL: the Debian server binaries (``apt-get install postgresql``; found on ``PATH`` or
  under ``/usr/lib/postgresql/<version>/bin``), a throw-away cluster made by ``initdb`` in a
  temporary folder, started by ``pg_ctl`` on 127.0.0.1 and a free port, stopped afterwards.
  PostgreSQL refuses to run as root: as root, the cluster belongs to the ``postgres`` system user
  (made by the Debian package) and the binaries run through ``runuser``.
* Spark: a ``local[2]`` session tuned for small data (2 shuffle partitions, no UI, Arrow on,
  driver on 127.0.0.1, warehouse in a temporary folder).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def postgres_bin() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl`` (newest installed version), or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3])
    )
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_server_user(command: list[str]) -> list[str]:
    """``command`` run as the ``postgres`` user when we are root (initdb refuses root)."""
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """Start a throw-away PostgreSQL cluster; yields a libpq connection string (user
    ``postgres``, database ``postgres``, trust authentication on 127.0.0.1 only).

    Raises RuntimeError (with the reason) when the server binaries or the ``postgres`` user
    (needed as root) are missing.
    """
    bindir = postgres_bin()
    if bindir is None:
        raise RuntimeError(
            "PostgreSQL server binaries not found (initdb, pg_ctl): "
            "apt-get install -y postgresql, or put them on PATH"
        )
    owner = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError as error:
            raise RuntimeError("running as root needs the 'postgres' system user") from error
    root = Path(tempfile.mkdtemp(prefix="wml-pg-"))
    root.chmod(0o755)
    if owner is not None:
        os.chown(root, owner.pw_uid, owner.pw_gid)
    data, log, port = root / "data", root / "server.log", _free_port()
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE, "check": True}
    try:
        subprocess.run(
            _as_server_user(
                [
                    str(bindir / "initdb"),
                    "-D",
                    str(data),
                    "-U",
                    "postgres",
                    "-A",
                    "trust",
                    "-E",
                    "UTF8",
                    "--no-sync",
                    "--locale=C",
                ]
            ),
            **quiet,
        )
        options = (
            f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=20 "
            "-c shared_buffers=128MB -c work_mem=64MB"
        )
        subprocess.run(
            _as_server_user(
                [
                    str(bindir / "pg_ctl"),
                    "-D",
                    str(data),
                    "-l",
                    str(log),
                    "-o",
                    options,
                    "-w",
                    "-t",
                    "60",
                    "start",
                ]
            ),
            **quiet,
        )
    except subprocess.CalledProcessError as error:
        detail = (error.stderr or b"").decode(errors="replace")
        if log.exists():
            detail += log.read_text(errors="replace")
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"could not start PostgreSQL: {detail.strip()}") from error
    try:
        yield f"host=127.0.0.1 port={port} user=postgres dbname=postgres"
    finally:
        subprocess.run(
            _as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def spark_session() -> Iterator[Any]:
    """A ``local[2]`` SparkSession for small data; stopped (and its warehouse folder removed)
    on exit. Raises ImportError without PySpark."""
    from pyspark.sql import SparkSession

    root = Path(tempfile.mkdtemp(prefix="wml-spark-"))
    session = (
        SparkSession.builder.master("local[2]")
        .appName("warehouse-ml-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.warehouse.dir", str(root / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={root}")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.sources.parallelPartitionDiscovery.parallelism", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()
        shutil.rmtree(root, ignore_errors=True)
