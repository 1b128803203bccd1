"""Fixtures of the lake interop tests: the lakectl and millrace binaries,
built once, and one Spark session (PySpark + delta-spark) for the whole
run."""
import os
import pathlib
import shutil
import sys
import subprocess

import pytest

MODULE_ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent

# delta-spark's Maven artifact for the pip package (scripts/venv.sh pins
# delta-spark 4.4.0 with pyspark 4.2.0, a pair known to resolve).
SPARK_REQUIRED = os.environ.get("MILLRACE_REQUIRE_SPARK", "") not in ("", "0")


@pytest.fixture(scope="session")
def lakectl(tmp_path_factory):
    """Path of the lakectl helper, built from ./lakectl with the module's Go."""
    out = tmp_path_factory.mktemp("bin") / "lakectl"
    subprocess.run(["go", "build", "-o", str(out), "./lake/interop/lakectl"],
                   cwd=MODULE_ROOT, check=True)
    return str(out)


@pytest.fixture(scope="session")
def millrace(tmp_path_factory):
    """Path of the millrace command, for `millrace delta read --where`."""
    out = tmp_path_factory.mktemp("bin") / "millrace"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/millrace"],
                   cwd=MODULE_ROOT, check=True)
    return str(out)


def _unavailable(why):
    if SPARK_REQUIRED:
        pytest.fail(f"Spark is required (MILLRACE_REQUIRE_SPARK) but {why}")
    pytest.skip(f"Spark tests skipped: {why}")


@pytest.fixture(scope="session")
def spark():
    """One local Spark session with Delta Lake for the whole run: local[2],
    two shuffle partitions, UTC, no UI. The delta-spark jar comes from
    Maven Central through ivy (ivysettings.xml: Maven Central only, so a
    stale ~/.m2 cannot break resolution); the first run downloads it."""
    if shutil.which("java") is None:
        _unavailable("java is not on PATH (scripts/venv.sh needs a JRE 17)")
    try:
        from delta import configure_spark_with_delta_pip
        from pyspark.sql import SparkSession
    except ImportError as e:
        _unavailable(f"pyspark/delta-spark are not installed ({e}); run scripts/venv.sh")
    builder = (SparkSession.builder.master("local[2]").appName("millrace-interop")
               .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
               .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.databricks.delta.snapshotPartitions", "2")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.jars.ivySettings", str(HERE / "ivysettings.xml")))
    # Short runs of tiny queries: C1 JIT only and no whole-stage code
    # generation cut the session's CPU by about a third on 2 cores.
    builder = (builder.config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
               .config("spark.sql.codegen.wholeStage", "false"))
    session = configure_spark_with_delta_pip(builder).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    _report_jvm_cpu(session)
    session.stop()


def _report_jvm_cpu(session):
    """Prints the Spark JVM's CPU seconds (the interop tests' main cost)."""
    try:
        pid = session._jvm.java.lang.ProcessHandle.current().pid()
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        print(f"\nSpark JVM CPU: {(int(fields[11]) + int(fields[12])) / ticks:.1f} s user+sys", file=sys.stderr)
    except Exception:  # not Linux, or the JVM is gone: the figure is only informative
        pass
