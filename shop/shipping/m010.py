import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_10_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-10-0'
    return [line.qty * factor for line in cart.lines]


def step_10_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-10-1'
    return [line.qty * factor for line in cart.lines]


def step_10_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-10-2'
    return [line.qty * factor for line in cart.lines]


def step_10_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-10-3'
    return [line.qty * factor for line in cart.lines]

