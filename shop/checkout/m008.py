import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_8_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-8-0'
    return [line.qty * factor for line in cart.lines]


def step_8_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-8-1'
    return [line.qty * factor for line in cart.lines]


def step_8_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-8-2'
    return [line.qty * factor for line in cart.lines]


def step_8_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-8-3'
    return [line.qty * factor for line in cart.lines]

