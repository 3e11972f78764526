"""The labeling page's web server: loopback, a secret header, a fixed set of routes.

The standard library's :class:`http.server.ThreadingHTTPServer` serves the page: one user
on one machine needs no more, and it adds no dependency (docs/dependencies.md). What it
defends against, and how (docs/how-to/label-page.md, "Security"):

- it binds 127.0.0.1 unless told otherwise (then the caller warns);
- every data request (``/api/...``, ``/chrom.sizes``) carries the page's secret in the
  :data:`TOKEN_HEADER` header, never in a cookie (cookies are scoped by host, not port:
  every other server on 127.0.0.1 would receive one) nor in a URL: a link
  (:meth:`LabelServer.link`) holds a *one-time* token, which the page trades once for
  the secret (``POST /api/session``) and keeps in the tab's ``sessionStorage``; the
  page's own files (HTML, script, style, igv.js: package files, no data) need none;
- the ``Host`` header must name this port on a loopback name or an IP address (no DNS
  name: DNS rebinding), an ``Origin`` header must be this page's own, and every POST
  must be ``Content-Type: application/json`` (a form or a no-cors ``text/plain`` fetch
  from another page is refused before its body is read);
- no request parameter reaches a path: the routes are a fixed table, the static files a
  fixed set of package files, samples and windows are indexes into tables in memory;
  the only files written are the labels file and the model file given at start;
- request bodies are capped (:data:`MAX_BODY`); a malformed request gets a 4xx and
  changes nothing; a connection silent for :data:`IDLE_SECONDS` is closed, and at most
  :data:`MAX_CONNECTIONS` are served at once (beyond, the longest idle one is closed, or
  none idle, the one longest in its request: a slow sender cannot hold the page).
"""

from __future__ import annotations

import collections
import errno
import hmac
import ipaddress
import json
import secrets
import socket
import threading
import time
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

from penlearn.label.state import LabelState

__all__ = ["IDLE_SECONDS", "MAX_BODY", "MAX_CONNECTIONS", "LabelServer", "STATIC_FILES",
           "TOKEN_HEADER", "check_listen"]

#: Largest request body accepted (bytes): a label is a few hundred.
MAX_BODY = 64 * 1024
#: The header every data request carries the page's secret in.
TOKEN_HEADER = "X-Penlearn-Token"
#: Seconds a connection may stay silent (before or within a request) before it is closed.
IDLE_SECONDS = 30.0
#: Connections served at once; a new one beyond closes the longest idle one.
MAX_CONNECTIONS = 64
#: One-time links kept unused (the oldest is forgotten first).
MAX_LINKS = 64
#: The page's files (name in the URL -> (package file, content type)).
STATIC_FILES = {
    "igv.min.js": ("igv.min.js", "text/javascript; charset=utf-8"),
    "label.js": ("label.js", "text/javascript; charset=utf-8"),
    "label.css": ("label.css", "text/css; charset=utf-8"),
}
_LOOPBACK_NAMES = ("localhost",)


def _static(name: str) -> bytes:
    return resources.files("penlearn.label").joinpath("static", name).read_bytes()


class _BadRequest(ValueError):
    """A request the page would never send: 4xx, nothing changed."""


def _int(obj: dict, key: str) -> int:
    v = obj.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise _BadRequest(f"{key} must be an integer")
    return v


def _str(obj: dict, key: str) -> str:
    v = obj.get(key)
    if not isinstance(v, str) or len(v) > 1000:
        raise _BadRequest(f"{key} must be a string")
    return v


def _window_index(query: dict, state: LabelState, key: str = "i", default: str = "") -> int:
    """The window index of a query parameter (a 400 unless one of the page's windows)."""
    try:
        i = int(query.get(key, [default])[0])
    except ValueError:
        raise _BadRequest(f"{key} must be a window index") from None
    if not 0 <= i < len(state.windows):
        raise _BadRequest(f"{key} must be in 0..{len(state.windows) - 1}")
    return i


def host_allowed(host: str | None, port: int, loopback: bool) -> bool:
    """Whether a request's ``Host`` header may reach the page on ``port``: that port, on
    ``localhost`` or an IP address (a loopback one when the page listens on loopback).
    A DNS name is refused: a name an attacker controls can be made to point at
    127.0.0.1 (DNS rebinding) and would make their page the page's own origin.

    Examples
    --------
    >>> host_allowed("127.0.0.1:8000", 8000, True), host_allowed("[::1]:8000", 8000, True)
    (True, True)
    >>> host_allowed("evil.example:8000", 8000, True), host_allowed("localhost:80", 8000, True)
    (False, False)
    """
    if not host:
        return False
    name, sep, given = host.strip().lower().rpartition(":")
    if not sep or given != str(port):
        return False
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    if name in _LOOPBACK_NAMES:
        return True
    try:
        addr = ipaddress.ip_address(name)
    except ValueError:
        return False
    return addr.is_loopback or not loopback


class _Handler(BaseHTTPRequestHandler):
    server: LabelServer
    protocol_version = "HTTP/1.1"

    def setup(self):
        self.timeout = IDLE_SECONDS  # (the socket's timeout: a silent connection ends)
        super().setup()

    def log_message(self, format, *args):  # noqa: A002  (the base class's name)
        if self.server.verbose:
            super().log_message(format, *args)

    def handle_one_request(self):
        self.server._connection(self.connection, idle=True)  # waiting for a request line
        super().handle_one_request()

    def parse_request(self):
        self.server._connection(self.connection, idle=False)
        return super().parse_request()

    # -- plumbing -----------------------------------------------------------------------
    def _send(self, status: int, body: bytes, ctype: str, headers=()) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy",
                         "default-src 'self'; img-src 'self' data: blob:; "
                         "style-src 'self' 'unsafe-inline'; connect-src 'self' data: blob:; "
                         "frame-ancestors 'self' http://localhost:* http://127.0.0.1:*")
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, obj) -> None:
        self._send(status, json.dumps(obj, allow_nan=False).encode(),
                   "application/json; charset=utf-8")

    def _error(self, status: int, message: str) -> None:
        self.close_connection = True
        self._json(status, {"error": message})

    def _refused(self) -> str | None:
        """Why the request's ``Host`` / ``Origin`` headers are not this page's (None: they
        are)."""
        host = self.headers.get("Host")
        port = self.server.server_address[1]
        if not host_allowed(host, port, self.server.loopback):
            return (f"forbidden: Host {host!r} is not this page's (give 127.0.0.1:{port}, "
                    f"localhost:{port} or an IP address, not a DNS name)")
        origin = self.headers.get("Origin")
        if origin is not None and origin.strip().lower() != f"http://{host.strip().lower()}":
            return f"forbidden: a request from another page (Origin {origin!r})"
        return None

    def _token_ok(self) -> bool:
        given = self.headers.get(TOKEN_HEADER)
        return given is not None and hmac.compare_digest(
            given.encode("utf-8", "surrogateescape"), self.server.secret.encode())

    def _route(self, method: str) -> None:
        try:
            url = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(url.query, max_num_fields=10)
        except ValueError:
            return self._error(400, "malformed URL")
        why = self._refused()
        if why is not None:
            return self._error(403, why)
        public = method == "GET" and (url.path in ("/", "/index.html")
                                      or url.path.startswith("/static/"))
        if not public and not (method == "POST" and url.path == "/api/session") \
                and not self._token_ok():
            return self._error(403, f"forbidden: no valid {TOKEN_HEADER} header (open a "
                                    "link penlearn label printed: the page sends it)")
        try:
            if method == "GET":
                return self._get(url.path, query)
            ctype = self.headers.get("Content-Type", "")
            if ctype.split(";")[0].strip().lower() != "application/json":
                return self._error(415, "the body must be Content-Type: application/json")
            length = self.headers.get("Content-Length")
            if length is None or not length.isdigit():
                return self._error(411, "Content-Length required")
            if int(length) > MAX_BODY:
                return self._error(413, f"request body over {MAX_BODY} bytes")
            raw = self.rfile.read(int(length))
            try:
                body = json.loads(raw.decode("utf-8"))
            except (ValueError, RecursionError):  # not UTF-8 / JSON, nested too deep,
                return self._error(400, "the body must be JSON")  # a number too long
            if not isinstance(body, dict):
                return self._error(400, "the body must be a JSON object")
            return self._post(url.path, body)
        except ConnectionError:  # the browser went away (a tab closed): nothing to say
            self.close_connection = True
            return None
        except _BadRequest as exc:
            return self._error(400, str(exc))
        except ValueError as exc:  # the state refused the change: nothing written
            return self._error(422, str(exc))
        except OSError as exc:  # the labels / model file could not be written
            return self._error(500, f"could not write: {exc}")
        except Exception as exc:  # a bug: the page says so, the server goes on
            traceback.print_exc()
            return self._error(500, f"{type(exc).__name__}: {exc}")

    def do_GET(self):  # noqa: N802  (http.server's names)
        self._route("GET")

    def do_HEAD(self):  # noqa: N802
        self._route("GET")

    def do_POST(self):  # noqa: N802
        self._route("POST")

    def do_PUT(self):  # noqa: N802
        self._error(405, "method not allowed")

    do_DELETE = do_OPTIONS = do_PATCH = do_PUT

    # -- routes -------------------------------------------------------------------------------
    def _get(self, path: str, query: dict) -> None:
        state = self.server.state
        if path in ("/", "/index.html"):
            return self._send(200, _static("index.html"), "text/html; charset=utf-8")
        if path.startswith("/static/"):
            name = path[len("/static/"):]
            if name not in STATIC_FILES:
                return self._error(404, "not found")
            file, ctype = STATIC_FILES[name]
            return self._send(200, _static(file), ctype)
        if path == "/api/state":
            return self._json(200, {"samples": state.samples,
                                    "windows": len(state.windows),
                                    "window_list": state.windows[
                                        ["chrom", "chromStart", "chromEnd"]].values.tolist(),
                                    "start": self.server.start_window,
                                    "chrom_sizes": state.chrom_sizes(),
                                    "model_out": state.model_out is not None})
        if path == "/api/window":
            i = _window_index(query, state)
            return self._json(200, state.view(i, coverage=query.get("coverage") != ["0"]))
        if path == "/api/version":  # polled: a model from the background learner, and
            # how many of the shown window's paths are computed (?i=WINDOW)
            out = {"version": state.version, "model_version": state.model_version}
            if "i" in query:
                out["paths_ready"] = state.paths_ready(_window_index(query, state))
            return self._json(200, out)
        if path == "/api/next":
            nxt = state.next_window(_window_index(query, state, "from", "0"))
            return self._json(200, {"next": nxt.window, "reason": nxt.reason,
                                    "sequence_id": nxt.sequence_id})
        if path == "/chrom.sizes":
            text = "".join(f"{c}\t{n}\n" for c, n in state.chrom_sizes().items())
            return self._send(200, text.encode(), "text/plain; charset=utf-8")
        return self._error(404, "not found")

    def _post(self, path: str, body: dict) -> None:
        state = self.server.state
        if path == "/api/session":  # a link's one-time token, traded for the secret
            if not self.server.use_link(_str(body, "token")):
                return self._error(403, "forbidden: this link was used already or is not "
                                        "this page's (each link opens the page once: "
                                        "penlearn label prints one, LabelPage.url gives "
                                        "a new one)")
            return self._json(200, {"token": self.server.secret, "header": TOKEN_HEADER})
        if path == "/api/label":
            samples = body.get("samples")
            if samples == "all":
                samples = list(state.samples)
            if not isinstance(samples, list) or not all(isinstance(s, str) for s in samples) \
                    or len(samples) > len(state.samples):
                raise _BadRequest("samples must be 'all' or a list of sample ids")
            n = state.add_label(_str(body, "chrom"), _int(body, "start"), _int(body, "end"),
                                _str(body, "annotation"), samples)
            return self._json(200, {"written": n, "version": state.version})
        if path == "/api/delete":
            n = state.delete_label(_str(body, "sample"), _str(body, "chrom"),
                                   _int(body, "start"), _int(body, "end"))
            return self._json(200, {"deleted": n, "version": state.version})
        if path == "/api/undo":
            return self._json(200, {"undone": state.undo(), "version": state.version})
        if path == "/api/save-model":
            out = state.save_model()
            return self._json(200, {"saved": str(out), "model": state.saved_note})
        return self._error(404, "not found")


def _family(host: str) -> socket.AddressFamily:
    """IPv6 for an IPv6 address (``::1``), else IPv4 (names resolve to IPv4)."""
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _listen_error(host: str, port: int, exc: OSError) -> ValueError:
    hint = "give another --port / port, or 0 for any free one" \
        if exc.errno == errno.EADDRINUSE else "give an address of this machine as --host / host"
    return ValueError(f"cannot listen on host {host!r}, port {port}: {exc.strerror or exc} "
                      f"({hint})")


def check_listen(host: str, port: int) -> None:
    """Whether the page could listen on ``host:port`` now (a ValueError naming them if
    not), checked before the coverage is read; the server binds again as it starts.

    Examples
    --------
    >>> check_listen("127.0.0.1", 0)
    """
    try:
        with socket.socket(_family(host), socket.SOCK_STREAM) as sock:
            sock.bind((host, port))
    except OSError as exc:
        raise _listen_error(host, port, exc) from None


class LabelServer(ThreadingHTTPServer):
    """The server of one labeling page (``serve_forever`` in a thread or the command).

    Parameters
    ----------
    state : LabelState
        The page's data and model.
    host, port : str, int
        Where to listen (port 0: any free port).
    token : str, optional
        The page's secret, sent in the :data:`TOKEN_HEADER` header of every data request
        (default: 32 random URL-safe characters); links hold one-time tokens instead.
    """

    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, state: LabelState, host: str = "127.0.0.1", port: int = 0,
                 token: str | None = None, start_window: int = 0, verbose: bool = False):
        self.state = state
        self.secret = token or secrets.token_urlsafe(24)
        self.verbose = verbose
        self.start_window = start_window
        self.address_family = _family(host)
        self._links: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._conns: dict = {}  # socket -> (idle, since)
        self._lock = threading.Lock()
        try:
            super().__init__((host, port), _Handler)
        except OSError as exc:  # a port in use, an address not of this machine
            raise _listen_error(host, port, exc) from None
        try:
            self.loopback = ipaddress.ip_address(self.server_address[0]).is_loopback
        except ValueError:
            self.loopback = False
        self._thread: threading.Thread | None = None

    # -- connections: an idle timeout (the handler's) and a cap -------------------------
    def _connection(self, sock, idle: bool) -> None:
        with self._lock:
            if sock in self._conns:
                self._conns[sock] = (idle, time.monotonic())

    def process_request(self, request, client_address):
        """Serve a new connection in a thread; at :data:`MAX_CONNECTIONS`, the longest
        idle one is closed first (none idle: the one longest in its request, e.g. headers
        sent a byte at a time: closing the new one instead let such connections keep the
        page from everyone)."""
        with self._lock:  # (not reentrant: no shutdown_request under it)
            if len(self._conns) >= MAX_CONNECTIONS:
                idle = [(t, s) for s, (i, t) in self._conns.items() if i] or [
                    (t, s) for s, (_, t) in self._conns.items()]
                oldest = min(idle, key=lambda x: x[0])[1]
                del self._conns[oldest]
                try:  # its thread reads an end of stream and ends
                    oldest.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self._conns[request] = (True, time.monotonic())
        super().process_request(request, client_address)

    def get_request(self):
        """Accept a connection; out of file descriptors, wait a moment first (the
        listening socket stays readable: the loop would spin a core)."""
        try:
            return super().get_request()
        except OSError as exc:
            if exc.errno in (errno.EMFILE, errno.ENFILE):
                time.sleep(0.1)
            raise

    def shutdown_request(self, request):
        with self._lock:
            self._conns.pop(request, None)
        super().shutdown_request(request)

    def handle_error(self, request, client_address) -> None:
        """A closed connection is no error; anything else is printed."""
        import sys
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)

    # -- links ----------------------------------------------------------------------------
    @property
    def address(self) -> str:
        """The page's address, without a token."""
        host, port = self.server_address[:2]
        shown = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
        shown = f"[{shown}]" if ":" in shown else shown
        return f"http://{shown}:{port}/"

    def link(self) -> str:
        """A new link to the page: its address with a one-time token, which the page
        trades for the secret at its first use (a second use is refused)."""
        one = secrets.token_urlsafe(24)
        with self._lock:
            self._links[one] = None
            while len(self._links) > MAX_LINKS:
                self._links.popitem(last=False)
        return f"{self.address}?token={one}"

    @property
    def url(self) -> str:
        """A new one-time link to the page (:meth:`link`) at every read."""
        return self.link()

    def use_link(self, token: str) -> bool:
        """Whether ``token`` is one of the links' unused tokens (it is used up now)."""
        given = token.encode("utf-8", "surrogateescape")
        with self._lock:
            for one in list(self._links):
                if hmac.compare_digest(given, one.encode()):
                    del self._links[one]
                    return True
        return False

    def start(self) -> LabelServer:
        """Serve in a daemon thread (returns at once); the first window's paths and peaks
        are computed meanwhile."""
        self.state.warm(self.start_window)
        self._thread = threading.Thread(target=self.serve_forever, name="penlearn-label",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join()
            self._thread = None
        self.server_close()
        self.state.close()
