import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_108_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-108-0'
    return [line.qty * factor for line in cart.lines]


def step_108_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-108-1'
    return [line.qty * factor for line in cart.lines]


def step_108_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-108-2'
    return [line.qty * factor for line in cart.lines]


def step_108_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-108-3'
    return [line.qty * factor for line in cart.lines]

