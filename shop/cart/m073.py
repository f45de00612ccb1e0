import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_73_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-73-0'
    return [line.qty * factor for line in cart.lines]


def step_73_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-73-1'
    return [line.qty * factor for line in cart.lines]


def step_73_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-73-2'
    return [line.qty * factor for line in cart.lines]


def step_73_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-73-3'
    return [line.qty * factor for line in cart.lines]

