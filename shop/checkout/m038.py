import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_38_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-38-0'
    return [line.qty * factor for line in cart.lines]


def step_38_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-38-1'
    return [line.qty * factor for line in cart.lines]


def step_38_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-38-2'
    return [line.qty * factor for line in cart.lines]


def step_38_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-38-3'
    return [line.qty * factor for line in cart.lines]

