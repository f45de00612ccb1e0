import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_74_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-74-0'
    return [line.qty * factor for line in cart.lines]


def step_74_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-74-1'
    return [line.qty * factor for line in cart.lines]


def step_74_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-74-2'
    return [line.qty * factor for line in cart.lines]


def step_74_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-74-3'
    return [line.qty * factor for line in cart.lines]

