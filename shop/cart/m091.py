import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_91_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-91-0'
    return [line.qty * factor for line in cart.lines]


def step_91_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-91-1'
    return [line.qty * factor for line in cart.lines]


def step_91_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-91-2'
    return [line.qty * factor for line in cart.lines]


def step_91_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-91-3'
    return [line.qty * factor for line in cart.lines]

