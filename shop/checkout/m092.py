import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_92_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-92-0'
    return [line.qty * factor for line in cart.lines]


def step_92_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-92-1'
    return [line.qty * factor for line in cart.lines]


def step_92_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-92-2'
    return [line.qty * factor for line in cart.lines]


def step_92_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-92-3'
    return [line.qty * factor for line in cart.lines]

