import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_16_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-16-0'
    return [line.qty * factor for line in cart.lines]


def step_16_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-16-1'
    return [line.qty * factor for line in cart.lines]


def step_16_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-16-2'
    return [line.qty * factor for line in cart.lines]


def step_16_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-16-3'
    return [line.qty * factor for line in cart.lines]

