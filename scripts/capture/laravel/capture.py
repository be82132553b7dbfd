"""Laravel 8 (Debian php-laravel-framework): POST JSON to /api/orders on `php -S 127.0.0.1:8301` and keep
each 422 as a fixture. Expectations are written by hand. See ../README.md."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
from fixture import DATE, check, request, without, write  # noqa: E402

BASE = os.environ.get('LARAVEL_URL', 'http://127.0.0.1:8301')


def version():
    out = subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'php-laravel-framework'], capture_output=True, text=True)
    php = subprocess.run(['php', '-r', 'echo PHP_VERSION;'], capture_output=True, text=True)
    return out.stdout.strip(), php.stdout.strip()


DEB, PHP = version()
SOURCE = (f'Captured over real HTTP on {DATE}: Laravel {DEB.split("+")[0]} (Debian php-laravel-framework {DEB}, PHP {PHP}) '
          'served by `php -S 127.0.0.1:8301` from scripts/capture/laravel (laravel/laravel 8.x skeleton: exception handler, '
          'api middleware group with throttle:api; resources/lang/en/validation.php copied from laravel/laravel 8.x); POST /api/orders with '
          'Accept: application/json, route closure calling $request->validate([...]); body from '
          'Illuminate\\Foundation\\Exceptions\\Handler::invalidJson(). Format: https://laravel.com/docs/8.x/validation#validation-error-response-format '
          '(the dev server\'s echoed Host header dropped)')

OK = {'name': 'Ada', 'email': 'ada@example.com', 'address': {'city': 'London'}, 'items': [{'sku': 'A1'}]}


CASES = [
    ('laravel-422-missing-email.json', 'Laravel 422 validation: email required',
     without(OK, 'email'),
     {'code': 'missing_field', 'field': 'email', 'message': 'The email field is required.'}),
    ('laravel-422-invalid-email.json', 'Laravel 422 validation: email not a valid address',
     {**OK, 'email': 'not-an-email'},
     {'code': 'invalid_input', 'field': 'email', 'message': 'The email must be a valid email address.'}),
    ('laravel-422-missing-nested-address-city.json', 'Laravel 422 validation: nested address.city required',
     {**OK, 'address': {'zip': 'N1 9GU'}},
     {'code': 'missing_field', 'field': 'address.city', 'message': 'The address.city field is required.'}),
    ('laravel-422-missing-array-item-sku.json', 'Laravel 422 validation: items.0.sku required (array wildcard items.*.sku)',
     {**OK, 'items': [{'qty': 2}]},
     {'code': 'missing_field', 'field': 'items.0.sku', 'message': 'The items.0.sku field is required.'}),
    ('laravel-422-two-fields.json', 'Laravel 422 validation: name missing and email invalid at once',
     {**without(OK, 'name'), 'email': 'not-an-email'},
     {'code': 'missing_field', 'field': 'name', 'message': 'The name field is required.', 'fields': ['name', 'email']}),
]

for file, name, body, expect in CASES:
    status, headers, parsed = request('POST', BASE + '/api/orders', {'Accept': 'application/json'}, body, drop=['host'])
    check(file, status, parsed, 422, expect)
    write(file, name, SOURCE + f'. Request body: {__import__("json").dumps(body)}', status, headers, parsed, expect)
