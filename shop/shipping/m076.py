import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_76_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-76-0'
    return [line.qty * factor for line in cart.lines]


def step_76_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-76-1'
    return [line.qty * factor for line in cart.lines]


def step_76_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-76-2'
    return [line.qty * factor for line in cart.lines]


def step_76_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-76-3'
    return [line.qty * factor for line in cart.lines]

