"""Shared helpers for the capture scripts: send one request over loopback HTTP, keep the response as a
corpus fixture (test/fixtures/responses/<file>), with the expected envelope written by hand in each case list.

Run with Debian's /usr/bin/python3 (standard library only)."""

import http.client
import json
import os
import sys
from urllib.parse import urlsplit

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
OUT = os.path.join(ROOT, 'test', 'fixtures', 'responses')
DATE = '2026-12-01'

# Headers that say nothing about the error and change on every run or with the test server.
DROP = {'date', 'connection', 'keep-alive'}


def without(d, *keys):
    """A request body with the named keys left out: the missing-field cases."""
    return {k: v for k, v in d.items() if k not in keys}


def request(method, url, headers=None, body=None, drop=()):
    """Send one request; return (status, headers with lower-case names minus DROP and `drop`, parsed JSON body)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    data = None
    headers = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        headers.setdefault('Content-Type', 'application/json')
    path = parts.path + ('?' + parts.query if parts.query else '')
    conn.request(method, path, body=data, headers=headers)
    res = conn.getresponse()
    raw = res.read()
    conn.close()
    skip = DROP | {d.lower() for d in drop}
    out = {}
    for name, value in res.getheaders():
        name = name.lower()
        if name in skip:
            continue
        out[name] = value if name not in out else out[name] + ', ' + value
    try:
        parsed = json.loads(raw.decode('utf-8'))
    except ValueError:
        parsed = raw.decode('utf-8', 'replace')
    return res.status, out, parsed


def write(file, name, source, status, headers, body, expect):
    """Write one fixture; `expect` is the hand-written expectation (code, retry, field, retry_after, message, fields?)."""
    exp = {'code': expect['code'], 'retry': 'fix_input', 'field': expect['field'], 'retry_after': None,
           'message': expect['message']}
    if 'fields' in expect:
        exp['fields'] = expect['fields']
    doc = {'name': name, 'source': source, 'status': status, 'headers': headers, 'body': body, 'expect': exp}
    path = os.path.join(OUT, file)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(json.dumps(doc, indent=2, ensure_ascii=False) + '\n')
    print('wrote', os.path.relpath(path, ROOT), status, json.dumps(body, ensure_ascii=False)[:160], file=sys.stderr)


def check(file, status, body, want_status, expect):
    """Fail loudly when the framework's answer is not the failure the case was written for: the status, and the
    first violation's sentence (the expected message less a "<field>: " prefix) somewhere in the body."""
    if status != want_status:
        sys.exit(f'{file}: status {status}, expected {want_status}: {body}')
    sentence = expect['message']
    if expect['field'] and sentence.startswith(expect['field'] + ': '):
        sentence = sentence[len(expect['field']) + 2:]
    if sentence not in json.dumps(body, ensure_ascii=False):
        sys.exit(f'{file}: body lacks {sentence!r}: {body}')
