#!/usr/bin/python3
"""A one-file Django 3.2 + Django REST framework 3.14 project (Debian python3-django,
python3-djangorestframework) for scripts/capture/drf/capture.py.
Run: /usr/bin/python3 manage.py runserver 127.0.0.1:8303 --noreload"""

import sys

from django.conf import settings

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=['127.0.0.1', 'localhost'],
    SECRET_KEY='capture-only-not-secret',
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=['django.contrib.contenttypes', 'django.contrib.auth', 'rest_framework'],
    MIDDLEWARE=[
        'django.middleware.security.SecurityMiddleware',
        'django.middleware.common.CommonMiddleware',
        'django.middleware.clickjacking.XFrameOptionsMiddleware',
    ],
    DATABASES={},
    REST_FRAMEWORK={'UNAUTHENTICATED_USER': None},
    USE_TZ=True,
)

import django  # noqa: E402

django.setup()

from django.urls import path  # noqa: E402
from rest_framework import serializers  # noqa: E402
from rest_framework.response import Response  # noqa: E402
from rest_framework.views import APIView  # noqa: E402


class AddressSerializer(serializers.Serializer):
    city = serializers.CharField()
    zip = serializers.CharField(required=False)


class ItemSerializer(serializers.Serializer):
    sku = serializers.CharField()
    qty = serializers.IntegerField(min_value=1, required=False)


class BookingSerializer(serializers.Serializer):
    name = serializers.CharField()
    email = serializers.EmailField()
    address = AddressSerializer()
    items = ItemSerializer(many=True)
    check_in = serializers.DateField()
    check_out = serializers.DateField()

    def validate(self, data):
        # Object-level validation: raised from validate(), DRF reports it under non_field_errors.
        if data['check_out'] <= data['check_in']:
            raise serializers.ValidationError('Check-out must be after check-in.')
        return data


class BookingView(APIView):
    authentication_classes = []
    permission_classes = []

    def post(self, request):
        serializer = BookingSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.data, status=201)


urlpatterns = [path('bookings/', BookingView.as_view())]

if __name__ == '__main__':
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
