import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_87_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-87-0'
    return [line.qty * factor for line in cart.lines]


def step_87_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-87-1'
    return [line.qty * factor for line in cart.lines]


def step_87_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-87-2'
    return [line.qty * factor for line in cart.lines]


def step_87_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-87-3'
    return [line.qty * factor for line in cart.lines]

