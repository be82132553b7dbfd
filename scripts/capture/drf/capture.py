"""Django REST framework 3.14 on Django 3.2 (Debian packages): POST JSON to /bookings/ on
`manage.py runserver 127.0.0.1:8303` and keep each 400 as a fixture. Expectations are written by hand.
See ../README.md."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
from fixture import DATE, check, request, without, write  # noqa: E402

BASE = os.environ.get('DRF_URL', 'http://127.0.0.1:8303')
VER = subprocess.run(['/usr/bin/python3', '-c', 'import django, rest_framework, sys; '
                      'print(rest_framework.VERSION, django.get_version(), sys.version.split()[0])'],
                     capture_output=True, text=True).stdout.split()
SOURCE = (f'Captured over real HTTP on {DATE}: Django REST framework {VER[0]} (Debian python3-djangorestframework) on '
          f'Django {VER[1]} (Debian python3-django), Python {VER[2]}, DEBUG=False, served by `manage.py runserver` from '
          'scripts/capture/drf/manage.py; POST /bookings/ to an APIView calling serializer.is_valid(raise_exception=True) '
          '(BookingSerializer: name CharField, email EmailField, address nested AddressSerializer(city), items '
          'ItemSerializer(many=True) with sku, check_in/check_out DateField, validate() check_out after check_in); '
          'body is serializer.errors as rendered by rest_framework.views.exception_handler. Docs: '
          'https://www.django-rest-framework.org/api-guide/serializers/#validation and '
          'https://www.django-rest-framework.org/api-guide/exceptions/#validationerror')

OK = {'name': 'Ada', 'email': 'ada@example.com', 'address': {'city': 'London'}, 'items': [{'sku': 'A1'}],
      'check_in': '2026-12-01', 'check_out': '2026-12-03'}


CASES = [
    ('drf-400-missing-email.json', 'DRF 400: email "This field is required."',
     without(OK, 'email'),
     {'code': 'missing_field', 'field': 'email', 'message': 'email: This field is required.'}),
    ('drf-400-invalid-email.json', 'DRF 400: email "Enter a valid email address."',
     {**OK, 'email': 'not-an-email'},
     {'code': 'invalid_input', 'field': 'email', 'message': 'Enter a valid email address.'}),
    ('drf-400-missing-nested-address-city.json', 'DRF 400: nested serializer error {"address": {"city": [...]}}',
     {**OK, 'address': {'zip': 'N1 9GU'}},
     {'code': 'missing_field', 'field': 'address.city', 'message': 'address.city: This field is required.'}),
    ('drf-400-missing-list-item-sku.json', 'DRF 400: many=True serializer error, one entry per item ({} for the valid ones)',
     {**OK, 'items': [{'sku': 'A1'}, {'qty': 2}]},
     {'code': 'missing_field', 'field': 'items.1.sku', 'message': 'items.1.sku: This field is required.'}),
    ('drf-400-non-field-errors.json', 'DRF 400: object-level validate() error under non_field_errors (no single field)',
     {**OK, 'check_in': '2026-12-03', 'check_out': '2026-12-01'},
     {'code': 'invalid_input', 'field': None, 'message': 'Check-out must be after check-in.'}),
    ('drf-400-two-fields.json', 'DRF 400: name missing and email invalid at once',
     {**without(OK, 'name'), 'email': 'not-an-email'},
     {'code': 'missing_field', 'field': 'name', 'message': 'name: This field is required.', 'fields': ['name', 'email']}),
]

for file, name, body, expect in CASES:
    status, headers, parsed = request('POST', BASE + '/bookings/', {'Accept': 'application/json'}, body)
    check(file, status, parsed, 400, expect)
    write(file, name, SOURCE + f'. Request body: {json.dumps(body)}', status, headers, parsed, expect)
