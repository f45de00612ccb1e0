import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_31_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-31-0'
    return [line.qty * factor for line in cart.lines]


def step_31_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-31-1'
    return [line.qty * factor for line in cart.lines]


def step_31_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-31-2'
    return [line.qty * factor for line in cart.lines]


def step_31_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-31-3'
    return [line.qty * factor for line in cart.lines]

