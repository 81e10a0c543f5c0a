"""A throwaway PostgreSQL server for the ledger tests and benchmark.

``initdb`` into a fresh directory under ``/tmp``, then the ``postgres``
server in the foreground on a free 127.0.0.1 port (and a Unix socket in the
same directory), tied to this process: when run as root the server tools
run as the ``postgres`` system user (``initdb`` refuses root) under
``setpriv --pdeathsig``, so a killed test run does not leave a server
behind. Throwaway settings (``fsync=off``) make it fast; durability of a
*committed* spend against a killed client does not depend on them
(``durable=True`` keeps PostgreSQL's defaults, for benchmarks).
"""

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

try:
    import psycopg
except ImportError:  # optional: the servers' users check for it
    psycopg = None

__all__ = ["INSTALL_HINT", "ThrowawayPostgres", "find_postgres_bin"]

INSTALL_HINT = (
    "Install the PostgreSQL server binaries (initdb, postgres) as root with "
    "`.ci/install-services.sh` (apt-get install -y postgresql) and the test "
    "extra with `pip install -e '.[test]'` (psycopg[binary], dask[distributed])."
)


def find_postgres_bin():
    """Directory holding ``initdb`` and ``postgres``, or ``None``.

    Debian installs them in ``/usr/lib/postgresql/<major>/bin`` (newest major
    wins); elsewhere they are found on ``PATH``.
    """
    def major(directory):
        return int(directory.split("/")[-2]) if directory.split("/")[-2].isdigit() else 0

    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=major, reverse=True)
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(os.path.dirname(os.path.realpath(on_path)))
    for directory in candidates:
        if all(os.access(os.path.join(directory, t), os.X_OK) for t in ("initdb", "postgres")):
            return directory
    return None


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ThrowawayPostgres:
    """Start with :meth:`start`, connect with :attr:`url`, stop with :meth:`stop`."""

    def __init__(self, bin_dir, durable=False):
        self.bin_dir = bin_dir
        self.durable = durable  # fsync and synchronous commit on (benchmarks)
        self.as_root = os.geteuid() == 0
        self.directory = tempfile.mkdtemp(prefix="sksmooth-pg-", dir="/tmp")
        self.port = _free_port()
        self.process = None
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _as_server_user(self, argv):
        """``argv`` as the ``postgres`` user when root, dying with this process."""
        if shutil.which("setpriv") is None:
            if self.as_root:
                return ["runuser", "-u", "postgres", "--", *argv]
            return argv
        user = ["--reuid=postgres", "--regid=postgres", "--init-groups"] if self.as_root else []
        return ["setpriv", *user, "--pdeathsig=INT", "--", *argv]

    def start(self, timeout=60.0):
        """``initdb`` and start the server; return once it accepts connections."""
        data = os.path.join(self.directory, "data")
        if self.as_root:
            user = pwd.getpwnam("postgres")
            os.chown(self.directory, user.pw_uid, user.pw_gid)
        subprocess.run(
            self._as_server_user([os.path.join(self.bin_dir, "initdb"), "-D", data,
                                  "--auth=trust", "--no-sync", "-E", "UTF8",
                                  "--locale=C", "-U", "postgres"]),
            check=True, capture_output=True, timeout=timeout,
        )
        settings = {"listen_addresses": "127.0.0.1", "port": str(self.port),
                    "unix_socket_directories": self.directory, "max_connections": "100"}
        if not self.durable:
            settings.update(fsync="off", synchronous_commit="off", full_page_writes="off")
        argv = [os.path.join(self.bin_dir, "postgres"), "-D", data]
        for key, value in settings.items():
            argv += ["-c", f"{key}={value}"]
        with open(os.path.join(self.directory, "server.log"), "wb") as log:
            self.process = subprocess.Popen(
                self._as_server_user(argv), stdout=subprocess.DEVNULL, stderr=log
            )
        self._wait_ready(timeout)
        return self

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the throwaway PostgreSQL server did not start")
                time.sleep(0.1)

    def stop(self):
        """Fast shutdown (SIGINT), wait, remove the directory."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)
