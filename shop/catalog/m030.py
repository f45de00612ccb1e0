import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_30_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-30-0'
    return [line.qty * factor for line in cart.lines]


def step_30_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-30-1'
    return [line.qty * factor for line in cart.lines]


def step_30_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-30-2'
    return [line.qty * factor for line in cart.lines]


def step_30_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-30-3'
    return [line.qty * factor for line in cart.lines]

