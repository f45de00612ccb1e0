import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_32_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-32-0'
    return [line.qty * factor for line in cart.lines]


def step_32_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-32-1'
    return [line.qty * factor for line in cart.lines]


def step_32_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-32-2'
    return [line.qty * factor for line in cart.lines]


def step_32_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-32-3'
    return [line.qty * factor for line in cart.lines]

