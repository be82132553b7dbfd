"""Rails 6.1 (Debian ruby-rails): POST JSON to the one-file app in config.ru served by WEBrick on
127.0.0.1:8302 and keep each 422 as a fixture. Expectations are written by hand. See ../README.md."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
from fixture import DATE, check, request, without, write  # noqa: E402

BASE = os.environ.get('RAILS_URL', 'http://127.0.0.1:8302')
RAILS = subprocess.run(['ruby', '-e', 'require "rails"; print Rails.version'], capture_output=True, text=True).stdout
DEB = subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'ruby-rails'], capture_output=True, text=True).stdout
COMMON = (f'Captured over real HTTP on {DATE}: Rails {RAILS} (Debian ruby-rails {DEB}), RAILS_ENV=production, api_only, '
          'served by `rackup -s webrick` from scripts/capture/rails/config.ru; ActiveModel validations '
          '(title presence; email presence + format URI::MailTo::EMAIL_REGEXP; price numericality greater_than 0), no database. ')
SCAFFOLD = COMMON + ('POST /articles, the create action of the Rails 6.1 API scaffold (railties scaffold_controller/templates/'
                     'api_controller.rb.tt): render json: @article.errors, status: :unprocessable_entity; '
                     'body is ActiveModel::Errors#as_json ({attribute: [messages]}). Docs: '
                     'https://guides.rubyonrails.org/v6.1/active_record_validations.html#working-with-validation-errors')
WRAPPED = COMMON + ('POST /api/articles: render json: { errors: @article.errors }, status: :unprocessable_entity. Docs: '
                    'https://guides.rubyonrails.org/v6.1/active_record_validations.html#working-with-validation-errors')

OK = {'title': 'Hello', 'email': 'ada@example.com', 'price': '9.99'}


CASES = [
    ('/articles', SCAFFOLD, 'rails-422-missing-title.json', 'Rails scaffold JSON 422: title can\'t be blank',
     without(OK, 'title'),
     {'code': 'missing_field', 'field': 'title', 'message': "title: can't be blank"}),
    ('/articles', SCAFFOLD, 'rails-422-invalid-price.json', 'Rails scaffold JSON 422: price is not a number',
     {**OK, 'price': 'abc'},
     {'code': 'invalid_input', 'field': 'price', 'message': 'price: is not a number'}),
    ('/articles', SCAFFOLD, 'rails-422-invalid-email.json', 'Rails scaffold JSON 422: email format is invalid',
     {**OK, 'email': 'not-an-email'},
     {'code': 'invalid_input', 'field': 'email', 'message': 'email: is invalid'}),
    ('/articles', SCAFFOLD, 'rails-422-missing-email-two-messages.json',
     'Rails scaffold JSON 422: email missing gives two messages on one field (presence and format)',
     without(OK, 'email'),
     {'code': 'missing_field', 'field': 'email', 'message': "email: can't be blank", 'fields': ['email', 'email']}),
    ('/articles', SCAFFOLD, 'rails-422-two-fields.json', 'Rails scaffold JSON 422: title missing and price not a number',
     {'price': 'abc', 'email': 'ada@example.com'},
     {'code': 'missing_field', 'field': 'title', 'message': "title: can't be blank", 'fields': ['title', 'price']}),
    ('/api/articles', WRAPPED, 'rails-422-errors-key-missing-title.json', 'Rails JSON 422 wrapped in errors: title can\'t be blank',
     without(OK, 'title'),
     {'code': 'missing_field', 'field': 'title', 'message': "title: can't be blank"}),
    ('/api/articles', WRAPPED, 'rails-422-errors-key-two-fields.json',
     'Rails JSON 422 wrapped in errors: title missing and price not a number',
     {'price': 'abc', 'email': 'ada@example.com'},
     {'code': 'missing_field', 'field': 'title', 'message': "title: can't be blank", 'fields': ['title', 'price']}),
]

for path, source, file, name, article, expect in CASES:
    body = {'article': article}
    status, headers, parsed = request('POST', BASE + path, {'Accept': 'application/json'}, body)
    check(file, status, parsed, 422, expect)
    write(file, name, source + f'. Request body: {json.dumps(body)}', status, headers, parsed, expect)
