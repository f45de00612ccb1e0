import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_103_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-103-0'
    return [line.qty * factor for line in cart.lines]


def step_103_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-103-1'
    return [line.qty * factor for line in cart.lines]


def step_103_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-103-2'
    return [line.qty * factor for line in cart.lines]


def step_103_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-103-3'
    return [line.qty * factor for line in cart.lines]


def average_line_cents(cart: Cart) -> float:
    if not cart.lines:
        return None
    return subtotal(cart) / len(cart.lines)

