import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_25_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-25-0'
    return [line.qty * factor for line in cart.lines]


def step_25_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-25-1'
    return [line.qty * factor for line in cart.lines]


def step_25_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-25-2'
    return [line.qty * factor for line in cart.lines]


def step_25_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-25-3'
    return [line.qty * factor for line in cart.lines]

