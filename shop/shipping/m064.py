import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_64_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-64-0'
    return [line.qty * factor for line in cart.lines]


def step_64_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-64-1'
    return [line.qty * factor for line in cart.lines]


def step_64_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-64-2'
    return [line.qty * factor for line in cart.lines]


def step_64_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-64-3'
    return [line.qty * factor for line in cart.lines]

