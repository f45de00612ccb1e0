import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_68_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-68-0'
    return [line.qty * factor for line in cart.lines]


def step_68_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-68-1'
    return [line.qty * factor for line in cart.lines]


def step_68_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-68-2'
    return [line.qty * factor for line in cart.lines]


def step_68_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-68-3'
    return [line.qty * factor for line in cart.lines]

