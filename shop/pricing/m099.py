import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_99_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-99-0'
    return [line.qty * factor for line in cart.lines]


def step_99_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-99-1'
    return [line.qty * factor for line in cart.lines]


def step_99_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-99-2'
    return [line.qty * factor for line in cart.lines]


def step_99_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-99-3'
    return [line.qty * factor for line in cart.lines]

