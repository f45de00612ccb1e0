import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_22_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-22-0'
    return [line.qty * factor for line in cart.lines]


def step_22_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-22-1'
    return [line.qty * factor for line in cart.lines]


def step_22_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-22-2'
    return [line.qty * factor for line in cart.lines]


def step_22_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-22-3'
    return [line.qty * factor for line in cart.lines]

