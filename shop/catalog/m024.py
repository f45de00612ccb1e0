import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_24_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-24-0'
    return [line.qty * factor for line in cart.lines]


def step_24_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-24-1'
    return [line.qty * factor for line in cart.lines]


def step_24_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-24-2'
    return [line.qty * factor for line in cart.lines]


def step_24_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-24-3'
    return [line.qty * factor for line in cart.lines]

