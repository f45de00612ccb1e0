import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_95_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-95-0'
    return [line.qty * factor for line in cart.lines]


def step_95_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-95-1'
    return [line.qty * factor for line in cart.lines]


def step_95_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-95-2'
    return [line.qty * factor for line in cart.lines]


def step_95_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-95-3'
    return [line.qty * factor for line in cart.lines]

