"""FastAPI 0.92 with pydantic 1.10 (Debian packages): requests to app.py on uvicorn 127.0.0.1:8304; keep each
422 as a fixture. Expectations are written by hand. See ../README.md."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
from fixture import DATE, check, request, without, write  # noqa: E402

BASE = os.environ.get('FASTAPI_URL', 'http://127.0.0.1:8304')
VER = subprocess.run(['/usr/bin/python3', '-c', 'import fastapi, pydantic, starlette, uvicorn; '
                      'print(fastapi.__version__, pydantic.VERSION, starlette.__version__, uvicorn.__version__)'],
                     capture_output=True, text=True).stdout.split()
COMMON = (f'Captured over real HTTP on {DATE}: FastAPI {VER[0]} with pydantic {VER[1]} (pydantic 1: types like '
          f'value_error.missing, msg "field required"), Starlette {VER[2]}, uvicorn {VER[3]} (Debian python3-fastapi, '
          'python3-pydantic, python3-starlette, python3-uvicorn), app scripts/capture/fastapi/app.py; body from '
          'fastapi.exception_handlers.request_validation_exception_handler ({"detail": exc.errors()}). Docs: '
          'https://fastapi.tiangolo.com/tutorial/handling-errors/#requestvalidationerror-vs-validationerror')
BODY = COMMON + '. POST /orders with a pydantic model Order(name: str, email: str, qty: int, address: Address(city: str), items: List[Item(sku: str)])'
QUERY = COMMON + '. GET /items with a query parameter limit: int = 10'

OK = {'name': 'Ada', 'email': 'ada@example.com', 'qty': 1, 'address': {'city': 'London'}, 'items': [{'sku': 'A1'}]}


CASES = [
    ('POST', '/orders', BODY, 'fastapi-422-missing-body-field.json', 'FastAPI 422: body field email missing (value_error.missing)',
     without(OK, 'email'),
     {'code': 'missing_field', 'field': 'email', 'message': 'email: field required'}),
    ('POST', '/orders', BODY, 'fastapi-422-wrong-type.json', 'FastAPI 422: body field qty not an integer (type_error.integer)',
     {**OK, 'qty': 'abc'},
     {'code': 'invalid_input', 'field': 'qty', 'message': 'qty: value is not a valid integer'}),
    ('POST', '/orders', BODY, 'fastapi-422-missing-nested-field.json', 'FastAPI 422: nested address.city missing (loc body, address, city)',
     {**OK, 'address': {'zip': 'N1 9GU'}},
     {'code': 'missing_field', 'field': 'address.city', 'message': 'address.city: field required'}),
    ('POST', '/orders', BODY, 'fastapi-422-missing-list-item-field.json', 'FastAPI 422: items[0].sku missing (integer in loc)',
     {**OK, 'items': [{'qty': 2}]},
     {'code': 'missing_field', 'field': 'items.0.sku', 'message': 'items.0.sku: field required'}),
    ('GET', '/items?limit=abc', QUERY, 'fastapi-422-invalid-query-param.json', 'FastAPI 422: query parameter limit not an integer (loc query, limit)',
     None,
     {'code': 'invalid_input', 'field': 'limit', 'message': 'limit: value is not a valid integer'}),
    ('POST', '/orders', BODY, 'fastapi-422-two-fields.json', 'FastAPI 422: name missing and qty not an integer at once',
     {**without(OK, 'name'), 'qty': 'abc'},
     {'code': 'missing_field', 'field': 'name', 'message': 'name: field required', 'fields': ['name', 'qty']}),
]

for method, path, source, file, name, body, expect in CASES:
    status, headers, parsed = request(method, BASE + path, {'Accept': 'application/json'}, body)
    check(file, status, parsed, 422, expect)
    what = f'. Request body: {json.dumps(body)}' if body is not None else f'. Request: {method} {path}'
    write(file, name, source + what, status, headers, parsed, expect)
