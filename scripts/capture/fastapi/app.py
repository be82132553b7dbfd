"""A small FastAPI app (Debian python3-fastapi, python3-pydantic, python3-uvicorn) for
scripts/capture/fastapi/capture.py. Run: /usr/bin/python3 -m uvicorn app:app --host 127.0.0.1 --port 8304"""

from typing import List

from fastapi import FastAPI
from pydantic import BaseModel

app = FastAPI()


class Address(BaseModel):
    city: str
    zip: str = ''


class Item(BaseModel):
    sku: str
    qty: int = 1


class Order(BaseModel):
    name: str
    email: str
    qty: int
    address: Address
    items: List[Item]


@app.post('/orders', status_code=201)
def create_order(order: Order):
    return order


@app.get('/items')
def list_items(limit: int = 10):
    return {'limit': limit, 'items': []}
