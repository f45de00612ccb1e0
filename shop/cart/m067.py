import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_67_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-67-0'
    return [line.qty * factor for line in cart.lines]


def step_67_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-67-1'
    return [line.qty * factor for line in cart.lines]


def step_67_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-67-2'
    return [line.qty * factor for line in cart.lines]


def step_67_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-67-3'
    return [line.qty * factor for line in cart.lines]


def restock(cart: Cart, sku: str, qty_text: str) -> Cart:
    qty = qty_text.strip()
    return add_line(cart, sku, qty, 250)

