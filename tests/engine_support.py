"""Starting and stopping the engines the cross-engine suite (and bench/engines.py) runs on.

* PostgreSQL: the Debian server binaries (``apt-get install postgresql``; found on ``PATH`` or
  under ``/usr/lib/postgresql/<version>/bin``), a throw-away cluster made by ``initdb`` in a
  temporary folder, started by ``pg_ctl`` on 127.0.0.1 and a free port, stopped afterwards.
  PostgreSQL refuses to run as root: as root, the cluster belongs to the ``postgres`` system user
  (made by the Debian package) and the binaries run through ``runuser``.
* Spark: a session tuned for small data (2 shuffle partitions, no UI, Arrow on, driver on
  127.0.0.1, warehouse in a temporary folder), on ``local[2]`` or on a standalone cluster
  started here: a master and two workers of one core each, all on 127.0.0.1, run by PySpark's
  own ``bin/spark-class`` (the pip package ships no start scripts; Java 17+). PySpark drives
  one SparkContext per process, so :class:`SparkSessions` keeps one session alive at a time.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
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


def _spark_class() -> Path:
    """PySpark's ``bin/spark-class``, which runs a Spark daemon's main class in a JVM."""
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


def _log_tail(path: Path, lines: int = 20) -> str:
    text = path.read_text(errors="replace") if path.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


def _stop_group(process: subprocess.Popen) -> None:
    """End a daemon started in its own process group, with what it started (a worker's
    executors): SIGTERM, then SIGKILL after 20 s."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _alive_workers(web_ui: int) -> int:
    """How many workers the master's JSON status page lists as ALIVE (0 while it is not up)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{web_ui}/json/", timeout=5) as reply:
            status = json.load(reply)
    except OSError:
        return 0
    return sum(worker["state"] == "ALIVE" for worker in status["workers"])


CLUSTER_EXECUTORS = 2
"""The workers of :func:`spark_cluster`, and so the executors of a session on it."""


@contextlib.contextmanager
def spark_cluster(
    workers: int = CLUSTER_EXECUTORS, memory: str = "768m", timeout: float = 180
) -> Iterator[str]:
    """Start a standalone Spark cluster on 127.0.0.1; yields its master URL
    ``spark://127.0.0.1:<port>``.

    A master (its port and web UI port chosen free) and ``workers`` workers of one core and
    ``memory`` each, every JVM bound to 127.0.0.1 (``SPARK_LOCAL_IP``, ``--host``) with its
    log, work and scratch folders in one temporary folder. Returns once the master's JSON page
    lists every worker ALIVE. On exit the daemons are ended, each with its process group (a
    worker's executors too), and the folder removed.

    Raises RuntimeError (with the tail of the log) when a daemon ends early or the workers are
    not registered within ``timeout`` seconds; ImportError without PySpark.
    """
    spark_class = _spark_class()
    root = Path(tempfile.mkdtemp(prefix="wml-spark-cluster-"))
    port, web_ui = _free_port(), _free_port()
    env = {
        **os.environ,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_LOCAL_DIRS": str(root / "scratch"),
        "SPARK_LOG_DIR": str(root / "logs"),
        "SPARK_DAEMON_MEMORY": "256m",
        "SPARK_DAEMON_JAVA_OPTS": DAEMON_JAVA_OPTIONS,
        "SPARK_MASTER_OPTS": "-Dspark.master.rest.enabled=false",  # no fixed port 6066
    }
    daemons: list[tuple[subprocess.Popen, Path]] = []

    def start(name: str, *arguments: str) -> None:
        log = root / "logs" / f"{name}.log"
        log.parent.mkdir(exist_ok=True)
        with log.open("wb") as output:
            process = subprocess.Popen(
                [str(spark_class), *arguments], env=env, stdin=subprocess.DEVNULL,
                stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        daemons.append((process, log))

    try:
        start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
              "--port", str(port), "--webui-port", str(web_ui))  # fmt: skip
        for i in range(workers):
            start(
                f"worker-{i}", "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                "--webui-port", str(_free_port()), "--cores", "1", "--memory", memory,
                "--work-dir", str(root / f"work-{i}"), f"spark://127.0.0.1:{port}",
            )  # fmt: skip
        deadline = time.monotonic() + timeout
        while _alive_workers(web_ui) < workers:
            for process, log in daemons:
                if process.poll() is not None:
                    raise RuntimeError(
                        f"{log.stem} ended ({process.returncode}):\n{_log_tail(log)}"
                    )
            if time.monotonic() > deadline:
                tails = "\n".join(f"{log.stem}:\n{_log_tail(log)}" for _, log in daemons)
                raise RuntimeError(f"{workers} workers not registered in {timeout} s:\n{tails}")
            time.sleep(0.5)
        yield f"spark://127.0.0.1:{port}"
    finally:
        for process, _ in reversed(daemons):  # workers (and their executors), then the master
            _stop_group(process)
        shutil.rmtree(root, ignore_errors=True)


JAVA_OPTIONS = "-XX:+UseParallelGC"
"""The Spark JVMs' options for short statements on small heaps: the throughput collector
(8% less of the driver's CPU than the default G1 over this suite's Spark cases). The quick C1
compiler alone (``-XX:TieredStopAtLevel=1``) was tried: less CPU on the short statements of
``value_rules`` (77.7 s to 51.6 s), but the whole suite took 1171.7 s with it and 1053.6 s
without, on one clean clone and one machine: C2 pays back on the longer measure statements."""

CLUSTER_JAVA_OPTIONS = f"{JAVA_OPTIONS} -XX:TieredStopAtLevel=1"
"""The cluster's executors' options: the quick C1 compiler alone. An executor lives for the
cluster's few cases only (the driver, shared with ``local[2]``, is warm by then), and C2's
compilations of its short tasks cost more than they return: the cluster's cases
``naive_bayes``, ``tan`` and ``linear_discriminant`` after a warm driver took 81.5 s wall with
the driver's options and 57.1 s with these (machine CPU of the run 203.1 s and 166.4 s)."""

DAEMON_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
"""The standalone master's and workers' options: they only register workers and start
executors (the run above: 166.4 s of machine CPU, 158.9 s with these)."""


GENERATED_CLASSES = 4000
"""The generated classes the driver keeps compiled (Spark's
``spark.sql.codegen.cache.maxEntries``, 100 by default): a class whose source code was compiled
before in the run is taken from the cache instead of being compiled by Janino again."""


def partitions(master: str) -> str:
    """The partitions of a stage on ``master``: two on the cluster, one per executor, so both
    share every stage; one on ``local[2]``, whose statements read a few hundred rows (half
    the tasks, each with its fixed cost: on the engines suite's ``value_rules``, ``updates``
    and ``explanations`` cases, 186 s of machine CPU with two partitions, 168 s with one;
    wall 116 s and 108 s)."""
    return "2" if master.startswith("spark://") else "1"


def executor_java_options(master: str) -> str:
    """The executors' JVM options on ``master``: a cluster's are :data:`CLUSTER_JAVA_OPTIONS`;
    ``local[2]`` runs its tasks in the driver, whose options are :data:`JAVA_OPTIONS`."""
    return CLUSTER_JAVA_OPTIONS if master.startswith("spark://") else JAVA_OPTIONS


@contextlib.contextmanager
def spark_session(master: str = "local[2]") -> Iterator[Any]:
    """A SparkSession for small data on ``master`` (``local[2]``, or a standalone cluster's
    ``spark://`` URL: one 512 MB executor of one core per worker, at most two; the session
    starts once both are registered); stopped (and its warehouse folder removed) on exit.
    The driver and the executors write the tables under one warehouse folder, which works
    because all of them run on this machine. Raises ImportError without PySpark.

    Table files are written as for many small statements: without checksum files (the raw
    local file system), committed in place (committer algorithm 2) and without a
    ``_SUCCESS`` marker (the engines suite's update case, 400 statements, 69 s to 63 s).
    Each stage has :func:`partitions` partitions.

    Joins do not broadcast: a broadcast join runs a job of its own to collect the small side
    on the driver, then ships it, for tables of a few hundred rows; a sort-merge join of one
    partition costs less. And the driver keeps :data:`GENERATED_CLASSES` generated classes
    instead of 100, so a statement shape seen before is not compiled again. Together, on the
    engines suite's ``value_rules``, ``updates``, ``linear_svm``, ``drift`` and
    ``explanations`` cases on ``local[2]``: driver CPU 226 s to 190-205 s, wall 155-169 s to
    140-154 s. Without broadcasts, whole-stage code generation (a class compiled per stage of
    each statement) costs more than it returns on such tables: without it, 167-173 s, wall
    124-127 s."""
    from pyspark.sql import SparkSession

    root = Path(tempfile.mkdtemp(prefix="wml-spark-"))
    session = (
        SparkSession.builder.master(master)
        .appName("warehouse-ml-tests")
        .config("spark.sql.shuffle.partitions", partitions(master))
        .config("spark.default.parallelism", partitions(master))
        .config("spark.hadoop.fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem")
        .config("spark.hadoop.mapreduce.fileoutputcommitter.algorithm.version", "2")
        .config("spark.hadoop.mapreduce.fileoutputcommitter.marksuccessfuljobs", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.executor.memory", "512m")
        .config("spark.executor.cores", "1")
        .config("spark.cores.max", "2")
        .config("spark.scheduler.minRegisteredResourcesRatio", "1.0")
        .config("spark.scheduler.maxRegisteredResourcesWaitingTime", "120s")
        .config("spark.pyspark.python", sys.executable)
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.warehouse.dir", str(root / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={root} {JAVA_OPTIONS}")
        .config("spark.executor.extraJavaOptions", executor_java_options(master))
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .config("spark.sql.codegen.cache.maxEntries", str(GENERATED_CLASSES))
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.sources.parallelPartitionDiscovery.parallelism", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        if master.startswith("spark://"):
            wait_for_executors(session, CLUSTER_EXECUTORS)
        yield session
    finally:
        session.stop()
        shutil.rmtree(root, ignore_errors=True)


def wait_for_executors(session: Any, count: int, timeout: float = 120.0) -> None:
    """Return once ``count`` executors have registered with ``session``'s driver (its own
    block manager is registered too); RuntimeError after ``timeout`` seconds. The scheduler
    waits for them before a job's first task only (``minRegisteredResourcesRatio``): a busy
    machine can start a session whose second executor is still starting."""
    status = session.sparkContext._jsc.sc()
    deadline = time.monotonic() + timeout
    while status.getExecutorMemoryStatus().size() - 1 < count:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{count} Spark executors did not register in {timeout:.0f} s")
        time.sleep(0.2)


class SparkSessions:
    """The Spark sessions of a test run, one at a time: PySpark drives one SparkContext per
    process, so asking for the other target's session stops the live one first (its tables
    and catalog go with it: Spark's default catalog is in memory). The cluster is started on
    first use and kept until :meth:`close`; a failure to start it is raised again on every
    later request instead of starting it again."""

    def __init__(self) -> None:
        self._cluster = contextlib.ExitStack()
        self._cluster_url: str | RuntimeError | None = None
        self._live = contextlib.ExitStack()
        self._live_master: str | None = None
        self._live_session: Any = None

    def local(self) -> Any:
        """The ``local[2]`` session."""
        return self._session("local[2]")

    def cluster(self) -> Any:
        """A session on the standalone cluster (:func:`spark_cluster`); RuntimeError when the
        cluster cannot start."""
        if self._cluster_url is None:
            try:
                self._cluster_url = self._cluster.enter_context(spark_cluster())
            except RuntimeError as error:
                self._cluster_url = error
        if isinstance(self._cluster_url, RuntimeError):
            raise self._cluster_url
        return self._session(self._cluster_url)

    def _session(self, master: str) -> Any:
        if self._live_master != master:
            self._live.close()
            self._live_master = None
            self._live_session = self._live.enter_context(spark_session(master))
            self._live_master = master
        return self._live_session

    def close(self) -> None:
        """Stop the live session, then the cluster."""
        try:
            self._live.close()
        finally:
            self._cluster.close()
