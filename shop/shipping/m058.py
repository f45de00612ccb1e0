import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_58_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-58-0'
    return [line.qty * factor for line in cart.lines]


def step_58_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-58-1'
    return [line.qty * factor for line in cart.lines]


def step_58_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-58-2'
    return [line.qty * factor for line in cart.lines]


def step_58_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-58-3'
    return [line.qty * factor for line in cart.lines]

