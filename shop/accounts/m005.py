import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_5_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-5-0'
    return [line.qty * factor for line in cart.lines]


def step_5_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-5-1'
    return [line.qty * factor for line in cart.lines]


def step_5_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-5-2'
    return [line.qty * factor for line in cart.lines]


def step_5_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-5-3'
    return [line.qty * factor for line in cart.lines]

