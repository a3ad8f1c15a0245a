"""Puts the RO-Crate 1.1 JSON-LD context into rocrate-validator's HTTP cache, so that
`rocrate-validator validate --offline` can check a crate without fetching
https://w3id.org/ro/crate/1.1/context (CI and this project's machines cannot reach w3id.org).

The context comes from the official ro-crate-py release 0.9.0, which ships it as
rocrate/data/ro-crate.jsonld (later releases ship the 1.3 context instead): the wheel is fetched
from PyPI with pip and checked against its SHA-256 below before anything is read from it. The
cache entry is written through requests-cache itself (the library the validator reads its cache
with), by a GET whose transport answers from that file.

Usage: python seed_context.py   (inside the venv of tests/release/requirements.txt)
"""

import hashlib
import io
import json
import pathlib
import subprocess
import sys
import tempfile
import zipfile

import requests
import urllib3
from requests.adapters import BaseAdapter
from requests_cache import CachedSession
from rocrate_validator.utils.paths import get_default_http_cache_path

CONTEXT_URL = "https://w3id.org/ro/crate/1.1/context"
WHEEL = "rocrate-0.9.0-py3-none-any.whl"
WHEEL_SHA256 = "cd5c230e25d4b68a8a2c8279d375f3b3d2197cad4311749884ebfcb5ee85fae4"


def context_bytes() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--disable-pip-version-check", "rocrate==0.9.0", "-d", tmp],
            check=True,
        )
        wheel = pathlib.Path(tmp) / WHEEL
        data = wheel.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != WHEEL_SHA256:
        sys.exit(f"seed_context.py: {WHEEL} has SHA-256 {digest}, not {WHEEL_SHA256}")
    context = zipfile.ZipFile(io.BytesIO(data)).read("rocrate/data/ro-crate.jsonld")
    if json.loads(context).get("@id") != CONTEXT_URL:
        sys.exit(f"seed_context.py: {WHEEL} does not hold the context {CONTEXT_URL}")
    return context


class FileAdapter(BaseAdapter):
    """Answers a GET of the context URL with the bytes given."""

    def __init__(self, body: bytes):
        super().__init__()
        self.body = body

    def send(self, request, **kwargs):
        response = requests.Response()
        response.status_code = 200
        response.url = request.url
        response.request = request
        response.headers["Content-Type"] = "application/ld+json"
        response.raw = urllib3.HTTPResponse(
            body=io.BytesIO(self.body),
            headers={"Content-Type": "application/ld+json"},
            status=200,
            preload_content=False,
            request_url=request.url,
        )
        return response

    def close(self):
        pass


def main() -> None:
    cache = get_default_http_cache_path()
    cache.parent.mkdir(parents=True, exist_ok=True)
    session = CachedSession(cache_name=str(cache), backend="sqlite", expire_after=-1,
                            allowable_methods=("GET",), allowable_codes=(200, 302, 404))
    if session.cache.contains(url=CONTEXT_URL):
        cached = json.loads(session.cache.get_response(session.cache.create_key(
            requests.Request("GET", CONTEXT_URL).prepare())).content)
        if cached.get("@id") == CONTEXT_URL:
            print(f"seed_context.py: {CONTEXT_URL} is already in {cache}.sqlite")
            return
    body = context_bytes()
    session.mount(CONTEXT_URL, FileAdapter(body))
    response = session.get(CONTEXT_URL)
    if response.status_code != 200 or response.content != body:
        sys.exit("seed_context.py: the context could not be cached")
    print(f"seed_context.py: cached {CONTEXT_URL} ({len(body)} bytes) in {cache}.sqlite")


if __name__ == "__main__":
    main()
