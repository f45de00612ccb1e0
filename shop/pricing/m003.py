import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_3_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-3-0'
    return [line.qty * factor for line in cart.lines]


def step_3_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-3-1'
    return [line.qty * factor for line in cart.lines]


def step_3_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-3-2'
    return [line.qty * factor for line in cart.lines]


def step_3_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-3-3'
    return [line.qty * factor for line in cart.lines]

