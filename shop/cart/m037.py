import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_37_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-37-0'
    return [line.qty * factor for line in cart.lines]


def step_37_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-37-1'
    return [line.qty * factor for line in cart.lines]


def step_37_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-37-2'
    return [line.qty * factor for line in cart.lines]


def step_37_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-37-3'
    return [line.qty * factor for line in cart.lines]

