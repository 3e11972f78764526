"""The labeling page's web server: loopback, one random token, a fixed set of routes.

The standard library's :class:`http.server.ThreadingHTTPServer` serves the page: one user
on one machine needs no more, and it adds no dependency (docs/dependencies.md). Safety:

- it binds 127.0.0.1 unless told otherwise (then the caller warns);
- every request, the page's files included, carries the token: the ``token`` query
  parameter of the printed URL (the page then holds it in a same-site cookie) — a request
  without it gets 403;
- no request parameter reaches a path: the routes are a fixed table, the static files a
  fixed set of package files, samples and windows are indexes into tables in memory;
  the only files written are the labels file and the model file given at start;
- request bodies are capped (:data:`MAX_BODY`); a malformed request gets a 4xx and
  changes nothing.
"""

from __future__ import annotations

import errno
import hmac
import json
import secrets
import socket
import threading
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

from penlearn.label.state import LabelState

__all__ = ["MAX_BODY", "LabelServer", "STATIC_FILES", "check_listen"]

#: Largest request body accepted (bytes): a label is a few hundred.
MAX_BODY = 64 * 1024
#: The page's files (name in the URL -> (package file, content type)).
STATIC_FILES = {
    "igv.min.js": ("igv.min.js", "text/javascript; charset=utf-8"),
    "label.js": ("label.js", "text/javascript; charset=utf-8"),
    "label.css": ("label.css", "text/css; charset=utf-8"),
}
_COOKIE = "penlearn_label_token"


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


class _Handler(BaseHTTPRequestHandler):
    server: LabelServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002  (the base class's name)
        if self.server.verbose:
            super().log_message(format, *args)

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

    def _token_ok(self, query: dict) -> tuple[bool, bool]:
        """(authorised, from the query) — the query's token or the cookie's."""
        want = self.server.token.encode()
        given = query.get("token", [None])[0]
        if given is not None:
            return hmac.compare_digest(given.encode(), want), True
        for part in self.headers.get("Cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == self.server.cookie_name:
                return hmac.compare_digest(value.encode(), want), False
        return False, False

    def _route(self, method: str) -> None:
        try:
            url = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(url.query, max_num_fields=10)
        except ValueError:
            return self._error(400, "malformed URL")
        ok, from_query = self._token_ok(query)
        if not ok:
            return self._error(403, "forbidden: open the URL penlearn label printed "
                                    "(it holds the token)")
        try:
            if method == "GET":
                return self._get(url.path, query, from_query)
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

    do_DELETE = do_PUT

    # -- routes -------------------------------------------------------------------------------
    def _get(self, path: str, query: dict, from_query: bool) -> None:
        state = self.server.state
        if path in ("/", "/index.html"):
            headers = [("Set-Cookie", f"{self.server.cookie_name}={self.server.token}; "
                        "Path=/; HttpOnly; SameSite=Strict")] if from_query else []
            return self._send(200, _static("index.html"), "text/html; charset=utf-8",
                              headers)
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
            return self._json(200, {"saved": str(out), "model": state.model_note})
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
        The access token (default: 32 random URL-safe characters).
    """

    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, state: LabelState, host: str = "127.0.0.1", port: int = 0,
                 token: str | None = None, start_window: int = 0, verbose: bool = False):
        self.state = state
        self.token = token or secrets.token_urlsafe(24)
        self.verbose = verbose
        self.start_window = start_window
        self.address_family = _family(host)
        try:
            super().__init__((host, port), _Handler)
        except OSError as exc:  # a port in use, an address not of this machine
            raise _listen_error(host, port, exc) from None
        self.cookie_name = f"{_COOKIE}_{self.server_address[1]}"
        self._thread: threading.Thread | None = None

    def handle_error(self, request, client_address) -> None:
        """A closed connection is no error; anything else is printed."""
        import sys
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        """The page's URL with its token."""
        host, port = self.server_address[:2]
        shown = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "::1"}.get(host, host)
        shown = f"[{shown}]" if ":" in shown else shown
        return f"http://{shown}:{port}/?token={self.token}"

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
