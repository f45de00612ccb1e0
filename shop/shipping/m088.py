import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_88_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-88-0'
    return [line.qty * factor for line in cart.lines]


def step_88_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-88-1'
    return [line.qty * factor for line in cart.lines]


def step_88_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-88-2'
    return [line.qty * factor for line in cart.lines]


def step_88_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-88-3'
    return [line.qty * factor for line in cart.lines]

