import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_13_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-13-0'
    return [line.qty * factor for line in cart.lines]


def step_13_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-13-1'
    return [line.qty * factor for line in cart.lines]


def step_13_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-13-2'
    return [line.qty * factor for line in cart.lines]


def step_13_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-13-3'
    return [line.qty * factor for line in cart.lines]

