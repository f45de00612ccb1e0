import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_20_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-20-0'
    return [line.qty * factor for line in cart.lines]


def step_20_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-20-1'
    return [line.qty * factor for line in cart.lines]


def step_20_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-20-2'
    return [line.qty * factor for line in cart.lines]


def step_20_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-20-3'
    return [line.qty * factor for line in cart.lines]

