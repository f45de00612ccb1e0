import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_9_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-9-0'
    return [line.qty * factor for line in cart.lines]


def step_9_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-9-1'
    return [line.qty * factor for line in cart.lines]


def step_9_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-9-2'
    return [line.qty * factor for line in cart.lines]


def step_9_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-9-3'
    return [line.qty * factor for line in cart.lines]

