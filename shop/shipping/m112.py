import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_112_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-112-0'
    return [line.qty * factor for line in cart.lines]


def step_112_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-112-1'
    return [line.qty * factor for line in cart.lines]


def step_112_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-112-2'
    return [line.qty * factor for line in cart.lines]


def step_112_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-112-3'
    return [line.qty * factor for line in cart.lines]

