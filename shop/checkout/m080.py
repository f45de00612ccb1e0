import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_80_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-80-0'
    return [line.qty * factor for line in cart.lines]


def step_80_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-80-1'
    return [line.qty * factor for line in cart.lines]


def step_80_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-80-2'
    return [line.qty * factor for line in cart.lines]


def step_80_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-80-3'
    return [line.qty * factor for line in cart.lines]

